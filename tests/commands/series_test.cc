// TS.* through the command layer: every command, every aggregator on a small data set computed by
// hand, duplicate policies, retention (invisible at once, purged from the engine by writes and
// compaction), restart survival, RedisTimeSeries' error texts, WRONGTYPE both ways.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "common/key_slot.h"
#include "server/services/server_context.h"
#include "storage/db.h"
#include "tests/support/cluster_command_test.h"
#include "tests/support/command_runner.h"
#include "types/key_encoding.h"
#include "types/keyspace.h"
#include "types/series_codec.h"

namespace ebb::test {
namespace {

class SeriesTest : public CommandTest {
 protected:
  // The data set of the aggregation tests (bucket 20, align 0):
  //   [0,20): (10,2) (15,4)   [20,40): (30,6) (35,10)   [40,60): empty   [60,80): (70,1)
  void AddDataSet() {
    for (auto [ts, v] : std::vector<std::pair<const char*, const char*>>{
             {"10", "2"}, {"15", "4"}, {"30", "6"}, {"35", "10"}, {"70", "1"}}) {
      ASSERT_EQ(Do({"TS.ADD", "t", ts, v}), std::string(":") + ts);
    }
  }
  std::string Agg(std::string_view aggregator, bool empty = false) {
    std::vector<std::string> args = {
        "TS.RANGE", "t", "-", "+", "AGGREGATION", std::string(aggregator), "20"};
    if (empty) args.push_back("EMPTY");
    return Do(args);
  }
  // TS.INFO's reply with its memoryUsage figure, checked to be positive, shown as N.
  std::string Info(std::string_view key) {
    std::string reply = Do({"TS.INFO", std::string(key)});
    const std::string field = "+memoryUsage,:";
    const size_t at = reply.find(field);
    if (at == std::string::npos) return reply;
    const size_t start = at + field.size();
    const size_t end = reply.find(',', start);
    EXPECT_GT(std::atoll(reply.substr(start, end - start).c_str()), 0);
    return reply.replace(start, end - start, "N");
  }
  // The samples the engine stores for series `key` (any version): its block sub-rows decoded and
  // its tail rows, straight from the engine.
  size_t StoredSamples(std::string_view key) {
    types::Keyspace& keyspace = ebb_->context().keyspace();
    const std::string prefix = types::SubRowDbPrefix(keyspace.layout(), 0);
    storage::ReadOptions options;
    options.lower_bound = prefix;
    options.upper_bound = types::PrefixUpperBound(prefix);
    std::unique_ptr<storage::Iterator> it = keyspace.db().NewIterator(options);
    size_t n = 0;
    std::vector<types::Sample> block;
    for (it->Seek(prefix); it->Valid(); it->Next()) {
      types::SubRowKeyParts parts;
      if (!types::ParseSubRowKey(it->key(), &parts) || parts.user_key != key) continue;
      int64_t first_ts = 0;
      if (types::DecodeSeriesTailElement(parts.element, &first_ts)) {
        ++n;
        continue;
      }
      EXPECT_TRUE(types::DecodeSeriesElement(parts.element, &first_ts) &&
                  types::DecodeSeriesBlock(first_ts, it->value(), &block));
      n += block.size();
    }
    return n;
  }
  // Adds samples ts = from..to (value ts % 7) to `key`: the first by TS.ADD (which creates the
  // key), the others by TS.MADD, 100 a command.
  void AddRamp(std::string_view key, int64_t from, int64_t to) {
    ASSERT_EQ(Do(std::vector<std::string>{"TS.ADD", std::string(key), std::to_string(from),
                                          std::to_string(from % 7)}),
              ":" + std::to_string(from));
    for (int64_t start = from + 1; start <= to; start += 100) {
      std::vector<std::string> args = {"TS.MADD"};
      for (int64_t ts = start; ts <= to && ts < start + 100; ++ts) {
        args.insert(args.end(), {std::string(key), std::to_string(ts), std::to_string(ts % 7)});
      }
      const std::string reply = Do(args);
      ASSERT_EQ(reply.find('-'), std::string::npos) << reply;
    }
  }
  // TS.RANGE's reply for the samples AddRamp gave from..to, every `step`-th from `from`.
  static std::string RampReply(int64_t from, int64_t to, int64_t step = 1) {
    std::string out = "[";
    for (int64_t ts = from; ts <= to; ts += step) {
      if (ts != from) out += ",";
      out += "[:" + std::to_string(ts) + ",+" + std::to_string(ts % 7) + "]";
    }
    return out + "]";
  }
};

// Each aggregator over the data set, buckets of 20 (reported at their start):
//   avg   (2+4)/2=3, (6+10)/2=8, 1            sum 6, 16, 1          min 2, 6, 1   max 4, 10, 1
//   range 4-2=2, 10-6=4, 0                    count 2, 2, 1         first 2, 6, 1 last 4, 10, 1
//   var.p ((2-3)^2+(4-3)^2)/2=1, ((6-8)^2+(10-8)^2)/2=4, 0;   std.p sqrt: 1, 2, 0
//   var.s the same sums over n-1: 2, 8, 0 (one sample: 0);   std.s sqrt(2), sqrt(8), 0
//   twa   [0,20): from the first sample (none before) at 10 to the bucket's end 20, the line to
//         (30,6) giving 4+2*5/15=14/3 at 20: (2+4)*5/2 + (4+14/3)*5/2 = 110/3, over 10: 11/3;
//         [20,40): 14/3 at 20, 6 at 30, 10 at 35, the line to (70,1) giving 10-9*5/35=61/7 at
//         40: (14/3+6)*10/2 + (6+10)*5/2 + (10+61/7)*5/2 = 5885/42, over 20: 5885/840;
//         [60,80): from the line's 10-9*25/35=25/7 at 60 to the last sample (70,1):
//         (25/7+1)*10/2 = 160/7, over 10: 16/7.
//   EMPTY adds [40,60): sum and count 0, last the sample before it (10), twa the line from
//         (35,10) to (70,1) over the bucket: (61/7 + 25/7)/2 = 43/7, the others NaN.
TEST_F(SeriesTest, EveryAggregatorOnAKnownDataSet) {
  AddDataSet();
  EXPECT_EQ(Agg("avg"), "[[:0,+3],[:20,+8],[:60,+1]]");
  EXPECT_EQ(Agg("sum"), "[[:0,+6],[:20,+16],[:60,+1]]");
  EXPECT_EQ(Agg("min"), "[[:0,+2],[:20,+6],[:60,+1]]");
  EXPECT_EQ(Agg("max"), "[[:0,+4],[:20,+10],[:60,+1]]");
  EXPECT_EQ(Agg("range"), "[[:0,+2],[:20,+4],[:60,+0]]");
  EXPECT_EQ(Agg("count"), "[[:0,+2],[:20,+2],[:60,+1]]");
  EXPECT_EQ(Agg("first"), "[[:0,+2],[:20,+6],[:60,+1]]");
  EXPECT_EQ(Agg("last"), "[[:0,+4],[:20,+10],[:60,+1]]");
  EXPECT_EQ(Agg("var.p"), "[[:0,+1],[:20,+4],[:60,+0]]");
  EXPECT_EQ(Agg("std.p"), "[[:0,+1],[:20,+2],[:60,+0]]");
  EXPECT_EQ(Agg("var.s"), "[[:0,+2],[:20,+8],[:60,+0]]");
  EXPECT_EQ(Agg("std.s"), "[[:0,+1.4142135623730951],[:20,+2.8284271247461903],[:60,+0]]");
  const Reply twa = Cmd({"TS.RANGE", "t", "-", "+", "AGGREGATION", "TWA", "20"});
  ASSERT_EQ(twa.size(), 3u);
  EXPECT_NEAR(std::stod(twa[0][1].str()), 11.0 / 3, 1e-12);
  EXPECT_NEAR(std::stod(twa[1][1].str()), 5885.0 / 840, 1e-12);
  EXPECT_NEAR(std::stod(twa[2][1].str()), 16.0 / 7, 1e-12);
}

// twa over a range whose ends fall inside buckets (RedisTimeSeries' twa_calc_ta/tb): the span
// runs from max(bucket start, from) to min(bucket end, to), interpolated there.
//   TS.RANGE t 12 38: [0,20) holds (15,4); the line from (10,2) gives 2.8 at 12, the line to
//   (30,6) 14/3 at 20: (2.8+4)*3/2 + (4+14/3)*5/2 = 95.6/3, over 8: 95.6/24.
//   [20,40) holds (30,6) (35,10); 14/3 at 20, the line to (70,1) gives 10-27/35 at 38:
//   (14/3+6)*10/2 + (6+10)*5/2 + (10+323/35)*3/2 = 25657/210, over 18: 25657/3780.
TEST_F(SeriesTest, TwaStopsAtTheRangeEnds) {
  AddDataSet();
  const Reply twa = Cmd({"TS.RANGE", "t", "12", "38", "AGGREGATION", "twa", "20"});
  ASSERT_EQ(twa.size(), 2u);
  EXPECT_NEAR(std::stod(twa[0][1].str()), 95.6 / 24, 1e-12);
  EXPECT_NEAR(std::stod(twa[1][1].str()), 25657.0 / 3780, 1e-12);
  const Reply rev = Cmd({"TS.REVRANGE", "t", "12", "38", "AGGREGATION", "twa", "20"});
  ASSERT_EQ(rev.size(), 2u);
  EXPECT_EQ(rev[0][1].str(), twa[1][1].str());
}

TEST_F(SeriesTest, EmptyReportsTheGapsBetweenBuckets) {
  AddDataSet();
  EXPECT_EQ(Agg("sum", true), "[[:0,+6],[:20,+16],[:40,+0],[:60,+1]]");
  EXPECT_EQ(Agg("count", true), "[[:0,+2],[:20,+2],[:40,+0],[:60,+1]]");
  EXPECT_EQ(Agg("last", true), "[[:0,+4],[:20,+10],[:40,+10],[:60,+1]]");
  for (auto a : {"avg", "min", "max", "range", "first", "std.p", "std.s", "var.p", "var.s"}) {
    EXPECT_EQ(Cmd({"TS.RANGE", "t", "-", "+", "AGGREGATION", a, "20", "EMPTY"})[2][1].str(), "nan")
        << a;
  }
  const Reply twa = Cmd({"TS.RANGE", "t", "-", "+", "AGGREGATION", "twa", "20", "EMPTY"});
  ASSERT_EQ(twa.size(), 4u);
  EXPECT_NEAR(std::stod(twa[2][1].str()), 43.0 / 7, 1e-12);
}

// twa with EMPTY over a range also reports the empty buckets at its ends, clipped to it, from the
// line joining the samples around them (RedisTimeSeries' prefix and suffix), buckets of 10:
//   [42,65] holds no sample: 40, 50, 60 from the line (35,10)-(70,1), v(t) = 10 - 9(t-35)/35:
//   (v(42)+v(50))/2 = (8.2+43/7)/2, (v(50)+v(60))/2 = 34/7, (v(60)+v(65))/2 = 41/14;
//   [0,58] ends with 40 and 50 after (35,10): (v(40)+v(50))/2 = 52/7, (v(50)+v(58))/2 = 179/35.
TEST_F(SeriesTest, TwaEmptyReachesTheRangeEnds) {
  AddDataSet();
  Reply twa = Cmd({"TS.RANGE", "t", "42", "65", "AGGREGATION", "twa", "10", "EMPTY"});
  ASSERT_EQ(twa.size(), 3u);
  EXPECT_EQ(twa[0][0].integer(), 40);
  EXPECT_NEAR(std::stod(twa[0][1].str()), (8.2 + 43.0 / 7) / 2, 1e-12);
  EXPECT_NEAR(std::stod(twa[1][1].str()), 34.0 / 7, 1e-12);
  EXPECT_NEAR(std::stod(twa[2][1].str()), 41.0 / 14, 1e-12);
  twa = Cmd({"TS.RANGE", "t", "0", "58", "AGGREGATION", "twa", "10", "EMPTY"});
  ASSERT_EQ(twa.size(), 5u);
  EXPECT_EQ(twa[4][0].integer(), 50);
  EXPECT_NEAR(std::stod(twa[3][1].str()), 52.0 / 7, 1e-12);
  EXPECT_NEAR(std::stod(twa[4][1].str()), 179.0 / 35, 1e-12);
  // Without EMPTY, or with another aggregator, the range's ends report nothing.
  EXPECT_EQ(Do({"TS.RANGE", "t", "42", "65", "AGGREGATION", "twa", "10"}), "[]");
  EXPECT_EQ(Do({"TS.RANGE", "t", "42", "65", "AGGREGATION", "avg", "10", "EMPTY"}), "[]");
  EXPECT_EQ(Cmd({"TS.RANGE", "t", "0", "58", "AGGREGATION", "avg", "10", "EMPTY"}).size(), 3u);
}

TEST_F(SeriesTest, BucketTimestampAlignCountAndReverse) {
  AddDataSet();
  EXPECT_EQ(Do({"TS.RANGE", "t", "-", "+", "AGGREGATION", "sum", "20", "BUCKETTIMESTAMP", "+"}),
            "[[:20,+6],[:40,+16],[:80,+1]]");
  EXPECT_EQ(Do({"TS.RANGE", "t", "-", "+", "AGGREGATION", "sum", "20", "BUCKETTIMESTAMP", "mid"}),
            "[[:10,+6],[:30,+16],[:70,+1]]");
  // Aligned at 5: [5,25) holds 10, 15; [25,45) 30, 35; [65,85) 70.
  EXPECT_EQ(Do({"TS.RANGE", "t", "-", "+", "ALIGN", "5", "AGGREGATION", "count", "20"}),
            "[[:5,+2],[:25,+2],[:65,+1]]");
  // ALIGN start: the range's start, 15: [15,35) holds 15, 30; [35,55) 35; [55,75) 70.
  EXPECT_EQ(Do({"TS.RANGE", "t", "15", "+", "ALIGN", "-", "AGGREGATION", "count", "20"}),
            "[[:15,+2],[:35,+1],[:55,+1]]");
  EXPECT_EQ(Do({"TS.RANGE", "t", "-", "+", "COUNT", "2", "AGGREGATION", "sum", "20"}),
            "[[:0,+6],[:20,+16]]");
  EXPECT_EQ(Do({"TS.REVRANGE", "t", "-", "+", "COUNT", "2", "AGGREGATION", "sum", "20"}),
            "[[:60,+1],[:20,+16]]");
  EXPECT_EQ(Do({"TS.REVRANGE", "t", "12", "35"}), "[[:35,+10],[:30,+6],[:15,+4]]");
  EXPECT_EQ(Do({"TS.RANGE", "t", "12", "35", "COUNT", "1"}), "[[:15,+4]]");
  EXPECT_EQ(Do({"TS.RANGE", "t", "-", "+", "FILTER_BY_TS", "70", "10", "11"}),
            "[[:10,+2],[:70,+1]]");
  EXPECT_EQ(Do({"TS.RANGE", "t", "-", "+", "FILTER_BY_VALUE", "3", "6"}), "[[:15,+4],[:30,+6]]");
  EXPECT_EQ(
      Do({"TS.RANGE", "t", "-", "+", "FILTER_BY_VALUE", "3", "6", "AGGREGATION", "sum", "20"}),
      "[[:0,+4],[:20,+6]]");
  EXPECT_EQ(Do({"TS.RANGE", "t", "-", "+", "LATEST", "COUNT", "1"}), "[[:10,+2]]");
  EXPECT_EQ(Do({"TS.RANGE", "t", "80", "+"}), "[]");
  EXPECT_EQ(Do({"TS.RANGE", "t", "30", "20"}), "[]");
}

TEST_F(SeriesTest, CreateInfoAlterAndGet) {
  EXPECT_EQ(Do({"TS.CREATE", "s", "RETENTION", "60000", "ENCODING", "UNCOMPRESSED", "CHUNK_SIZE",
                "128", "DUPLICATE_POLICY", "max", "LABELS", "room", "kitchen", "unit", "C"}),
            "+OK");
  EXPECT_EQ(Do({"TS.CREATE", "s"}), "-ERR TSDB: key already exists");
  EXPECT_EQ(Do({"TYPE", "s"}), "+TSDB-TYPE");
  EXPECT_EQ(Do({"TS.GET", "s"}), "[]");
  EXPECT_EQ(
      Info("s"),
      "[+totalSamples,:0,+memoryUsage,:N,+firstTimestamp,:0,+lastTimestamp,:0,"
      "+retentionTime,:60000,+chunkCount,:0,+chunkSize,:128,+chunkType,+uncompressed,"
      "+duplicatePolicy,+max,+labels,[[$room,$kitchen],[$unit,$C]],+sourceKey,nil,+rules,[]]");
  const int64_t empty_bytes = Cmd({"TS.INFO", "s"})[3].integer();
  EXPECT_EQ(Do({"TS.ADD", "s", "1000", "1.5"}), ":1000");
  EXPECT_EQ(Do({"TS.ADD", "s", "2000", "-2.25"}), ":2000");
  EXPECT_EQ(Do({"TS.GET", "s"}), "[:2000,+-2.25]");
  EXPECT_EQ(Do({"TS.ALTER", "s", "RETENTION", "0", "DUPLICATE_POLICY", "LAST", "LABELS"}), "+OK");
  EXPECT_EQ(Info("s"),
            "[+totalSamples,:2,+memoryUsage,:N,+firstTimestamp,:1000,+lastTimestamp,:2000,"
            "+retentionTime,:0,+chunkCount,:1,+chunkSize,:128,+chunkType,+uncompressed,"
            "+duplicatePolicy,+last,+labels,[],+sourceKey,nil,+rules,[]]");
  // The metadata row (its labels dropped by the ALTER) and one block row with two samples.
  const int64_t bytes = Cmd({"TS.INFO", "s"})[3].integer();
  EXPECT_GT(bytes, empty_bytes - 30);
  EXPECT_LT(bytes, empty_bytes + 60);
  EXPECT_EQ(Do({"TS.ALTER", "none", "RETENTION", "1"}), "-ERR TSDB: the key does not exist");
  EXPECT_EQ(Do({"TS.GET", "none"}), "-ERR TSDB: the key does not exist");
  EXPECT_EQ(Do({"TS.INFO", "none"}), "-ERR TSDB: the key does not exist");
  EXPECT_EQ(Do({"TS.RANGE", "none", "-", "+"}), "-ERR TSDB: the key does not exist");
  EXPECT_EQ(Do({"TS.DEL", "none", "-", "+"}), "-ERR TSDB: the key does not exist");
  // RESP3: values are doubles, INFO a map.
  ASSERT_EQ(ebb_->Raw({"HELLO", "3"}).substr(0, 1), "%");
  EXPECT_EQ(ebb_->Raw({"TS.GET", "s"}), "*2\r\n:2000\r\n,-2.25\r\n");
  EXPECT_EQ(ebb_->Raw({"TS.INFO", "s"}).substr(0, 20), "%12\r\n+totalSamples\r\n");
}

// TS.INFO key DEBUG adds keySelfName and each block as RedisTimeSeries' Chunks.
// In-order samples: 1,024 folded into blocks of at most CHUNK_SIZE bytes, the 40 after them tail
// rows, listed last as one chunk of 8 bytes a sample.
TEST_F(SeriesTest, InfoDebugListsTheBlocks) {
  EXPECT_EQ(Do({"TS.CREATE", "s", "CHUNK_SIZE", "48"}), "+OK");
  constexpr int kSamples = 1024 + 40;
  for (int i = 1; i <= kSamples; ++i) {
    ASSERT_EQ(Do({"TS.ADD", "s", std::to_string(i), std::to_string(i * 7919 % 1000) + ".5"}),
              ":" + std::to_string(i));
  }
  const Reply info = Cmd({"TS.INFO", "s", "debug"});
  ASSERT_EQ(info.size(), 28u);
  EXPECT_EQ(info[24].str(), "keySelfName");
  EXPECT_EQ(info[25].str(), "s");
  EXPECT_EQ(info[26].str(), "Chunks");
  const Reply& chunks = info[27];
  ASSERT_EQ(static_cast<int64_t>(chunks.size()), info[11].integer());  // chunkCount
  ASSERT_GT(chunks.size(), 1u);
  int64_t samples = 0;
  int64_t next_start = 1;
  for (size_t i = 0; i < chunks.size(); ++i) {
    const Reply& c = chunks[i];
    ASSERT_EQ(c.size(), 10u);
    EXPECT_EQ(c[0].str(), "startTimestamp");
    EXPECT_EQ(c[1].integer(), next_start);
    EXPECT_EQ(c[5].integer(), c[3].integer() - c[1].integer() + 1);  // samples
    EXPECT_GT(c[7].integer(), 0);
    if (i + 1 < chunks.size()) {
      EXPECT_LE(c[7].integer(), 48);
    } else {  // the tail
      EXPECT_EQ(c[1].integer(), 1025);
      EXPECT_EQ(c[7].integer(), 8 * 40);
    }
    EXPECT_NEAR(std::stod(c[9].str()), static_cast<double>(c[7].integer()) / c[5].integer(), 1e-6);
    next_start = c[3].integer() + 1;
    samples += c[5].integer();
  }
  EXPECT_EQ(samples, kSamples);
  // A third argument other than DEBUG is ignored, a fourth refused (RedisTimeSeries' arity).
  EXPECT_EQ(Cmd({"TS.INFO", "s", "other"}).size(), 24u);
  EXPECT_EQ(Do({"TS.INFO", "s", "DEBUG", "x"}),
            "-ERR wrong number of arguments for 'ts.info' command");
}

TEST_F(SeriesTest, AddCreatesWithOptionsMaddAndDel) {
  EXPECT_EQ(Do({"TS.ADD", "a", "5", "1", "RETENTION", "10", "LABELS", "k", "v"}), ":5");
  EXPECT_EQ(Cmd({"TS.INFO", "a"})[9].integer(), 10);
  EXPECT_EQ(Do({"TS.MADD", "a", "6", "2", "b", "1", "1", "a", "x", "3", "a", "7", "y"}),
            "[:6,-ERR TSDB: the key does not exist,-ERR TSDB: invalid timestamp,"
            "-ERR TSDB: invalid value]");
  EXPECT_EQ(Do({"TS.MADD", "a", "1"}), "-ERR wrong number of arguments for 'ts.madd' command");
  EXPECT_EQ(Do({"TS.ADD", "a", "8", "3"}), ":8");
  EXPECT_EQ(Do({"TS.DEL", "a", "6", "7"}), ":1");
  EXPECT_EQ(Do({"TS.RANGE", "a", "-", "+"}), "[[:5,+1],[:8,+3]]");
  EXPECT_EQ(Do({"TS.DEL", "a", "8", "+"}), ":1");
  EXPECT_EQ(Do({"TS.GET", "a"}), "[:5,+1]");
  PinClock(1'700'000'000'000);
  EXPECT_EQ(Do({"TS.ADD", "a", "*", "4"}), ":1700000000000");
}

TEST_F(SeriesTest, DuplicatePolicies) {
  EXPECT_EQ(Do({"TS.ADD", "d", "1", "5"}), ":1");
  EXPECT_EQ(Do({"TS.ADD", "d", "1", "7"}),
            "-ERR TSDB: Error at upsert, update is not supported when DUPLICATE_POLICY is set to "
            "BLOCK mode");
  EXPECT_EQ(Do({"TS.ADD", "d", "1", "7", "ON_DUPLICATE", "FIRST"}), ":1");
  EXPECT_EQ(Do({"TS.GET", "d"}), "[:1,+5]");
  EXPECT_EQ(Do({"TS.ADD", "d", "1", "3", "ON_DUPLICATE", "MAX"}), ":1");
  EXPECT_EQ(Do({"TS.GET", "d"}), "[:1,+5]");
  EXPECT_EQ(Do({"TS.ADD", "d", "1", "3", "ON_DUPLICATE", "MIN"}), ":1");
  EXPECT_EQ(Do({"TS.GET", "d"}), "[:1,+3]");
  EXPECT_EQ(Do({"TS.ADD", "d", "1", "4", "ON_DUPLICATE", "SUM"}), ":1");
  EXPECT_EQ(Do({"TS.GET", "d"}), "[:1,+7]");
  EXPECT_EQ(Do({"TS.ADD", "d", "1", "9", "ON_DUPLICATE", "last"}), ":1");
  EXPECT_EQ(Do({"TS.RANGE", "d", "-", "+"}), "[[:1,+9]]");
  EXPECT_EQ(Do({"TS.ADD", "d", "1", "9", "ON_DUPLICATE", "often"}),
            "-ERR TSDB: Unknown DUPLICATE_POLICY");
  EXPECT_EQ(Do({"TS.CREATE", "e", "DUPLICATE_POLICY", "SUM"}), "+OK");
  EXPECT_EQ(Do({"TS.ADD", "e", "2", "1"}), ":2");
  EXPECT_EQ(Do({"TS.ADD", "e", "2", "1.5"}), ":2");
  EXPECT_EQ(Do({"TS.GET", "e"}), "[:2,+2.5]");
}

TEST_F(SeriesTest, IncrByAndDecrBy) {
  EXPECT_EQ(Do({"TS.INCRBY", "c", "5", "TIMESTAMP", "10", "LABELS", "k", "v"}), ":10");
  EXPECT_EQ(Do({"TS.INCRBY", "c", "2.5", "TIMESTAMP", "10"}), ":10");
  EXPECT_EQ(Do({"TS.GET", "c"}), "[:10,+7.5]");
  EXPECT_EQ(Do({"TS.DECRBY", "c", "10", "TIMESTAMP", "20"}), ":20");
  EXPECT_EQ(Do({"TS.RANGE", "c", "-", "+"}), "[[:10,+7.5],[:20,+-2.5]]");
  EXPECT_EQ(Do({"TS.INCRBY", "c", "1", "TIMESTAMP", "15"}),
            "-ERR TSDB: timestamp must be equal to or higher than the maximum existing timestamp");
  EXPECT_EQ(Do({"TS.INCRBY", "c", "x"}), "-ERR TSDB: invalid increase/decrease value");
  EXPECT_EQ(Do({"TS.INCRBY", "c", "1", "TIMESTAMP", "y"}), "-ERR TSDB: invalid timestamp");
  PinClock(1'700'000'000'000);
  EXPECT_EQ(Do({"TS.INCRBY", "c", "1"}), ":1700000000000");
  EXPECT_EQ(Do({"TS.GET", "c"}), "[:1700000000000,+-1.5]");
}

TEST_F(SeriesTest, RetentionHidesAtOnceAndPurgesTheEngine) {
  EXPECT_EQ(Do({"TS.CREATE", "r", "RETENTION", "100"}), "+OK");
  for (auto ts : {"0", "40", "80", "120"})
    EXPECT_EQ(Do({"TS.ADD", "r", ts, "1"}), std::string(":") + ts);
  // Newest 120: the window starts at 20.
  EXPECT_EQ(Do({"TS.RANGE", "r", "-", "+"}), "[[:40,+1],[:80,+1],[:120,+1]]");
  EXPECT_EQ(Cmd({"TS.INFO", "r"})[1].integer(), 3);
  EXPECT_EQ(Do({"TS.ADD", "r", "19", "1"}), "-ERR TSDB: Timestamp is older than retention");
  EXPECT_EQ(Do({"TS.ADD", "r", "20", "1"}), ":20");
  EXPECT_EQ(StoredSamples("r"), 5u);  // hidden, still stored: under a window past the purge mark
  // Newest 300: the window starts at 200, a whole window past the purge mark (0): the blocks
  // before the one holding 200 are range-deleted. All six samples are tail rows (no block yet),
  // so the older ones stay stored, invisible, until a compaction meets them.
  EXPECT_EQ(Do({"TS.ADD", "r", "300", "2"}), ":300");
  EXPECT_EQ(Do({"TS.RANGE", "r", "-", "+"}), "[[:300,+2]]");
  EXPECT_EQ(StoredSamples("r"), 6u);
  EXPECT_EQ(Cmd({"TS.INFO", "r"})[1].integer(), 1);
  EXPECT_EQ(Do({"TS.GET", "r"}), "[:300,+2]");
  // Compaction drops the tail rows below the floor; what reads show does not change.
  ASSERT_EQ(Do({"DEBUG", "COMPACT"}), "+OK");
  EXPECT_EQ(StoredSamples("r"), 1u);
  EXPECT_EQ(Do({"TS.RANGE", "r", "-", "+"}), "[[:300,+2]]");
  EXPECT_EQ(Cmd({"TS.INFO", "r"})[1].integer(), 1);
}

// A TS.ALTER that shrinks the window hides samples at once; compaction then rewrites the block
// that straddles the new floor and drops the blocks below it (TS.INFO DEBUG shows what is stored).
TEST_F(SeriesTest, RetentionShrunkByAlterIsPurgedByCompaction) {
  EXPECT_EQ(Do({"TS.CREATE", "a", "CHUNK_SIZE", "48"}), "+OK");
  AddRamp("a", 1, 1100);
  const std::string range = Do({"TS.RANGE", "a", "1000", "+"});
  EXPECT_EQ(Do({"TS.ALTER", "a", "RETENTION", "100"}), "+OK");  // the floor: 1000
  EXPECT_EQ(Do({"TS.RANGE", "a", "-", "+"}), range);
  ASSERT_EQ(Do({"DEBUG", "COMPACT"}), "+OK");
  EXPECT_EQ(StoredSamples("a"), 101u);
  EXPECT_EQ(Do({"TS.RANGE", "a", "-", "+"}), range);
  const Reply info = Cmd({"TS.INFO", "a", "DEBUG"});
  EXPECT_EQ(info[1].integer(), 101);   // totalSamples
  EXPECT_EQ(info[5].integer(), 1000);  // firstTimestamp
  ASSERT_GT(info[27].size(), 0u);
  EXPECT_EQ(info[27][0][1].integer(), 1000);  // the first stored chunk starts at the floor
}

TEST_F(SeriesTest, SurvivesRestart) {
  AddDataSet();
  EXPECT_EQ(Do({"TS.CREATE", "s", "RETENTION", "5", "LABELS", "a", "b"}), "+OK");
  ebb_->Reopen();
  EXPECT_EQ(Do({"TS.RANGE", "t", "-", "+"}), "[[:10,+2],[:15,+4],[:30,+6],[:35,+10],[:70,+1]]");
  EXPECT_EQ(Do({"TYPE", "s"}), "+TSDB-TYPE");
  EXPECT_EQ(Cmd({"TS.INFO", "s"})[9].integer(), 5);
  EXPECT_EQ(Do({"TS.ADD", "t", "80", "3"}), ":80");
  // Blocks and a tail (1,024 samples folded, 500 not): as they were, and folding on after it.
  AddRamp("b", 0, 1523);
  ebb_->Reopen();
  EXPECT_EQ(Do({"TS.RANGE", "b", "1000", "1100"}), RampReply(1000, 1100));
  EXPECT_EQ(Cmd({"TS.INFO", "b"})[1].integer(), 1524);
  AddRamp("b", 1524, 2100);
  EXPECT_EQ(Do({"TS.RANGE", "b", "-", "+", "FILTER_BY_VALUE", "6", "6"}), RampReply(6, 2100, 7));
  EXPECT_EQ(Do({"TS.GET", "b"}), "[:2100,+0]");
}

// In-order adds through several folds of the tail into blocks: every read — ranges both ways,
// an aggregation, TS.GET, TS.INFO's counts — sees the whole series at every stage.
TEST_F(SeriesTest, ReadsSeeBlocksAndTailThroughFolds) {
  EXPECT_EQ(Do({"TS.CREATE", "f", "CHUNK_SIZE", "128"}), "+OK");
  int64_t added = 0;
  for (int64_t stage : {1, 1023, 1024, 1025, 2047, 2048, 2500}) {
    AddRamp("f", added, stage - 1);
    added = stage;
    const int64_t last = stage - 1;
    EXPECT_EQ(Do({"TS.RANGE", "f", "-", "+", "COUNT", "3"}),
              RampReply(0, std::min<int64_t>(2, last)));
    const int64_t mid = std::max<int64_t>(0, last - 30);
    EXPECT_EQ(Do({"TS.RANGE", "f", std::to_string(mid), "+"}), RampReply(mid, last));
    std::string reverse = Do({"TS.REVRANGE", "f", "-", "+", "COUNT", "2"});
    EXPECT_EQ(reverse.substr(0, reverse.find(']') + 1),
              "[[:" + std::to_string(last) + ",+" + std::to_string(last % 7) + "]");
    // Sums of buckets of 1,000: sum(ts % 7) over each bucket's samples.
    std::string sums = "[";
    for (int64_t bucket = 0; bucket <= last; bucket += 1000) {
      int64_t sum = 0;
      for (int64_t ts = bucket; ts <= std::min(last, bucket + 999); ++ts) sum += ts % 7;
      if (bucket > 0) sums += ",";
      sums += "[:" + std::to_string(bucket) + ",+" + std::to_string(sum) + "]";
    }
    EXPECT_EQ(Do({"TS.RANGE", "f", "-", "+", "AGGREGATION", "sum", "1000"}), sums + "]");
    EXPECT_EQ(Do({"TS.GET", "f"}),
              "[:" + std::to_string(last) + ",+" + std::to_string(last % 7) + "]");
    const Reply info = Cmd({"TS.INFO", "f"});
    EXPECT_EQ(info[1].integer(), stage);                  // totalSamples
    EXPECT_EQ(info[5].integer(), 0);                      // firstTimestamp
    EXPECT_EQ(info[7].integer(), last);                   // lastTimestamp
    EXPECT_GE(info[11].integer(), stage % 1024 ? 1 : 0);  // chunkCount
  }
}

TEST_F(SeriesTest, WrongTypeBothWays) {
  Do({"SET", "str", "v"});
  EXPECT_EQ(Do({"TS.ADD", "str", "1", "1"}), "-ERR TSDB: the key is not a TSDB key");
  const std::string kWrongType =
      "-WRONGTYPE Operation against a key holding the wrong kind of value";
  EXPECT_EQ(Do({"TS.CREATE", "str"}), kWrongType);
  EXPECT_EQ(Do({"TS.GET", "str"}), kWrongType);
  EXPECT_EQ(Do({"TS.RANGE", "str", "-", "+"}), kWrongType);
  EXPECT_EQ(Do({"TS.INFO", "str"}), kWrongType);
  EXPECT_EQ(Do({"TS.INCRBY", "str", "1"}), kWrongType);
  EXPECT_EQ(Do({"TS.MADD", "str", "1", "1"}), "[" + kWrongType + "]");
  EXPECT_EQ(Do({"TS.ADD", "s", "1", "1"}), ":1");
  EXPECT_EQ(Do({"GET", "s"}), kWrongType);
  EXPECT_EQ(Do({"TLOG", "INS", "s", "v", "1"}), kWrongType);
  EXPECT_EQ(Do({"APPEND", "s", "x"}), kWrongType);
  EXPECT_EQ(Do({"SET", "s", "v"}), "+OK");  // SET replaces a key of any type
  EXPECT_EQ(Do({"TS.GET", "s"}), kWrongType);
}

TEST_F(SeriesTest, GenericKeyCommands) {
  AddDataSet();
  EXPECT_EQ(Do({"EXISTS", "t"}), ":1");
  EXPECT_EQ(Do({"SCAN", "0", "TYPE", "tsdb-type"}), "[$0,[$t]]");
  EXPECT_EQ(Do({"RENAME", "t", "u"}), "+OK");
  EXPECT_EQ(Do({"COPY", "u", "v"}), ":1");
  EXPECT_EQ(Do({"TS.RANGE", "v", "-", "+", "COUNT", "2"}), "[[:10,+2],[:15,+4]]");
  EXPECT_EQ(Do({"TS.ADD", "v", "90", "1"}), ":90");
  EXPECT_EQ(Do({"TS.GET", "u"}), "[:70,+1]");  // the copy is its own series
  const Reply dump = Cmd({"DUMP", "u"});
  ASSERT_FALSE(dump.str().empty());
  EXPECT_EQ(Do({"RESTORE", "w", "0", dump.str()}), "+OK");
  EXPECT_EQ(Do({"TS.RANGE", "w", "-", "+"}), Do({"TS.RANGE", "u", "-", "+"}));
  EXPECT_EQ(Do({"TS.INFO", "w"}), Do({"TS.INFO", "u"}));
  EXPECT_EQ(Do({"EXPIRE", "w", "100"}), ":1");
  EXPECT_EQ(Do({"TS.ADD", "w", "90", "1"}), ":90");
  EXPECT_EQ(Do({"TTL", "w"}), ":100");  // writes keep the key's expiry
  EXPECT_EQ(Do({"DEL", "u", "v", "w"}), ":3");
  EXPECT_EQ(Do({"TS.GET", "u"}), "-ERR TSDB: the key does not exist");
  EXPECT_EQ(Do({"TS.ADD", "u", "1", "1"}), ":1");  // a new incarnation: nothing comes back
  EXPECT_EQ(Do({"TS.RANGE", "u", "-", "+"}), "[[:1,+1]]");
}

// RENAME, COPY and DUMP/RESTORE carry a series with blocks and a tail whole (as blocks), and the
// copies take adds that fold again.
TEST_F(SeriesTest, GenericKeyCommandsCarryTheTail) {
  AddRamp("a", 0, 1299);  // 1,024 folded, 276 tail rows
  const std::string all = RampReply(0, 1299);
  EXPECT_EQ(Do({"RENAME", "a", "b"}), "+OK");
  EXPECT_EQ(Do({"TS.RANGE", "b", "-", "+"}), all);
  EXPECT_EQ(Do({"COPY", "b", "c"}), ":1");
  EXPECT_EQ(Do({"TS.RANGE", "c", "-", "+"}), all);
  const Reply dump = Cmd({"DUMP", "b"});
  ASSERT_FALSE(dump.str().empty());
  EXPECT_EQ(Do({"RESTORE", "d", "0", dump.str()}), "+OK");
  EXPECT_EQ(Do({"TS.RANGE", "d", "-", "+"}), all);
  for (const char* key : {"b", "c", "d"}) {
    EXPECT_EQ(Cmd({"TS.INFO", key})[1].integer(), 1300) << key;
    EXPECT_EQ(Do({"TS.GET", key}), "[:1299,+4]") << key;
    AddRamp(key, 1300, 2400);
    EXPECT_EQ(Do({"TS.REVRANGE", key, "1298", "1301"}),
              "[[:1301,+6],[:1300,+5],[:1299,+4],[:1298,+3]]")
        << key;
    EXPECT_EQ(Do({"TS.RANGE", key, "1000", "2400"}), RampReply(1000, 2400)) << key;
  }
  EXPECT_EQ(Do({"TS.DEL", "c", "1250", "2400"}), ":1151");
  EXPECT_EQ(Do({"TS.GET", "c"}), "[:1249,+3]");
  EXPECT_EQ(Do({"TS.RANGE", "c", "1240", "+"}), RampReply(1240, 1249));
}

TEST_F(SeriesTest, ErrorTexts) {
  Do({"TS.CREATE", "s"});
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"TS.CREATE", "x", "RETENTION", "-1"}, "-ERR TSDB: Couldn't parse RETENTION"},
      {{"TS.CREATE", "x", "RETENTION"}, "-ERR TSDB: Couldn't parse RETENTION"},
      {{"TS.CREATE", "x", "CHUNK_SIZE", "x"}, "-ERR TSDB: Couldn't parse CHUNK_SIZE"},
      {{"TS.CREATE", "x", "CHUNK_SIZE", "50"},
       "-ERR TSDB: CHUNK_SIZE value must be a multiple of 8 in the range [48 .. 1048576]"},
      {{"TS.CREATE", "x", "ENCODING", "zip"}, "-ERR TSDB: unknown ENCODING parameter"},
      {{"TS.CREATE", "x", "DUPLICATE_POLICY"}, "-ERR TSDB: Couldn't parse DUPLICATE_POLICY"},
      {{"TS.CREATE", "x", "DUPLICATE_POLICY", "x"}, "-ERR TSDB: Unknown DUPLICATE_POLICY"},
      {{"TS.CREATE", "x", "LABELS", "a"}, "-ERR TSDB: Couldn't parse LABELS"},
      {{"TS.CREATE", "x", "LABELS", "a", "b(c"}, "-ERR TSDB: Couldn't parse LABELS"},
      {{"TS.CREATE", "x", "LABELS", "", "b"}, "-ERR TSDB: Couldn't parse LABELS"},
      {{"TS.CREATE", "x", "BOGUS"}, "-ERR syntax error"},
      {{"TS.ALTER", "s", "ENCODING", "COMPRESSED"}, "-ERR syntax error"},
      {{"TS.ADD", "s", "1", "abc"}, "-ERR TSDB: invalid value"},
      {{"TS.ADD", "s", "1", "nan"}, "-ERR TSDB: invalid value"},
      {{"TS.ADD", "s", "x", "1"}, "-ERR TSDB: invalid timestamp"},
      {{"TS.ADD", "s", "-1", "1"}, "-ERR TSDB: invalid timestamp, must be a nonnegative integer"},
      {{"TS.ADD", "s", "9223372036854775808", "1"}, "-ERR TSDB: invalid timestamp"},
      {{"TS.RANGE", "s", "x", "+"}, "-ERR TSDB: wrong fromTimestamp"},
      {{"TS.RANGE", "s", "-", "-1"}, "-ERR TSDB: wrong toTimestamp"},
      {{"TS.RANGE", "s", "-", "+", "COUNT"}, "-ERR TSDB: COUNT argument is missing"},
      {{"TS.RANGE", "s", "-", "+", "COUNT", "x"}, "-ERR TSDB: Couldn't parse COUNT"},
      {{"TS.RANGE", "s", "-", "+", "COUNT", "0"}, "-ERR TSDB: Invalid COUNT value"},
      {{"TS.RANGE", "s", "-", "+", "FILTER_BY_TS"},
       "-ERR TSDB: FILTER_BY_TS one or more arguments are missing"},
      {{"TS.RANGE", "s", "-", "+", "FILTER_BY_VALUE", "1"},
       "-ERR TSDB: FILTER_BY_VALUE one or more arguments are missing"},
      {{"TS.RANGE", "s", "-", "+", "FILTER_BY_VALUE", "x", "1"}, "-ERR TSDB: Couldn't parse MIN"},
      {{"TS.RANGE", "s", "-", "+", "FILTER_BY_VALUE", "1", "x"}, "-ERR TSDB: Couldn't parse MAX"},
      {{"TS.RANGE", "s", "-", "+", "AGGREGATION", "avg"}, "-ERR TSDB: Couldn't parse AGGREGATION"},
      {{"TS.RANGE", "s", "-", "+", "AGGREGATION", "median", "10"},
       "-ERR TSDB: Unknown aggregation type"},
      {{"TS.RANGE", "s", "-", "+", "AGGREGATION", "avg", "x"},
       "-ERR TSDB: Couldn't parse AGGREGATION"},
      {{"TS.RANGE", "s", "-", "+", "AGGREGATION", "avg", "0"},
       "-ERR TSDB: bucketDuration must be greater than zero"},
      {{"TS.RANGE", "s", "-", "+", "AGGREGATION", "avg", "5", "BUCKETTIMESTAMP", "x"},
       "-ERR TSDB: unknown BUCKETTIMESTAMP parameter"},
      {{"TS.RANGE", "s", "-", "+", "ALIGN", "5"},
       "-ERR TSDB: ALIGN parameter can only be used with AGGREGATION"},
      {{"TS.RANGE", "s", "-", "+", "ALIGN", "x", "AGGREGATION", "avg", "5"},
       "-ERR TSDB: unknown ALIGN parameter"},
      {{"TS.RANGE", "s", "-", "+", "ALIGN", "start", "AGGREGATION", "avg", "5"},
       "-ERR TSDB: start alignment can only be used with explicit start timestamp"},
      {{"TS.RANGE", "s", "0", "+", "ALIGN", "end", "AGGREGATION", "avg", "5"},
       "-ERR TSDB: end alignment can only be used with explicit end timestamp"},
      {{"TS.RANGE", "s", "-", "+", "BOGUS"}, "-ERR syntax error"},
      {{"TS.GET", "s", "BOGUS"}, "-ERR syntax error"},
      {{"TS.DEL", "s", "x", "1"}, "-ERR TSDB: wrong fromTimestamp"},
      {{"TS.INFO", "s", "DEBUG", "x"}, "-ERR wrong number of arguments for 'ts.info' command"},
      {{"TS.ADD", "s", "1"}, "-ERR wrong number of arguments for 'ts.add' command"},
  };
  for (const auto& [args, error] : cases) EXPECT_EQ(Do(args), error) << args[0] << " " << args[1];
  // Nothing was created or written.
  EXPECT_EQ(Do({"EXISTS", "x"}), ":0");
  EXPECT_EQ(Do({"TS.RANGE", "s", "-", "+"}), "[]");
}

TEST_F(SeriesTest, EmptyOverAWideGapIsRefusedNotBuilt) {
  EXPECT_EQ(Do({"TS.ADD", "g", "0", "1"}), ":0");
  EXPECT_EQ(Do({"TS.ADD", "g", "9000000000000", "1"}), ":9000000000000");
  EXPECT_EQ(Do({"TS.RANGE", "g", "-", "+", "AGGREGATION", "count", "1", "EMPTY"}),
            "-ERR TSDB: the reply would hold more than 10000000 buckets: narrow the range or widen "
            "the buckets");
  EXPECT_EQ(Do({"TS.RANGE", "g", "-", "+", "COUNT", "3", "AGGREGATION", "count", "1", "EMPTY"}),
            "[[:0,+1],[:1,+0],[:2,+0]]");
}

// On a cluster node a series is one key in one slot: routed by its key, its samples in the
// slot's sub-row range, counted and dropped with the slot.
using SeriesClusterTest = ClusterCommandTest;

TEST_F(SeriesClusterTest, RoutedByItsKey) {
  const int foo = KeySlot("foo");
  const int bar = KeySlot("bar");
  cluster_.mine.insert(foo);
  cluster_.others[bar] = server::cluster::NodeAddress{"127.0.0.1", 7001};
  EXPECT_EQ(Do({"TS.ADD", "foo", "1", "1"}), ":1");
  EXPECT_EQ(Do({"TS.ADD", "{foo}b", "2", "2"}), ":2");
  EXPECT_EQ(Do({"TS.RANGE", "bar", "-", "+"}), "-MOVED " + std::to_string(bar) + " 127.0.0.1:7001");
  EXPECT_EQ(Do({"TS.MADD", "foo", "3", "3", "bar", "3", "3"}),
            "-CROSSSLOT Keys in request don't hash to the same slot");
  EXPECT_EQ(Do({"TS.MADD", "foo", "3", "3", "{foo}b", "3", "3"}), "[:3,:3]");
  EXPECT_EQ(Do({"CLUSTER", "COUNTKEYSINSLOT", std::to_string(foo)}), ":2");
  EXPECT_EQ(Do({"TS.RANGE", "foo", "-", "+"}), "[[:1,+1],[:3,+3]]");
}

}  // namespace
}  // namespace ebb::test
