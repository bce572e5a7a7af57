#include "types/tlog_buckets.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "tests/support/test_constants.h"

namespace ebb::types {
namespace {

TEST(TlogBucketsTest, BucketStartIsTheAlignedFloor) {
  EXPECT_EQ(TlogBucketStart(0, 10, 0), 0u);
  EXPECT_EQ(TlogBucketStart(19, 10, 0), 10u);
  EXPECT_EQ(TlogBucketStart(19, 10, 5), 15u);
  EXPECT_EQ(TlogBucketStart(4, 10, 5), std::nullopt);  // starts at -1
  EXPECT_EQ(TlogBucketStart(5, 10, 25), 5u);           // align above ts
  EXPECT_EQ(TlogBucketStart(test::kMaxTimestamp, 10, 0),
            test::kMaxTimestamp - test::kMaxTimestamp % 10);
  EXPECT_EQ(TlogBucketStart(test::kMaxTimestamp, test::kMaxTimestamp, test::kMaxTimestamp),
            test::kMaxTimestamp);
  EXPECT_EQ(TlogBucketStart(0, test::kMaxTimestamp, 1), std::nullopt);
}

// Newest first and oldest first give the same buckets, each in its own order; emit may stop it.
TEST(TlogBucketsTest, EitherDirectionAndStopping) {
  const std::vector<TlogEntry> oldest_first = {{"a", 1}, {"b", 3}, {"c", 12}};
  for (bool oldest : {true, false}) {
    std::vector<TlogBucket> out;
    TlogBuckets buckets({.aggregator = TlogAggregator::kFirst, .bucket = 10}, oldest,
                        [&](const TlogBucket& b) {
                          out.push_back(b);
                          return true;
                        });
    for (size_t i = 0; i < oldest_first.size(); i++) {
      ASSERT_TRUE(buckets.Add(oldest_first[oldest ? i : oldest_first.size() - 1 - i]));
    }
    ASSERT_TRUE(buckets.Finish());
    ASSERT_EQ(out.size(), 2u);
    const TlogBucket& low = oldest ? out[0] : out[1];
    EXPECT_EQ(low.ts, 0u);
    EXPECT_EQ(low.count, 2u);
    EXPECT_EQ(low.first, "a");
    EXPECT_EQ(low.last, "b");
  }
  int emitted = 0;
  TlogBuckets one({.bucket = 1}, true, [&](const TlogBucket&) { return ++emitted < 1; });
  EXPECT_TRUE(one.Add({"a", 1}));
  EXPECT_FALSE(one.Add({"b", 2}));  // closing the first bucket emitted it, and emit said stop
  EXPECT_FALSE(one.Finish());
  EXPECT_EQ(emitted, 1);
  EXPECT_EQ(TlogAggregatorFromName("LAST"), TlogAggregator::kLast);
  EXPECT_EQ(TlogAggregatorFromName("avg"), std::nullopt);
}

}  // namespace
}  // namespace ebb::types
