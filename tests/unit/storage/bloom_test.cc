// Bloom filter: no false negatives, a sane false positive rate, the encodings' last bytes, every
// probe of a key within one 64-byte block, and filters in LevelDB's encoding still read.
#include "storage/table/bloom.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "storage/util/hash.h"

namespace ebb::storage {
namespace {

std::string Key(int i) { return "user:" + std::to_string(i); }

TEST(BloomTest, EmptyFilterMatchesNothingMuch) {
  BloomFilterBuilder builder(10);
  const std::string filter = builder.Finish();
  EXPECT_EQ(filter.size(), 64u + 2);  // one 512-bit block, k, the tag
  EXPECT_FALSE(BloomKeyMayMatch(filter, "hello"));
  EXPECT_FALSE(BloomKeyMayMatch(filter, ""));
}

TEST(BloomTest, NoFalseNegativesAndLowFalsePositives) {
  for (int n : {1, 10, 100, 1000, 10000}) {
    BloomFilterBuilder builder(10);
    for (int i = 0; i < n; ++i) builder.AddKey(Key(i));
    const std::string filter = builder.Finish();
    EXPECT_LE(filter.size(), static_cast<size_t>(n * 10 / 8) + 64 + 2);
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
  EXPECT_EQ(filter[filter.size() - 2], 6);  // k = floor(10 * 0.69)
  EXPECT_EQ(filter.back(), 0x40);           // cache-local
  EXPECT_FALSE(BloomKeyMayMatch(filter, "zzz"));
  std::string future = filter;
  future.back() = 31;  // a future encoding
  EXPECT_TRUE(BloomKeyMayMatch(future, "zzz"));
  std::string no_probes = filter;
  no_probes[no_probes.size() - 2] = 0;
  EXPECT_TRUE(BloomKeyMayMatch(no_probes, "zzz"));
  EXPECT_TRUE(BloomKeyMayMatch(filter.substr(1), "zzz"));  // not whole blocks
  EXPECT_TRUE(BloomKeyMayMatch("", "zzz"));
  EXPECT_TRUE(BloomKeyMayMatch("\x06", "zzz"));
  EXPECT_TRUE(BloomKeyMayMatch("\x06\x40", "zzz"));
}

TEST(BloomTest, EveryProbeOfAKeyFallsInOneBlock) {
  // One key in a filter of ten blocks (5,000 bits for it, so 30 probes): its bits all lie in
  // one 64-byte block, and keys spread over the blocks.
  std::set<size_t> used;
  for (int i = 0; i < 200; ++i) {
    BloomFilterBuilder builder(5000);
    builder.AddKey(Key(i));
    const std::string filter = builder.Finish();
    ASSERT_EQ(filter.size(), 10u * 64 + 2);
    std::set<size_t> blocks;
    int bits = 0;
    for (size_t b = 0; b + 2 < filter.size(); ++b) {
      if (filter[b] != 0) blocks.insert(b / 64);
      bits += __builtin_popcount(static_cast<uint8_t>(filter[b]));
    }
    ASSERT_EQ(blocks.size(), 1u) << Key(i);
    EXPECT_GE(bits, 20) << Key(i);  // 30 probes, a few landing on the same bit
    used.insert(*blocks.begin());
    EXPECT_TRUE(BloomKeyMayMatch(filter, Key(i)));
  }
  EXPECT_EQ(used.size(), 10u);
}

// A filter in LevelDB's encoding, as tables written before the cache-local one hold: built here
// from docs/sst-format.md's description of it.
std::string LevelDbFilter(const std::vector<std::string>& keys, int bits_per_key) {
  const size_t bytes = (std::max<size_t>(keys.size() * bits_per_key, 64) + 7) / 8;
  std::string filter(bytes, '\0');
  const int k = std::clamp(static_cast<int>(bits_per_key * 0.69), 1, 30);
  for (const std::string& key : keys) {
    uint32_t h = Hash(key.data(), key.size(), 0xbc9f1d34);
    const uint32_t delta = (h >> 17) | (h << 15);
    for (int j = 0; j < k; ++j) {
      const size_t pos = h % (bytes * 8);
      filter[pos / 8] = static_cast<char>(filter[pos / 8] | (1 << (pos % 8)));
      h += delta;
    }
  }
  filter.push_back(static_cast<char>(k));
  return filter;
}

TEST(BloomTest, FiltersInLevelDbsEncodingAreStillRead) {
  std::vector<std::string> keys;
  for (int i = 0; i < 2000; ++i) keys.push_back(Key(i));
  const std::string filter = LevelDbFilter(keys, 10);
  for (const std::string& key : keys) ASSERT_TRUE(BloomKeyMayMatch(filter, key)) << key;
  int false_positives = 0;
  for (int i = 0; i < 10000; ++i) false_positives += BloomKeyMayMatch(filter, Key(i + 1000000));
  EXPECT_LT(false_positives, 200);
  EXPECT_GT(false_positives, 0);  // it is a filter, not a set: read by its own rule
}

}  // namespace
}  // namespace ebb::storage
