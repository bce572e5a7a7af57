// BlockCache: LRU eviction by bytes, shared ownership, counters, EraseFile, concurrency.
#include "storage/table/block_cache.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "storage/table/block_builder.h"

namespace ebb::storage {
namespace {

// A block of exactly `size` bytes (contents need not be a valid block for the cache).
std::shared_ptr<const Block> BlockOfSize(size_t size, char fill = 'x') {
  return std::make_shared<const Block>(std::string(size, fill));
}

TEST(BlockCacheTest, HitsMissesAndUsage) {
  BlockCache cache(1000);
  EXPECT_EQ(cache.capacity(), 1000u);
  EXPECT_EQ(cache.Lookup(1, 0), nullptr);
  EXPECT_EQ(cache.misses(), 1u);
  auto block = BlockOfSize(100);
  cache.Insert(1, 0, block);
  EXPECT_EQ(cache.usage(), 100u);
  EXPECT_EQ(cache.Lookup(1, 0), block);
  EXPECT_EQ(cache.Lookup(1, 100), nullptr);  // same file, other offset
  EXPECT_EQ(cache.Lookup(2, 0), nullptr);    // other file, same offset
  EXPECT_EQ(cache.hits(), 1u);
  EXPECT_EQ(cache.misses(), 3u);
  cache.Insert(1, 0, BlockOfSize(50));  // replaces
  EXPECT_EQ(cache.usage(), 50u);
}

TEST(BlockCacheTest, EvictsLeastRecentlyUsedWithinCapacity) {
  BlockCache cache(1000);
  for (uint64_t i = 0; i < 5; ++i) cache.Insert(1, i, BlockOfSize(200));
  EXPECT_EQ(cache.usage(), 1000u);
  ASSERT_NE(cache.Lookup(1, 0), nullptr);  // 0 becomes most recently used
  cache.Insert(1, 5, BlockOfSize(200));    // evicts 1, the least recently used
  EXPECT_EQ(cache.usage(), 1000u);
  EXPECT_EQ(cache.Lookup(1, 1), nullptr);
  EXPECT_NE(cache.Lookup(1, 0), nullptr);
  EXPECT_NE(cache.Lookup(1, 5), nullptr);
  cache.Insert(1, 6, BlockOfSize(700));  // evicts several
  EXPECT_LE(cache.usage(), 1000u);
  EXPECT_NE(cache.Lookup(1, 6), nullptr);
  cache.Insert(1, 7, BlockOfSize(2000));  // bigger than the cache: not cached
  EXPECT_EQ(cache.Lookup(1, 7), nullptr);
  EXPECT_LE(cache.usage(), 1000u);
}

TEST(BlockCacheTest, EvictedBlockStaysValidForItsHolder) {
  BlockCache cache(100);
  BlockBuilder builder;
  builder.Add("k", "v");
  cache.Insert(9, 0, std::make_shared<const Block>(std::string(builder.Finish())));
  std::shared_ptr<const Block> held = cache.Lookup(9, 0);
  ASSERT_NE(held, nullptr);
  auto it =
      Block::NewIterator(held, [](std::string_view a, std::string_view b) { return a.compare(b); });
  cache.Insert(9, 1, BlockOfSize(100));  // evicts block 0
  EXPECT_EQ(cache.Lookup(9, 0), nullptr);
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "k");
  EXPECT_EQ(it->value(), "v");
}

TEST(BlockCacheTest, EraseFileDropsOnlyThatFile) {
  BlockCache cache(10000);
  for (uint64_t i = 0; i < 4; ++i) {
    cache.Insert(1, i, BlockOfSize(10));
    cache.Insert(2, i, BlockOfSize(10));
  }
  cache.EraseFile(1);
  EXPECT_EQ(cache.usage(), 40u);
  EXPECT_EQ(cache.Lookup(1, 2), nullptr);
  EXPECT_NE(cache.Lookup(2, 2), nullptr);
}

TEST(BlockCacheTest, ShardedCacheStaysWithinCapacityUnderConcurrency) {
  const size_t capacity = 16 << 20;  // sharded
  BlockCache cache(capacity);
  auto block = BlockOfSize(64 << 10);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (uint64_t i = 0; i < 2000; ++i) {
        cache.Insert(t, i, block);
        cache.Lookup(t, i / 2);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_LE(cache.usage(), capacity);
  EXPECT_GT(cache.usage(), capacity / 2);
  EXPECT_EQ(cache.hits() + cache.misses(), 8000u);
}

}  // namespace
}  // namespace ebb::storage
