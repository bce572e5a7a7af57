// SeriesRules' pure parts and its hooks over a real engine: the rules extension of the series
// metadata (old payloads still decode, damage is refused), and AfterAdd / AfterDelete /
// OpenBucket / AfterMerge driven directly.
#include "types/series_rules.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "tests/unit/types/series_fixture.h"

namespace ebb::types {
namespace {

SeriesMeta MetaWithRules() {
  SeriesMeta meta;
  meta.version = 3;
  meta.newest = Sample{50, 1.5};
  meta.source = "up";
  meta.rules = {{"down1", Aggregator::kTwa, 60000, 7}, {"down2", Aggregator::kVarS, 1, 0}};
  return meta;
}

TEST(SeriesRulesCodecTest, RulesRoundTripAndOldPayloadsDecode) {
  const SeriesMeta meta = MetaWithRules();
  const std::string bytes = EncodeSeriesMeta(meta);
  SeriesMeta back;
  ASSERT_TRUE(DecodeSeriesMeta(bytes, &back));
  EXPECT_EQ(back.source, meta.source);
  EXPECT_EQ(back.rules, meta.rules);
  EXPECT_EQ(back.newest->ts, 50);
  // Without a source or rules the payload ends at purged_below, as before rules existed.
  SeriesMeta plain = meta;
  plain.source.reset();
  plain.rules.clear();
  const std::string old_bytes = EncodeSeriesMeta(plain);
  EXPECT_EQ(bytes.substr(0, old_bytes.size()), old_bytes);
  EXPECT_EQ(bytes[old_bytes.size()], static_cast<char>(kSeriesRulesExtension));
  ASSERT_TRUE(DecodeSeriesMeta(old_bytes, &back));
  EXPECT_FALSE(back.source.has_value());
  EXPECT_TRUE(back.rules.empty());
  // Every cut inside the extension, a trailing byte, a bad tag, aggregator or bucket: refused.
  for (size_t cut = old_bytes.size() + 1; cut < bytes.size(); ++cut) {
    EXPECT_FALSE(DecodeSeriesMeta(bytes.substr(0, cut), &back)) << cut;
  }
  EXPECT_FALSE(DecodeSeriesMeta(bytes + "x", &back));
  std::string bad = bytes;
  bad[old_bytes.size()] = 2;
  EXPECT_FALSE(DecodeSeriesMeta(bad, &back));
  SeriesMeta one;
  one.rules = {{"d", Aggregator::kAvg, 10, 0}};
  const std::string rule_bytes = EncodeSeriesMeta(one);
  // ... | count 1 | len 1 'd' | aggregator | bucket 10 | align 0
  bad = rule_bytes;
  bad[bad.size() - 3] = 13;  // past kTwa
  EXPECT_FALSE(DecodeSeriesMeta(bad, &back));
  bad = rule_bytes;
  bad[bad.size() - 2] = 0;  // bucket 0
  EXPECT_FALSE(DecodeSeriesMeta(bad, &back));
  ASSERT_TRUE(DecodeSeriesMeta(rule_bytes, &back));
  EXPECT_EQ(back.rules, one.rules);
}

TEST(SeriesRulesCodecTest, AggregatorNames) {
  EXPECT_EQ(RuleAggregatorName(Aggregator::kAvg), "AVG");
  EXPECT_EQ(RuleAggregatorName(Aggregator::kStdP), "STD.P");
  EXPECT_EQ(RuleAggregatorName(Aggregator::kTwa), "TWA");
}

class SeriesRulesTest : public SeriesTypesTest {
 protected:
  SeriesRules rules() { return SeriesRules(*ks_, 0); }
  void Add(std::string_view key, int64_t ts, double value) {
    ASSERT_TRUE(series().Add(key, ts, value, DuplicatePolicy::kLast, nullptr).ok());
    ASSERT_TRUE(rules().AfterAdd(key, ts).ok());
  }
  // Adds `batch` to `src` through `adder` as the mode's merge does: the source's newest before
  // the adds, then AfterMerge over the timestamps they touched.
  void MergeBatch(SeriesRules& mode, Series adder, const std::string& src,
                  std::span<const Sample> batch) {
    OpResult<SeriesMeta> before = series().Meta(src);
    ASSERT_TRUE(before.ok());
    std::optional<int64_t> newest;
    if (before->newest) newest = before->newest->ts;
    std::vector<int64_t> touched;
    for (const Sample& sample : batch) {
      ASSERT_TRUE(adder.Add(src, sample.ts, sample.value, DuplicatePolicy::kLast, nullptr).ok());
      touched.push_back(sample.ts);
    }
    ASSERT_TRUE(mode.AfterMerge(src, touched, newest).ok());
  }
  std::vector<std::pair<int64_t, double>> All(std::string_view key) {
    std::vector<std::pair<int64_t, double>> out;
    for (const Sample& s : ScanAll(key, 0, kMaxSeriesTimestamp, false)) {
      out.emplace_back(s.ts, s.value);
    }
    return out;
  }
};

TEST_F(SeriesRulesTest, FinishedBucketsFlowAndTheOpenOneIsLatest) {
  ASSERT_TRUE(series().Create("s", SeriesSettings()).ok());
  ASSERT_TRUE(series().Create("d", SeriesSettings()).ok());
  OpResult<SeriesRules::CreateOutcome> created =
      rules().Create("s", SeriesRule{"d", Aggregator::kSum, 10, 0});
  ASSERT_TRUE(created.ok());
  EXPECT_EQ(*created, SeriesRules::CreateOutcome::kCreated);
  Add("s", 1, 1);
  Add("s", 5, 2);
  EXPECT_TRUE(All("d").empty());
  Add("s", 12, 4);
  EXPECT_EQ(All("d"), (std::vector<std::pair<int64_t, double>>{{0, 3}}));
  OpResult<std::optional<Sample>> open = rules().OpenBucket("d");
  ASSERT_TRUE(open.ok());
  ASSERT_TRUE(open->has_value());
  EXPECT_EQ((*open)->ts, 10);
  EXPECT_EQ((*open)->value, 4);
  // Deleting every sample of a finished bucket deletes its aggregate.
  OpResult<uint64_t> deleted = series().DeleteRange("s", 0, 9);
  ASSERT_TRUE(deleted.ok());
  ASSERT_TRUE(rules().AfterDelete("s", 0, 9, 12).ok());
  EXPECT_TRUE(All("d").empty());
  // Refusals.
  EXPECT_EQ(*rules().Create("s", SeriesRule{"s", Aggregator::kSum, 10, 0}),
            SeriesRules::CreateOutcome::kSameKey);
  EXPECT_EQ(*rules().Create("d", SeriesRule{"s", Aggregator::kSum, 10, 0}),
            SeriesRules::CreateOutcome::kCycle);
  EXPECT_EQ(rules().Create("s", SeriesRule{"none", Aggregator::kSum, 10, 0}).status(),
            OpStatus::kNotFound);
  OpResult<bool> removed = rules().Delete("s", "d");
  ASSERT_TRUE(removed.ok());
  EXPECT_TRUE(*removed);
  EXPECT_FALSE(*rules().Delete("s", "d"));
}

// The active-active mode's hook: whatever order and batches a source's samples are merged in,
// AfterMerge leaves the destination every finished bucket of every stored sample — those the
// source's retention hides included — as one backfill of them all would.
TEST_F(SeriesRulesTest, AfterMergeLeavesTheSameBucketsWhateverTheOrder) {
  std::vector<Sample> samples;
  for (int64_t ts : {3, 7, 12, 15, 21, 28, 33, 47, 51, 64}) {
    samples.push_back({ts, static_cast<double>(ts % 7) + 0.5});
  }
  std::map<int64_t, double> sums;  // every bucket before the open one (60)
  for (const Sample& sample : samples) {
    if (sample.ts < 60) sums[sample.ts / 10 * 10] += sample.value;
  }
  const std::vector<std::pair<int64_t, double>> want(sums.begin(), sums.end());
  SeriesSettings hiding;
  hiding.retention_ms = 15;  // hides most samples once the newest has moved on
  std::mt19937_64 rng(7);
  for (int round = 0; round < 8; round++) {
    const std::string src = "s" + std::to_string(round);
    const std::string dst = "d" + std::to_string(round);
    ASSERT_TRUE(series().Create(src, hiding).ok());
    ASSERT_TRUE(series().Create(dst, SeriesSettings()).ok());
    SeriesRules mode(*ks_, 0);
    mode.ActiveActiveMode();
    ASSERT_TRUE(mode.Link(src, SeriesRule{dst, Aggregator::kSum, 10, 0}).ok());
    Series keeping(*ks_, 0);
    keeping.KeepEverySample();
    std::shuffle(samples.begin(), samples.end(), rng);
    for (size_t i = 0; i < samples.size();) {
      const size_t batch = std::min<size_t>(samples.size() - i, 1 + rng() % 3);
      ASSERT_NO_FATAL_FAILURE(MergeBatch(mode, keeping, src, std::span(samples).subspan(i, batch)));
      i += batch;
    }
    EXPECT_EQ(All(dst), want) << "round " << round;
  }
}

// TWA in the mode: a finished bucket's TWA also depends on the sample before it and the one after
// it, so AfterMerge refreshes the buckets on either side of each merged one. Whatever the order
// and batches — samples landing in the empty buckets between others, or nearer a bucket than its
// neighbour was — the destination, and a TWA rule it feeds, end as backfills of the merged
// source compute them.
TEST_F(SeriesRulesTest, TwaAfterMergeFollowsTheNeighboursWhateverTheOrder) {
  std::vector<Sample> samples;
  for (int64_t ts : {3, 7, 12, 35, 38, 41, 64, 88, 93, 131}) {
    samples.push_back({ts, static_cast<double>(ts % 7) + 0.5});
  }
  const SeriesRule down{"refd", Aggregator::kTwa, 10, 0};
  const SeriesRule further{"refe", Aggregator::kTwa, 25, 3};
  SeriesRules mode(*ks_, 0);
  mode.ActiveActiveMode();
  for (const char* key : {"ref", "refd", "refe"}) {
    ASSERT_TRUE(series().Create(key, SeriesSettings()).ok());
  }
  for (const Sample& sample : samples) {
    ASSERT_TRUE(series().Add("ref", sample.ts, sample.value, DuplicatePolicy::kLast, nullptr).ok());
  }
  ASSERT_TRUE(mode.Link("ref", down).ok());
  ASSERT_TRUE(mode.Backfill("ref", down).ok());
  ASSERT_TRUE(mode.Link("refd", further).ok());
  ASSERT_TRUE(mode.Backfill("refd", further).ok());
  const auto want_d = All("refd");
  const auto want_e = All("refe");
  ASSERT_EQ(want_d.size(), 7u);  // buckets 0, 10, 30, 40, 60, 80 and 90; 130 is open
  ASSERT_EQ(want_e.size(), 4u);  // buckets -22, 3, 28 and 53 of refd's samples; 78 is open
  std::mt19937_64 rng(11);
  for (int round = 0; round < 8; round++) {
    const std::string src = "s" + std::to_string(round);
    const std::string dst = "d" + std::to_string(round);
    const std::string end = "e" + std::to_string(round);
    for (const std::string& key : {src, dst, end}) {
      ASSERT_TRUE(series().Create(key, SeriesSettings()).ok());
    }
    ASSERT_TRUE(mode.Link(src, SeriesRule{dst, Aggregator::kTwa, 10, 0}).ok());
    ASSERT_TRUE(mode.Link(dst, SeriesRule{end, Aggregator::kTwa, 25, 3}).ok());
    std::shuffle(samples.begin(), samples.end(), rng);
    for (size_t i = 0; i < samples.size();) {
      const size_t batch = std::min<size_t>(samples.size() - i, 1 + rng() % 3);
      ASSERT_NO_FATAL_FAILURE(
          MergeBatch(mode, series(), src, std::span(samples).subspan(i, batch)));
      i += batch;
    }
    EXPECT_EQ(All(dst), want_d) << "round " << round;
    EXPECT_EQ(All(end), want_e) << "round " << round;
  }
}

// The mode's floor: a rule reads only the source's samples at or above it — a bucket below it is
// empty, one across it aggregates from it on, and TWA interpolates from no earlier sample —
// alike by a backfill and by AfterMerge in any order, whatever the source holds below it.
TEST_F(SeriesRulesTest, AFloorHidesTheSamplesBelowIt) {
  SeriesRules mode(*ks_, 0);
  mode.ActiveActiveMode([](const SeriesRule&) -> OpResult<int64_t> { return int64_t{25}; });
  std::vector<Sample> samples;
  for (int64_t ts : {3, 7, 12, 15, 21, 28, 33, 47, 51, 64}) {
    samples.push_back({ts, static_cast<double>(ts % 7) + 0.5});
  }
  for (const char* key : {"ref", "rsum", "rtwa"}) {
    ASSERT_TRUE(series().Create(key, SeriesSettings()).ok());
  }
  // Below the floor only: these samples change nothing.
  for (const Sample& sample : samples) {
    ASSERT_TRUE(series().Add("ref", sample.ts, sample.value, DuplicatePolicy::kLast, nullptr).ok());
  }
  for (const SeriesRule& rule :
       {SeriesRule{"rsum", Aggregator::kSum, 10, 0}, SeriesRule{"rtwa", Aggregator::kTwa, 10, 0}}) {
    ASSERT_TRUE(mode.Link("ref", rule).ok());
    ASSERT_TRUE(mode.Backfill("ref", rule).ok());
  }
  const std::vector<std::pair<int64_t, double>> sums = {{20, 0.5}, {30, 5.5}, {40, 5.5}, {50, 2.5}};
  EXPECT_EQ(All("rsum"), sums);
  // [20, 30) holds 28 alone above the floor, with no sample before it: its TWA runs from 28 to
  // 30, towards 33.
  const auto twa = All("rtwa");
  ASSERT_EQ(twa.size(), 4u);
  EXPECT_EQ(twa[0].first, 20);
  EXPECT_DOUBLE_EQ(twa[0].second, (0.5 + (0.5 + 5.0 * 2 / 5)) / 2);
  std::mt19937_64 rng(5);
  for (int round = 0; round < 4; round++) {
    const std::string src = "s" + std::to_string(round);
    const std::string sum = "sum" + std::to_string(round);
    const std::string avg = "twa" + std::to_string(round);
    for (const std::string& key : {src, sum, avg}) {
      ASSERT_TRUE(series().Create(key, SeriesSettings()).ok());
    }
    ASSERT_TRUE(mode.Link(src, SeriesRule{sum, Aggregator::kSum, 10, 0}).ok());
    ASSERT_TRUE(mode.Link(src, SeriesRule{avg, Aggregator::kTwa, 10, 0}).ok());
    std::shuffle(samples.begin(), samples.end(), rng);
    for (const Sample& sample : samples) {
      ASSERT_NO_FATAL_FAILURE(MergeBatch(mode, series(), src, {&sample, 1}));
    }
    EXPECT_EQ(All(sum), sums) << "round " << round;
    EXPECT_EQ(All(avg), twa) << "round " << round;
  }
}

}  // namespace
}  // namespace ebb::types
