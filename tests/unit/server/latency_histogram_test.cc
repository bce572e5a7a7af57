// LatencyHistogram: buckets cover every value once with a width of at most 1/32 of it, and
// percentiles are the highest value of the bucket holding the wanted rank.
#include "server/core/latency_histogram.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace ebb::server {
namespace {

TEST(LatencyHistogram, BucketsTileTheRangeWithBoundedWidth) {
  size_t previous = 0;
  for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{31}, uint64_t{32}, uint64_t{33},
                     uint64_t{63}, uint64_t{64}, uint64_t{65}, uint64_t{1000}, uint64_t{2500},
                     uint64_t{1} << 40, std::numeric_limits<uint64_t>::max()}) {
    const size_t b = LatencyHistogram::BucketOf(v);
    EXPECT_LT(b, LatencyHistogram::kBuckets) << v;
    EXPECT_GE(b, previous) << v;  // monotonic
    previous = b;
    const uint64_t high = LatencyHistogram::HighestInBucket(b);
    EXPECT_GE(high, v) << v;
    EXPECT_EQ(LatencyHistogram::BucketOf(high), b) << v;
    EXPECT_LE(high - v, v / 32) << v;  // within about 3% of the value
    if (high != std::numeric_limits<uint64_t>::max()) {
      EXPECT_EQ(LatencyHistogram::BucketOf(high + 1), b + 1) << v;  // no gap, no overlap
    }
  }
  EXPECT_EQ(LatencyHistogram::BucketOf(64), 64u);
  EXPECT_EQ(LatencyHistogram::HighestInBucket(64), 65u);  // [64, 65]
}

TEST(LatencyHistogram, Percentiles) {
  LatencyHistogram h;
  EXPECT_EQ(h.ValueAtPercentile(50), 0u);
  for (uint64_t v = 1; v <= 100; ++v) h.Record(v);
  h.Record(1'000'000);
  EXPECT_EQ(h.total(), 101u);
  EXPECT_EQ(h.ValueAtPercentile(0), 1u);
  EXPECT_EQ(h.ValueAtPercentile(50), 51u);   // rank 51 of 101
  EXPECT_EQ(h.ValueAtPercentile(99), 101u);  // rank 100: the value 100, in bucket [100, 101]
  const uint64_t top = h.ValueAtPercentile(100);
  EXPECT_GE(top, 1'000'000u);
  EXPECT_LE(top, 1'000'000u + 1'000'000u / 32);
}

TEST(LatencyHistogram, PercentileText) {
  EXPECT_EQ(PercentileText(50), "50");
  EXPECT_EQ(PercentileText(99.9), "99.9");
  EXPECT_EQ(PercentileText(0), "0");
  EXPECT_EQ(PercentileText(99.99), "99.99");
}

}  // namespace
}  // namespace ebb::server
