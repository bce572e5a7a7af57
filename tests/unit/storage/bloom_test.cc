// Bloom filter: no false negatives, a sane false positive rate, the encoding's k byte.
#include "storage/table/bloom.h"

#include <gtest/gtest.h>

#include <string>

namespace ebb::storage {
namespace {

std::string Key(int i) { return "user:" + std::to_string(i); }

TEST(BloomTest, EmptyFilterMatchesNothingMuch) {
  BloomFilterBuilder builder(10);
  const std::string filter = builder.Finish();
  EXPECT_EQ(filter.size(), 8u + 1);  // minimum 64 bits + k
  EXPECT_FALSE(BloomKeyMayMatch(filter, "hello"));
  EXPECT_FALSE(BloomKeyMayMatch(filter, ""));
}

TEST(BloomTest, NoFalseNegativesAndLowFalsePositives) {
  for (int n : {1, 10, 100, 1000, 10000}) {
    BloomFilterBuilder builder(10);
    for (int i = 0; i < n; ++i) builder.AddKey(Key(i));
    const std::string filter = builder.Finish();
    EXPECT_LE(filter.size(), static_cast<size_t>(n * 10 / 8) + 8 + 1 + 1);
    for (int i = 0; i < n; ++i) ASSERT_TRUE(BloomKeyMayMatch(filter, Key(i))) << n << " " << i;
    int false_positives = 0;
    for (int i = 0; i < 10000; ++i) false_positives += BloomKeyMayMatch(filter, Key(i + 1000000));
    // ~1% expected at 10 bits per key; small filters vary more.
    EXPECT_LT(false_positives, n < 100 ? 500 : 200) << "n=" << n;
  }
}

TEST(BloomTest, FewerBitsMoreFalsePositives) {
  auto rate = [](int bits) {
    BloomFilterBuilder builder(bits);
    for (int i = 0; i < 5000; ++i) builder.AddKey(Key(i));
    const std::string filter = builder.Finish();
    int fp = 0;
    for (int i = 0; i < 20000; ++i) fp += BloomKeyMayMatch(filter, Key(i + 1000000));
    return fp;
  };
  EXPECT_GT(rate(2), rate(10));
  EXPECT_GT(rate(10), rate(20));
}

TEST(BloomTest, UnknownOrMalformedFilterMatchesEverything) {
  BloomFilterBuilder builder(10);
  builder.AddKey("a");
  std::string filter = builder.Finish();
  EXPECT_EQ(filter.back(), 6);  // k = floor(10 * 0.69)
  filter.back() = 31;           // a future encoding
  EXPECT_TRUE(BloomKeyMayMatch(filter, "zzz"));
  EXPECT_TRUE(BloomKeyMayMatch("", "zzz"));
  EXPECT_TRUE(BloomKeyMayMatch("\x06", "zzz"));
}

}  // namespace
}  // namespace ebb::storage
