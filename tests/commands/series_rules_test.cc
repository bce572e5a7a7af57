// TS.CREATERULE / TS.DELETERULE through the command layer: every aggregator through a rule on a
// data set computed by hand, backfill, chains, cycles refused, TS.DEL on a source, LATEST,
// DELETERULE, restart survival, TS.INFO, RedisTimeSeries' error texts.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/command_runner.h"

namespace ebb::test {
namespace {

class SeriesRulesTest : public CommandTest {
 protected:
  // The data set (bucket 20, align 0), as in series_test.cc:
  //   [0,20): (10,2) (15,4)   [20,40): (30,6) (35,10)   [40,60): empty   [60,80): (70,1)
  // Through a rule, [0,20) and [20,40) are finished (70 opened [60,80)); [60,80) is open.
  void AddDataSet(std::string_view key) {
    for (auto [ts, v] : std::vector<std::pair<const char*, const char*>>{
             {"10", "2"}, {"15", "4"}, {"30", "6"}, {"35", "10"}, {"70", "1"}}) {
      ASSERT_EQ(Do({"TS.ADD", key, ts, v}), std::string(":") + ts);
    }
  }
  // TS.INFO's sourceKey and rules, as Do() spells them.
  std::string Links(std::string_view key) {
    const std::string info = Do({"TS.INFO", key});
    return info.substr(std::min(info.size(), info.find("+sourceKey")));
  }
  std::string Rule(std::string_view src, std::string_view dest, std::string_view agg,
                   std::string_view bucket = "20") {
    return Do({"TS.CREATERULE", src, dest, "AGGREGATION", agg, bucket});
  }
};

// The finished buckets each aggregator gives (series_test.cc derives them); twa: [0,20) from
// (10,2) to the line towards (30,6) at 20: 11/3; [20,40) from the line (15,4)-(30,6) at 20 to
// the line (35,10)-(70,1) at 40: 5885/840.
TEST_F(SeriesRulesTest, EveryAggregatorThroughARule) {
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"avg", "[[:0,+3],[:20,+8]]"},
      {"sum", "[[:0,+6],[:20,+16]]"},
      {"min", "[[:0,+2],[:20,+6]]"},
      {"max", "[[:0,+4],[:20,+10]]"},
      {"range", "[[:0,+2],[:20,+4]]"},
      {"count", "[[:0,+2],[:20,+2]]"},
      {"first", "[[:0,+2],[:20,+6]]"},
      {"last", "[[:0,+4],[:20,+10]]"},
      {"var.p", "[[:0,+1],[:20,+4]]"},
      {"std.p", "[[:0,+1],[:20,+2]]"},
      {"var.s", "[[:0,+2],[:20,+8]]"},
      {"std.s", "[[:0,+1.4142135623730951],[:20,+2.8284271247461903]]"}};
  for (const auto& [agg, want] : expected) {
    const std::string src = "src:" + agg;
    const std::string dest = "dest:" + agg;
    ASSERT_EQ(Do({"TS.CREATE", dest}), "+OK");
    ASSERT_EQ(Do({"TS.CREATE", src}), "+OK");
    ASSERT_EQ(Rule(src, dest, agg), "+OK") << agg;
    AddDataSet(src);
    EXPECT_EQ(Do({"TS.RANGE", dest, "-", "+"}), want) << agg;
  }
  ASSERT_EQ(Do({"TS.CREATE", "dest:twa"}), "+OK");
  ASSERT_EQ(Do({"TS.CREATE", "src:twa"}), "+OK");
  ASSERT_EQ(Rule("src:twa", "dest:twa", "TWA"), "+OK");
  AddDataSet("src:twa");
  const Reply twa = Cmd({"TS.RANGE", "dest:twa", "-", "+"});
  ASSERT_EQ(twa.size(), 2u);
  EXPECT_EQ(twa[0][0].integer(), 0);
  EXPECT_NEAR(std::stod(twa[0][1].str()), 11.0 / 3, 1e-12);
  EXPECT_EQ(twa[1][0].integer(), 20);
  EXPECT_NEAR(std::stod(twa[1][1].str()), 5885.0 / 840, 1e-12);
}

TEST_F(SeriesRulesTest, BackfillWritesEveryFinishedBucket) {
  AddDataSet("t");
  ASSERT_EQ(Do({"TS.CREATE", "d"}), "+OK");
  EXPECT_EQ(Rule("t", "d", "sum"), "+OK");
  EXPECT_EQ(Do({"TS.RANGE", "d", "-", "+"}), "[[:0,+6],[:20,+16]]");
  // The open bucket [60,80) follows when a sample opens a newer one.
  EXPECT_EQ(Do({"TS.ADD", "t", "85", "7"}), ":85");
  EXPECT_EQ(Do({"TS.RANGE", "d", "-", "+"}), "[[:0,+6],[:20,+16],[:60,+1]]");
  // An older sample rewrites its finished bucket.
  EXPECT_EQ(Do({"TS.ADD", "t", "12", "100"}), ":12");
  EXPECT_EQ(Do({"TS.RANGE", "d", "0", "0"}), "[[:0,+106]]");
  // TS.MADD and TS.INCRBY apply the rules too: 105 finishes [80,100) (7+1), 125 [100,120).
  EXPECT_EQ(Do({"TS.MADD", "t", "95", "1", "t", "105", "2"}), "[:95,:105]");
  EXPECT_EQ(Do({"TS.RANGE", "d", "80", "+"}), "[[:80,+8]]");
  EXPECT_EQ(Do({"TS.INCRBY", "t", "1", "TIMESTAMP", "125"}), ":125");
  EXPECT_EQ(Do({"TS.RANGE", "d", "80", "+"}), "[[:80,+8],[:100,+2]]");
}

TEST_F(SeriesRulesTest, LatestReportsTheOpenBucket) {
  ASSERT_EQ(Do({"TS.CREATE", "t"}), "+OK");
  ASSERT_EQ(Do({"TS.CREATE", "d"}), "+OK");
  ASSERT_EQ(Rule("t", "d", "max"), "+OK");
  EXPECT_EQ(Do({"TS.GET", "d", "LATEST"}), "[]");
  AddDataSet("t");
  EXPECT_EQ(Do({"TS.ADD", "t", "75", "9"}), ":75");
  EXPECT_EQ(Do({"TS.GET", "d"}), "[:20,+10]");
  EXPECT_EQ(Do({"TS.GET", "d", "LATEST"}), "[:60,+9]");
  EXPECT_EQ(Do({"TS.RANGE", "d", "-", "+", "LATEST"}), "[[:0,+4],[:20,+10],[:60,+9]]");
  EXPECT_EQ(Do({"TS.REVRANGE", "d", "-", "+", "LATEST", "COUNT", "2"}), "[[:60,+9],[:20,+10]]");
  EXPECT_EQ(Do({"TS.RANGE", "d", "0", "59", "LATEST"}), "[[:0,+4],[:20,+10]]");
  EXPECT_EQ(Do({"TS.RANGE", "d", "-", "+", "LATEST", "AGGREGATION", "sum", "100"}), "[[:0,+23]]");
  // LATEST on a series no rule feeds is its newest sample.
  EXPECT_EQ(Do({"TS.GET", "t", "LATEST"}), "[:75,+9]");
}

TEST_F(SeriesRulesTest, LatestReportsTheOpenBucketInMultiSeriesQueries) {
  ASSERT_EQ(Do({"TS.CREATE", "t", "LABELS", "kind", "raw"}), "+OK");
  ASSERT_EQ(Do({"TS.CREATE", "d", "LABELS", "kind", "max"}), "+OK");
  ASSERT_EQ(Rule("t", "d", "max"), "+OK");
  AddDataSet("t");
  EXPECT_EQ(Do({"TS.ADD", "t", "75", "9"}), ":75");
  EXPECT_EQ(Do({"TS.MGET", "FILTER", "kind=max"}), "[[$d,[],[:20,+10]]]");
  EXPECT_EQ(Do({"TS.MGET", "LATEST", "FILTER", "kind=max"}), "[[$d,[],[:60,+9]]]");
  // The source has no rule feeding it: LATEST leaves its newest sample.
  EXPECT_EQ(Do({"TS.MGET", "LATEST", "FILTER", "kind=raw"}), "[[$t,[],[:75,+9]]]");
  EXPECT_EQ(Do({"TS.MRANGE", "-", "+", "FILTER", "kind=max"}), "[[$d,[],[[:0,+4],[:20,+10]]]]");
  EXPECT_EQ(Do({"TS.MRANGE", "-", "+", "LATEST", "FILTER", "kind=max"}),
            "[[$d,[],[[:0,+4],[:20,+10],[:60,+9]]]]");
  EXPECT_EQ(Do({"TS.MREVRANGE", "-", "+", "LATEST", "COUNT", "1", "FILTER", "kind=max"}),
            "[[$d,[],[[:60,+9]]]]");
}

TEST_F(SeriesRulesTest, ChainsFlowDownAndCyclesAreRefused) {
  for (const char* key : {"t", "a", "b"}) ASSERT_EQ(Do({"TS.CREATE", key}), "+OK");
  ASSERT_EQ(Rule("t", "a", "sum"), "+OK");
  ASSERT_EQ(Rule("a", "b", "sum", "40"), "+OK");
  AddDataSet("t");
  EXPECT_EQ(Do({"TS.RANGE", "a", "-", "+"}), "[[:0,+6],[:20,+16]]");
  EXPECT_EQ(Do({"TS.RANGE", "b", "-", "+"}), "[]");
  // 90 finishes t's [60,80): a gets (60,1), which finishes a's [0,40): b gets 6+16.
  EXPECT_EQ(Do({"TS.ADD", "t", "90", "5"}), ":90");
  EXPECT_EQ(Do({"TS.RANGE", "a", "-", "+"}), "[[:0,+6],[:20,+16],[:60,+1]]");
  EXPECT_EQ(Do({"TS.RANGE", "b", "-", "+"}), "[[:0,+22]]");
  EXPECT_EQ(Rule("b", "t", "sum"),
            "-ERR TSDB: the destination key feeds the source key: the rule would make a cycle");
  EXPECT_EQ(Rule("a", "t", "sum"),
            "-ERR TSDB: the destination key feeds the source key: the rule would make a cycle");
  EXPECT_EQ(Rule("t", "t", "sum"),
            "-ERR TSDB: the source key and destination key should be different");
  ASSERT_EQ(Do({"TS.CREATE", "x"}), "+OK");
  EXPECT_EQ(Rule("x", "a", "sum"), "-ERR TSDB: the destination key already has a src rule");
  EXPECT_EQ(Rule("t", "a", "sum"), "-ERR TSDB: the destination key already has a src rule");
  // A backfilled chain: a rule over b's samples, and a new head above t.
  ASSERT_EQ(Do({"TS.CREATE", "c"}), "+OK");
  EXPECT_EQ(Rule("a", "c", "count", "40"), "+OK");
  EXPECT_EQ(Do({"TS.RANGE", "c", "-", "+"}), "[[:0,+2]]");
}

TEST_F(SeriesRulesTest, ChainsAreBounded) {
  std::vector<std::string> keys;
  for (int i = 0; i <= 16; ++i) {
    keys.push_back("k" + std::to_string(i));
    ASSERT_EQ(Do({"TS.CREATE", keys.back()}), "+OK");
  }
  for (int i = 0; i + 2 < 17; ++i) ASSERT_EQ(Rule(keys[i], keys[i + 1], "sum", "1"), "+OK") << i;
  EXPECT_EQ(Rule(keys[15], keys[16], "sum", "1"),
            "-ERR TSDB: a chain of compaction rules holds at most 16 series");
  // Samples flow down all 16.
  EXPECT_EQ(Do({"TS.ADD", "k0", "1", "1"}), ":1");
  EXPECT_EQ(Do({"TS.ADD", "k0", "2", "1"}), ":2");
  EXPECT_EQ(Do({"TS.RANGE", "k1", "-", "+"}), "[[:1,+1]]");
  EXPECT_EQ(Do({"TS.RANGE", "k2", "-", "+"}), "[]");
  for (int ts = 3; ts <= 17; ++ts) {
    ASSERT_EQ(Do({"TS.ADD", "k0", std::to_string(ts), "1"}), ":" + std::to_string(ts));
  }
  EXPECT_EQ(Do({"TS.RANGE", "k15", "-", "+"}), "[[:1,+1],[:2,+1]]");
}

TEST_F(SeriesRulesTest, DelOnTheSourceRecomputesItsBuckets) {
  for (const char* key : {"t", "d"}) ASSERT_EQ(Do({"TS.CREATE", key}), "+OK");
  ASSERT_EQ(Rule("t", "d", "sum"), "+OK");
  AddDataSet("t");
  EXPECT_EQ(Do({"TS.ADD", "t", "85", "7"}), ":85");
  EXPECT_EQ(Do({"TS.RANGE", "d", "-", "+"}), "[[:0,+6],[:20,+16],[:60,+1]]");
  // [15, 70] empties [20,40) and [60,80), and leaves (10,2) in [0,20).
  EXPECT_EQ(Do({"TS.DEL", "t", "15", "70"}), ":4");
  EXPECT_EQ(Do({"TS.RANGE", "d", "-", "+"}), "[[:0,+2]]");
  // Deleting inside the open bucket changes no finished one.
  EXPECT_EQ(Do({"TS.DEL", "t", "85", "85"}), ":1");
  EXPECT_EQ(Do({"TS.RANGE", "d", "-", "+"}), "[[:0,+2]]");
}

TEST_F(SeriesRulesTest, InfoDeleteRuleAndRestart) {
  for (const char* key : {"t", "d"}) ASSERT_EQ(Do({"TS.CREATE", key}), "+OK");
  ASSERT_EQ(Do({"TS.CREATERULE", "t", "d", "AGGREGATION", "std.p", "20", "5"}), "+OK");
  EXPECT_EQ(Links("t"), "+sourceKey,nil,+rules,[[$d,:20,+STD.P,:5]]]");
  EXPECT_EQ(Links("d"), "+sourceKey,$t,+rules,[]]");
  ebb_->Reopen();
  EXPECT_EQ(Links("t"), "+sourceKey,nil,+rules,[[$d,:20,+STD.P,:5]]]");
  EXPECT_EQ(Links("d"), "+sourceKey,$t,+rules,[]]");
  // Align 5: buckets [5,25), [25,45), ...
  EXPECT_EQ(Do({"TS.ADD", "t", "10", "1"}), ":10");
  EXPECT_EQ(Do({"TS.ADD", "t", "20", "3"}), ":20");
  EXPECT_EQ(Do({"TS.ADD", "t", "30", "3"}), ":30");
  EXPECT_EQ(Do({"TS.RANGE", "d", "-", "+"}), "[[:5,+1]]");
  // RESP3: rules are a map.
  ASSERT_EQ(ebb_->Raw({"HELLO", "3"}).substr(0, 1), "%");
  const std::string info = ebb_->Raw({"TS.INFO", "t"});
  EXPECT_NE(info.find("+rules\r\n%1\r\n$1\r\nd\r\n*3\r\n:20\r\n+STD.P\r\n:5\r\n"),
            std::string::npos)
      << info;
  ASSERT_EQ(ebb_->Raw({"HELLO", "2"}).substr(0, 1), "*");
  EXPECT_EQ(Do({"TS.DELETERULE", "t", "d"}), "+OK");
  EXPECT_EQ(Do({"TS.DELETERULE", "t", "d"}), "-ERR TSDB: compaction rule does not exist");
  EXPECT_EQ(Links("t"), "+sourceKey,nil,+rules,[]]");
  EXPECT_EQ(Links("d"), "+sourceKey,nil,+rules,[]]");
  EXPECT_EQ(Do({"TS.ADD", "t", "50", "3"}), ":50");
  EXPECT_EQ(Do({"TS.RANGE", "d", "-", "+"}), "[[:5,+1]]");
  // A deleted destination leaves a rule that does nothing; DELETERULE still removes it.
  ASSERT_EQ(Rule("t", "d", "sum"), "+OK");
  EXPECT_EQ(Do({"DEL", "d"}), ":1");
  EXPECT_EQ(Do({"TS.ADD", "t", "90", "3"}), ":90");
  EXPECT_EQ(Do({"EXISTS", "d"}), ":0");
  EXPECT_EQ(Do({"TS.DELETERULE", "t", "d"}), "+OK");
}

// RENAME carries the metadata, not the other end's reference: the link goes stale, writes
// nothing, and a new rule may replace the stale sourceKey.
TEST_F(SeriesRulesTest, RenameCarriesTheLinks) {
  for (const char* key : {"t", "d", "e"}) ASSERT_EQ(Do({"TS.CREATE", key}), "+OK");
  ASSERT_EQ(Rule("t", "d", "sum"), "+OK");
  ASSERT_EQ(Rule("d", "e", "sum", "40"), "+OK");
  // The destination renamed: its source's rule follows it.
  EXPECT_EQ(Do({"RENAME", "d", "d2"}), "+OK");
  EXPECT_EQ(Do({"EXISTS", "d"}), ":0");
  EXPECT_EQ(Links("t"), "+sourceKey,nil,+rules,[[$d2,:20,+SUM,:0]]]");
  EXPECT_EQ(Links("d2"), "+sourceKey,$t,+rules,[[$e,:40,+SUM,:0]]]");
  EXPECT_EQ(Links("e"), "+sourceKey,$d2,+rules,[]]");
  // The source renamed: its destinations name it.
  EXPECT_EQ(Do({"RENAMENX", "t", "t2"}), ":1");
  EXPECT_EQ(Links("d2"), "+sourceKey,$t2,+rules,[[$e,:40,+SUM,:0]]]");
  // Samples flow down the renamed chain.
  AddDataSet("t2");
  EXPECT_EQ(Do({"TS.ADD", "t2", "85", "7"}), ":85");
  EXPECT_EQ(Do({"TS.RANGE", "d2", "-", "+"}), "[[:0,+6],[:20,+16],[:60,+1]]");
  EXPECT_EQ(Do({"TS.RANGE", "e", "-", "+"}), "[[:0,+22]]");
  // A rename over a key the source also feeds keeps one rule, the renamed one's.
  ASSERT_EQ(Do({"TS.CREATE", "x"}), "+OK");
  ASSERT_EQ(Rule("t2", "x", "max", "100"), "+OK");
  EXPECT_EQ(Do({"RENAME", "d2", "x"}), "+OK");
  EXPECT_EQ(Links("t2"), "+sourceKey,nil,+rules,[[$x,:20,+SUM,:0]]]");
  EXPECT_EQ(Links("e"), "+sourceKey,$x,+rules,[]]");
  // A stale half stays stale: a copy names the source that feeds the original only.
  EXPECT_EQ(Do({"COPY", "x", "y"}), ":1");
  EXPECT_EQ(Do({"RENAME", "y", "z"}), "+OK");
  EXPECT_EQ(Links("t2"), "+sourceKey,nil,+rules,[[$x,:20,+SUM,:0]]]");
  // Renaming a key of another type touches no series.
  ASSERT_EQ(Do({"SET", "s", "v"}), "+OK");
  EXPECT_EQ(Do({"RENAME", "s", "s2"}), "+OK");
}

TEST_F(SeriesRulesTest, ErrorTexts) {
  for (const char* key : {"t", "d"}) ASSERT_EQ(Do({"TS.CREATE", key}), "+OK");
  ASSERT_EQ(Do({"SET", "str", "x"}), "+OK");
  const std::string arity = "-ERR wrong number of arguments for 'ts.createrule' command";
  EXPECT_EQ(Do({"TS.CREATERULE", "t", "d", "AGGREGATION", "avg"}), arity);
  EXPECT_EQ(Do({"TS.CREATERULE", "t", "d", "AGGREGATION", "avg", "10", "0", "x"}), arity);
  EXPECT_EQ(Do({"TS.CREATERULE", "t", "d", "AGG", "avg", "10"}), arity);
  EXPECT_EQ(Do({"TS.CREATERULE", "t", "d", "AGGREGATION", "avg", "x"}),
            "-ERR TSDB: Couldn't parse AGGREGATION");
  EXPECT_EQ(Do({"TS.CREATERULE", "t", "d", "AGGREGATION", "median", "10"}),
            "-ERR TSDB: Unknown aggregation type");
  EXPECT_EQ(Do({"TS.CREATERULE", "t", "d", "AGGREGATION", "avg", "0"}),
            "-ERR TSDB: bucketDuration must be greater than zero");
  EXPECT_EQ(Do({"TS.CREATERULE", "t", "d", "AGGREGATION", "avg", "10", "x"}),
            "-ERR TSDB: Couldn't parse alignTimestamp");
  EXPECT_EQ(Do({"TS.CREATERULE", "t", "d", "AGGREGATION", "avg", "10", "-1"}),
            "-ERR TSDB: alignTimestamp should be greater or equal to 0");
  EXPECT_EQ(Rule("none", "d", "avg"), "-ERR TSDB: the key does not exist");
  EXPECT_EQ(Rule("t", "none", "avg"), "-ERR TSDB: the key does not exist");
  EXPECT_EQ(Rule("t", "str", "avg"),
            "-WRONGTYPE Operation against a key holding the wrong kind of value");
  EXPECT_EQ(Rule("str", "d", "avg"),
            "-WRONGTYPE Operation against a key holding the wrong kind of value");
  EXPECT_EQ(Do({"TS.DELETERULE", "t"}),
            "-ERR wrong number of arguments for 'ts.deleterule' command");
  EXPECT_EQ(Do({"TS.DELETERULE", "none", "d"}), "-ERR TSDB: the key does not exist");
  EXPECT_EQ(Do({"TS.DELETERULE", "t", "d"}), "-ERR TSDB: compaction rule does not exist");
  EXPECT_EQ(Do({"TS.GET", "t", "LATER"}), "-ERR syntax error");
  // Nothing of the refused commands was written.
  EXPECT_EQ(Links("t"), "+sourceKey,nil,+rules,[]]");
  EXPECT_EQ(Links("d"), "+sourceKey,nil,+rules,[]]");
}

}  // namespace
}  // namespace ebb::test
