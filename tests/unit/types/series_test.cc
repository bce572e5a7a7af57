// Series over a real engine: the metadata and sample encodings, adds and duplicate policies,
// retention (hidden at once, range-deleted as the window moves), deletes, and the bucket
// aggregator's edge cases.
#include "types/series.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tests/unit/types/series_fixture.h"
#include "types/dump_codec.h"
#include "types/series_aggregate.h"

namespace ebb::types {
namespace {

class SeriesTest : public SeriesTypesTest {
 protected:
  std::vector<Sample> All(std::string_view key) {
    return ScanAll(key, 0, kMaxSeriesTimestamp, false);
  }
  std::vector<int64_t> Timestamps(std::string_view key) {
    std::vector<int64_t> out;
    for (const Sample& s : All(key)) out.push_back(s.ts);
    return out;
  }
};

TEST(SeriesCodecTest, MetaRoundTripsAndRefusesDamage) {
  SeriesMeta meta;
  meta.version = 77;
  meta.settings.retention_ms = 1000;
  meta.settings.duplicate_policy = DuplicatePolicy::kSum;
  meta.settings.encoding = SeriesEncoding::kUncompressed;
  meta.settings.chunk_size = 128;
  meta.settings.labels = {{"room", "kitchen"}, {"unit", "C"}};
  meta.newest = Sample{1234, -0.5};
  meta.purged_below = 200;
  const std::string bytes = EncodeSeriesMeta(meta);
  SeriesMeta back;
  ASSERT_TRUE(DecodeSeriesMeta(bytes, &back));
  EXPECT_EQ(back.version, 77u);
  EXPECT_EQ(back.settings.retention_ms, 1000u);
  EXPECT_EQ(back.settings.duplicate_policy, DuplicatePolicy::kSum);
  EXPECT_EQ(back.settings.encoding, SeriesEncoding::kUncompressed);
  EXPECT_EQ(back.settings.chunk_size, 128u);
  EXPECT_EQ(back.settings.labels, meta.settings.labels);
  ASSERT_TRUE(back.newest.has_value());
  EXPECT_EQ(back.newest->ts, 1234);
  EXPECT_EQ(back.newest->value, -0.5);
  EXPECT_EQ(back.purged_below, 200);
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    EXPECT_FALSE(DecodeSeriesMeta(bytes.substr(0, cut), &back)) << cut;
  }
  EXPECT_FALSE(DecodeSeriesMeta(bytes + "x", &back));
  std::string bad_policy = bytes;
  bad_policy[2 + 2] = 9;  // version 77 (1 byte), retention 1000 (2 bytes), then the policy
  EXPECT_FALSE(DecodeSeriesMeta(bad_policy, &back));
}

TEST(SeriesCodecTest, ElementsSortByTimestamp) {
  EXPECT_LT(SeriesElement(1), SeriesElement(2));
  EXPECT_LT(SeriesElement(255), SeriesElement(256));
  EXPECT_LT(SeriesElement(0), SeriesElement(kMaxSeriesTimestamp));
  int64_t ts = 0;
  ASSERT_TRUE(DecodeSeriesElement(SeriesElement(kMaxSeriesTimestamp), &ts));
  EXPECT_EQ(ts, kMaxSeriesTimestamp);
  EXPECT_FALSE(DecodeSeriesElement("\x80\0\0\0\0\0\0\0", &ts));  // above 2^63-1
  EXPECT_FALSE(DecodeSeriesElement("1234567", &ts));
  double v = 0;
  EXPECT_FALSE(DecodeSampleValue("1234567", &v));
  ASSERT_TRUE(DecodeSampleValue(EncodeSampleValue(3.25), &v));
  EXPECT_EQ(v, 3.25);
}

// DUMP's series body: settings and samples round-trip; samples out of order, repeated or above
// 2^63-1, and a version or newest sample in the settings, are refused (every payload is hostile).
TEST(SeriesCodecTest, DumpBodyRoundTripsAndRefusesDisorder) {
  KeyDump dump;
  dump.type = KeyType::kSeries;
  dump.meta_ts = 5;
  dump.meta_expire_at = 900;
  dump.series.settings.retention_ms = 10;
  dump.series.settings.labels = {{"a", "b"}};
  dump.samples = {{1, 1.5}, {2, -2}, {9, 0}};
  KeyDump back;
  ASSERT_EQ(DecodeDump(EncodeDump(dump), &back), DumpDecode::kOk);
  EXPECT_EQ(back.meta_ts, 5);
  EXPECT_EQ(back.meta_expire_at, std::optional<int64_t>(900));
  EXPECT_EQ(back.series.settings.retention_ms, 10u);
  EXPECT_EQ(back.series.settings.labels, dump.series.settings.labels);
  ASSERT_EQ(back.samples.size(), 3u);
  EXPECT_EQ(back.samples[1].ts, 2);
  EXPECT_EQ(back.samples[1].value, -2);
  for (const std::vector<Sample>& bad :
       std::vector<std::vector<Sample>>{{{2, 1}, {1, 1}}, {{1, 1}, {1, 2}}, {{-1, 1}}}) {
    KeyDump d = dump;
    d.samples = bad;
    EXPECT_EQ(DecodeDump(EncodeDump(d), &back), DumpDecode::kBadFormat);
  }
  // EncodeDump writes settings without version or newest: decode the encoder's own output only.
  const std::string payload = EncodeDump(dump);
  for (size_t cut = 5; cut + 4 < payload.size(); ++cut) {
    std::string damaged = payload;
    damaged[cut] = static_cast<char>(damaged[cut] ^ 0x40);
    EXPECT_NE(DecodeDump(damaged, &back), DumpDecode::kOk) << cut;  // the checksum catches it
  }
}

TEST_F(SeriesTest, AddKeepsOrderAndResolvesDuplicates) {
  SeriesSettings settings;
  EXPECT_EQ(Value(series().Add("s", 30, 3, DuplicatePolicy::kUnset, &settings)),
            Series::AddOutcome::kAdded);
  EXPECT_EQ(Value(series().Add("s", 10, 1, DuplicatePolicy::kUnset, nullptr)),
            Series::AddOutcome::kAdded);
  EXPECT_EQ(Value(series().Add("s", 10, 5, DuplicatePolicy::kUnset, nullptr)),
            Series::AddOutcome::kBlocked);
  EXPECT_EQ(Value(series().Add("s", 10, 5, DuplicatePolicy::kSum, nullptr)),
            Series::AddOutcome::kAdded);
  EXPECT_EQ(Value(series().Add("s", 10, 2, DuplicatePolicy::kMin, nullptr)),
            Series::AddOutcome::kAdded);
  EXPECT_EQ(Value(series().Add("s", 10, 9, DuplicatePolicy::kFirst, nullptr)),
            Series::AddOutcome::kAdded);
  std::vector<Sample> all = All("s");
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].ts, 10);
  EXPECT_EQ(all[0].value, 2);  // 1, +5 (SUM) = 6, MIN with 2 = 2, FIRST keeps 2
  EXPECT_EQ(all[1].ts, 30);
  EXPECT_EQ(Value(series().Latest("s"))->ts, 30);
  EXPECT_EQ(series().Add("none", 1, 1, DuplicatePolicy::kUnset, nullptr).status(),
            OpStatus::kNotFound);
}

TEST_F(SeriesTest, RetentionHidesAtOnceAndRangeDeletesAsTheWindowMoves) {
  SeriesSettings settings;
  settings.retention_ms = 100;
  for (int64_t ts : {0, 50, 100}) {
    ASSERT_EQ(Value(series().Add("s", ts, 1, DuplicatePolicy::kUnset, &settings)),
              Series::AddOutcome::kAdded);
  }
  EXPECT_EQ(Timestamps("s"), (std::vector<int64_t>{0, 50, 100}));
  ASSERT_EQ(Value(series().Add("s", 150, 1, DuplicatePolicy::kUnset, nullptr)),
            Series::AddOutcome::kAdded);
  EXPECT_EQ(Timestamps("s"), (std::vector<int64_t>{50, 100, 150}));  // floor 150 - 100
  EXPECT_EQ(Value(series().Add("s", 49, 1, DuplicatePolicy::kUnset, nullptr)),
            Series::AddOutcome::kTooOld);
  EXPECT_EQ(Value(series().Meta("s")).purged_below, 0);  // half a window: not purged yet
  ASSERT_EQ(Value(series().Add("s", 210, 1, DuplicatePolicy::kUnset, nullptr)),
            Series::AddOutcome::kAdded);
  EXPECT_EQ(Value(series().Meta("s")).purged_below, 110);  // a whole window: purged below 110
  EXPECT_EQ(Timestamps("s"), (std::vector<int64_t>{150, 210}));
}

TEST_F(SeriesTest, DeleteRangeCountsAndFindsTheNewNewest) {
  SeriesSettings settings;
  for (int64_t ts : {1, 2, 3, 4}) {
    ASSERT_TRUE(
        series().Add("s", ts, static_cast<double>(ts), DuplicatePolicy::kUnset, &settings).ok());
  }
  EXPECT_EQ(Value(series().DeleteRange("s", 3, 10)), 2u);
  EXPECT_EQ(Value(series().Latest("s"))->ts, 2);
  EXPECT_EQ(Value(series().DeleteRange("s", 3, 10)), 0u);
  EXPECT_EQ(Value(series().DeleteRange("s", 0, kMaxSeriesTimestamp)), 2u);
  EXPECT_FALSE(Value(series().Latest("s")).has_value());
  EXPECT_EQ(series().DeleteRange("none", 0, 1).status(), OpStatus::kNotFound);
}

TEST(BucketAggregatorTest, StopsWhenAskedAndAlignsBuckets) {
  EXPECT_EQ(BucketStart(5, 10, 0), 0);
  EXPECT_EQ(BucketStart(5, 10, 3), 3);
  EXPECT_EQ(BucketStart(2, 10, 3), -7);  // below the alignment: a bucket starting before 0
  AggregationSpec spec;
  spec.aggregator = Aggregator::kCount;
  spec.bucket_ms = 10;
  std::vector<Sample> out;
  BucketAggregator buckets(spec, std::nullopt, [&](const Sample& s) {
    out.push_back(s);
    return out.size() < 1;
  });
  EXPECT_TRUE(buckets.Add({1, 1}));
  EXPECT_FALSE(buckets.Add({11, 1}));  // the first bucket filled the reply
  EXPECT_FALSE(buckets.Finish(std::nullopt));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].value, 1);
}

}  // namespace
}  // namespace ebb::types
