// TS.DEL between active-active peers (docs/active-active.md, "Range deletes of a series"),
// against spawned ebb-servers: a range delete meets concurrent and late adds into its range in
// either order of arrival (an add stamped at or before the delete goes everywhere, one after it
// stays, SUM counting only what survives), travels in a snapshot to a late peer and across a
// restart, lets a re-add after it survive, removes what it covers of a series an expiry register
// expired on the receiver, and leaves every node with the same TS.RANGE and DEBUG
// DIGEST-LOGICAL; so does a node given every delta twice in a random order. Every wait is a
// bounded poll.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "tests/support/active_active_mesh.h"
#include "tests/support/active_active_support.h"
#include "tests/support/eventually.h"
#include "tests/support/test_constants.h"
#include "tests/support/test_seed.h"
#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

class ActiveActiveSeriesDelTest : public ActiveActiveMeshTest {
 protected:
  // Every node of `nodes` answers TS.RANGE of `key` as `want`.
  static void ExpectRange(const std::vector<redisContext*>& nodes, const std::string& key,
                          const std::string& want) {
    for (size_t i = 0; i < nodes.size(); i++) {
      EXPECT_EQ(SeriesRange(nodes[i], key), want) << key << " on node " << i;
    }
  }
  // A node given every delta of the mesh's logs twice, in a seeded random order, answers
  // `key`'s range and the digest as node 0 does.
  void ExpectReferenceAgrees(const std::vector<std::string>& keys, int nodes) {
    const std::vector<LoggedDelta> all = EveryLoggedDeltaShuffled(11, nodes);
    std::vector<LoggedDelta> twice = all;
    twice.insert(twice.end(), all.begin(), all.end());
    std::mt19937_64 rng(TestSeed(12));
    std::shuffle(twice.begin(), twice.end(), rng);  // each delta's two copies apart
    RedisConnection ref = StartReference();
    ASSERT_TRUE(ref);
    ApplyInOrder(ref.get(), twice);
    for (const std::string& key : keys)
      EXPECT_EQ(SeriesRange(ref.get(), key), SeriesRange(c_[0].get(), key));
    EXPECT_EQ(LogicalDigest(ref.get()), LogicalDigest(c_[0].get()));
  }
};

std::string Sample(int64_t ts, const std::string& value) {
  return std::to_string(ts) + "=" + value;
}

// n0 and n1 cut apart. n0 (clock kPinnedNowMs + 10) runs TS.DEL s 150 250: its marker is stamped
// kPinnedNowMs + 10. n1 meanwhile adds at 180 with its clock at kPinnedNowMs + 5 (before the
// delete: gone everywhere), then with its clock at kPinnedNowMs + 20 at 220 and at 200, a SUM
// sample n0's delete removed (after it: they stay, 200 counting n1's contribution alone). n0
// receives the adds after its delete, n1 the delete after its adds; both end alike, and so does a
// node given every delta twice in a random order. The origin answers RedisTimeSeries' replies and
// errors.
TEST_F(ActiveActiveSeriesDelTest, ARangeDeleteMeetsConcurrentAddsInEitherOrder) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(2));
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATE", "s", "DUPLICATE_POLICY", "SUM"}).str(), "OK");
  for (const char* ts : {"100", "200", "300"}) {
    ASSERT_EQ(Cmd(c_[0].get(), {"TS.ADD", "s", ts, "2"}).integer(), std::stoll(ts));
  }
  // n1 adds to the series it holds: an add arriving before the TS.CREATE would make its own
  // series, under the default policy.
  ASSERT_EQ(WaitConverged(Conns()), "");
  ASSERT_EQ(Cmd(c_[1].get(), {"TS.ADD", "s", "300", "1"}).integer(), 300);  // SUM: 3
  ASSERT_EQ(WaitConverged(Conns()), "");
  SetLink(c_[0].get(), n_[0], c_[1].get(), n_[1], false);
  SetClock(0, kPinnedNowMs + 10);
  EXPECT_EQ(Cmd(c_[0].get(), {"TS.DEL", "s", "150", "250"}).integer(), 1);
  EXPECT_EQ(SeriesRange(c_[0].get(), "s"), Sample(100, "2") + " " + Sample(300, "3"));
  SetClock(1, kPinnedNowMs + 5);
  ASSERT_EQ(Cmd(c_[1].get(), {"TS.ADD", "s", "180", "7"}).integer(), 180);
  SetClock(1, kPinnedNowMs + 20);
  ASSERT_EQ(Cmd(c_[1].get(), {"TS.ADD", "s", "220", "8"}).integer(), 220);
  ASSERT_EQ(Cmd(c_[1].get(), {"TS.ADD", "s", "200", "5"}).integer(), 200);
  const Reply at200 = Cmd(c_[1].get(), {"TS.RANGE", "s", "200", "200"});
  ASSERT_EQ(at200.size(), 1u) << at200.ToString();
  EXPECT_EQ(at200.elements()[0].elements()[1].str(), "7");  // n1 still holds n0's 2
  SetLink(c_[0].get(), n_[0], c_[1].get(), n_[1], true);
  ASSERT_EQ(WaitConverged(Conns()), "");
  const std::string want =
      Sample(100, "2") + " " + Sample(200, "5") + " " + Sample(220, "8") + " " + Sample(300, "3");
  ExpectRange(Conns(), "s", want);

  // The origin's replies and errors are RedisTimeSeries' (nothing logged for them).
  EXPECT_EQ(Cmd(c_[0].get(), {"TS.DEL", "nosuch", "0", "5"}).str(),
            "ERR TSDB: the key does not exist");
  ASSERT_EQ(Cmd(c_[0].get(), {"SET", "str", "x"}).str(), "OK");
  EXPECT_EQ(Cmd(c_[0].get(), {"TS.DEL", "str", "0", "5"}).str().substr(0, 9), "WRONGTYPE");
  EXPECT_EQ(Cmd(c_[0].get(), {"TS.DEL", "s", "x", "5"}).str(), "ERR TSDB: wrong fromTimestamp");
  EXPECT_EQ(Cmd(c_[0].get(), {"TS.DEL", "s", "0", "-3"}).str(), "ERR TSDB: wrong toTimestamp");
  EXPECT_EQ(Cmd(c_[0].get(), {"TS.DEL", "s", "0"}).str(),
            "ERR wrong number of arguments for 'ts.del' command");
  EXPECT_EQ(Cmd(c_[0].get(), {"TS.DEL", "s", "400", "500"}).integer(), 0);
  EXPECT_EQ(Cmd(c_[0].get(), {"TS.DEL", "s", "300", "100"}).integer(), 0);
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectRange(Conns(), "s", want);
  ExpectReferenceAgrees({"s"}, 2);
}

// A delete on n0 covers an add n2 made before it, cut off, which reaches the others only after
// n1 restarted and a late peer joined through snapshots (every log has moved past offset 1): the
// restarted node and the late peer keep the marker and drop the add as the rest do.
TEST_F(ActiveActiveSeriesDelTest, SnapshotsAndRestartsCarryTheMarker) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(3, {"--peer-backlog-size", "4"}));
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATE", "s", "DUPLICATE_POLICY", "LAST"}).str(), "OK");
  for (int ts = 10; ts <= 50; ts += 10) {
    ASSERT_EQ(Cmd(c_[0].get(), {"TS.ADD", "s", std::to_string(ts), std::to_string(ts)}).integer(),
              ts);
  }
  ASSERT_EQ(WaitConverged(Conns()), "");
  SetLink(c_[2].get(), n_[2], c_[0].get(), n_[0], false);
  SetLink(c_[2].get(), n_[2], c_[1].get(), n_[1], false);
  ASSERT_EQ(Cmd(c_[2].get(), {"TS.ADD", "s", "25", "99"}).integer(), 25);  // stamped kPinnedNowMs
  ASSERT_EQ(Cmd(c_[2].get(), {"TS.ADD", "s", "30", "98"}).integer(), 30);
  SetClock(0, kPinnedNowMs + 100);
  EXPECT_EQ(Cmd(c_[0].get(), {"TS.DEL", "s", "20", "40"}).integer(), 3);
  for (int i = 0; i < 6; i++) {
    ASSERT_EQ(Cmd(c_[0].get(), {"TS.ADD", "pad", std::to_string(i + 1), "1"}).integer(), i + 1);
    ASSERT_EQ(Cmd(c_[1].get(), {"TS.ADD", "pad1", std::to_string(i + 1), "1"}).integer(), i + 1);
  }
  ASSERT_EQ(WaitConverged({c_[0].get(), c_[1].get()}), "");
  ASSERT_EQ(n_[1].Stop(), 0) << n_[1].ReadLog();
  ASSERT_TRUE(n_[1].Start(args_[1])) << n_[1].error();
  c_[1] = n_[1].Connect();
  SetClock(1, kPinnedNowMs + 100);
  ASSERT_TRUE(late_.Start(PeerArgs({&n_[0], &n_[1]}))) << late_.error();
  RedisConnection late = late_.Connect();
  ASSERT_EQ(WaitConverged({c_[0].get(), c_[1].get(), late.get()}), "");
  EXPECT_GT(SnapshotsSent(), 0);
  const std::string want = Sample(10, "10") + " " + Sample(50, "50");
  ExpectRange({c_[0].get(), c_[1].get(), late.get()}, "s", want);
  // n2's adds, made before the delete, arrive last: gone on every node.
  SetLink(c_[2].get(), n_[2], c_[0].get(), n_[0], true);
  SetLink(c_[2].get(), n_[2], c_[1].get(), n_[1], true);
  ASSERT_EQ(Cmd(late.get(), {"PEER", "ADD", "127.0.0.1", std::to_string(n_[2].port())}).str(),
            "OK");
  ASSERT_EQ(WaitConverged({c_[0].get(), c_[1].get(), c_[2].get(), late.get()}), "");
  ExpectRange({c_[0].get(), c_[1].get(), c_[2].get(), late.get()}, "s", want);
}

// A re-add into a deleted range survives everywhere (its origin stamps it after the marker, also
// with its clock unmoved); a peer's add there after the delete reached it too. A whole-key DEL
// then removes the series and a later add lives everywhere.
TEST_F(ActiveActiveSeriesDelTest, AReAddAfterTheDeleteSurvives) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(2));
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.ADD", "s", "100", "1"}).integer(), 100);
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.ADD", "s", "200", "1"}).integer(), 200);
  ASSERT_EQ(WaitConverged(Conns()), "");
  SetClock(0, kPinnedNowMs + 50);
  EXPECT_EQ(Cmd(c_[0].get(), {"TS.DEL", "s", "-", "+"}).integer(), 2);
  SetClock(0, kPinnedNowMs);  // the clock steps back: the re-add is still stamped after the delete
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.ADD", "s", "100", "2"}).integer(), 100);
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectRange(Conns(), "s", Sample(100, "2"));
  ASSERT_EQ(Cmd(c_[1].get(), {"TS.ADD", "s", "200", "3"}).integer(), 200);
  ASSERT_EQ(Cmd(c_[1].get(), {"TS.ADD", "s", "100", "4", "ON_DUPLICATE", "LAST"}).integer(), 100);
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectRange(Conns(), "s", Sample(100, "4") + " " + Sample(200, "3"));
  ASSERT_EQ(Cmd(c_[1].get(), {"DEL", "s"}).integer(), 1);
  ASSERT_EQ(WaitConverged(Conns()), "");
  for (auto& c : c_) EXPECT_EQ(Cmd(c.get(), {"EXISTS", "s"}).integer(), 0);
  const std::string later = std::to_string(kPinnedNowMs + 1000);
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.ADD", "s", later, "5"}).integer(), kPinnedNowMs + 1000);
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectRange(Conns(), "s", Sample(kPinnedNowMs + 1000, "5"));
  ExpectReferenceAgrees({"s"}, 2);
}

// A range delete reaching a node where the series' expiry register has expired it whole removes
// the records it covers there too: cut apart, n1 expires `s` and its clock passes the expiry
// while n0, whose clock is behind it, deletes s's sample. After the heal a PERSIST from n0 brings
// `s` back on both nodes without the sample (before, n1 had kept the sample's record and showed
// it again).
TEST_F(ActiveActiveSeriesDelTest, ARangeDeleteReachesASeriesItsRegisterExpired) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(2));
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.ADD", "s", "100", "1"}).integer(), 100);
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.ADD", "s", "300", "2"}).integer(), 300);
  ASSERT_EQ(WaitConverged(Conns()), "");
  Partition(true);
  ASSERT_EQ(Cmd(c_[1].get(), {"PEXPIREAT", "s", std::to_string(kPinnedNowMs + 1000)}).integer(), 1);
  SetClock(1, kPinnedNowMs + 2000);
  ASSERT_EQ(Cmd(c_[1].get(), {"EXISTS", "s"}).integer(), 0);
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.DEL", "s", "0", "200"}).integer(), 1);
  Partition(false);
  ASSERT_TRUE(Eventually([&] {
    return Cmd(c_[0].get(), {"PTTL", "s"}).integer() > 0;
  })) << "n0 never got n1's expiry register";
  ASSERT_EQ(Cmd(c_[0].get(), {"PERSIST", "s"}).integer(), 1);
  SetClock(0, kPinnedNowMs + 2000);
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectRange(Conns(), "s", Sample(300, "2"));
}

// A `ts-delrange` delta out of shape is skipped, changing nothing; one reaching a key of another
// type is kept without touching it, and one reaching a key that holds nothing makes a later add
// into its range on this node stamped after it, so that add lives.
TEST_F(ActiveActiveSeriesDelTest, HostileAndEarlyMarkersChangeNothingElse) {
  RedisConnection c = StartReference();
  ASSERT_TRUE(c);
  ASSERT_EQ(Cmd(c.get(), {"DEBUG", "CLOCK", "SET", std::to_string(kPinnedNowMs)}).str(), "OK");
  ASSERT_EQ(Cmd(c.get(), {"TS.ADD", "s", "10", "1"}).integer(), 10);
  const std::string digest = LogicalDigest(c.get());
  const std::string far = std::to_string(kPinnedNowMs + 1000);
  for (const std::vector<std::string>& bad : std::vector<std::vector<std::string>>{
           {"ts-delrange", "s"},
           {"ts-delrange", "s", "0", "20", far},
           {"ts-delrange", "s", "0", "20", far, "o", "1"},
           {"ts-delrange", "s", "20", "0", far, "o"},
           {"ts-delrange", "s", "-1", "20", far, "o"},
           {"ts-delrange", "s", "0", "x", far, "o"},
           {"ts-delrange", "s", "0", "20", "-5", "o"},
           {"ts-delrange", "s", "0", "20", "99999999999999999999", "o"},
       }) {
    std::vector<std::string> cmd = {"DEBUG", "PEER-APPLY", "peer", "0"};
    cmd.insert(cmd.end(), bad.begin(), bad.end());
    EXPECT_EQ(Cmd(c.get(), cmd).str(), "ERR the delta was not applied (the server log says why)")
        << bad.size();
  }
  EXPECT_EQ(LogicalDigest(c.get()), digest);
  EXPECT_EQ(SeriesRange(c.get(), "s"), Sample(10, "1"));
  // Another type: kept, the string untouched.
  ASSERT_EQ(Cmd(c.get(), {"SET", "str", "x"}).str(), "OK");
  EXPECT_EQ(
      Cmd(c.get(), {"DEBUG", "PEER-APPLY", "peer", "0", "ts-delrange", "str", "0", "20", far, "o"})
          .str(),
      "OK");
  EXPECT_EQ(Cmd(c.get(), {"GET", "str"}).str(), "x");
  // A key that holds nothing yet: the add into the range is stamped after the marker and lives;
  // applying the marker again changes nothing.
  const std::vector<std::string> early = {"DEBUG", "PEER-APPLY", "peer", "0", "ts-delrange",
                                          "e",     "0",          "100",  far, "o"};
  ASSERT_EQ(Cmd(c.get(), early).str(), "OK");
  ASSERT_EQ(Cmd(c.get(), {"TS.ADD", "e", "50", "3"}).integer(), 50);
  ASSERT_EQ(Cmd(c.get(), early).str(), "OK");
  EXPECT_EQ(SeriesRange(c.get(), "e"), Sample(50, "3"));
  // A marker after the add on this node's series at the same range, stamped before it: the add
  // stays; stamped after it: the add goes, and TS.DEL then finds nothing.
  ASSERT_EQ(
      Cmd(c.get(), {"DEBUG", "PEER-APPLY", "peer", "0", "ts-delrange", "e", "0", "100", far, "p"})
          .str(),
      "OK");
  EXPECT_EQ(SeriesRange(c.get(), "e"), Sample(50, "3"));
  ASSERT_EQ(Cmd(c.get(), {"DEBUG", "PEER-APPLY", "peer", "0", "ts-delrange", "e", "40", "60",
                          std::to_string(kPinnedNowMs + 5000), "p"})
                .str(),
            "OK");
  EXPECT_EQ(SeriesRange(c.get(), "e"), "");
  EXPECT_EQ(Cmd(c.get(), {"TS.DEL", "e", "-", "+"}).integer(), 0);
}

}  // namespace
}  // namespace ebb::test
