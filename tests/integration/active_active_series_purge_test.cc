// The purge deadline for time series in active-active mode (docs/active-active.md, "Time
// series"), against three spawned ebb-servers with pinned clocks and expiry-purge-deadline 4 s:
// samples a series' RETENTION hides stay stored whole until half the deadline has passed since
// they were hidden (a DEBUG COMPACT before that drops none), then leave — their sample rows
// (TS.INFO DEBUG's stored count), their merge-state rows (`aa-tss:`, scanned raw in each node's
// data directory once it is stopped) and their samples in the origin log's `ts-merge` deltas
// (read as a peer reads the log) — with no write after the hiding, across a restart of a node.
// A sample below the floor that a node cut off added arrives after the others purged: it is
// dropped there, and purged on its origin; every node ends with the same series and the same
// DEBUG DIGEST-LOGICAL, and a node joining later gets what is left. A register widening the
// window before half the deadline shows the hidden samples again everywhere, and keeps them;
// narrowed again, the background work alone purges them half a deadline later.
// Every wait is a bounded poll.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/active_active_mesh.h"
#include "tests/support/active_active_support.h"
#include "tests/support/eventually.h"
#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

constexpr int64_t kRetention = 1000;

class ActiveActiveSeriesPurgeTest : public ActiveActiveMeshTest {
 protected:
  // Samples of `key` stored on node i (TS.INFO DEBUG's chunks: hidden samples included).
  long long Stored(int i, const std::string& key) {
    const Reply info = Cmd(c_[i].get(), {"TS.INFO", key, "DEBUG"});
    long long stored = 0;
    for (const Reply& chunk : info[27].elements()) stored += chunk[5].integer();
    return stored;
  }
  // Compacts node i until it stores `want` samples of `key` (at most 100 tries, 100 ms apart:
  // the purge runs on the engine's threads); whether it got there.
  bool CompactUntilStored(int i, const std::string& key, long long want) {
    return Eventually(
        [&] {
          return Cmd(c_[i].get(), {"DEBUG", "COMPACT"}).str() == "OK" && Stored(i, key) == want;
        },
        10);
  }
  void Advance(int64_t ms) {
    now_ += ms;
    for (size_t i = 0; i < c_.size(); i++) SetClock(static_cast<int>(i), now_);
  }
  // Samples below `floor` in the `ts-merge` deltas node i's origin log holds.
  static size_t LoggedBelow(const TestServer& node, int64_t floor) {
    size_t below = 0;
    for (const LoggedDelta& delta : ReadOriginLog(node, true)) {
      if (delta.args.empty() || delta.args[0] != "ts-merge") continue;
      for (size_t at = 1; at + 2 < delta.args.size();) {
        const size_t n = std::stoull(delta.args[at + 2]);
        for (size_t k = 0; k < n; k++) {
          if (std::stoll(delta.args[at + 3 + 2 * k]) < floor) below++;
        }
        at += 3 + 2 * n;
      }
    }
    return below;
  }
  // The timestamps of the merge-state rows of `key` (database 0) stored in `dir`, read raw with
  // full grace (so a row compaction kept, expired or not, counts).
  static std::vector<int64_t> MergeStateRows(const std::string& dir, const std::string& key) {
    std::vector<int64_t> out;
    const std::string prefix = "aa-tss:0:" + std::to_string(key.size()) + ":" + key;
    for (const auto& [name, value] : StoppedNodeSystemRows(dir, prefix, int64_t{1} << 60)) {
      const std::string_view suffix = std::string_view(name).substr(prefix.size());
      if (suffix.size() != 8) continue;
      uint64_t be = 0;
      std::memcpy(&be, suffix.data(), 8);
      out.push_back(static_cast<int64_t>(__builtin_bswap64(be)));
    }
    return out;
  }

  int64_t now_ = kMeshClockMs;
};

// n0, n1 and n2 each add 100 samples; n2 is cut off and adds one more (1300); n0 adds 50 newer
// samples (2500..2549), hiding everything below 1549 on n0 and n1. Before half the deadline a
// compaction keeps them; n1 restarts; after the deadline n0 and n1 hold only the 50 visible
// samples, with no write after. n2 heals: its sample 1300 is dropped by n0 and n1 on arrival,
// and n2, hiding the old samples only now, purges them a deadline later. Then every node holds
// the same series, digest, merge-state rows (only the visible samples') and no logged sample
// below the floor.
TEST_F(ActiveActiveSeriesPurgeTest, HiddenSamplesLeaveEveryNodeByThePurgeDeadline) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(3, {"--expiry-purge-deadline", "4s"}));
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATE", "s", "RETENTION", std::to_string(kRetention)}).str(),
            "OK");
  for (int node = 0; node < 3; node++) {
    std::vector<std::string> madd = {"TS.MADD"};
    for (int ts = 1000 + 100 * node; ts < 1100 + 100 * node; ts++) {
      madd.insert(madd.end(), {"s", std::to_string(ts), std::to_string(ts % 7)});
    }
    ASSERT_EQ(Cmd(c_[node].get(), madd).size(), 100u);
    ASSERT_EQ(WaitConverged(Conns()), "");
  }
  SetLink(c_[0].get(), n_[0], c_[2].get(), n_[2], false);
  SetLink(c_[1].get(), n_[1], c_[2].get(), n_[2], false);
  ASSERT_EQ(Cmd(c_[2].get(), {"TS.ADD", "s", "1300", "5"}).integer(), 1300);
  std::vector<std::string> madd = {"TS.MADD"};
  for (int ts = 2500; ts < 2550; ts++) madd.insert(madd.end(), {"s", std::to_string(ts), "1"});
  ASSERT_EQ(Cmd(c_[0].get(), madd).size(), 50u);
  ASSERT_EQ(WaitConverged({c_[0].get(), c_[1].get()}), "");
  const int64_t floor = 2549 - kRetention;
  const std::string range = Cmd(c_[0].get(), {"TS.RANGE", "s", "-", "+"}).ToString();
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.RANGE", "s", "-", "+"}).size(), 50u);

  // Hidden, not yet for half the deadline: a compaction keeps every sample.
  ASSERT_EQ(Cmd(c_[0].get(), {"DEBUG", "COMPACT"}).str(), "OK");
  EXPECT_EQ(Stored(0, "s"), 350);
  Advance(1000);
  ASSERT_EQ(Cmd(c_[0].get(), {"DEBUG", "COMPACT"}).str(), "OK");
  EXPECT_EQ(Stored(0, "s"), 350);

  // A restart in between (its link to n2 cut again at once; n2's sample may reach it first).
  ASSERT_TRUE(n_[1].Restart()) << n_[1].error();
  c_[1] = n_[1].Connect();
  SetClock(1, now_);
  SetLink(c_[1].get(), n_[1], c_[2].get(), n_[2], false);

  // After the deadline, with no write: only the visible samples are stored on n0 and n1.
  Advance(4000);
  for (int i : {0, 1}) {
    EXPECT_TRUE(CompactUntilStored(i, "s", 50)) << "n" << i << " stores " << Stored(i, "s");
    EXPECT_EQ(Cmd(c_[i].get(), {"TS.RANGE", "s", "-", "+"}).ToString(), range) << "n" << i;
  }
  EXPECT_TRUE(Eventually([&] { return LoggedBelow(n_[0], floor) == 0; }, 10))
      << LoggedBelow(n_[0], floor);
  EXPECT_TRUE(Eventually([&] { return LoggedBelow(n_[1], floor) == 0; }, 10))
      << LoggedBelow(n_[1], floor);

  // n2 heals: its late sample below the floor is dropped where the floor passed it.
  SetLink(c_[0].get(), n_[0], c_[2].get(), n_[2], true);
  SetLink(c_[1].get(), n_[1], c_[2].get(), n_[2], true);
  EXPECT_TRUE(Eventually([&] {
    return Cmd(c_[2].get(), {"TS.RANGE", "s", "-", "+"}).ToString() == range;
  }));
  for (int i : {0, 1}) {
    EXPECT_EQ(Cmd(c_[i].get(), {"TS.RANGE", "s", "-", "+"}).ToString(), range) << "n" << i;
    EXPECT_TRUE(CompactUntilStored(i, "s", 50)) << "n" << i << " stores " << Stored(i, "s");
  }
  // n2 hid its samples only now: kept whole until half the deadline from now, then purged.
  ASSERT_EQ(Cmd(c_[2].get(), {"DEBUG", "COMPACT"}).str(), "OK");
  EXPECT_EQ(Stored(2, "s"), 351);
  Advance(4000);
  EXPECT_TRUE(CompactUntilStored(2, "s", 50)) << "n2 stores " << Stored(2, "s");
  EXPECT_TRUE(Eventually([&] { return LoggedBelow(n_[2], floor) == 0; }, 10))
      << LoggedBelow(n_[2], floor);
  EXPECT_EQ(WaitConverged(Conns()), "");
  for (int i = 0; i < 3; i++) {
    EXPECT_EQ(Cmd(c_[i].get(), {"TS.RANGE", "s", "-", "+"}).ToString(), range) << "n" << i;
  }

  // A node joining now gets what is left: n0's snapshot (its log cut to one delta by a write of
  // another key) and the reduced deltas of n1's and n2's logs.
  ASSERT_EQ(Cmd(c_[0].get(), {"CONFIG", "SET", "peer-backlog-size", "1"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[0].get(), {"SET", "other", "1"}).str(), "OK");
  std::vector<std::string> late_args = PeerArgs({&n_[0], &n_[1], &n_[2]});
  late_args.insert(late_args.end(), {"--expiry-purge-deadline", "4s"});  // a mesh's setting
  ASSERT_TRUE(late_.Start(late_args)) << late_.error();
  RedisConnection late = late_.Connect();
  ASSERT_EQ(Cmd(late.get(), {"DEBUG", "CLOCK", "SET", std::to_string(now_)}).str(), "OK");
  std::vector<redisContext*> all = Conns();
  all.push_back(late.get());
  EXPECT_EQ(WaitConverged(all), "");
  EXPECT_GT(SnapshotsSent(), 0);
  EXPECT_EQ(Cmd(late.get(), {"TS.RANGE", "s", "-", "+"}).ToString(), range);

  // No merge-state row below the floor is stored on any node: one row per visible sample.
  for (TestServer* node : {&n_[0], &n_[1], &n_[2], &late_}) {
    ASSERT_EQ(node->Stop(), 0) << node->ReadLog();
    const std::vector<int64_t> rows = MergeStateRows(node->data_dir(), "s");
    EXPECT_EQ(rows.size(), 50u) << node->port();
    EXPECT_EQ(std::count_if(rows.begin(), rows.end(), [&](int64_t ts) { return ts < floor; }), 0)
        << node->port();
  }
}

// Samples hidden less than half the deadline ago come back on every node when a later register
// widens the window, and are not purged while it shows them; a narrower register hides them
// again, and they are purged half a deadline after that, from the log as well.
TEST_F(ActiveActiveSeriesPurgeTest, AWiderWindowBeforeHalfTheDeadlineShowsTheSamplesAgain) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(3, {"--expiry-purge-deadline", "4s"}));
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATE", "w", "RETENTION", std::to_string(kRetention)}).str(),
            "OK");
  ASSERT_EQ(WaitConverged(Conns()), "");
  std::vector<std::string> old = {"TS.MADD"};
  for (int ts = 1000; ts < 1100; ts++) old.insert(old.end(), {"w", std::to_string(ts), "2"});
  ASSERT_EQ(Cmd(c_[1].get(), old).size(), 100u);
  ASSERT_EQ(WaitConverged(Conns()), "");
  std::vector<std::string> newer = {"TS.MADD"};
  for (int ts = 2500; ts < 2510; ts++) newer.insert(newer.end(), {"w", std::to_string(ts), "3"});
  ASSERT_EQ(Cmd(c_[0].get(), newer).size(), 10u);
  ASSERT_EQ(WaitConverged(Conns()), "");
  ASSERT_EQ(Cmd(c_[2].get(), {"TS.RANGE", "w", "-", "+"}).size(), 10u);

  Advance(1000);
  ASSERT_EQ(Cmd(c_[2].get(), {"TS.ALTER", "w", "RETENTION", "5000"}).str(), "OK");
  ASSERT_EQ(WaitConverged(Conns()), "");
  Advance(5000);
  for (int i = 0; i < 3; i++) {
    ASSERT_EQ(Cmd(c_[i].get(), {"DEBUG", "COMPACT"}).str(), "OK");
    EXPECT_EQ(Stored(i, "w"), 110) << "n" << i;
    EXPECT_EQ(Cmd(c_[i].get(), {"TS.RANGE", "w", "-", "+"}).size(), 110u) << "n" << i;
  }
  EXPECT_EQ(LoggedBelow(n_[1], 1509), 100u);

  ASSERT_EQ(Cmd(c_[0].get(), {"TS.ALTER", "w", "RETENTION", std::to_string(kRetention)}).str(),
            "OK");
  ASSERT_EQ(WaitConverged(Conns()), "");
  for (int i = 0; i < 3; i++) {
    ASSERT_EQ(Cmd(c_[i].get(), {"DEBUG", "COMPACT"}).str(), "OK");
    EXPECT_EQ(Stored(i, "w"), 110) << "n" << i;
  }
  // The background work alone (the markers, the purge hints) takes them out this time.
  Advance(4000);
  for (int i = 0; i < 3; i++) {
    EXPECT_TRUE(Eventually([&] { return Stored(i, "w") == 10; }))
        << "n" << i << " stores " << Stored(i, "w");
  }
  EXPECT_TRUE(Eventually([&] { return LoggedBelow(n_[1], 1509) == 0; }, 10))
      << LoggedBelow(n_[1], 1509);
  EXPECT_EQ(WaitConverged(Conns()), "");
  // The merge-state rows went by the background work too: each node, stopped, holds the visible
  // samples' rows alone (restarted to let it go on when a purge was still under way).
  for (int i = 0; i < 3; i++) {
    size_t rows = 0;
    for (int attempt = 0; attempt < 20; attempt++) {
      ASSERT_EQ(n_[i].Stop(), 0) << n_[i].ReadLog();
      rows = MergeStateRows(n_[i].data_dir(), "w").size();
      if (rows == 10 || attempt == 19) break;
      ASSERT_TRUE(n_[i].Start(args_[i])) << n_[i].error();
      c_[i] = n_[i].Connect();
      SetClock(i, now_);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    EXPECT_EQ(rows, 10u) << "n" << i;
  }
}

}  // namespace
}  // namespace ebb::test
