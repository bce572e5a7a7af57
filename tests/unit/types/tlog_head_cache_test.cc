// TlogHeadCache on its own: a head is returned only under the stamp it was stored or kept with,
// inserts keep it the newest kMaxEntries, and the byte budget evicts least recently used heads.
#include "types/tlog_head_cache.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ebb::types {
namespace {

std::vector<TlogEntry> Newest(uint64_t from_ts, size_t n) {
  std::vector<TlogEntry> entries;
  for (size_t i = 0; i < n; i++) entries.push_back({"v", from_ts - i});
  return entries;
}

TEST(TlogHeadCacheTest, FoundOnlyUnderItsStamp) {
  TlogHeadCache cache(1 << 20);
  const TlogMeta meta{.version = 7, .cutoff = 0, .size = 3};
  EXPECT_EQ(cache.Find(0, "log", meta), nullptr);
  cache.Fill(0, "log", meta, Newest(100, 3));
  const std::vector<TlogEntry>* head = cache.Find(0, "log", meta);
  ASSERT_NE(head, nullptr);
  EXPECT_EQ(*head, Newest(100, 3));
  EXPECT_EQ(cache.Find(1, "log", meta), nullptr);  // another database
  EXPECT_EQ(cache.Find(0, "log", TlogMeta{.version = 7, .cutoff = 5, .size = 3}), nullptr);
  EXPECT_EQ(cache.Find(0, "log", meta), nullptr);  // the stale head was dropped
  EXPECT_EQ(cache.hits(), 1u);
  EXPECT_EQ(cache.misses(), 4u);
  EXPECT_EQ(cache.bytes(), 0u);
}

TEST(TlogHeadCacheTest, InsertsKeepTheNewestEntriesUnderTheNewStamp) {
  TlogHeadCache cache(1 << 20);
  const size_t full = TlogHeadCache::kMaxEntries;
  TlogMeta meta{.version = 1, .cutoff = 0, .size = 40};
  cache.Fill(0, "log", meta, Newest(100, full));
  // Inserts (value, ts) into the log and returns its head under the new metadata.
  auto insert = [&](std::string_view value, uint64_t ts) {
    TlogMeta next = meta;
    next.size++;
    cache.OnInsert(0, "log", meta, next, value, ts);
    meta = next;
    return cache.Find(0, "log", meta);
  };
  // Newer than all: first, and the oldest cached entry falls out.
  const std::vector<TlogEntry>* head = insert("new", 200);
  ASSERT_NE(head, nullptr);
  ASSERT_EQ(head->size(), full);
  EXPECT_EQ(head->front(), (TlogEntry{"new", 200}));
  EXPECT_EQ(head->back().ts, 100 - (full - 2));
  // Older than every cached entry of a full head: not among the newest, head unchanged.
  head = insert("old", 1);
  ASSERT_NE(head, nullptr);
  EXPECT_EQ(head->back().ts, 100 - (full - 2));
  // Same timestamp: the greater value comes first, as in the sub-rows' order.
  head = insert("w", 200);
  ASSERT_NE(head, nullptr);
  EXPECT_EQ((*head)[0], (TlogEntry{"w", 200}));
  EXPECT_EQ((*head)[1], (TlogEntry{"new", 200}));
  // An insert seen under another stamp retires the head.
  const TlogMeta elsewhere{.version = 1, .cutoff = 0, .size = 44};
  cache.OnInsert(0, "log", TlogMeta{.version = 1, .cutoff = 0, .size = 50}, elsewhere, "x", 300);
  EXPECT_EQ(cache.Find(0, "log", elsewhere), nullptr);
  EXPECT_EQ(cache.Find(0, "log", meta), nullptr);
}

TEST(TlogHeadCacheTest, ShortLogsGrowTheirHead) {
  TlogHeadCache cache(1 << 20);
  TlogMeta meta{.version = 3, .cutoff = 0, .size = 1};
  cache.Fill(0, "log", meta, {{"a", 10}});
  TlogMeta next = meta;
  next.size++;
  cache.OnInsert(0, "log", meta, next, "b", 5);
  const std::vector<TlogEntry>* head = cache.Find(0, "log", next);
  ASSERT_NE(head, nullptr);
  EXPECT_EQ(*head, (std::vector<TlogEntry>{{"a", 10}, {"b", 5}}));
}

TEST(TlogHeadCacheTest, BudgetEvictsLeastRecentlyUsedHeads) {
  TlogHeadCache probe(1 << 20);
  const TlogMeta meta{.version = 1, .cutoff = 0, .size = 16};
  probe.Fill(0, "log0", meta, Newest(100, 16));
  const size_t one_head = probe.bytes();
  ASSERT_GT(one_head, 0u);

  TlogHeadCache cache(one_head * 8);  // room for 8 heads
  for (int i = 0; i < 8; i++) cache.Fill(0, "log" + std::to_string(i), meta, Newest(100, 16));
  ASSERT_NE(cache.Find(0, "log0", meta), nullptr);  // log0 is now the most recently used
  cache.Fill(0, "log8", meta, Newest(100, 16));     // evicts log1, the least recently used
  EXPECT_EQ(cache.Find(0, "log1", meta), nullptr);
  EXPECT_NE(cache.Find(0, "log0", meta), nullptr);
  EXPECT_NE(cache.Find(0, "log8", meta), nullptr);
  EXPECT_LE(cache.bytes(), one_head * 8);
  cache.set_capacity(0);
  EXPECT_EQ(cache.bytes(), 0u);
  cache.Fill(0, "log0", meta, Newest(100, 16));  // capacity 0: nothing is kept
  EXPECT_EQ(cache.Find(0, "log0", meta), nullptr);
}

}  // namespace
}  // namespace ebb::types
