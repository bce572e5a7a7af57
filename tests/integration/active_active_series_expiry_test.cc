// Expiry changes of a time series between active-active peers (docs/active-active.md, "Expiry
// changes", "Time series"), against spawned ebb-servers: the key's expiry register applies to the
// samples at or before its T, those held when it arrives and those arriving later; samples after
// T keep living. An EXPIRE on one node meets adds before and after T on a node cut off from it:
// after the heal every node answers alike (TS.RANGE, PTTL, DEBUG DIGEST-LOGICAL), also a node
// given every delta in either order; once the expiry passes, a series holding nothing after T is
// gone and one that does shows its later samples only. A PERSIST from a node whose clock is
// behind brings the samples back everywhere; settings written before the expiry keep the TTL and
// a TS.CREATE after it makes an empty series; a new EXPIRE cuts what the old register hid; the
// hidden samples are purged half the purge deadline after the expiry, not before; a
// restart and a snapshot to a late peer carry the register; malformed register deltas change
// nothing. Every wait is a bounded poll.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "tests/support/active_active_mesh.h"
#include "tests/support/active_active_support.h"
#include "tests/support/eventually.h"
#include "tests/support/test_constants.h"
#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

const std::string kExpireAt = std::to_string(kPinnedNowMs + 1000);

// Samples (ts, value) as SeriesRange answers them.
std::string SeriesRangeText(const std::vector<std::pair<int64_t, int>>& samples) {
  std::string out;
  for (const auto& [ts, value] : samples) {
    out += (out.empty() ? "" : " ") + std::to_string(ts) + "=" + std::to_string(value);
  }
  return out;
}

class ActiveActiveSeriesExpiryTest : public ActiveActiveMeshTest {
 protected:
  void SetClocks(int64_t ms) {
    for (size_t i = 0; i < c_.size(); i++) SetClock(static_cast<int>(i), ms);
  }
  // On every node of `nodes`: TS.RANGE of `key` is `range` and PTTL is `pttl`.
  static void ExpectEverywhere(const std::vector<redisContext*>& nodes, const std::string& key,
                               const std::string& range, int64_t pttl) {
    for (size_t i = 0; i < nodes.size(); i++) {
      EXPECT_EQ(SeriesRange(nodes[i], key), range) << key << " on node " << i;
      EXPECT_EQ(Cmd(nodes[i], {"PTTL", key}).integer(), pttl) << key << " on node " << i;
    }
  }
  // Both nodes hold `a` and `b` = (kPinnedNowMs - 100, 1); cut apart, n0 expires both at kExpireAt
  // (T = kPinnedNowMs, the clock: after the newest sample and the settings register's stamp) while
  // n1 adds (kPinnedNowMs - 50, 2) to both and (kPinnedNowMs + 10, 3) to `b`.
  void ConcurrentExpireAndAdds() {
    StartMesh(2);
    for (const char* key : {"a", "b"}) {
      ASSERT_EQ(
          Cmd(c_[0].get(), {"TS.ADD", key, std::to_string(kPinnedNowMs - 100), "1"}).integer(),
          kPinnedNowMs - 100);
    }
    ASSERT_EQ(WaitConverged(Conns()), "");
    Partition(true);
    for (const char* key : {"a", "b"}) {
      ASSERT_EQ(Cmd(c_[0].get(), {"PEXPIREAT", key, kExpireAt}).integer(), 1);
      ASSERT_EQ(Cmd(c_[1].get(), {"TS.ADD", key, std::to_string(kPinnedNowMs - 50), "2"}).integer(),
                kPinnedNowMs - 50);
    }
    ASSERT_EQ(Cmd(c_[1].get(), {"TS.ADD", "b", std::to_string(kPinnedNowMs + 10), "3"}).integer(),
              kPinnedNowMs + 10);
    // On the origin the series it saw expires whole, as EXPIRE does outside the mode.
    EXPECT_EQ(Cmd(c_[0].get(), {"PEXPIRETIME", "b"}).integer(), kPinnedNowMs + 1000);
  }
};

TEST_F(ActiveActiveSeriesExpiryTest, ConcurrentExpireAndAddsConvergeInEitherOrder) {
  ConcurrentExpireAndAdds();
  Partition(false);
  ASSERT_EQ(WaitConverged(Conns()), "");
  const std::string all_a = SeriesRangeText({{kPinnedNowMs - 100, 1}, {kPinnedNowMs - 50, 2}});
  const std::string all_b =
      SeriesRangeText({{kPinnedNowMs - 100, 1}, {kPinnedNowMs - 50, 2}, {kPinnedNowMs + 10, 3}});
  // `a` holds nothing after T: it expires whole. `b` holds a sample after T: no expiry.
  ExpectEverywhere(Conns(), "a", all_a, 1000);
  ExpectEverywhere(Conns(), "b", all_b, -1);
  EXPECT_EQ(Cmd(c_[1].get(), {"EXPIRETIME", "a"}).integer(), (kPinnedNowMs + 1000) / 1000);
  EXPECT_EQ(Cmd(c_[1].get(), {"TTL", "a"}).integer(), 1);

  // Every delta of both logs given to two fresh nodes, one in each order.
  std::vector<LoggedDelta> expire_first = ReadOriginLog(n_[0]);
  std::vector<LoggedDelta> adds = ReadOriginLog(n_[1]);
  std::vector<LoggedDelta> adds_first = adds;
  adds_first.insert(adds_first.end(), expire_first.begin(), expire_first.end());
  expire_first.insert(expire_first.end(), adds.begin(), adds.end());
  RedisConnection ref = StartReference();
  ASSERT_TRUE(ref);
  ASSERT_TRUE(late_.Start(no_peer_.PeerArgs())) << late_.error();
  RedisConnection other = late_.Connect();
  for (redisContext* c : {ref.get(), other.get()}) {
    ASSERT_EQ(Cmd(c, {"DEBUG", "CLOCK", "SET", std::to_string(kPinnedNowMs)}).str(), "OK");
  }
  ApplyInOrder(ref.get(), expire_first);
  ApplyInOrder(other.get(), adds_first);
  const std::vector<redisContext*> four = {c_[0].get(), c_[1].get(), ref.get(), other.get()};
  EXPECT_EQ(WaitConverged(four), "");
  ExpectEverywhere(four, "a", all_a, 1000);
  ExpectEverywhere(four, "b", all_b, -1);

  // Once the expiry passes, on every node at the same clock: `a` is gone, `b` shows the sample
  // after T only, and TS.INFO counts it alone.
  SetClocks(kPinnedNowMs + 1000);
  for (redisContext* c : {ref.get(), other.get()}) {
    ASSERT_EQ(Cmd(c, {"DEBUG", "CLOCK", "SET", std::to_string(kPinnedNowMs + 1000)}).str(), "OK");
  }
  EXPECT_EQ(WaitConverged(four), "");
  for (redisContext* c : four) {
    EXPECT_EQ(Cmd(c, {"EXISTS", "a"}).integer(), 0);
    EXPECT_EQ(Cmd(c, {"TYPE", "a"}).str(), "none");
    EXPECT_EQ(Cmd(c, {"TS.INFO", "a"}).str(), "ERR TSDB: the key does not exist");
    EXPECT_EQ(SeriesRange(c, "b"), SeriesRangeText({{kPinnedNowMs + 10, 3}}));
    const Reply get = Cmd(c, {"TS.GET", "b"});
    ASSERT_EQ(get.size(), 2u) << get.ToString();
    EXPECT_EQ(get.elements()[0].integer(), kPinnedNowMs + 10);
    const Reply info = Cmd(c, {"TS.INFO", "b"});
    ASSERT_TRUE(info.is_array()) << info.ToString();
    int checked = 0;
    for (size_t i = 0; i + 1 < info.size(); i += 2) {
      const std::string field = info.elements()[i].str();
      if (field == "totalSamples") {
        EXPECT_EQ(info.elements()[i + 1].integer(), 1);
        checked++;
      } else if (field == "firstTimestamp") {
        EXPECT_EQ(info.elements()[i + 1].integer(), kPinnedNowMs + 10);
        checked++;
      }
    }
    EXPECT_EQ(checked, 2) << info.ToString();
  }
  // A write continues the expired series: a sample after T brings `a` back with it alone.
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.ADD", "a", std::to_string(kPinnedNowMs + 20), "4"}).integer(),
            kPinnedNowMs + 20);
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectEverywhere(Conns(), "a", SeriesRangeText({{kPinnedNowMs + 20, 4}}), -1);
}

// A PERSIST from a node whose clock is still before the expiry is a later register: it brings
// back, on every node, the samples the first register hid — also on the node whose clock had
// passed the expiry and on which `a` was gone.
TEST_F(ActiveActiveSeriesExpiryTest, APersistFromANodeBehindBringsTheSamplesBack) {
  ConcurrentExpireAndAdds();
  Partition(false);
  ASSERT_EQ(WaitConverged(Conns()), "");
  SetClock(0, kPinnedNowMs + 2000);
  SetClock(1, kPinnedNowMs + 500);
  EXPECT_EQ(Cmd(c_[0].get(), {"EXISTS", "a"}).integer(), 0);
  EXPECT_EQ(SeriesRange(c_[0].get(), "b"), SeriesRangeText({{kPinnedNowMs + 10, 3}}));
  Partition(true);
  ASSERT_EQ(Cmd(c_[1].get(), {"PERSIST", "a"}).integer(), 1);
  ASSERT_EQ(Cmd(c_[1].get(), {"PERSIST", "a"}).integer(), 0);
  // `b` has no expiry of its own (it holds a sample after T): PERSIST answers 0, as in Redis; a
  // later EXPIRE still applies to it.
  ASSERT_EQ(Cmd(c_[1].get(), {"PERSIST", "b"}).integer(), 0);
  ASSERT_EQ(Cmd(c_[1].get(), {"PEXPIREAT", "b", std::to_string(kPinnedNowMs + 5000)}).integer(), 1);
  Partition(false);
  SetClocks(kPinnedNowMs + 2000);
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectEverywhere(Conns(), "a", SeriesRangeText({{kPinnedNowMs - 100, 1}, {kPinnedNowMs - 50, 2}}),
                   -1);
  ExpectEverywhere(
      Conns(), "b",
      SeriesRangeText({{kPinnedNowMs - 100, 1}, {kPinnedNowMs - 50, 2}, {kPinnedNowMs + 10, 3}}),
      3000);
  SetClocks(kPinnedNowMs + 5000);
  ASSERT_EQ(WaitConverged(Conns()), "");
  for (auto& c : c_) EXPECT_EQ(Cmd(c.get(), {"EXISTS", "b"}).integer(), 0);
}

// Settings written before the expiry keep the key's TTL, as outside the mode; a TS.CREATE once
// the series has expired makes the key an empty series again on every node (its settings
// register is stamped after the expiry), the old samples staying hidden.
TEST_F(ActiveActiveSeriesExpiryTest, SettingsBeforeTheExpiryKeepItAndACreateAfterItRevives) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(2));
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.ADD", "s", std::to_string(kPinnedNowMs - 10), "1"}).integer(),
            kPinnedNowMs - 10);
  ASSERT_EQ(Cmd(c_[0].get(), {"PEXPIREAT", "s", kExpireAt}).integer(), 1);
  SetClock(1, kPinnedNowMs + 5);
  ASSERT_EQ(WaitConverged(Conns()), "");
  ASSERT_EQ(Cmd(c_[1].get(), {"TS.ALTER", "s", "LABELS", "room", "k"}).str(), "OK");
  ASSERT_EQ(WaitConverged(Conns()), "");
  for (auto& c : c_) EXPECT_EQ(Cmd(c.get(), {"PEXPIRETIME", "s"}).integer(), kPinnedNowMs + 1000);
  SetClocks(kPinnedNowMs + 1000);
  for (auto& c : c_)
    EXPECT_EQ(Cmd(c.get(), {"TS.INFO", "s"}).str(), "ERR TSDB: the key does not exist");
  ASSERT_EQ(Cmd(c_[1].get(), {"TS.CREATE", "s"}).str(), "OK");
  ASSERT_EQ(WaitConverged(Conns()), "");
  for (auto& c : c_) {
    EXPECT_EQ(Cmd(c.get(), {"TYPE", "s"}).str(), "TSDB-TYPE");
    EXPECT_EQ(Cmd(c.get(), {"PTTL", "s"}).integer(), -1);
    EXPECT_EQ(SeriesRange(c.get(), "s"), "");
    EXPECT_EQ(Cmd(c.get(), {"TS.GET", "s"}).size(), 0u);
  }
  // The new series has no TTL (PERSIST answers 0 and changes nothing); a later sample shows alone.
  ASSERT_EQ(Cmd(c_[0].get(), {"PERSIST", "s"}).integer(), 0);
  ASSERT_EQ(Cmd(c_[1].get(), {"TS.ADD", "s", std::to_string(kPinnedNowMs + 20), "2"}).integer(),
            kPinnedNowMs + 20);
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectEverywhere(Conns(), "s", SeriesRangeText({{kPinnedNowMs + 20, 2}}), -1);
}

// A new EXPIRE of a series whose register hides samples on its origin cuts them first (a delete
// at the old register's T, in the same delta): the client saw the series without them, and the
// new register, whose expiry lies ahead, would otherwise show them again on every node. A sample
// at or before the cut is refused on the origin while no collect covers the cut (the link is cut,
// so none can), as after a DEL.
TEST_F(ActiveActiveSeriesExpiryTest, ANewExpireCutsWhatTheOldRegisterHid) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(2));
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.ADD", "s", std::to_string(kPinnedNowMs - 10), "1"}).integer(),
            kPinnedNowMs - 10);
  ASSERT_EQ(Cmd(c_[0].get(), {"PEXPIREAT", "s", kExpireAt}).integer(), 1);
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.ADD", "s", std::to_string(kPinnedNowMs + 10), "2"}).integer(),
            kPinnedNowMs + 10);
  ASSERT_EQ(WaitConverged(Conns()), "");
  SetClocks(kPinnedNowMs + 1000);
  EXPECT_EQ(SeriesRange(c_[0].get(), "s"), SeriesRangeText({{kPinnedNowMs + 10, 2}}));
  Partition(true);
  ASSERT_EQ(Cmd(c_[0].get(), {"PEXPIRE", "s", "100000"}).integer(), 1);
  EXPECT_EQ(SeriesRange(c_[0].get(), "s"), SeriesRangeText({{kPinnedNowMs + 10, 2}}));
  EXPECT_EQ(Cmd(c_[0].get(), {"TS.ADD", "s", std::to_string(kPinnedNowMs - 5), "3"}).str(),
            "ERR the sample's timestamp is at or before a delete of the key in active-active mode");
  Partition(false);
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectEverywhere(Conns(), "s", SeriesRangeText({{kPinnedNowMs + 10, 2}}), 100000);
}

// With expiry-purge-deadline 4 s: the samples the register hides stay stored whole for half the
// deadline after its expiry (a DEBUG COMPACT before that drops none, so a later register could
// still bring them back), then each node's compaction purges them; the sample after T stays.
TEST_F(ActiveActiveSeriesExpiryTest, HiddenSamplesArePurgedHalfTheDeadlineAfterTheExpiry) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(2, {"--expiry-purge-deadline", "4s"}));
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATE", "s"}).str(), "OK");
  std::vector<std::string> madd = {"TS.MADD"};
  for (int64_t ts = kPinnedNowMs - 20; ts < kPinnedNowMs; ts++)
    madd.insert(madd.end(), {"s", std::to_string(ts), "1"});
  ASSERT_EQ(Cmd(c_[0].get(), madd).size(), 20u);
  ASSERT_EQ(Cmd(c_[0].get(), {"PEXPIREAT", "s", kExpireAt}).integer(), 1);
  ASSERT_EQ(Cmd(c_[1].get(), {"TS.ADD", "s", std::to_string(kPinnedNowMs + 10), "2"}).integer(),
            kPinnedNowMs + 10);
  ASSERT_EQ(WaitConverged(Conns()), "");
  // TS.INFO DEBUG's chunks: the samples stored, hidden ones included.
  auto stored = [&](int i) {
    const Reply info = Cmd(c_[i].get(), {"TS.INFO", "s", "DEBUG"});
    long long count = 0;
    for (const Reply& chunk : info[27].elements()) count += chunk[5].integer();
    return count;
  };
  SetClocks(kPinnedNowMs + 1000 + 1500);  // the expiry passed, half the deadline (2 s) not yet
  for (int i = 0; i < 2; i++) {
    EXPECT_EQ(SeriesRange(c_[i].get(), "s"), SeriesRangeText({{kPinnedNowMs + 10, 2}}));
    ASSERT_EQ(Cmd(c_[i].get(), {"DEBUG", "COMPACT"}).str(), "OK");
    EXPECT_EQ(stored(i), 21) << "n" << i;
  }
  SetClocks(kPinnedNowMs + 1000 + 2500);
  for (int i = 0; i < 2; i++) {
    EXPECT_TRUE(Eventually(
        [&] {
          return Cmd(c_[i].get(), {"DEBUG", "COMPACT"}).str() == "OK" && stored(i) == 1;
        },
        10))
        << "n" << i << " stores " << stored(i);
    EXPECT_EQ(SeriesRange(c_[i].get(), "s"), SeriesRangeText({{kPinnedNowMs + 10, 2}}));
  }
  EXPECT_EQ(WaitConverged(Conns()), "");
}

// A restarted node keeps the register; a node joining later gets the expired series and its
// register from a snapshot, and a PERSIST made on it afterwards reaches the mesh.
TEST_F(ActiveActiveSeriesExpiryTest, RestartsAndSnapshotsCarryTheRegister) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(2, {"--peer-backlog-size", "4"}));
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.ADD", "s", std::to_string(kPinnedNowMs - 10), "1"}).integer(),
            kPinnedNowMs - 10);
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.ADD", "k", std::to_string(kPinnedNowMs - 10), "1"}).integer(),
            kPinnedNowMs - 10);
  ASSERT_EQ(Cmd(c_[0].get(), {"PEXPIREAT", "s", kExpireAt}).integer(), 1);
  ASSERT_EQ(Cmd(c_[0].get(), {"PEXPIREAT", "k", kExpireAt}).integer(), 1);
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.ADD", "k", std::to_string(kPinnedNowMs + 5), "2"}).integer(),
            kPinnedNowMs + 5);
  for (int i = 0; i < 6; i++) {  // past the backlog: a late node needs a snapshot
    ASSERT_EQ(Cmd(c_[0].get(), {"SET", "pad" + std::to_string(i), "x"}).str(), "OK");
  }
  ASSERT_EQ(WaitConverged(Conns()), "");
  SetClocks(kPinnedNowMs + 1000);
  ASSERT_EQ(n_[1].Stop(), 0) << n_[1].ReadLog();
  ASSERT_TRUE(n_[1].Start(args_[1])) << n_[1].error();
  c_[1] = n_[1].Connect();
  SetClock(1, kPinnedNowMs + 1000);
  ASSERT_EQ(WaitConverged(Conns()), "");
  ASSERT_TRUE(late_.Start(PeerArgs({&n_[0], &n_[1]}))) << late_.error();
  RedisConnection late = late_.Connect();
  ASSERT_EQ(Cmd(late.get(), {"DEBUG", "CLOCK", "SET", std::to_string(kPinnedNowMs + 1000)}).str(),
            "OK");
  const std::vector<redisContext*> three = {c_[0].get(), c_[1].get(), late.get()};
  ASSERT_EQ(WaitConverged(three), "");
  EXPECT_GT(SnapshotsSent(), 0);
  for (redisContext* c : three) {
    EXPECT_EQ(Cmd(c, {"EXISTS", "s"}).integer(), 0);
    EXPECT_EQ(SeriesRange(c, "k"), SeriesRangeText({{kPinnedNowMs + 5, 2}}));
  }
  // The late node held the expired series too: its PERSIST (its clock set back) brings it back
  // on the mesh, which now streams from it.
  for (int i = 0; i < 2; i++) {
    ASSERT_EQ(Cmd(c_[i].get(), {"PEER", "ADD", "127.0.0.1", std::to_string(late_.port())}).str(),
              "OK");
  }
  ASSERT_EQ(Cmd(late.get(), {"DEBUG", "CLOCK", "SET", std::to_string(kPinnedNowMs + 500)}).str(),
            "OK");
  ASSERT_EQ(Cmd(late.get(), {"PERSIST", "s"}).integer(), 1);
  ASSERT_EQ(Cmd(late.get(), {"DEBUG", "CLOCK", "SET", std::to_string(kPinnedNowMs + 1000)}).str(),
            "OK");
  ASSERT_EQ(WaitConverged(three), "");
  ExpectEverywhere(three, "s", SeriesRangeText({{kPinnedNowMs - 10, 1}}), -1);
}

// A malformed expiry delta or key marker changes nothing: refused as a delta no node could have
// sent, the series, its expiry and the digest as they were.
TEST_F(ActiveActiveSeriesExpiryTest, MalformedRegisterDeltasChangeNothing) {
  RedisConnection node = StartReference();
  ASSERT_TRUE(node);
  redisContext* c = node.get();
  ASSERT_EQ(Cmd(c, {"DEBUG", "CLOCK", "SET", std::to_string(kPinnedNowMs)}).str(), "OK");
  ASSERT_EQ(Cmd(c, {"TS.ADD", "s", std::to_string(kPinnedNowMs - 10), "1"}).integer(),
            kPinnedNowMs - 10);
  ASSERT_EQ(Cmd(c, {"PEXPIREAT", "s", kExpireAt}).integer(), 1);
  const std::string digest = LogicalDigest(c);
  const std::string t = std::to_string(kPinnedNowMs + 50);
  for (const std::vector<std::string>& bad : std::vector<std::vector<std::string>>{
           {"expiry-at", "x", "s", "persist"},
           {"expiry-at", t, "s"},
           {"expiry-at", t, "s", "soon"},
           {"expiry-at", t, "s", "persist", "1", "2"},
           {"expiry-at", t, "s", "persist", "del", "x"},
           {"marker-at", "x", "s", "3"},
           {"marker-at", "0", "s", "9"},
           {"marker-at", "0", "s", "3", "x", "persist", "o"},
           {"marker-at", "0", "s", "3", t, "later", "o"},
           {"marker-at", "0", "s", "3", t, "persist"},
       }) {
    std::vector<std::string> cmd = {"DEBUG", "PEER-APPLY", "peer", "0"};
    cmd.insert(cmd.end(), bad.begin(), bad.end());
    EXPECT_EQ(Cmd(c, cmd).str(), "ERR the delta was not applied (the server log says why)")
        << bad[0] << " " << bad.size();
  }
  EXPECT_EQ(LogicalDigest(c), digest);
  EXPECT_EQ(SeriesRange(c, "s"), SeriesRangeText({{kPinnedNowMs - 10, 1}}));
  EXPECT_EQ(Cmd(c, {"PEXPIRETIME", "s"}).integer(), kPinnedNowMs + 1000);
  // A well-formed register that precedes the one held changes nothing either.
  ASSERT_EQ(Cmd(c, {"DEBUG", "PEER-APPLY", "peer", "0", "expiry-at",
                    std::to_string(kPinnedNowMs - 1), "s", "persist"})
                .str(),
            "OK");
  EXPECT_EQ(Cmd(c, {"PEXPIRETIME", "s"}).integer(), kPinnedNowMs + 1000);
  EXPECT_EQ(LogicalDigest(c), digest);
}

}  // namespace
}  // namespace ebb::test
