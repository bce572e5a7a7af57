// BlockBuilder + Block iterator: prefix compression, restart points, Seek/Next/Prev, damage.
#include "storage/table/block.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "storage/format/internal_key.h"
#include "storage/table/block_builder.h"
#include "storage/util/coding.h"

namespace ebb::storage {
namespace {

// "k<n>" (snprintf: GCC 12's -Wrestrict misfires on short string concatenations at -O2).
std::string KeyName(uint64_t n) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "k%llu", static_cast<unsigned long long>(n));
  return buf;
}

std::shared_ptr<const Block> BuildBlock(const std::map<std::string, std::string>& entries,
                                        int restart_interval = kRestartInterval) {
  BlockBuilder builder(restart_interval);
  for (const auto& [k, v] : entries) builder.Add(k, v);
  return std::make_shared<const Block>(std::string(builder.Finish()));
}

TEST(BlockTest, EmptyBlock) {
  auto block = BuildBlock({});
  EXPECT_FALSE(block->malformed());
  auto it = Block::NewIterator(block, CompareUserKeys);
  it->SeekToFirst();
  EXPECT_FALSE(it->Valid());
  it->SeekToLast();
  EXPECT_FALSE(it->Valid());
  it->Seek("x");
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().ok());
}

TEST(BlockTest, PrefixCompressionLayout) {
  // Two keys sharing "apple": the second entry stores only its 3-byte suffix.
  BlockBuilder builder;
  builder.Add("apple", "1");
  builder.Add("applepie", "2");
  const std::string contents(builder.Finish());
  const std::string expected = std::string(
                                   "\x00\x05\x01"
                                   "apple"
                                   "1",
                                   9) +
                               std::string(
                                   "\x05\x03\x01"
                                   "pie"
                                   "2",
                                   7) +
                               std::string(
                                   "\x00\x00\x00\x00"
                                   "\x01\x00\x00\x00",
                                   8);
  EXPECT_EQ(contents, expected);
  EXPECT_EQ(builder.CurrentSizeEstimate(), contents.size());
}

TEST(BlockTest, SeekNextPrevAgainstModel) {
  for (int interval : {1, 2, 16}) {
    std::mt19937 rng(interval);
    std::map<std::string, std::string> model;
    for (int i = 0; i < 1000; ++i) {
      model[KeyName(rng() % 5000)] = std::string(rng() % 20, 'a' + rng() % 26);
    }
    auto block = BuildBlock(model, interval);
    auto it = Block::NewIterator(block, CompareUserKeys);
    std::vector<std::string> forward, backward;
    for (it->SeekToFirst(); it->Valid(); it->Next()) forward.emplace_back(it->key());
    for (it->SeekToLast(); it->Valid(); it->Prev()) backward.emplace_back(it->key());
    ASSERT_EQ(forward.size(), model.size());
    ASSERT_EQ(backward.size(), model.size());
    auto m = model.begin();
    for (size_t i = 0; i < forward.size(); ++i, ++m) {
      ASSERT_EQ(forward[i], m->first);
      ASSERT_EQ(backward[forward.size() - 1 - i], m->first);
    }
    for (int i = 0; i < 500; ++i) {
      const std::string target = KeyName(rng() % 6000);
      it->Seek(target);
      auto pos = model.lower_bound(target);
      for (int step = 0; step < 10; ++step) {
        ASSERT_EQ(it->Valid(), pos != model.end()) << target;
        if (!it->Valid()) break;
        ASSERT_EQ(it->key(), pos->first);
        ASSERT_EQ(it->value(), pos->second);
        if (rng() % 2) {
          it->Next();
          ++pos;
        } else if (pos == model.begin()) {
          it->Prev();
          ASSERT_FALSE(it->Valid());
          break;
        } else {
          it->Prev();
          --pos;
        }
      }
    }
  }
}

TEST(BlockTest, CursorHandlesMultiByteEntryHeaders) {
  // Keys sharing 200-byte prefixes and values of up to 300 bytes: shared, non_shared and
  // value_length all need two-byte varints, mixed with one-byte entries.
  std::mt19937 rng(5);
  std::map<std::string, std::string> model;
  for (int i = 0; i < 300; ++i) {
    const std::string prefix(rng() % 2 ? 200 : 3, static_cast<char>('a' + rng() % 3));
    model[prefix + KeyName(rng() % 1000) + std::string(rng() % 150, 'z')] =
        std::string(rng() % 300, static_cast<char>('A' + i % 26));
  }
  auto block = BuildBlock(model);
  BlockCursor cursor(*block, CompareUserKeys);
  auto m = model.begin();
  for (cursor.SeekToFirst(); cursor.Valid(); cursor.Next(), ++m) {
    ASSERT_NE(m, model.end());
    ASSERT_EQ(cursor.key(), m->first);
    ASSERT_EQ(cursor.value(), m->second);
  }
  EXPECT_EQ(m, model.end());
  EXPECT_FALSE(cursor.corrupted());
  for (const auto& [key, value] : model) {
    cursor.Seek(key);
    ASSERT_TRUE(cursor.Valid());
    ASSERT_EQ(cursor.key(), key);
    ASSERT_EQ(cursor.value(), value);
    // Just past the key: the next entry in the model, or the end.
    cursor.Seek(key + std::string(1, '\0'));
    auto next = model.upper_bound(key);
    if (next == model.end()) {
      EXPECT_FALSE(cursor.Valid());
    } else {
      ASSERT_TRUE(cursor.Valid());
      EXPECT_EQ(cursor.key(), next->first);
      cursor.Prev();
      ASSERT_TRUE(cursor.Valid());
      EXPECT_EQ(cursor.key(), key);
    }
  }
}

TEST(BlockTest, InternalKeyOrderWithVersions) {
  // Versions of one user key come newest (highest sequence) first.
  BlockBuilder builder;
  std::vector<std::string> keys;
  for (uint64_t seq : {30, 20, 10}) keys.push_back(LookupKey("a", seq));
  keys.push_back(LookupKey("b", 5));
  for (const auto& k : keys) builder.Add(k, "v");
  auto block = std::make_shared<const Block>(std::string(builder.Finish()));
  auto it = Block::NewIterator(block, CompareInternalKeys);
  it->Seek(LookupKey("a", 25));  // first version visible at sequence 25
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), keys[1]);
  it->Seek(LookupKey("a", 5));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), keys[3]);
}

TEST(BlockTest, MalformedBlocksReportCorruption) {
  for (const std::string& bad :
       {std::string(), std::string("\x01\x02", 2), std::string("\x00\x00\x00\x00", 4),
        std::string("\xff\xff\xff\x00", 4)}) {
    auto block = std::make_shared<const Block>(bad);
    EXPECT_TRUE(block->malformed());
    auto it = Block::NewIterator(block, CompareUserKeys);
    it->SeekToFirst();
    EXPECT_FALSE(it->Valid());
    EXPECT_TRUE(it->status().IsCorruption());
  }
  // An entry whose lengths run past the entries area.
  std::string contents(
      "\x00\x09\x01"
      "ab",
      5);
  PutFixed32(&contents, 0);
  PutFixed32(&contents, 1);
  auto it = Block::NewIterator(std::make_shared<const Block>(contents), CompareUserKeys);
  it->SeekToFirst();
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsCorruption());
}

}  // namespace
}  // namespace ebb::storage
