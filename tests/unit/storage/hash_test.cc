// Hash64 (storage/util/hash.h): the memtable index's hash. Every byte of a key of any length
// reaches it, the length does, and equal keys hash equal wherever they sit in memory.
#include "storage/util/hash.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace ebb::storage {
namespace {

uint64_t Of(const std::string& s) { return Hash64(s.data(), s.size()); }

TEST(Hash64Test, EveryByteAndTheLengthChangeIt) {
  for (size_t length = 0; length <= 40; length++) {
    const std::string key(length, 'k');
    const uint64_t base = Of(key);
    for (size_t i = 0; i < length; i++) {
      std::string changed = key;
      changed[i] = 'j';
      EXPECT_NE(Of(changed), base) << "length " << length << " byte " << i;
    }
    EXPECT_NE(Of(key + '\0'), base) << "length " << length;
  }
}

TEST(Hash64Test, EqualKeysHashEqualAtAnyAddress) {
  const std::string key = "key:000000000042";
  const std::string padded = "xyz" + key;
  EXPECT_EQ(Hash64(padded.data() + 3, key.size()), Of(key));
}

// The low bits pick the bucket: redis-benchmark's keys, which differ only in a few digits,
// spread over the buckets of a small index.
TEST(Hash64Test, SequentialKeysSpreadOverBuckets) {
  std::set<uint64_t> buckets;
  for (int i = 0; i < 1000; i++) {
    std::string digits = std::to_string(i);
    digits.insert(0, 12 - digits.size(), '0');
    buckets.insert(Of(std::string("\x01\x00key:", 6) + digits) % 1024);
  }
  // 1,000 keys thrown at random into 1,024 buckets fill about 630 of them.
  EXPECT_GT(buckets.size(), 560u);
}

}  // namespace
}  // namespace ebb::storage
