// Collection of observed-remove deletes (docs/active-active.md, "Collection of observed-remove
// deletes"): under `active-active-string-rule observed-remove` a string key a DEL emptied leaves a
// tombstone carrying what the DEL removed, which compaction drops once this node's synced applied
// vector covers it (INFO peers dead_versions_collected). A node that collected it no longer tells
// a peer what it removed, so snapshots are joined with both nodes' vectors: a node that missed the
// DEL drops the version when the collector's snapshot, which no longer names the key, reaches it,
// and the collector does not take the version back from that node's snapshot; nor does a node
// take a write that a snapshot it joined had seen removed. Every wait is a bounded poll.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/active_active_support.h"
#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

// A pair under the observed-remove rule whose logs hold 4 deltas, so a node away for more gets a
// snapshot, and whose WAL syncs every write, so the synced vector follows within a tick.
std::vector<std::string> Options(std::vector<std::string> args) {
  args.insert(args.end(), {"--active-active-string-rule", "observed-remove", "--peer-backlog-size",
                           "4", "--wal-fsync", "always"});
  return args;
}

class ActiveActiveCollectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(n0_.Start(Options(PeerArgs({&n1_})))) << n0_.error();
    ASSERT_TRUE(n1_.Start(Options(PeerArgs({&n0_})))) << n1_.error();
    c0_ = n0_.Connect();
    c1_ = n1_.Connect();
  }
  void TearDown() override {
    for (TestServer* server : {&n0_, &n1_}) {
      if (server->Running()) {
        EXPECT_EQ(server->Stop(), 0) << server->ReadLog();
      }
    }
  }

  static long long Collected(redisContext* c) {
    return InfoField(c, "peers", "dead_versions_collected");
  }
  static long long Pending(redisContext* c) {
    return InfoField(c, "peers", "dead_versions_pending");
  }
  // Compacts the node (DEBUG COMPACT) every 50 ms until it has collected `count` dead versions
  // in all, for up to 10 s; false if it never does.
  static bool CompactUntilCollected(redisContext* c, long long count) {
    for (int tries = 0; tries < 200; tries++) {
      if (Cmd(c, {"DEBUG", "COMPACT"}).str() != "OK") return false;
      if (Collected(c) >= count) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
  // Writes `count` keys `prefix`0.. on the node: more deltas than a peer's backlog holds.
  static void Write(redisContext* c, const std::string& prefix, int count) {
    for (int i = 0; i < count; i++) {
      ASSERT_EQ(Cmd(c, {"SET", prefix + std::to_string(i), "v"}).str(), "OK");
    }
  }
  // The same, pipelined a thousand at a time, and `DEL`s of them in the same batches.
  static void WritePipelined(redisContext* c, const std::string& prefix, int count) {
    for (int from = 0; from < count; from += 1000) {
      const int to = std::min(count, from + 1000);
      for (int i = from; i < to; i++) Append(c, {"SET", prefix + std::to_string(i), "v"});
      for (int i = from; i < to; i++) ASSERT_EQ(ReadReply(c).str(), "OK");
    }
  }
  static void DeletePipelined(redisContext* c, const std::string& prefix, int count) {
    for (int from = 0; from < count; from += 1000) {
      std::vector<std::string> del = {"DEL"};
      for (int i = from; i < std::min(count, from + 1000); i++) {
        del.push_back(prefix + std::to_string(i));
      }
      ASSERT_EQ(Cmd(c, del).integer(), static_cast<long long>(del.size() - 1));
    }
  }
  std::string Converged() { return WaitConverged({c0_.get(), c1_.get()}); }
  // The same for the waits that move thousands of keys through snapshots of a four-delta backlog
  // with every write synced: under a sanitizer on two busy cores they take longer than 15 s.
  std::string ConvergedAfterBulk() {
    return WaitConverged({c0_.get(), c1_.get()}, std::chrono::milliseconds(60000));
  }
  void SweepAtTheHeal(int keys, const std::vector<std::string>& prefixes, int per_prefix);

  TestServer n0_, n1_;
  RedisConnection c0_, c1_;
};

TEST_F(ActiveActiveCollectionTest, ADeleteEveryNodeAppliedIsCollectedAndALaterWriteLives) {
  ASSERT_EQ(Cmd(c0_.get(), {"SET", "k", "v", "PXAT", "4000000000000"}).str(), "OK");
  ASSERT_EQ(Converged(), "");
  ASSERT_EQ(Cmd(c1_.get(), {"DEL", "k"}).integer(), 1);
  ASSERT_EQ(Converged(), "");
  EXPECT_EQ(Collected(c0_.get()), 0);
  for (redisContext* c : {c0_.get(), c1_.get()}) {
    ASSERT_EQ(Cmd(c, {"DEBUG", "FLUSH-MEMTABLE"}).str(), "OK");
    EXPECT_EQ(Pending(c), 1);  // the DEL's tombstone, in a table file now
    ASSERT_TRUE(CompactUntilCollected(c, 1)) << Collected(c);
    EXPECT_EQ(Pending(c), 0);
    EXPECT_TRUE(Cmd(c, {"GET", "k"}).is_nil());
    EXPECT_EQ(Cmd(c, {"DBSIZE"}).integer(), 0);
  }
  // A write after the collection lives on both, whatever its timestamp.
  ASSERT_EQ(Cmd(c1_.get(), {"PUT", "k", "late", "TS", "1"}).str(), "OK");
  ASSERT_EQ(Converged(), "");
  for (redisContext* c : {c0_.get(), c1_.get()}) EXPECT_EQ(Cmd(c, {"GET", "k"}).str(), "late");
}

// A linked pair under the timestamp rule, the default.
class ActiveActiveCollectionTimestampTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(n0.Start(PeerArgs({&n1}))) << n0.error();
    ASSERT_TRUE(n1.Start(PeerArgs({&n0}))) << n1.error();
    c0 = n0.Connect();
    c1 = n1.Connect();
  }
  void TearDown() override {
    for (TestServer* server : {&n0, &n1}) {
      if (server->Running()) {
        EXPECT_EQ(server->Stop(), 0) << server->ReadLog();
      }
    }
  }

  TestServer n0, n1;
  RedisConnection c0, c1;
};

// Under the timestamp rule a timestamped tombstone hides writes by timestamp and stays for good:
// INFO peers counts it pending after every compaction and collects nothing.
TEST_F(ActiveActiveCollectionTimestampTest, ATimestampRuleTombstoneStaysPending) {
  ASSERT_EQ(Cmd(c0.get(), {"PUT", "k", "v", "TS", "100"}).str(), "OK");
  ASSERT_EQ(WaitConverged({c0.get(), c1.get()}), "");
  ASSERT_EQ(Cmd(c1.get(), {"DELETE", "k", "TS", "200"}).str(), "OK");
  ASSERT_EQ(WaitConverged({c0.get(), c1.get()}), "");
  for (redisContext* c : {c0.get(), c1.get()}) {
    ASSERT_EQ(Cmd(c, {"DEBUG", "COMPACT"}).str(), "OK");
    EXPECT_TRUE(Cmd(c, {"GET", "k"}).is_nil());
    EXPECT_EQ(InfoField(c, "peers", "dead_versions_pending"), 1);
    EXPECT_EQ(InfoField(c, "peers", "dead_versions_collected"), 0);
  }
}

// A DEL of a key whose value has expired leaves a wipe, as it does for a live one, and no
// tombstone at the value's timestamp: what a delete leaves must not depend on whether the node's
// clock had passed the value's expiry. After a compaction nothing of the key is left, and the
// delete still covers a late write at or below its T (its marker row) from an origin whose
// collect does not cover it: one that has made none. (A client's write on n1 would live once
// n1's own collect covered the delete, which a collect made meanwhile may: "Status", marker
// collection's step 3.)
TEST_F(ActiveActiveCollectionTimestampTest, ADeleteOfAnExpiredKeyLeavesNoDeadVersion) {
  ASSERT_EQ(Cmd(c0.get(), {"SET", "k", "v", "PX", "50"}).str(), "OK");
  ASSERT_EQ(WaitConverged({c0.get(), c1.get()}), "");
  for (int tries = 0; tries < 100 && Cmd(c0.get(), {"EXISTS", "k"}).integer() != 0; tries++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(Cmd(c0.get(), {"DEL", "k"}).integer(), 0);
  ASSERT_EQ(WaitConverged({c0.get(), c1.get()}), "");
  for (redisContext* c : {c0.get(), c1.get()}) {
    ASSERT_EQ(Cmd(c, {"DEBUG", "COMPACT"}).str(), "OK");
    EXPECT_EQ(InfoField(c, "peers", "dead_versions_pending"), 0) << (c == c0.get() ? "n0" : "n1");
  }
  const std::string late_origin(40, 'a');
  for (redisContext* c : {c0.get(), c1.get()}) {
    ASSERT_EQ(Cmd(c, {"DEBUG", "PEER-APPLY", late_origin, "0", "OFFSET", "1", "put", "k", "late",
                      "TS", "1", "NOTTL"})
                  .str(),
              "OK");
    EXPECT_TRUE(Cmd(c, {"GET", "k"}).is_nil());
  }
}

// n1 is cut off holding k while n0 deletes it and collects the delete; both write past the other's
// backlog, so the heal brings a snapshot each way. n0's snapshot no longer names k: n1 must drop
// its version because n0 had applied it and does not hold it. n1's snapshot still carries the
// version: n0 must not take it back, because n0 had applied it and does not hold it. Without
// either half of that join the deleted value comes back on both nodes.
TEST_F(ActiveActiveCollectionTest, ACollectedDeleteStaysDoneAcrossSnapshotsBothWays) {
  ASSERT_EQ(Cmd(c0_.get(), {"SET", "k", "secret"}).str(), "OK");
  ASSERT_EQ(Converged(), "");
  SetLink(c0_.get(), n0_, c1_.get(), n1_, false);
  ASSERT_EQ(Cmd(c0_.get(), {"DEL", "k"}).integer(), 1);
  ASSERT_NO_FATAL_FAILURE(Write(c0_.get(), "a", 8));
  ASSERT_NO_FATAL_FAILURE(Write(c1_.get(), "b", 8));
  ASSERT_TRUE(CompactUntilCollected(c0_.get(), 1)) << Collected(c0_.get());
  EXPECT_EQ(Cmd(c1_.get(), {"GET", "k"}).str(), "secret");  // n1 never saw the DEL
  const long long sent0 = InfoField(c0_.get(), "peers", "snapshots_sent");
  const long long sent1 = InfoField(c1_.get(), "peers", "snapshots_sent");

  SetLink(c0_.get(), n0_, c1_.get(), n1_, true);
  ASSERT_EQ(Converged(), "") << LogicalDifference(c0_.get(), c1_.get());
  EXPECT_GT(InfoField(c0_.get(), "peers", "snapshots_sent"), sent0);
  EXPECT_GT(InfoField(c1_.get(), "peers", "snapshots_sent"), sent1);
  for (redisContext* c : {c0_.get(), c1_.get()}) {
    EXPECT_TRUE(Cmd(c, {"GET", "k"}).is_nil());
    EXPECT_EQ(Cmd(c, {"DBSIZE"}).integer(), 16);
  }
}

// n1 is cut off holding `keys` keys k0.. while n0 deletes them, writes `per_prefix` keys under
// each of `prefixes` (the snapshot's pieces) and collects the deletes; at the heal n1 joins n0's
// snapshot, sweeps every k away and both nodes end equal.
void ActiveActiveCollectionTest::SweepAtTheHeal(int keys, const std::vector<std::string>& prefixes,
                                                int per_prefix) {
  ASSERT_NO_FATAL_FAILURE(WritePipelined(c0_.get(), "k", keys));
  ASSERT_EQ(ConvergedAfterBulk(), "");
  SetLink(c0_.get(), n0_, c1_.get(), n1_, false);
  ASSERT_NO_FATAL_FAILURE(DeletePipelined(c0_.get(), "k", keys));
  for (const std::string& prefix : prefixes) {
    ASSERT_NO_FATAL_FAILURE(Write(c0_.get(), prefix, per_prefix));
  }
  ASSERT_TRUE(CompactUntilCollected(c0_.get(), keys)) << Collected(c0_.get());
  EXPECT_EQ(Cmd(c1_.get(), {"DBSIZE"}).integer(), keys);

  SetLink(c0_.get(), n0_, c1_.get(), n1_, true);
  ASSERT_EQ(ConvergedAfterBulk(), "") << LogicalDifference(c0_.get(), c1_.get());
  for (redisContext* c : {c0_.get(), c1_.get()}) {
    EXPECT_EQ(Cmd(c, {"DBSIZE"}).integer(), static_cast<long long>(prefixes.size()) * per_prefix);
    EXPECT_TRUE(Cmd(c, {"GET", "k0"}).is_nil());
    EXPECT_TRUE(Cmd(c, {"GET", "k" + std::to_string(keys - 1)}).is_nil());
  }
}

// More keys past the snapshot's last piece than one run of the sweep reads: n1 sweeps them over
// several turns of its loop (ActiveActive::SweepSnapshotTail) and drops every one.
TEST_F(ActiveActiveCollectionTest, ASweepPastTheLastPieceRunsToTheEndOfTheKeyspace) {
  SweepAtTheHeal(3000, {"a"}, 8);  // about three runs of the sweep, after n0's a's
}

// The keys lie between two of the snapshot's pieces, more of them than one sweep reads in a turn
// of the loop (ActiveActive::kSweepRows): the run of pieces stops before the second piece and
// goes on in the next turn, and every key goes.
TEST_F(ActiveActiveCollectionTest, ASweepBetweenTwoPiecesGoesOnOverSeveralTurns) {
  SweepAtTheHeal(6000, {"a", "z"}, 4);
}

// A node restored from a copy of its data directory taken before a delete: its peer collected the
// delete, and the restored node, resuming past the peer's backlog, gets the peer's snapshot and
// drops the version.
TEST_F(ActiveActiveCollectionTest, ANodeRestoredFromBeforeACollectedDeleteDropsTheVersion) {
  ASSERT_EQ(Cmd(c0_.get(), {"SET", "k", "secret"}).str(), "OK");
  ASSERT_EQ(Converged(), "");
  const std::string backup = n1_.dir() + "/backup";
  ASSERT_EQ(n1_.Stop(), 0) << n1_.ReadLog();
  std::filesystem::copy(n1_.data_dir(), backup, std::filesystem::copy_options::recursive);
  ASSERT_TRUE(n1_.Start(Options(PeerArgs({&n0_})))) << n1_.error();
  c1_ = n1_.Connect();
  ASSERT_EQ(Cmd(c0_.get(), {"DEL", "k"}).integer(), 1);
  ASSERT_NO_FATAL_FAILURE(Write(c0_.get(), "a", 8));
  ASSERT_EQ(Converged(), "");
  ASSERT_TRUE(CompactUntilCollected(c0_.get(), 1)) << Collected(c0_.get());

  ASSERT_EQ(n1_.Stop(), 0) << n1_.ReadLog();
  std::filesystem::remove_all(n1_.data_dir());
  std::filesystem::copy(backup, n1_.data_dir(), std::filesystem::copy_options::recursive);
  ASSERT_TRUE(n1_.Start(Options(PeerArgs({&n0_})))) << n1_.error();
  c1_ = n1_.Connect();
  ASSERT_EQ(Converged(), "") << LogicalDifference(c0_.get(), c1_.get());
  for (redisContext* c : {c0_.get(), c1_.get()}) {
    EXPECT_TRUE(Cmd(c, {"GET", "k"}).is_nil());
    EXPECT_EQ(Cmd(c, {"DBSIZE"}).integer(), 8);
  }
}

// Steady writes, no DEBUG COMPACT: the background compactions collect the delete while the
// memtable, outside them, keeps receiving writes of their range with smaller timestamps — a later
// version of an observed-remove key comes after a wipe, so newer data never holds one back.
TEST(ActiveActiveCollectionSteadyTest, BackgroundCompactionsCollectUnderSteadyWrites) {
  TestServer n0, n1;
  auto small_memtable = [](std::vector<std::string> args) {
    args.insert(args.end(), {"--memtable-size", "16384"});
    return Options(std::move(args));
  };
  ASSERT_TRUE(n0.Start(small_memtable(PeerArgs({&n1})))) << n0.error();
  ASSERT_TRUE(n1.Start(small_memtable(PeerArgs({&n0})))) << n1.error();
  RedisConnection c0 = n0.Connect(), c1 = n1.Connect();
  ASSERT_EQ(Cmd(c0.get(), {"PUT", "k", "secret", "TS", "1000000"}).str(), "OK");
  ASSERT_EQ(WaitConverged({c0.get(), c1.get()}), "");
  ASSERT_EQ(Cmd(c1.get(), {"DEL", "k"}).integer(), 1);
  ASSERT_EQ(WaitConverged({c0.get(), c1.get()}), "");
  // Rounds of writes on either side of k, below its timestamp, until both nodes collected.
  const std::string value(400, 'v');
  auto collected = [](redisContext* c) { return InfoField(c, "peers", "dead_versions_collected"); };
  int ts = 1;
  for (int round = 0; round < 100; round++) {
    if (collected(c0.get()) >= 1 && collected(c1.get()) >= 1) break;
    for (int i = 0; i < 20; i++, ts++) {
      for (const char* prefix : {"a", "z"}) {
        ASSERT_EQ(
            Cmd(c0.get(), {"PUT", prefix + std::to_string(ts), value, "TS", std::to_string(ts)})
                .str(),
            "OK");
      }
    }
    ASSERT_EQ(WaitConverged({c0.get(), c1.get()}), "");
  }
  EXPECT_GE(collected(c0.get()), 1);
  EXPECT_GE(collected(c1.get()), 1);
  for (redisContext* c : {c0.get(), c1.get()}) EXPECT_TRUE(Cmd(c, {"GET", "k"}).is_nil());
  // A write after the collection lives on both, whatever its timestamp.
  ASSERT_EQ(Cmd(c1.get(), {"PUT", "k", "late", "TS", "1"}).str(), "OK");
  ASSERT_EQ(WaitConverged({c0.get(), c1.get()}), "");
  for (redisContext* c : {c0.get(), c1.get()}) EXPECT_EQ(Cmd(c, {"GET", "k"}).str(), "late");
  for (TestServer* server : {&n0, &n1}) EXPECT_EQ(server->Stop(), 0) << server->ReadLog();
}

// A write that reaches a node only after the node joined a snapshot from a peer that had applied
// it, removed it and collected the delete: the snapshot's vector says the peer had observed it, so
// the node does not take it when the writer's stream brings it later.
TEST(ActiveActiveCollectionMeshTest, AWriteArrivingAfterASnapshotThatRemovedItIsNotTaken) {
  TestServer n0, n1, n2;
  ASSERT_TRUE(n0.Start(Options(PeerArgs({&n1, &n2})))) << n0.error();
  ASSERT_TRUE(n1.Start(Options(PeerArgs({&n0, &n2})))) << n1.error();
  ASSERT_TRUE(n2.Start(Options(PeerArgs({&n0, &n1})))) << n2.error();
  RedisConnection c0 = n0.Connect(), c1 = n1.Connect(), c2 = n2.Connect();
  ASSERT_EQ(WaitConverged({c0.get(), c1.get(), c2.get()}), "");
  SetLink(c1.get(), n1, c0.get(), n0, false);
  SetLink(c1.get(), n1, c2.get(), n2, false);
  ASSERT_EQ(Cmd(c2.get(), {"SET", "k", "secret"}).str(), "OK");
  ASSERT_EQ(WaitConverged({c0.get(), c2.get()}), "");
  ASSERT_EQ(Cmd(c0.get(), {"DEL", "k"}).integer(), 1);
  for (int i = 0; i < 8; i++) {  // past n0's backlog: n1 gets a snapshot from n0
    ASSERT_EQ(Cmd(c0.get(), {"SET", "a" + std::to_string(i), "v"}).str(), "OK");
  }
  ASSERT_EQ(WaitConverged({c0.get(), c2.get()}), "");
  bool collected = false;
  for (int tries = 0; tries < 200 && !collected; tries++) {
    ASSERT_EQ(Cmd(c0.get(), {"DEBUG", "COMPACT"}).str(), "OK");
    collected = InfoField(c0.get(), "peers", "dead_versions_collected") >= 1;
    if (!collected) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(collected);

  SetLink(c1.get(), n1, c0.get(), n0, true);  // n0's snapshot, which names no k
  ASSERT_EQ(WaitConverged({c0.get(), c1.get()}), "");
  // The snapshot has ended once n1's link to n0 streams again.
  bool streaming = false;
  for (int tries = 0; tries < 500 && !streaming; tries++) {
    streaming = Cmd(c1.get(), {"INFO", "peers"}).str().find("state=snapshot") == std::string::npos;
    if (!streaming) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(streaming);
  SetLink(c1.get(), n1, c2.get(), n2, true);  // n2's stream, which holds the SET of k
  ASSERT_EQ(WaitConverged({c0.get(), c1.get(), c2.get()}), "")
      << LogicalDifference(c1.get(), c2.get());
  EXPECT_TRUE(Cmd(c1.get(), {"GET", "k"}).is_nil());
  for (TestServer* server : {&n0, &n1, &n2}) EXPECT_EQ(server->Stop(), 0) << server->ReadLog();
}

}  // namespace
}  // namespace ebb::test
