// Arena and HugeBlockPool: alignment, reuse of a dead arena's huge blocks, the pool's capacity.
#include "storage/db/arena.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <set>

namespace ebb::storage {
namespace {

constexpr size_t kHuge = HugeBlockPool::kBlockSize;

bool HugeAligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % kHuge == 0; }

TEST(HugeBlockPoolTest, GivesBackWhatItWasGivenUpToItsCapacity) {
  HugeBlockPool pool(2 * kHuge);
  char* a = pool.Take();
  char* b = pool.Take();
  char* c = pool.Take();
  EXPECT_TRUE(HugeAligned(a) && HugeAligned(b) && HugeAligned(c));
  std::memset(a, 1, kHuge);  // every byte is usable
  pool.Give(a);
  pool.Give(b);
  pool.Give(c);  // past the capacity: freed
  EXPECT_EQ(pool.size(), 2u);
  std::set<char*> again = {pool.Take(), pool.Take()};
  EXPECT_EQ(again, (std::set<char*>{a, b}));
  EXPECT_EQ(pool.size(), 0u);
  for (char* block : again) pool.Give(block);
}

TEST(ArenaTest, AllocationsAreAlignedAndDisjoint) {
  Arena arena;
  char* one = arena.Allocate(3);
  char* two = arena.Allocate(8);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(two) % alignof(void*), 0u);
  EXPECT_GE(two, one + 3);
  EXPECT_EQ(arena.MemoryUsage(), 11u);
}

TEST(ArenaTest, ADeadArenasHugeBlocksServeTheNextArena) {
  auto pool = std::make_shared<HugeBlockPool>(8 * kHuge);
  std::set<uintptr_t> first_blocks;
  {
    Arena arena(pool);
    // Past the small blocks, each 2 MiB of entries fills one huge block.
    for (int i = 0; i < 4 * 1024; i++) {
      first_blocks.insert(reinterpret_cast<uintptr_t>(arena.Allocate(1024)) / kHuge);
    }
  }
  EXPECT_GE(pool->size(), 2u);
  const size_t pooled = pool->size();
  Arena next(pool);
  for (int i = 0; i < 4 * 1024; i++) next.Allocate(1024);
  EXPECT_LT(pool->size(), pooled);  // the new arena took blocks from the pool
}

TEST(AllocateHugePagesTest, SmallRequestsAreOrdinaryAndLargeOnesHugeAligned) {
  char* small = AllocateHugePages(100);
  char* large = AllocateHugePages(kHuge + 1);
  EXPECT_TRUE(HugeAligned(large));
  std::memset(large, 0, kHuge + 1);
  std::memset(small, 0, 100);
  std::free(small);
  std::free(large);
}

}  // namespace
}  // namespace ebb::storage
