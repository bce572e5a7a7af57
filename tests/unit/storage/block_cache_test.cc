// BlockCache: LRU eviction by bytes, shared ownership, counters, EraseFile, concurrency.
#include "storage/table/block_cache.h"

#include <gtest/gtest.h>

#include <list>
#include <random>
#include <string>
#include <thread>
#include <utility>
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

TEST(BlockCacheTest, SingleShardMatchesAnExactLruModel) {
  // Random inserts (some replacing), lookups and file erasures against a list-based LRU.
  const size_t capacity = 5000;
  BlockCache cache(capacity);
  std::list<std::pair<std::pair<uint64_t, uint64_t>, size_t>> model;  // front = most recent
  std::mt19937 rng(3);
  uint64_t hits = 0, misses = 0;
  auto find = [&](uint64_t f, uint64_t o) {
    for (auto it = model.begin(); it != model.end(); ++it) {
      if (it->first == std::make_pair(f, o)) return it;
    }
    return model.end();
  };
  for (int op = 0; op < 5000; ++op) {
    const uint64_t file = rng() % 3, offset = rng() % 40;
    const int kind = static_cast<int>(rng() % 10);
    if (kind < 5) {
      const size_t size = 1 + rng() % 700;
      cache.Insert(file, offset, BlockOfSize(size));
      if (auto it = find(file, offset); it != model.end()) model.erase(it);
      model.emplace_front(std::make_pair(file, offset), size);
      size_t usage = 0;
      for (const auto& e : model) usage += e.second;
      while (usage > capacity) {
        usage -= model.back().second;
        model.pop_back();
      }
    } else if (kind < 9) {
      auto block = cache.Lookup(file, offset);
      auto it = find(file, offset);
      ASSERT_EQ(block != nullptr, it != model.end()) << "op " << op;
      if (it != model.end()) {
        EXPECT_EQ(block->size(), it->second);
        model.splice(model.begin(), model, it);
        ++hits;
      } else {
        ++misses;
      }
    } else {
      cache.EraseFile(file);
      model.remove_if([&](const auto& e) { return e.first.first == file; });
    }
    size_t usage = 0;
    for (const auto& e : model) usage += e.second;
    ASSERT_EQ(cache.usage(), usage) << "op " << op;
  }
  EXPECT_EQ(cache.hits(), hits);
  EXPECT_EQ(cache.misses(), misses);
  EXPECT_GT(hits, 100u);
  EXPECT_GT(misses, 100u);
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
