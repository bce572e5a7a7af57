// Time series between active-active peers (docs/active-active.md, "Time series"), against
// spawned ebb-servers: concurrent TS.ADD of the same timestamps under each duplicate policy on
// three nodes cut apart converge by the policy's rule; the settings are a register; a node given
// every delta in a random order ends alike; a snapshot to a late peer and a restart carry series;
// a DEL of a series meets concurrent adds; TWA rules are refused. Every wait is a bounded poll.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "tests/support/active_active_mesh.h"
#include "tests/support/active_active_support.h"
#include "tests/support/test_constants.h"
#include "tests/support/test_seed.h"
#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

class ActiveActiveSeriesTest : public ActiveActiveMeshTest {
 protected:
  static std::string Range(redisContext* c, const std::string& key) {
    return Cmd(c, {"TS.RANGE", key, "-", "+"}).ToString();
  }
  // Every node answers TS.RANGE of `key` as `expected` (the first node's when empty).
  void ExpectRangeEverywhere(const std::string& key, const std::string& expected = "") {
    const std::string want = expected.empty() ? Range(c_[0].get(), key) : expected;
    for (size_t i = 0; i < c_.size(); i++) {
      EXPECT_EQ(Range(c_[i].get(), key), want) << key << " on n" << i;
    }
  }
};

// The value TS.GET answers for `key` on `c` (its second element), "" when empty or an error.
std::string Value(redisContext* c, const std::string& key) {
  const Reply r = Cmd(c, {"TS.GET", key});
  if (r.size() != 2) return r.ToString();
  return r.elements()[1].str();
}

// Three nodes cut apart add a sample at the same timestamp to a series of each policy, each at
// its own clock (n0 at kPinnedNowMs, n1 at kPinnedNowMs + 5, n2 at kPinnedNowMs + 2): after the
// heal every node holds the policy's merge — LAST n1's (the greatest stamp), FIRST and BLOCK n0's
// (the least), MIN, MAX, and SUM of every contribution (each node's two adds to it counted once) —
// and the same digest; so does a node given every delta of the three logs in a random order.
TEST_F(ActiveActiveSeriesTest, ConcurrentDuplicatesMergeByTheSeriesPolicy) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(3));
  const std::vector<std::string> policies = {"LAST", "FIRST", "MIN", "MAX", "SUM", "BLOCK"};
  for (const std::string& p : policies) {
    ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATE", "s:" + p, "DUPLICATE_POLICY", p}).str(), "OK");
  }
  ASSERT_EQ(WaitConverged(Conns()), "");
  Partition(true);
  SetClock(1, kPinnedNowMs + 5);
  SetClock(2, kPinnedNowMs + 2);
  const std::string ts = "1000";
  const std::vector<std::string> values = {"10", "30", "20"};
  for (int i = 0; i < 3; i++) {
    for (const std::string& p : policies) {
      const Reply r = Cmd(c_[i].get(), {"TS.ADD", "s:" + p, ts, values[i]});
      ASSERT_EQ(r.integer(), 1000) << p << " on n" << i << ": " << r.str();
    }
  }
  // A second add on n0 under SUM adds to its own contribution; under BLOCK it is refused there.
  EXPECT_EQ(Cmd(c_[0].get(), {"TS.ADD", "s:SUM", ts, "1"}).integer(), 1000);
  EXPECT_EQ(Value(c_[0].get(), "s:SUM"), "11");
  EXPECT_EQ(Cmd(c_[0].get(), {"TS.ADD", "s:BLOCK", ts, "1"}).str(),
            "ERR TSDB: Error at upsert, update is not supported when DUPLICATE_POLICY is set to "
            "BLOCK mode");
  // ON_DUPLICATE names the policy of that one add: a LAST one on a MIN series.
  ASSERT_EQ(Cmd(c_[2].get(), {"TS.ADD", "s:MIN", "2000", "5"}).integer(), 2000);
  ASSERT_EQ(Cmd(c_[1].get(), {"TS.ADD", "s:MIN", "2000", "7", "ON_DUPLICATE", "LAST"}).integer(),
            2000);
  Partition(false);
  ASSERT_EQ(WaitConverged(Conns()), "");
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"LAST", "30"}, {"FIRST", "10"}, {"MIN", "10"},
      {"MAX", "30"},  {"SUM", "61"},   {"BLOCK", "10"}};
  for (const auto& [p, value] : expected) {
    for (int i = 0; i < 3; i++) {
      EXPECT_EQ(Cmd(c_[i].get(), {"TS.RANGE", "s:" + p, "1000", "1000"}).ToString(),
                Cmd(c_[0].get(), {"TS.RANGE", "s:" + p, "1000", "1000"}).ToString());
    }
    const Reply r = Cmd(c_[1].get(), {"TS.RANGE", "s:" + p, "1000", "1000"});
    ASSERT_EQ(r.size(), 1u) << p << ": " << r.ToString();
    EXPECT_EQ(r.elements()[0].elements()[1].str(), value) << p;
    ExpectRangeEverywhere("s:" + p);
  }
  // n1's LAST add at ts 2000 carried the greater stamp: its policy decides, over n2's MIN.
  EXPECT_EQ(
      Cmd(c_[0].get(), {"TS.RANGE", "s:MIN", "2000", "2000"}).elements()[0].elements()[1].str(),
      "7");

  const std::vector<LoggedDelta> all = EveryLoggedDeltaShuffled(5);
  RedisConnection ref = StartReference();
  ASSERT_TRUE(ref);
  ApplyInOrder(ref.get(), all);
  ApplyInOrder(ref.get(), all);  // every delta twice: a join changes nothing the second time
  for (const std::string& p : policies) {
    EXPECT_EQ(Range(ref.get(), "s:" + p), Range(c_[0].get(), "s:" + p)) << p;
  }
  EXPECT_EQ(LogicalDigest(ref.get()), LogicalDigest(c_[0].get()));
}

// TS.ALTER and TS.CREATE are a last-writer-wins register of the settings by (clock, node id):
// concurrent ones end as the later everywhere; a TS.ADD that creates a series carries its
// settings. TS.INCRBY's delta is the sample it wrote.
TEST_F(ActiveActiveSeriesTest, SettingsAreARegisterAndIncrByCarriesItsSample) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(3));
  Partition(true);
  SetClock(1, kPinnedNowMs + 10);
  // n0 creates by TS.ADD, n1 (later clock) by TS.CREATE with other settings.
  ASSERT_EQ(
      Cmd(c_[0].get(), {"TS.ADD", "a", "5", "1", "RETENTION", "100", "LABELS", "x", "0"}).integer(),
      5);
  ASSERT_EQ(Cmd(c_[1].get(), {"TS.CREATE", "a", "RETENTION", "7000", "LABELS", "x", "1"}).str(),
            "OK");
  ASSERT_EQ(Cmd(c_[1].get(), {"TS.ADD", "a", "6", "2"}).integer(), 6);
  ASSERT_EQ(Cmd(c_[2].get(), {"TS.CREATE", "b"}).str(), "OK");
  Partition(false);
  ASSERT_EQ(WaitConverged(Conns()), "");
  for (auto& c : c_) {
    const Reply info = Cmd(c.get(), {"TS.INFO", "a"});
    ASSERT_TRUE(info.is_array()) << info.str();
    EXPECT_NE(info.ToString().find("7000"), std::string::npos) << info.ToString();
  }
  ExpectRangeEverywhere("a");
  EXPECT_EQ(Cmd(c_[0].get(), {"TS.RANGE", "a", "-", "+"}).size(), 2u);
  // Concurrent ALTERs: n2's clock is ahead, so its settings win.
  Partition(true);
  SetClock(2, kPinnedNowMs + 50);
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.ALTER", "b", "LABELS", "who", "n0"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[2].get(), {"TS.ALTER", "b", "RETENTION", "99", "LABELS", "who", "n2"}).str(),
            "OK");
  ASSERT_EQ(Cmd(c_[1].get(), {"TS.INCRBY", "b", "4", "TIMESTAMP", "10"}).integer(), 10);
  ASSERT_EQ(Cmd(c_[1].get(), {"TS.DECRBY", "b", "1", "TIMESTAMP", "10"}).integer(), 10);
  EXPECT_EQ(Cmd(c_[1].get(), {"TS.INCRBY", "b", "1", "TIMESTAMP", "9"}).str(),
            "ERR TSDB: timestamp must be equal to or higher than the maximum existing timestamp");
  Partition(false);
  ASSERT_EQ(WaitConverged(Conns()), "");
  for (auto& c : c_) {
    const std::string info = Cmd(c.get(), {"TS.INFO", "b"}).ToString();
    EXPECT_NE(info.find("n2"), std::string::npos) << info;
    EXPECT_EQ(info.find("n0"), std::string::npos) << info;
    EXPECT_EQ(Value(c.get(), "b"), "3");
  }
}

// A string write on a series key answers WRONGTYPE; TS.MADD answers each sample on its own.
// (TS.DEL: active_active_series_del_test; EXPIRE of a series: active_active_series_expiry_test;
// rules, TWA among them: active_active_series_rules_test.)
TEST_F(ActiveActiveSeriesTest, OriginAnswersAsOutsideTheMode) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(2));
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.ADD", "s", "1", "1"}).integer(), 1);
  EXPECT_EQ(Cmd(c_[0].get(), {"SET", "s", "x"}).str().substr(0, 9), "WRONGTYPE");
  const Reply madd =
      Cmd(c_[0].get(), {"TS.MADD", "s", "2", "2", "nosuch", "3", "3", "s", "3", "x"});
  ASSERT_EQ(madd.size(), 3u) << madd.ToString();
  EXPECT_EQ(madd.elements()[0].integer(), 2);
  EXPECT_EQ(madd.elements()[1].str(), "ERR TSDB: the key does not exist");
  EXPECT_EQ(madd.elements()[2].str(), "ERR TSDB: invalid value");
  // The errors a node outside the mode answers, judged on the origin; nothing logged.
  ASSERT_EQ(Cmd(c_[0].get(), {"SET", "str", "x"}).str(), "OK");
  EXPECT_EQ(Cmd(c_[0].get(), {"TS.CREATE", "str"}).str().substr(0, 9), "WRONGTYPE");
  EXPECT_EQ(Cmd(c_[0].get(), {"TS.ADD", "str", "1", "1"}).str(),
            "ERR TSDB: the key is not a TSDB key");
  EXPECT_EQ(Cmd(c_[0].get(), {"TS.CREATE", "s"}).str(), "ERR TSDB: key already exists");
  EXPECT_EQ(Cmd(c_[0].get(), {"TS.ALTER", "nosuch", "RETENTION", "5"}).str(),
            "ERR TSDB: the key does not exist");
  EXPECT_EQ(Cmd(c_[0].get(), {"TS.ADD", "s", "*", "abc"}).str(), "ERR TSDB: invalid value");
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectRangeEverywhere("s");
  EXPECT_EQ(Cmd(c_[1].get(), {"TS.RANGE", "s", "-", "+"}).size(), 2u);
  EXPECT_EQ(Cmd(c_[1].get(), {"GET", "str"}).str(), "x");
}

// DEL of a series at T (its newest sample, or its settings' stamp when later) removes every
// sample at or before T — also those added concurrently elsewhere and arriving later — and keeps
// the later ones; the key's floor keeps strings off it afterwards. FLUSHDB the same.
TEST_F(ActiveActiveSeriesTest, DelOfASeriesMeetsConcurrentAdds) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(2));
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.ADD", "s", std::to_string(kPinnedNowMs), "1"}).integer(),
            kPinnedNowMs);
  ASSERT_EQ(WaitConverged(Conns()), "");
  SetLink(c_[0].get(), n_[0], c_[1].get(), n_[1], false);
  ASSERT_EQ(Cmd(c_[1].get(), {"TS.ADD", "s", std::to_string(kPinnedNowMs - 1), "2"}).integer(),
            kPinnedNowMs - 1);
  ASSERT_EQ(Cmd(c_[1].get(), {"TS.ADD", "s", std::to_string(kPinnedNowMs + 1), "3"}).integer(),
            kPinnedNowMs + 1);
  EXPECT_EQ(Cmd(c_[0].get(), {"DEL", "s"}).integer(), 1);
  // After the DEL, an add at or before T on its origin is covered: refused, nothing written.
  EXPECT_EQ(Cmd(c_[0].get(), {"TS.ADD", "s", std::to_string(kPinnedNowMs - 5), "9"}).str(),
            "ERR the sample's timestamp is at or before a delete of the key in active-active mode");
  EXPECT_EQ(Cmd(c_[0].get(), {"EXISTS", "s"}).integer(), 0);
  SetLink(c_[0].get(), n_[0], c_[1].get(), n_[1], true);
  ASSERT_EQ(WaitConverged(Conns()), "");
  const std::string want = "[[" + std::to_string(kPinnedNowMs + 1) + ", 3]]";
  for (auto& c : c_) {
    const Reply r = Cmd(c.get(), {"TS.RANGE", "s", "-", "+"});
    ASSERT_EQ(r.size(), 1u) << r.ToString();
    EXPECT_EQ(r.elements()[0].elements()[0].integer(), kPinnedNowMs + 1);
  }
  // A DEL leaving nothing: the series goes everywhere, strings stay off the key.
  ASSERT_EQ(Cmd(c_[1].get(), {"DEL", "s"}).integer(), 1);
  ASSERT_EQ(WaitConverged(Conns()), "");
  for (auto& c : c_) EXPECT_EQ(Cmd(c.get(), {"EXISTS", "s"}).integer(), 0);
  // (A SET at the pinned clock kPinnedNowMs would be covered by the delete: +OK, nothing written.)
  EXPECT_EQ(Cmd(c_[0].get(), {"PUT", "s", "x", "TS", std::to_string(kPinnedNowMs + 50)})
                .str()
                .substr(0, 9),
            "WRONGTYPE");
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.ADD", "s", std::to_string(kPinnedNowMs + 100), "4"}).integer(),
            kPinnedNowMs + 100);
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectRangeEverywhere("s");
  // FLUSHDB at T (the newest the database holds: s's sample at kPinnedNowMs + 100) against
  // concurrent adds on either side of it.
  SetLink(c_[0].get(), n_[0], c_[1].get(), n_[1], false);
  ASSERT_EQ(Cmd(c_[0].get(), {"FLUSHDB"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[1].get(), {"TS.ADD", "s", std::to_string(kPinnedNowMs + 99), "5"}).integer(),
            kPinnedNowMs + 99);
  ASSERT_EQ(Cmd(c_[1].get(), {"TS.ADD", "s2", std::to_string(kPinnedNowMs + 101), "6"}).integer(),
            kPinnedNowMs + 101);
  SetLink(c_[0].get(), n_[0], c_[1].get(), n_[1], true);
  ASSERT_EQ(WaitConverged(Conns()), "");
  for (auto& c : c_) {
    EXPECT_EQ(Cmd(c.get(), {"EXISTS", "s"}).integer(), 0);
    EXPECT_EQ(Cmd(c.get(), {"TS.RANGE", "s2", "-", "+"}).size(), 1u);
  }
}

// A node restarted keeps its series and their merge state; a node joining after every log has
// moved past offset 1 gets the series from snapshots (SUM contributions counted once, also for
// the deltas the stream then sends again), and writes after it converge.
TEST_F(ActiveActiveSeriesTest, SnapshotsAndRestartsCarrySeries) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(3, {"--peer-backlog-size", "8"}));
  ASSERT_EQ(
      Cmd(c_[0].get(), {"TS.CREATE", "sum", "DUPLICATE_POLICY", "SUM", "LABELS", "k", "v"}).str(),
      "OK");
  ASSERT_EQ(WaitConverged(Conns()), "");
  for (int round = 0; round < 6; round++) {
    for (int i = 0; i < 3; i++) {
      const std::string ts = std::to_string(100 + round % 3);
      ASSERT_EQ(Cmd(c_[i].get(), {"TS.ADD", "sum", ts, std::to_string(i + 1)}).integer(),
                100 + round % 3);
      ASSERT_EQ(Cmd(c_[i].get(),
                    {"TS.ADD", "last" + std::to_string(i), ts, "1.5", "ON_DUPLICATE", "LAST"})
                    .integer(),
                100 + round % 3);
    }
  }
  ASSERT_EQ(WaitConverged(Conns()), "");
  // Each node added i + 1 twice at each of the three timestamps: 2 * (1 + 2 + 3) = 12.
  for (auto& c : c_) {
    const Reply r = Cmd(c.get(), {"TS.RANGE", "sum", "-", "+"});
    ASSERT_EQ(r.size(), 3u) << r.ToString();
    for (const Reply& sample : r.elements()) EXPECT_EQ(sample.elements()[1].str(), "12");
  }
  const std::string digest = LogicalDigest(c_[0].get());
  ASSERT_EQ(n_[1].Stop(), 0) << n_[1].ReadLog();
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.ADD", "sum", "103", "5"}).integer(), 103);
  ASSERT_TRUE(n_[1].Start(args_[1])) << n_[1].error();
  c_[1] = n_[1].Connect();
  SetClock(1, kPinnedNowMs);
  ASSERT_EQ(WaitConverged(Conns()), "");
  EXPECT_EQ(Value(c_[1].get(), "sum"), "5");

  // A deleted series travels as its key's marker (floor 3: a series) and its register.
  ASSERT_EQ(Cmd(c_[0].get(), {"DEL", "last0"}).integer(), 1);
  ASSERT_TRUE(late_.Start(PeerArgs({&n_[0], &n_[1], &n_[2]}))) << late_.error();
  RedisConnection late = late_.Connect();
  ASSERT_EQ(WaitConverged({c_[0].get(), late.get()}), "");
  EXPECT_GT(SnapshotsSent(), 0);
  EXPECT_EQ(Range(late.get(), "sum"), Range(c_[0].get(), "sum"));
  EXPECT_NE(Cmd(late.get(), {"TS.INFO", "sum"}).ToString().find("sum"), std::string::npos);
  EXPECT_EQ(Cmd(late.get(), {"EXISTS", "last0"}).integer(), 0);
  EXPECT_EQ(Cmd(late.get(), {"PUT", "last0", "x", "TS", std::to_string(kPinnedNowMs + 1000)})
                .str()
                .substr(0, 9),
            "WRONGTYPE");
  ASSERT_EQ(Cmd(c_[2].get(), {"TS.ADD", "sum", "100", "1"}).integer(), 100);
  ASSERT_EQ(WaitConverged({c_[0].get(), c_[1].get(), c_[2].get(), late.get()}), "");
  EXPECT_EQ(Cmd(late.get(), {"TS.RANGE", "sum", "100", "100"}).elements()[0].elements()[1].str(),
            "13");
  EXPECT_NE(LogicalDigest(late.get()), digest);  // the add after the restart changed it
}

}  // namespace
}  // namespace ebb::test
