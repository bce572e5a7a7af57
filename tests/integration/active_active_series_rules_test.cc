// Compaction rules between active-active peers (docs/active-active.md, "Time series", "Rules"),
// against spawned ebb-servers: a rule made on one node reaches every node, and each computes the
// destination from its merged source, so adds into one bucket made on nodes cut apart, in
// different orders, end as the same bucket under every aggregation on every node, and on a node
// given every delta in a random order; a TS.DELETERULE concurrent with adds; concurrent rules
// into one destination and a cycle made by two nodes; a chain carried by a snapshot to a late
// peer and over a restart; TWA rules, whose buckets follow the samples around them, under
// concurrent adds into the gaps between buckets and range deletes of a bucket's neighbour, over
// a restart and a snapshot, and under seeded random adds and range deletes; a source its expiry
// register expired whole on one node and not on another. Every wait is a bounded poll.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "tests/support/active_active_mesh.h"
#include "tests/support/active_active_support.h"
#include "tests/support/eventually.h"
#include "tests/support/test_seed.h"
#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

class ActiveActiveSeriesRulesTest : public ActiveActiveMeshTest {
 protected:
  // TS.RANGE of `key` as "ts:value " per sample (an error as the reply prints it).
  static std::string Range(redisContext* c, const std::string& key) {
    const Reply r = Cmd(c, {"TS.RANGE", key, "-", "+"});
    if (r.ToString().starts_with("(error)")) return r.ToString();
    std::string out;
    for (const Reply& sample : r.elements()) {
      out +=
          std::to_string(sample.elements()[0].integer()) + ":" + sample.elements()[1].str() + " ";
    }
    return out;
  }
  // Every node answers TS.RANGE of `key` as `expected`.
  void ExpectRangeEverywhere(const std::string& key, const std::string& expected) {
    for (size_t i = 0; i < c_.size(); i++) {
      EXPECT_EQ(Range(c_[i].get(), key), expected) << key << " on n" << i;
    }
  }
  void Add(int node, const std::string& key, int64_t ts, const std::string& value) {
    const Reply r = Cmd(c_[node].get(), {"TS.ADD", key, std::to_string(ts), value});
    ASSERT_EQ(r.integer(), ts) << key << " on n" << node << ": " << r.ToString();
  }
  // What a TWA rule of `bucket` ms computes from `source` on the node: the source's TWA
  // aggregation (TS.RANGE ... AGGREGATION twa) without its last bucket, the open one. Each
  // finished bucket interpolates from the sample before it and to the one after it there too.
  static std::string TwaOfFinishedBuckets(redisContext* c, const std::string& source,
                                          int64_t bucket, int64_t align) {
    const Reply r = Cmd(c, {"TS.RANGE", source, "-", "+", "ALIGN", std::to_string(align),
                            "AGGREGATION", "twa", std::to_string(bucket)});
    if (r.ToString().starts_with("(error)")) return r.ToString();
    const std::vector<Reply> samples = r.elements();
    std::string out;
    for (size_t i = 0; i + 1 < samples.size(); i++) {
      const Reply& sample = samples[i];
      out +=
          std::to_string(sample.elements()[0].integer()) + ":" + sample.elements()[1].str() + " ";
    }
    return out;
  }
  // On `c`, `dest` holds the TWA of `source`'s finished buckets (of `bucket` ms aligned at
  // `align`), and at least `buckets` of them.
  static void ExpectTwaOf(redisContext* c, const std::string& dest, const std::string& source,
                          int64_t bucket, int64_t align, size_t buckets, const std::string& where) {
    const std::string expected = TwaOfFinishedBuckets(c, source, bucket, align);
    EXPECT_EQ(Range(c, dest), expected) << where;
    EXPECT_GE(static_cast<size_t>(std::count(expected.begin(), expected.end(), ' ')), buckets)
        << where << ": " << expected;
  }
};

// Samples (ts, value) as Range prints them.
std::string RangeText(const std::vector<std::pair<int64_t, std::string>>& samples) {
  std::string out;
  for (const auto& [ts, value] : samples) out += std::to_string(ts) + ":" + value + " ";
  return out;
}

const std::vector<std::pair<std::string, std::string>> kAggregations = {
    // bucket [0, 100) ends holding 5:0.5 10:1 20:2 30:3 40:4+44 50:5 70:7
    {"avg", "9.5"}, {"sum", "66.5"},  {"min", "0.5"}, {"max", "48"},
    {"count", "7"}, {"first", "0.5"}, {"last", "7"}};

// A rule made on n0 reaches every node; the three nodes, cut apart, add into bucket [0, 100) in
// different orders (n2 closes it first with a sample at 150, so it computes the bucket from its
// own samples alone; n0 and n1 add concurrently at ts 40 of a SUM source): after the heal each
// destination holds the one bucket of every sample, by its aggregation, on every node, and so
// does a node given every logged delta in a random order, twice.
TEST_F(ActiveActiveSeriesRulesTest, ConcurrentAddsIntoABucketConvergeUnderEveryAggregation) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(3));
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATE", "src", "DUPLICATE_POLICY", "SUM"}).str(), "OK");
  for (const auto& [agg, value] : kAggregations) {
    ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATE", "d:" + agg}).str(), "OK");
    ASSERT_EQ(
        Cmd(c_[0].get(), {"TS.CREATERULE", "src", "d:" + agg, "AGGREGATION", agg, "100"}).str(),
        "OK");
  }
  ASSERT_EQ(WaitConverged(Conns()), "");
  for (int i = 0; i < 3; i++) {
    const std::string info = Cmd(c_[i].get(), {"TS.INFO", "d:sum"}).ToString();
    EXPECT_NE(info.find("\"src\""), std::string::npos) << "n" << i << ": " << info;
  }
  Partition(true);
  Add(2, "src", 150, "100");
  Add(2, "src", 70, "7");
  Add(2, "src", 5, "0.5");
  Add(0, "src", 50, "5");
  Add(0, "src", 10, "1");
  Add(0, "src", 40, "4");
  Add(1, "src", 30, "3");
  Add(1, "src", 40, "44");
  Add(1, "src", 20, "2");
  // n2 computed the bucket from its own samples; n0 and n1 have not closed it.
  EXPECT_EQ(Range(c_[2].get(), "d:sum"), RangeText({{0, "7.5"}}));
  EXPECT_EQ(Range(c_[0].get(), "d:sum"), RangeText({}));
  Partition(false);
  ASSERT_EQ(WaitConverged(Conns()), "");
  for (const auto& [agg, value] : kAggregations) {
    ExpectRangeEverywhere("d:" + agg, RangeText({{0, value}}));
  }
  // The destination is each node's own: a client write to it is refused.
  EXPECT_EQ(Cmd(c_[1].get(), {"TS.ADD", "d:sum", "5", "1"}).str(),
            "ERR TS writes to a compaction rule's destination are not allowed in active-active "
            "mode");
  EXPECT_EQ(Cmd(c_[1].get(), {"TS.CREATERULE", "src", "d:sum", "AGGREGATION", "max", "10"}).str(),
            "ERR TSDB: the destination key already has a src rule");

  const std::vector<LoggedDelta> all = EveryLoggedDeltaShuffled(11);
  RedisConnection ref = StartReference();
  ASSERT_TRUE(ref);
  ApplyInOrder(ref.get(), all);
  ApplyInOrder(ref.get(), all);
  for (const auto& [agg, value] : kAggregations) {
    EXPECT_EQ(Range(ref.get(), "d:" + agg), RangeText({{0, value}})) << agg;
  }
  // A rule delta out of shape is skipped and changes nothing.
  const std::string origin(40, 'f');
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"ts-rule", "d:sum", "garbage"},
        std::vector<std::string>{"ts-rule", "d:sum"},
        std::vector<std::string>{"ts-rule", "d:sum", std::string(1, '\x01'), "x"}}) {
    std::vector<std::string> apply = {"DEBUG", "PEER-APPLY", origin, "0"};
    apply.insert(apply.end(), bad.begin(), bad.end());
    EXPECT_EQ(Cmd(ref.get(), apply).str(),
              "ERR the delta was not applied (the server log says why)");
  }
  EXPECT_EQ(Range(ref.get(), "d:sum"), RangeText({{0, "66.5"}}));
}

// n0 deletes the rule while n1, cut off, adds into the closed bucket and closes the next: once
// healed the rule is gone everywhere, and the destination — which only the rule wrote — holds
// nothing on every node. A later client write to it and a new rule converge too: the new rule
// computes the destination from the whole source again. A DEL of a live destination, and the
// series created again on its key.
TEST_F(ActiveActiveSeriesRulesTest, DeleteRuleConcurrentWithAddsConverges) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(3));
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATE", "s"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATE", "d"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATERULE", "s", "d", "AGGREGATION", "sum", "100"}).str(), "OK");
  Add(0, "s", 10, "1");
  Add(0, "s", 150, "2");
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectRangeEverywhere("d", RangeText({{0, "1"}}));
  Partition(true);
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.DELETERULE", "s", "d"}).str(), "OK");
  EXPECT_EQ(Cmd(c_[0].get(), {"TS.DELETERULE", "s", "d"}).str(),
            "ERR TSDB: compaction rule does not exist");
  Add(1, "s", 20, "5");
  Add(1, "s", 250, "3");
  EXPECT_EQ(Range(c_[1].get(), "d"), RangeText({{0, "6"}, {100, "2"}}));
  Partition(false);
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectRangeEverywhere("d", RangeText({}));
  for (int i = 0; i < 3; i++) {
    const std::string info = Cmd(c_[i].get(), {"TS.INFO", "s"}).ToString();
    EXPECT_EQ(info.find("\"d\""), std::string::npos) << "n" << i << ": " << info;
  }
  Add(2, "d", 5, "9");
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectRangeEverywhere("d", RangeText({{5, "9"}}));
  ASSERT_EQ(Cmd(c_[1].get(), {"TS.CREATERULE", "s", "d", "AGGREGATION", "max", "100"}).str(), "OK");
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectRangeEverywhere("d", RangeText({{0, "5"}, {100, "2"}}));
  // Deleting the rule again leaves the destination its own sample.
  ASSERT_EQ(Cmd(c_[2].get(), {"TS.DELETERULE", "s", "d"}).str(), "OK");
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectRangeEverywhere("d", RangeText({{5, "9"}}));
  // A DEL of a live destination removes it everywhere; the rule stays with the key, so the
  // series created again on it is computed again.
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATERULE", "s", "d", "AGGREGATION", "sum", "100"}).str(), "OK");
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectRangeEverywhere("d", RangeText({{0, "6"}, {100, "2"}}));
  ASSERT_EQ(Cmd(c_[1].get(), {"DEL", "d"}).integer(), 1);
  ASSERT_EQ(WaitConverged(Conns()), "");
  for (auto& c : c_) EXPECT_EQ(Cmd(c.get(), {"EXISTS", "d"}).integer(), 0);
  Add(0, "s", 260, "1");
  ASSERT_EQ(Cmd(c_[2].get(), {"TS.CREATE", "d"}).str(), "OK");
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectRangeEverywhere("d", RangeText({{0, "6"}, {100, "2"}}));
  EXPECT_EQ(Cmd(c_[0].get(), {"TS.ADD", "d", "1", "1"}).str(),
            "ERR TS writes to a compaction rule's destination are not allowed in active-active "
            "mode");
}

// Two nodes cut apart each make a rule into `d` from a different source, and each one half of a
// cycle x <-> y: after the heal `d` has the rule of the later register (n1's clock is ahead) on
// every node, and neither half of the cycle is live, so x and y show their own samples.
TEST_F(ActiveActiveSeriesRulesTest, ConcurrentRulesToOneDestinationAndACycleResolveAlike) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(2));
  for (const char* key : {"a", "c", "d", "x", "y"}) {
    ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATE", key}).str(), "OK");
  }
  ASSERT_EQ(WaitConverged(Conns()), "");
  Partition(true);
  SetClock(1, kMeshClockMs + 5);
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATERULE", "a", "d", "AGGREGATION", "sum", "100"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATERULE", "x", "y", "AGGREGATION", "sum", "100"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[1].get(), {"TS.CREATERULE", "c", "d", "AGGREGATION", "max", "100"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[1].get(), {"TS.CREATERULE", "y", "x", "AGGREGATION", "sum", "100"}).str(), "OK");
  for (int64_t ts : {10, 150}) {
    Add(0, "a", ts, "1");
    Add(0, "x", ts, "1");
    Add(1, "c", ts + 10, "2");
    Add(1, "y", ts + 10, "3");
  }
  Partition(false);
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectRangeEverywhere("d", RangeText({{0, "2"}}));
  ExpectRangeEverywhere("x", RangeText({{10, "1"}, {150, "1"}}));
  ExpectRangeEverywhere("y", RangeText({{20, "3"}, {160, "3"}}));
  for (int i = 0; i < 2; i++) {
    const std::string info = Cmd(c_[i].get(), {"TS.INFO", "d"}).ToString();
    EXPECT_NE(info.find("\"c\""), std::string::npos) << "n" << i << ": " << info;
    EXPECT_EQ(Cmd(c_[i].get(), {"TS.INFO", "a"}).ToString().find("\"d\""), std::string::npos);
  }
}

// A chain s -> d (avg, 100) -> e (max, 200): a node restarted keeps the rules and computes what
// arrives after it; a node joining after every log has moved on gets the rules from snapshots
// and computes both destinations itself; a DEL of the source empties them everywhere.
TEST_F(ActiveActiveSeriesRulesTest, SnapshotsAndRestartsCarryRules) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(3, {"--peer-backlog-size", "8"}));
  for (const char* key : {"s", "d", "e"}) {
    ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATE", key}).str(), "OK");
  }
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATERULE", "s", "d", "AGGREGATION", "avg", "100"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[1].get(), {"TS.CREATE", "x"}).str(), "OK");
  ASSERT_EQ(WaitConverged(Conns()), "");
  ASSERT_EQ(Cmd(c_[1].get(), {"TS.CREATERULE", "d", "e", "AGGREGATION", "max", "200"}).str(), "OK");
  for (int64_t ts = 0; ts < 500; ts += 25) Add(static_cast<int>(ts / 25) % 3, "s", ts, "1");
  ASSERT_EQ(WaitConverged(Conns()), "");
  ASSERT_EQ(n_[1].Stop(), 0) << n_[1].ReadLog();
  for (int64_t ts = 500; ts < 700; ts += 50) Add(0, "s", ts, std::to_string(ts / 50));
  ASSERT_TRUE(n_[1].Start(args_[1])) << n_[1].error();
  c_[1] = n_[1].Connect();
  SetClock(1, kMeshClockMs);
  ASSERT_EQ(WaitConverged(Conns()), "");
  // d: buckets 0..400 of ones, 500 (10 and 11) = 10.5; e: its buckets 0 and 200 finished.
  const std::string d =
      RangeText({{0, "1"}, {100, "1"}, {200, "1"}, {300, "1"}, {400, "1"}, {500, "10.5"}});
  ExpectRangeEverywhere("d", d);
  ExpectRangeEverywhere("e", RangeText({{0, "1"}, {200, "1"}}));

  ASSERT_TRUE(late_.Start(PeerArgs({&n_[0], &n_[1], &n_[2]}))) << late_.error();
  RedisConnection late = late_.Connect();
  ASSERT_EQ(WaitConverged({c_[0].get(), late.get()}), "");
  EXPECT_GT(SnapshotsSent(), 0);
  EXPECT_EQ(Range(late.get(), "d"), d);
  EXPECT_EQ(Range(late.get(), "e"), RangeText({{0, "1"}, {200, "1"}}));
  Add(2, "s", 800, "1");
  ASSERT_EQ(WaitConverged({c_[0].get(), c_[1].get(), c_[2].get(), late.get()}), "");
  EXPECT_EQ(Range(late.get(), "e"), RangeText({{0, "1"}, {200, "1"}, {400, "10.5"}}));
  EXPECT_EQ(Range(late.get(), "e"), Range(c_[0].get(), "e"));

  ASSERT_EQ(Cmd(c_[2].get(), {"DEL", "s"}).integer(), 1);
  ASSERT_EQ(WaitConverged({c_[0].get(), c_[1].get(), c_[2].get(), late.get()}), "");
  ExpectRangeEverywhere("d", RangeText({}));
  ExpectRangeEverywhere("e", RangeText({}));
  EXPECT_EQ(Range(late.get(), "d"), RangeText({}));
}

// A TS.DEL on a rule's source (a range marker, "Range deletes of a series") makes every node
// recompute the destination from what is left; a TS.DEL on the destination is refused as other
// TS writes to it are, and changes nothing.
TEST_F(ActiveActiveSeriesRulesTest, ARangeDeleteOnASourceRecomputesItsDestination) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(3));
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATE", "src"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATE", "d"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATERULE", "src", "d", "AGGREGATION", "sum", "100"}).str(),
            "OK");
  ASSERT_EQ(WaitConverged(Conns()), "");
  Add(0, "src", 10, "1");
  Add(1, "src", 20, "2");
  Add(2, "src", 120, "4");
  Add(0, "src", 250, "8");  // closes bucket [100, 200)
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectRangeEverywhere("d", RangeText({{0, "3"}, {100, "4"}}));

  EXPECT_EQ(Cmd(c_[1].get(), {"TS.DEL", "src", "15", "130"}).integer(), 2);
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectRangeEverywhere("src", RangeText({{10, "1"}, {250, "8"}}));
  ExpectRangeEverywhere("d", RangeText({{0, "1"}}));

  EXPECT_EQ(Cmd(c_[2].get(), {"TS.DEL", "d", "0", "1000"}).str(),
            "ERR TS writes to a compaction rule's destination are not allowed in active-active "
            "mode");
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectRangeEverywhere("d", RangeText({{0, "1"}}));
}

// A TWA bucket depends on the sample before it and the one after it. Three nodes cut apart
// change them in different orders: n0 adds into the empty bucket between two finished ones (the
// new after-neighbour of one, before-neighbour of the other), n1 adds a nearer neighbour and a
// bucket's new last sample, n2 deletes a bucket's only sample (TS.DEL) and closes the open
// bucket. After the heal every node holds the same source and, in the destination, the TWA of
// each of its finished buckets — as TS.RANGE AGGREGATION twa computes it from that source — and
// so does a node given every logged delta in a random order, twice.
TEST_F(ActiveActiveSeriesRulesTest, TwaBucketsFollowTheirNeighboursWhateverTheOrder) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(3));
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATE", "src"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATE", "d"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[1].get(), {"TS.CREATE", "e"}).str(), "OK");
  ASSERT_EQ(WaitConverged(Conns()), "");
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATERULE", "src", "d", "AGGREGATION", "twa", "100"}).str(),
            "OK");
  // A chain: d's TWA in buckets of 200 (its samples sit at the starts of src's buckets).
  ASSERT_EQ(Cmd(c_[1].get(), {"TS.CREATERULE", "d", "e", "AGGREGATION", "twa", "200"}).str(), "OK");
  Add(0, "src", 10, "1");
  Add(1, "src", 50, "5");
  Add(2, "src", 350, "3");
  Add(0, "src", 420, "4");
  ASSERT_EQ(WaitConverged(Conns()), "");
  for (size_t i = 0; i < c_.size(); i++) {
    ExpectTwaOf(c_[i].get(), "d", "src", 100, 0, 2, "n" + std::to_string(i));
  }
  // Bucket 0 interpolates towards 350 across two empty buckets, to 5 - 2/6 at 100:
  // ((1+5)/2*40 + (5+4.667)/2*50) / 90 ms.
  EXPECT_EQ(Range(c_[0].get(), "d").substr(0, 9), "0:4.01851");

  Partition(true);
  Add(0, "src", 180, "8");  // into the gap: bucket 0's next, bucket 300's previous
  Add(1, "src", 260, "2");  // a nearer neighbour on n1 (and bucket 200's only sample)
  Add(1, "src", 95, "6");   // bucket 0's new last sample
  EXPECT_EQ(Cmd(c_[2].get(), {"TS.DEL", "src", "340", "360"}).integer(), 1);  // bucket 300's
  Add(2, "src", 550, "5");                                                    // closes 400
  Add(2, "src", 620, "7");                                                    // closes 500
  for (size_t i = 0; i < c_.size(); i++) {
    ExpectTwaOf(c_[i].get(), "d", "src", 100, 0, 2, "n" + std::to_string(i) + " cut off");
  }
  Partition(false);
  ASSERT_EQ(WaitConverged(Conns()), "");
  const std::string src = Range(c_[0].get(), "src");
  EXPECT_EQ(src, RangeText({{10, "1"},
                            {50, "5"},
                            {95, "6"},
                            {180, "8"},
                            {260, "2"},
                            {420, "4"},
                            {550, "5"},
                            {620, "7"}}));
  ExpectRangeEverywhere("src", src);
  const std::string d = Range(c_[0].get(), "d");
  ExpectRangeEverywhere("d", d);
  ExpectRangeEverywhere("e", Range(c_[0].get(), "e"));
  for (size_t i = 0; i < c_.size(); i++) {
    ExpectTwaOf(c_[i].get(), "d", "src", 100, 0, 5, "n" + std::to_string(i));
    ExpectTwaOf(c_[i].get(), "e", "d", 200, 0, 2, "n" + std::to_string(i));
  }

  const std::vector<LoggedDelta> all = EveryLoggedDeltaShuffled(23);
  RedisConnection ref = StartReference();
  ASSERT_TRUE(ref);
  ApplyInOrder(ref.get(), all);
  ApplyInOrder(ref.get(), all);
  EXPECT_EQ(Range(ref.get(), "src"), src);
  EXPECT_EQ(Range(ref.get(), "d"), d);
  EXPECT_EQ(Range(ref.get(), "e"), Range(c_[0].get(), "e"));
  EXPECT_EQ(LogicalDigest(ref.get()), LogicalDigest(c_[0].get()));
}

// A TWA rule over a restart and a snapshot: a source with empty buckets between its samples;
// while n1 is stopped, n0 fills some gaps and deletes a bucket's neighbours, and n2 adds past
// them; n1 restarted, and a node joining after every log has moved on (a snapshot of several
// pieces), compute the same destination: the TWA of each finished bucket of the merged source.
TEST_F(ActiveActiveSeriesRulesTest, TwaRulesConvergeOverARestartAndASnapshot) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(3, {"--peer-backlog-size", "8"}));
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATE", "s"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATE", "d"}).str(), "OK");
  ASSERT_EQ(WaitConverged(Conns()), "");
  ASSERT_EQ(Cmd(c_[2].get(), {"TS.CREATERULE", "s", "d", "AGGREGATION", "twa", "50", "7"}).str(),
            "OK");
  // 300 samples, every 13 ms, in buckets of 50 aligned at 7 ([-43, 7), [7, 57), ...), every
  // third bucket left empty ([7, 57), [157, 207), [307, 357), ...).
  int added = 0;
  for (int64_t ts = 0; added < 300; ts += 13) {
    if ((ts - 7 + 50) / 50 % 3 == 1) continue;
    Add(added % 3, "s", ts, std::to_string(ts % 17));
    added++;
  }
  ASSERT_EQ(WaitConverged(Conns()), "");
  ASSERT_EQ(n_[1].Stop(), 0) << n_[1].ReadLog();
  Add(0, "s", 30, "40");   // into the empty bucket [7, 57)
  Add(0, "s", 180, "-3");  // into the empty bucket [157, 207)
  // Bucket [257, 307) whole: the neighbours of [207, 257) and [357, 407).
  EXPECT_EQ(Cmd(c_[0].get(), {"TS.DEL", "s", "258", "330"}).integer(), 4);
  Add(2, "s", 9000, "1");
  ASSERT_TRUE(n_[1].Start(args_[1])) << n_[1].error();
  c_[1] = n_[1].Connect();
  SetClock(1, kMeshClockMs);
  ASSERT_EQ(WaitConverged(Conns()), "");
  const std::string d = Range(c_[0].get(), "d");
  ExpectRangeEverywhere("s", Range(c_[0].get(), "s"));
  ExpectRangeEverywhere("d", d);
  for (size_t i = 0; i < c_.size(); i++) {
    ExpectTwaOf(c_[i].get(), "d", "s", 50, 7, 80, "n" + std::to_string(i));
  }

  ASSERT_TRUE(late_.Start(PeerArgs({&n_[0], &n_[1], &n_[2]}))) << late_.error();
  RedisConnection late = late_.Connect();
  ASSERT_EQ(WaitConverged({c_[0].get(), c_[1].get(), c_[2].get(), late.get()}), "");
  EXPECT_GT(SnapshotsSent(), 0);
  EXPECT_EQ(Range(late.get(), "d"), d);
  ExpectTwaOf(late.get(), "d", "s", 50, 7, 80, "late");
  // A sample into the gap before the last finished bucket: that bucket and the one before the
  // gap now interpolate from and to it, on the late node too.
  Add(2, "s", 8000, "2");
  ASSERT_EQ(WaitConverged({c_[0].get(), c_[1].get(), c_[2].get(), late.get()}), "");
  EXPECT_EQ(Range(late.get(), "d"), Range(c_[0].get(), "d"));
  ExpectTwaOf(late.get(), "d", "s", 50, 7, 81, "late, after 8000");
  for (size_t i = 0; i < c_.size(); i++) {
    ExpectTwaOf(c_[i].get(), "d", "s", 50, 7, 81, "n" + std::to_string(i) + ", after 8000");
  }
}

// Random adds (SUM duplicates) and range deletes of a TWA rule's source on three nodes cut apart
// in two rounds, the source's samples spread thin so buckets stay empty between others: after
// each heal every node holds the same source and digest, and the destination — and a TWA rule it
// feeds — is the TWA of each finished bucket of the merged source, on every node and on a node
// given every logged delta in a random order.
TEST_F(ActiveActiveSeriesRulesTest, RandomAddsAndDeletesConvergeUnderTwa) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(3));
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATE", "src", "DUPLICATE_POLICY", "SUM"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATE", "d"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATE", "e"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATERULE", "src", "d", "AGGREGATION", "twa", "60"}).str(),
            "OK");
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATERULE", "d", "e", "AGGREGATION", "twa", "150", "20"}).str(),
            "OK");
  ASSERT_EQ(WaitConverged(Conns()), "");
  const uint64_t seed = TestSeed(31);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 2; round++) {
    Partition(true);
    for (int step = 0; step < 60; step++) {
      const int node = static_cast<int>(rng() % 3);
      const int64_t ts = static_cast<int64_t>(rng() % 3000);
      if (rng() % 8 == 0) {
        const Reply r =
            Cmd(c_[node].get(), {"TS.DEL", "src", std::to_string(ts),
                                 std::to_string(ts + static_cast<int64_t>(rng() % 90))});
        ASSERT_TRUE(r.is_integer()) << r.ToString();
      } else {
        Add(node, "src", ts, std::to_string(static_cast<int>(rng() % 21) - 10));
      }
    }
    Partition(false);
    ASSERT_EQ(WaitConverged(Conns()), "") << "round " << round;
    ExpectRangeEverywhere("src", Range(c_[0].get(), "src"));
    for (size_t i = 0; i < c_.size(); i++) {
      const std::string where = "round " + std::to_string(round) + ", n" + std::to_string(i);
      ExpectTwaOf(c_[i].get(), "d", "src", 60, 0, 10, where);
      ExpectTwaOf(c_[i].get(), "e", "d", 150, 20, 3, where);
    }
  }
  const std::vector<LoggedDelta> all = EveryLoggedDeltaShuffled(seed);
  RedisConnection ref = StartReference();
  ASSERT_TRUE(ref);
  ApplyInOrder(ref.get(), all);
  EXPECT_EQ(Range(ref.get(), "src"), Range(c_[0].get(), "src"));
  EXPECT_EQ(Range(ref.get(), "d"), Range(c_[0].get(), "d"));
  EXPECT_EQ(Range(ref.get(), "e"), Range(c_[0].get(), "e"));
}

// A rule made over a series whose hidden samples one node has purged: n0, cut off, adds newer
// samples that hide the oldest ones and purges them by the deadline, while n1 still holds them
// (nothing hides them there). The rule n0 makes carries its floor (the source's window floor on
// n0), so once healed both nodes compute the destination from the samples at or above it alone
// — the TWA of the visible samples' finished buckets, the bucket after the purged samples
// interpolating from no hidden one — and keep agreeing as samples arrive.
TEST_F(ActiveActiveSeriesRulesTest, ARuleOverPurgedSamplesReadsFromItsFloor) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(2, {"--expiry-purge-deadline", "4s"}));
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATE", "s", "RETENTION", "1000"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATE", "d"}).str(), "OK");
  std::vector<std::string> madd = {"TS.MADD"};
  for (int ts = 1000; ts < 1100; ts++) madd.insert(madd.end(), {"s", std::to_string(ts), "9"});
  for (int ts = 1600; ts <= 1700; ts += 10) {
    madd.insert(madd.end(), {"s", std::to_string(ts), std::to_string(ts % 7)});
  }
  ASSERT_EQ(Cmd(c_[0].get(), madd).size(), 111u);
  ASSERT_EQ(WaitConverged(Conns()), "");
  Partition(true);
  madd = {"TS.MADD"};
  for (int ts = 2500; ts < 2550; ts++) madd.insert(madd.end(), {"s", std::to_string(ts), "1"});
  ASSERT_EQ(Cmd(c_[0].get(), madd).size(), 50u);  // hides 1000..1099 on n0: floor 1549
  for (int i = 0; i < 2; i++) SetClock(i, kMeshClockMs + 5000);
  const auto stored = [&](int i) {
    const Reply info = Cmd(c_[i].get(), {"TS.INFO", "s", "DEBUG"});
    long long n = 0;
    for (const Reply& chunk : info[27].elements()) n += chunk[5].integer();
    return n;
  };
  ASSERT_TRUE(Eventually(
      [&] {
        return Cmd(c_[0].get(), {"DEBUG", "COMPACT"}).str() == "OK" && stored(0) == 61;
      },
      10))
      << "n0 stores " << stored(0);
  EXPECT_EQ(stored(1), 111);
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATERULE", "s", "d", "AGGREGATION", "twa", "100"}).str(), "OK");
  // No bucket below the floor: the first is [1600, 1700), the 1000s purged on n0.
  EXPECT_EQ(Range(c_[0].get(), "d").substr(0, 5), "1600:") << Range(c_[0].get(), "d");
  Partition(false);
  // n1 keeps its hidden samples (a rule's source purges none), so the digests differ; what each
  // node shows agrees.
  EXPECT_TRUE(Eventually([&] {
    return Range(c_[1].get(), "s") == Range(c_[0].get(), "s") &&
           Range(c_[1].get(), "d") == Range(c_[0].get(), "d") &&
           Cmd(c_[1].get(), {"TS.INFO", "d"}).ToString().find("\"s\"") != std::string::npos;
  })) << Range(c_[1].get(), "d")
      << " against " << Range(c_[0].get(), "d");
  EXPECT_EQ(stored(1), 161);
  for (int i = 0; i < 2; i++) {
    ExpectTwaOf(c_[i].get(), "d", "s", 100, 0, 2, "n" + std::to_string(i));
  }
  Add(1, "s", 2600, "4");
  EXPECT_TRUE(Eventually([&] {
    return Range(c_[0].get(), "d") == Range(c_[1].get(), "d") &&
           Range(c_[0].get(), "d").find("2500:") != std::string::npos;
  })) << Range(c_[0].get(), "d")
      << " against " << Range(c_[1].get(), "d");
  for (int i = 0; i < 2; i++) {
    ExpectTwaOf(c_[i].get(), "d", "s", 100, 0, 3, "n" + std::to_string(i) + " after 2600");
  }
}

// A destination is computed from every sample its source stores, also once the source's expiry
// register has expired it whole: cut apart, n1 expires the source `s` and its clock passes the
// expiry, while n0 makes a rule from it into `d`, which holds a sample of its own. After the heal
// both nodes compute `d` from `s` (n1 got the rule with `s` expired; before, it left `d` its own
// sample and n0 the bucket, for good). A sample n1 then adds into the bucket (the TS.ADD brings
// `s` back as an empty series there, its samples hidden) refreshes the bucket on both nodes.
TEST_F(ActiveActiveSeriesRulesTest, ARuleOverASourceItsRegisterExpiredComputesAlike) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(2));
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATE", "d"}).str(), "OK");
  Add(0, "d", 5, "9");
  Add(0, "s", 10, "1");
  Add(0, "s", 150, "2");
  ASSERT_EQ(WaitConverged(Conns()), "");
  Partition(true);
  ASSERT_EQ(Cmd(c_[1].get(), {"PEXPIREAT", "s", std::to_string(kMeshClockMs + 1000)}).integer(), 1);
  SetClock(1, kMeshClockMs + 2000);
  ASSERT_EQ(Cmd(c_[1].get(), {"EXISTS", "s"}).integer(), 0);
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.CREATERULE", "s", "d", "AGGREGATION", "sum", "100"}).str(), "OK");
  EXPECT_EQ(Range(c_[0].get(), "d"), RangeText({{0, "1"}}));
  Partition(false);
  // n0's clock is behind the expiry, so the digests differ (expiry is part of them) until the
  // clocks agree: what both nodes answer agrees.
  const auto both_hold = [&](const std::string& expected) {
    return Eventually(
        [&] { return Range(c_[0].get(), "d") == expected && Range(c_[1].get(), "d") == expected; });
  };
  EXPECT_TRUE(Eventually([&] {
    return Cmd(c_[0].get(), {"PTTL", "s"}).integer() > 0;
  })) << "n0 never got n1's expiry register";
  EXPECT_TRUE(both_hold(RangeText({{0, "1"}})))
      << Range(c_[0].get(), "d") << " on n0, " << Range(c_[1].get(), "d") << " on n1";
  EXPECT_EQ(Cmd(c_[1].get(), {"EXISTS", "s"}).integer(), 0);
  Add(1, "s", 50, "3");
  EXPECT_TRUE(both_hold(RangeText({{0, "4"}})))
      << Range(c_[0].get(), "d") << " on n0, " << Range(c_[1].get(), "d") << " on n1";
  SetClock(0, kMeshClockMs + 2000);
  ASSERT_EQ(WaitConverged(Conns()), "");
  ExpectRangeEverywhere("d", RangeText({{0, "4"}}));
  ExpectRangeEverywhere("s", "");
}

// A record written to a series before a rule made it a destination is newer than the rule's
// buckets and than the series' register. A FLUSHDB on the origin takes its T from the record
// too, so the flush covers it wherever it arrives: a node given the origin's deltas with the
// flush first (as a snapshot's horizon comes before its keys) held the record where the origin
// had wiped it.
TEST_F(ActiveActiveSeriesRulesTest, AFlushCoversARecordItsDestinationHeldBeforeItsRule) {
  ASSERT_TRUE(n_[0].Start(no_peer_.PeerArgs())) << n_[0].error();
  RedisConnection origin = n_[0].Connect();
  ASSERT_EQ(Cmd(origin.get(), {"DEBUG", "CLOCK", "SET", std::to_string(kMeshClockMs)}).str(), "OK");
  const std::string later = std::to_string(kMeshClockMs + 3000);
  ASSERT_EQ(Cmd(origin.get(), {"TS.ADD", "d", later, "1"}).ToString(), "(integer) " + later);
  ASSERT_EQ(Cmd(origin.get(), {"TS.ADD", "s", "8", "41"}).integer(), 8);
  ASSERT_EQ(Cmd(origin.get(), {"TS.CREATERULE", "s", "d", "AGGREGATION", "sum", "10"}).str(), "OK");
  ASSERT_EQ(Cmd(origin.get(), {"FLUSHDB"}).str(), "OK");
  EXPECT_EQ(Cmd(origin.get(), {"EXISTS", "d", "s"}).integer(), 0);
  std::vector<LoggedDelta> deltas = ReadOriginLog(n_[0]);
  const auto flush = std::find_if(deltas.begin(), deltas.end(),
                                  [](const LoggedDelta& d) { return d.args[0] == "flushdb-at"; });
  ASSERT_NE(flush, deltas.end());
  EXPECT_EQ(flush->args[1], later);
  std::rotate(deltas.begin(), flush, flush + 1);  // the flush first
  RedisConnection ref = StartReference();
  ASSERT_NE(ref.get(), nullptr);
  ASSERT_EQ(Cmd(ref.get(), {"DEBUG", "CLOCK", "SET", std::to_string(kMeshClockMs)}).str(), "OK");
  ASSERT_NO_FATAL_FAILURE(ApplyInOrder(ref.get(), deltas));
  EXPECT_EQ(Cmd(ref.get(), {"EXISTS", "d", "s"}).integer(), 0) << Range(ref.get(), "d");
  EXPECT_EQ(LogicalDigest(ref.get()), LogicalDigest(origin.get()));
}

// A delete that reaches a live destination holding a record after the delete's T keeps it, as
// the record keeps it where it arrives after the delete: node 0 holds `d` computed from `s`
// and a record written to it before the rule; node 1 wrote `d` and deleted it below that
// record. Each given the other's deltas, both hold `d` alike. Before, node 0 wiped `d` whole
// (its computed samples keep nothing alive), while node 1 made it again from the record.
TEST_F(ActiveActiveSeriesRulesTest, ADeleteKeepsADestinationWithARecordAfterIt) {
  ASSERT_TRUE(n_[0].Start(no_peer_.PeerArgs())) << n_[0].error();
  ASSERT_TRUE(n_[1].Start(no_peer_.PeerArgs())) << n_[1].error();
  RedisConnection n0 = n_[0].Connect();
  RedisConnection n1 = n_[1].Connect();
  for (redisContext* c : {n0.get(), n1.get()}) {
    ASSERT_EQ(Cmd(c, {"DEBUG", "CLOCK", "SET", std::to_string(kMeshClockMs)}).str(), "OK");
  }
  const std::string later = std::to_string(kMeshClockMs + 3000);
  ASSERT_EQ(Cmd(n0.get(), {"TS.ADD", "d", later, "1"}).ToString(), "(integer) " + later);
  ASSERT_EQ(Cmd(n0.get(), {"TS.ADD", "s", "8", "41"}).integer(), 8);
  ASSERT_EQ(Cmd(n0.get(), {"TS.CREATERULE", "s", "d", "AGGREGATION", "sum", "10"}).str(), "OK");
  ASSERT_EQ(Cmd(n1.get(), {"TS.ADD", "d", "100", "7"}).integer(), 100);
  ASSERT_EQ(Cmd(n1.get(), {"DEL", "d"}).integer(), 1);
  const std::vector<LoggedDelta> from0 = ReadOriginLog(n_[0]);
  const std::vector<LoggedDelta> from1 = ReadOriginLog(n_[1]);
  ASSERT_NO_FATAL_FAILURE(ApplyInOrder(n0.get(), from1));
  ASSERT_NO_FATAL_FAILURE(ApplyInOrder(n1.get(), from0));
  for (redisContext* c : {n0.get(), n1.get()}) {
    EXPECT_EQ(Cmd(c, {"EXISTS", "d"}).integer(), 1) << (c == n0.get() ? "n0" : "n1");
  }
  EXPECT_EQ(Range(n0.get(), "d"), Range(n1.get(), "d"));
  EXPECT_EQ(LogicalDigest(n0.get()), LogicalDigest(n1.get()));
}

}  // namespace
}  // namespace ebb::test
