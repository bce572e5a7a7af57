// TS.QUERYINDEX, TS.MGET, TS.MRANGE and TS.MREVRANGE through the command layer: every filter
// form, the labels shown, GROUPBY/REDUCE with every reducer on a data set computed by hand, the
// RESP3 shapes, RedisTimeSeries' error texts, and the walk seeing every way a key changes.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "common/key_slot.h"
#include "server/services/server_context.h"
#include "tests/support/cluster_command_test.h"
#include "tests/support/command_runner.h"

namespace ebb::test {
namespace {

class SeriesQueryTest : public CommandTest {
 protected:
  // a {type=temp, room=kitchen}: (10,1) (20,3) (30,5)
  // b {type=temp, room=hall}:    (10,2) (20,5) (40,7)
  // c {type=humidity, room=kitchen}: (10,50)
  // e {room=kitchen}: (10,4)      d (no labels): (10,9)      str: a string
  void AddDataSet() {
    ASSERT_EQ(Do({"TS.CREATE", "a", "LABELS", "type", "temp", "room", "kitchen"}), "+OK");
    ASSERT_EQ(Do({"TS.CREATE", "b", "LABELS", "type", "temp", "room", "hall"}), "+OK");
    ASSERT_EQ(Do({"TS.CREATE", "c", "LABELS", "type", "humidity", "room", "kitchen"}), "+OK");
    ASSERT_EQ(Do({"TS.CREATE", "e", "LABELS", "room", "kitchen"}), "+OK");
    ASSERT_EQ(Do({"TS.CREATE", "d"}), "+OK");
    ASSERT_EQ(Do({"SET", "str", "type=temp"}), "+OK");
    ASSERT_EQ(
        Do({"TS.MADD", "a", "10", "1",  "a", "20", "3",  "a",  "30", "5",  "b", "10", "2",  "b",
            "20",      "5", "b",  "40", "7", "c",  "10", "50", "e",  "10", "4", "d",  "10", "9"}),
        "[:10,:20,:30,:10,:20,:40,:10,:10,:10]");
  }
  std::string Query(std::vector<std::string> filter) {
    filter.insert(filter.begin(), "TS.QUERYINDEX");
    return Do(filter);
  }
  // TS.MRANGE - + FILTER type=temp GROUPBY type REDUCE <reducer>: the reduction's samples.
  std::string Reduce(const std::string& reducer) {
    return Do({"TS.MRANGE", "-", "+", "FILTER", "type=temp", "GROUPBY", "type", "REDUCE", reducer});
  }
};

TEST_F(SeriesQueryTest, EveryFilterForm) {
  AddDataSet();
  EXPECT_EQ(Query({"type=temp"}), "[$a,$b]");
  EXPECT_EQ(Query({"type=temp", "room!=hall"}), "[$a]");
  EXPECT_EQ(Query({"room=kitchen", "type!=temp"}), "[$c,$e]");  // no label passes l!=v
  EXPECT_EQ(Query({"room=kitchen", "type="}), "[$e]");
  EXPECT_EQ(Query({"room=kitchen", "type!="}), "[$a,$c]");
  EXPECT_EQ(Query({"type=(temp,humidity)"}), "[$a,$b,$c]");
  EXPECT_EQ(Query({"room=kitchen", "type!=(temp,humidity)"}), "[$e]");
  EXPECT_EQ(Query({"type=()"}), "[]");
  EXPECT_EQ(Query({"type=cold"}), "[]");
  EXPECT_EQ(Query({"TYPE=temp"}), "[]");  // names compare byte for byte
  // The walk sees every change: TS.ALTER's labels, DEL, RENAME, EXPIRE.
  ASSERT_EQ(Do({"TS.ALTER", "c", "LABELS", "type", "temp"}), "+OK");
  EXPECT_EQ(Query({"type=temp"}), "[$a,$b,$c]");
  ASSERT_EQ(Do({"DEL", "a"}), ":1");
  ASSERT_EQ(Do({"RENAME", "b", "z"}), "+OK");
  EXPECT_EQ(Query({"type=temp"}), "[$c,$z]");
  PinClock(1'000'000);
  ASSERT_EQ(Do({"PEXPIRE", "c", "10"}), ":1");
  Advance(20);
  EXPECT_EQ(Query({"type=temp"}), "[$z]");
  ASSERT_EQ(Do({"FLUSHDB"}), "+OK");
  EXPECT_EQ(Query({"type=temp"}), "[]");
}

TEST_F(SeriesQueryTest, MgetAndTheLabelsShown) {
  AddDataSet();
  ASSERT_EQ(Do({"TS.CREATE", "f", "LABELS", "type", "temp"}), "+OK");  // empty
  EXPECT_EQ(Do({"TS.MGET", "FILTER", "type=temp"}),
            "[[$a,[],[:30,+5]],[$b,[],[:40,+7]],[$f,[],[]]]");
  EXPECT_EQ(Do({"TS.MGET", "LATEST", "WITHLABELS", "FILTER", "room=hall"}),
            "[[$b,[[$type,$temp],[$room,$hall]],[:40,+7]]]");
  EXPECT_EQ(Do({"TS.MGET", "SELECTED_LABELS", "ROOM", "nope", "FILTER", "room=hall"}),
            "[[$b,[[$room,$hall],[$nope,nil]],[:40,+7]]]");
  EXPECT_EQ(Do({"TS.MGET", "FILTER", "room=attic"}), "[]");
}

TEST_F(SeriesQueryTest, MrangeAndMrevrange) {
  AddDataSet();
  EXPECT_EQ(Do({"TS.MRANGE", "-", "+", "FILTER", "type=temp"}),
            "[[$a,[],[[:10,+1],[:20,+3],[:30,+5]]],[$b,[],[[:10,+2],[:20,+5],[:40,+7]]]]");
  EXPECT_EQ(Do({"TS.MRANGE", "15", "35", "WITHLABELS", "FILTER", "type=temp"}),
            "[[$a,[[$type,$temp],[$room,$kitchen]],[[:20,+3],[:30,+5]]],"
            "[$b,[[$type,$temp],[$room,$hall]],[[:20,+5]]]]");
  EXPECT_EQ(Do({"TS.MREVRANGE", "-", "+", "COUNT", "1", "SELECTED_LABELS", "room", "FILTER",
                "type=temp"}),
            "[[$a,[[$room,$kitchen]],[[:30,+5]]],[$b,[[$room,$hall]],[[:40,+7]]]]");
  EXPECT_EQ(Do({"TS.MRANGE", "-", "+", "FILTER_BY_VALUE", "3", "5", "FILTER_BY_TS", "20", "30",
                "FILTER", "type=temp"}),
            "[[$a,[],[[:20,+3],[:30,+5]]],[$b,[],[[:20,+5]]]]");
  // Buckets of 20: a [0,20) 1, [20,40) 3+5; b 2, 5, 7.
  EXPECT_EQ(Do({"TS.MRANGE", "-", "+", "AGGREGATION", "sum", "20", "FILTER", "type=temp"}),
            "[[$a,[],[[:0,+1],[:20,+8]]],[$b,[],[[:0,+2],[:20,+5],[:40,+7]]]]");
  EXPECT_EQ(Do({"TS.MREVRANGE", "-", "+", "ALIGN", "5", "AGGREGATION", "count", "20",
                "BUCKETTIMESTAMP", "+", "FILTER", "room=hall"}),
            "[[$b,[],[[:45,+1],[:25,+2]]]]");
  EXPECT_EQ(Do({"TS.MRANGE", "-", "+", "FILTER", "type=cold"}), "[]");
}

// GROUPBY type over a and b, per timestamp: 10 {1,2}, 20 {3,5}, 30 {5}, 40 {7}.
//   sum 3 8 5 7   avg 1.5 4 5 7   min 1 3 5 7   max 2 5 5 7   range 1 2 0 0   count 2 2 1 1
//   var.p: 10 mean 1.5, (0.25+0.25)/2 = 0.25; 20 mean 4, (1+1)/2 = 1; a lone value 0
//   std.p 0.5 1 0 0      var.s 0.5 2 0 0      std.s sqrt(0.5) sqrt(2) 0 0
TEST_F(SeriesQueryTest, GroupByEveryReducer) {
  AddDataSet();
  const std::string head = "[[$type=temp,[],";
  EXPECT_EQ(Reduce("sum"), head + "[[:10,+3],[:20,+8],[:30,+5],[:40,+7]]]]");
  EXPECT_EQ(Reduce("avg"), head + "[[:10,+1.5],[:20,+4],[:30,+5],[:40,+7]]]]");
  EXPECT_EQ(Reduce("min"), head + "[[:10,+1],[:20,+3],[:30,+5],[:40,+7]]]]");
  EXPECT_EQ(Reduce("MAX"), head + "[[:10,+2],[:20,+5],[:30,+5],[:40,+7]]]]");
  EXPECT_EQ(Reduce("range"), head + "[[:10,+1],[:20,+2],[:30,+0],[:40,+0]]]]");
  EXPECT_EQ(Reduce("count"), head + "[[:10,+2],[:20,+2],[:30,+1],[:40,+1]]]]");
  EXPECT_EQ(Reduce("var.p"), head + "[[:10,+0.25],[:20,+1],[:30,+0],[:40,+0]]]]");
  EXPECT_EQ(Reduce("std.p"), head + "[[:10,+0.5],[:20,+1],[:30,+0],[:40,+0]]]]");
  EXPECT_EQ(Reduce("var.s"), head + "[[:10,+0.5],[:20,+2],[:30,+0],[:40,+0]]]]");
  EXPECT_EQ(Reduce("std.s"),
            head + "[[:10,+0.7071067811865476],[:20,+1.4142135623730951],[:30,+0],[:40,+0]]]]");
  // The group's labels; groups in value order; series without the label left out.
  EXPECT_EQ(Do({"TS.MRANGE", "-", "+", "WITHLABELS", "FILTER", "room=kitchen", "GROUPBY", "type",
                "REDUCE", "max"}),
            "[[$type=humidity,[[$type,$humidity],[$__reducer__,$max],[$__source__,$c]],"
            "[[:10,+50]]],"
            "[$type=temp,[[$type,$temp],[$__reducer__,$max],[$__source__,$a]],"
            "[[:10,+1],[:20,+3],[:30,+5]]]]");
  EXPECT_EQ(Do({"TS.MRANGE", "-", "+", "SELECTED_LABELS", "__source__", "x", "FILTER", "type=temp",
                "GROUPBY", "type", "REDUCE", "count"}),
            "[[$type=temp,[[$__source__,$a,b],[$x,nil]],"
            "[[:10,+2],[:20,+2],[:30,+1],[:40,+1]]]]");
  // MREVRANGE reverses the reduction, COUNT keeps its first; aggregation comes before.
  EXPECT_EQ(Do({"TS.MREVRANGE", "-", "+", "COUNT", "2", "FILTER", "type=temp", "GROUPBY", "type",
                "REDUCE", "sum"}),
            head + "[[:40,+7],[:30,+5]]]]");
  EXPECT_EQ(Do({"TS.MRANGE", "-", "+", "AGGREGATION", "sum", "20", "FILTER", "type=temp", "GROUPBY",
                "type", "REDUCE", "max"}),
            head + "[[:0,+2],[:20,+8],[:40,+7]]]]");
}

TEST_F(SeriesQueryTest, Resp3Shapes) {
  AddDataSet();
  ASSERT_EQ(ebb_->Raw({"HELLO", "3"}).substr(0, 1), "%");
  EXPECT_EQ(ebb_->Raw({"TS.QUERYINDEX", "room=hall"}), "~1\r\n$1\r\nb\r\n");
  EXPECT_EQ(ebb_->Raw({"TS.MGET", "WITHLABELS", "FILTER", "room=hall"}),
            "%1\r\n$1\r\nb\r\n*2\r\n%2\r\n$4\r\ntype\r\n$4\r\ntemp\r\n$4\r\nroom\r\n$4\r\nhall\r\n"
            "*2\r\n:40\r\n,7\r\n");
  EXPECT_EQ(ebb_->Raw({"TS.MRANGE", "30", "+", "FILTER", "room=hall"}),
            "%1\r\n$1\r\nb\r\n*3\r\n%0\r\n%1\r\n$11\r\naggregators\r\n*0\r\n"
            "*1\r\n*2\r\n:40\r\n,7\r\n");
  EXPECT_EQ(ebb_->Raw({"TS.MRANGE", "30", "+", "SELECTED_LABELS", "nope", "AGGREGATION", "max",
                       "10", "FILTER", "room=hall"}),
            "%1\r\n$1\r\nb\r\n*3\r\n%1\r\n$4\r\nnope\r\n_\r\n%1\r\n$11\r\naggregators\r\n*1\r\n"
            "$3\r\nmax\r\n*1\r\n*2\r\n:40\r\n,7\r\n");
  EXPECT_EQ(ebb_->Raw({"TS.MRANGE", "40", "+", "WITHLABELS", "FILTER", "type=temp", "GROUPBY",
                       "type", "REDUCE", "sum"}),
            "%1\r\n$9\r\ntype=temp\r\n*4\r\n%1\r\n$4\r\ntype\r\n$4\r\ntemp\r\n"
            "%1\r\n$8\r\nreducers\r\n*1\r\n$3\r\nsum\r\n"
            "%1\r\n$7\r\nsources\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n*1\r\n*2\r\n:40\r\n,7\r\n");
}

TEST_F(SeriesQueryTest, ErrorTexts) {
  AddDataSet();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"TS.QUERYINDEX", "type!=temp"}, "-ERR TSDB: please provide at least one matcher"},
      {{"TS.QUERYINDEX", "type=", "room!="}, "-ERR TSDB: please provide at least one matcher"},
      {{"TS.QUERYINDEX", "type"}, "-ERR TSDB: failed parsing labels"},
      {{"TS.QUERYINDEX", "=temp"}, "-ERR TSDB: failed parsing labels"},
      {{"TS.QUERYINDEX", "type=(temp"}, "-ERR TSDB: failed parsing labels"},
      {{"TS.QUERYINDEX", "type=(temp,,x)"}, "-ERR TSDB: failed parsing labels"},
      {{"TS.QUERYINDEX"}, "-ERR wrong number of arguments for 'ts.queryindex' command"},
      {{"TS.MGET", "FILTER"}, "-ERR wrong number of arguments for 'ts.mget' command"},
      {{"TS.MGET", "WITHLABELS", "type=temp"},
       "-ERR wrong number of arguments for 'ts.mget' command"},
      {{"TS.MGET", "WITHLABELS", "FILTER"}, "-ERR TSDB: please provide at least one matcher"},
      {{"TS.MGET", "BOGUS", "FILTER", "type=temp"}, "-ERR syntax error"},
      {{"TS.MGET", "WITHLABELS", "SELECTED_LABELS", "a", "FILTER", "type=temp"},
       "-ERR TSDB: cannot accept WITHLABELS and SELECT_LABELS together"},
      {{"TS.MRANGE", "-", "+"}, "-ERR wrong number of arguments for 'ts.mrange' command"},
      {{"TS.MRANGE", "-", "+", "COUNT", "1"}, "-ERR TSDB: missing FILTER argument"},
      {{"TS.MRANGE", "-", "+", "FILTER"}, "-ERR TSDB: missing labels for filter argument"},
      {{"TS.MRANGE", "-", "+", "FILTER", "a!=b"}, "-ERR TSDB: please provide at least one matcher"},
      {{"TS.MRANGE", "-", "+", "FILTER", "a=b", "COUNT", "1"}, "-ERR TSDB: failed parsing labels"},
      {{"TS.MRANGE", "x", "+", "FILTER", "a=b"}, "-ERR TSDB: wrong fromTimestamp"},
      {{"TS.MRANGE", "-", "+", "COUNT", "0", "FILTER", "a=b"}, "-ERR TSDB: Invalid COUNT value"},
      {{"TS.MRANGE", "-", "+", "ALIGN", "0", "FILTER", "a=b"},
       "-ERR TSDB: ALIGN parameter can only be used with AGGREGATION"},
      {{"TS.MRANGE", "-", "+", "AGGREGATION", "nope", "10", "FILTER", "a=b"},
       "-ERR TSDB: Unknown aggregation type"},
      {{"TS.MRANGE", "-", "+", "SELECTED_LABELS", "FILTER", "a=b"},
       "-ERR TSDB: SELECT_LABELS should have at least 1 parameter"},
      {{"TS.MRANGE", "-", "+", "BOGUS", "FILTER", "a=b"}, "-ERR syntax error"},
      {{"TS.MRANGE", "-", "+", "GROUPBY", "type", "REDUCE", "max", "FILTER", "a=b"},
       "-ERR TSDB: GROUPBY should always come after filter"},
      {{"TS.MRANGE", "-", "+", "FILTER", "a=b", "GROUPBY", "type"},
       "-ERR wrong number of arguments for 'ts.mrange' command"},
      {{"TS.MREVRANGE", "-", "+", "FILTER", "a=b", "GROUPBY", "type", "REDUCE", "max", "x"},
       "-ERR wrong number of arguments for 'ts.mrevrange' command"},
      {{"TS.MRANGE", "-", "+", "FILTER", "a=b", "GROUPBY", "type", "MAX", "max"},
       "-ERR wrong number of arguments for 'ts.mrange' command"},
      {{"TS.MRANGE", "-", "+", "FILTER", "a=b", "GROUPBY", "type", "REDUCE", "first"},
       "-ERR TSDB: Invalid reducer type"},
      {{"TS.MRANGE", "-", "+", "FILTER", "a=b", "GROUPBY", "type", "REDUCE", "twa"},
       "-ERR TSDB: Invalid reducer type"},
      {{"TS.MRANGE", "-", "+", "FILTER", "a=b", "GROUPBY", "type", "REDUCE", "nope"},
       "-ERR TSDB: Invalid reducer type"},
  };
  for (const auto& [args, error] : cases) EXPECT_EQ(Do(args), error) << args[0] << " " << args[1];
  std::vector<std::string> many = {"TS.MGET", "SELECTED_LABELS"};
  for (int i = 0; i < 51; ++i) many.push_back("l" + std::to_string(i));
  many.insert(many.end(), {"FILTER", "type=temp"});
  EXPECT_EQ(Do(many), "-ERR TSDB: reached max size for SELECT_LABELS");
  many.erase(many.begin() + 2);  // 50 are allowed
  EXPECT_EQ(Cmd(many).size(), 2u);
}

TEST_F(SeriesQueryTest, InTheTimeseriesAclCategory) {
  const std::string cat = Do({"ACL", "CAT", "timeseries"});
  for (const char* row : {"$ts.mrange", "$ts.mget", "$ts.queryindex", "$ts.add", "$ts.range"}) {
    EXPECT_NE(cat.find(row), std::string::npos) << row << " " << cat;
  }
  EXPECT_EQ(cat.find("$get"), std::string::npos) << cat;
  EXPECT_NE(Do({"ACL", "CAT"}).find("$timeseries"), std::string::npos);
}

// A user whose key patterns leave out a matching series may not read it through its labels:
// TS.MGET and TS.MRANGE refuse the query whole; TS.QUERYINDEX (names only) answers.
TEST_F(SeriesQueryTest, KeyPatternsHoldForSeriesFoundByLabels) {
  AddDataSet();
  ASSERT_EQ(Do({"ACL", "SETUSER", "u", "on", ">pw", "+@timeseries", "%R~a*", "~e"}), "+OK");
  const size_t u = ebb_->AddClient();
  ASSERT_EQ(ebb_->DoAs(u, {"AUTH", "u", "pw"}), "+OK");
  const std::string noperm =
      "-NOPERM TSDB: current user doesn't have read permission to one or more keys that match "
      "the specified filter";
  EXPECT_EQ(ebb_->DoAs(u, {"TS.MGET", "FILTER", "type=temp"}), noperm);
  EXPECT_EQ(ebb_->DoAs(u, {"TS.MRANGE", "-", "+", "FILTER", "type=temp"}), noperm);
  EXPECT_EQ(ebb_->DoAs(u, {"TS.MREVRANGE", "-", "+", "FILTER", "type=temp", "GROUPBY", "type",
                           "REDUCE", "sum"}),
            noperm);
  EXPECT_EQ(ebb_->DoAs(u, {"TS.MGET", "FILTER", "room=kitchen", "type!=humidity"}),
            "[[$a,[],[:30,+5]],[$e,[],[:10,+4]]]");
  EXPECT_EQ(ebb_->DoAs(u, {"TS.QUERYINDEX", "type=temp"}), "[$a,$b]");
}

// On a cluster node they name no key: they answer for the node's own series, in key order
// whatever the slots' order (a, b, c sit in slots 15495, 3300, 7365).
using SeriesQueryClusterTest = ClusterCommandTest;

TEST_F(SeriesQueryClusterTest, AnswersForTheNodesOwnKeys) {
  for (const char* key : {"a", "b", "c"}) cluster_.mine.insert(KeySlot(key));
  for (const char* key : {"c", "a", "b"}) {
    ASSERT_EQ(Do({"TS.ADD", key, "1", "1", "LABELS", "k", "v"}), ":1");
  }
  EXPECT_EQ(Do({"TS.QUERYINDEX", "k=v"}), "[$a,$b,$c]");
  EXPECT_EQ(Do({"TS.MGET", "FILTER", "k=v"}), "[[$a,[],[:1,+1]],[$b,[],[:1,+1]],[$c,[],[:1,+1]]]");
  EXPECT_EQ(Do({"TS.MRANGE", "-", "+", "FILTER", "k=v", "GROUPBY", "k", "REDUCE", "sum"}),
            "[[$k=v,[],[[:1,+3]]]]");
}

}  // namespace
}  // namespace ebb::test
