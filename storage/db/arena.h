// Arena: a bump allocator for memtable entries. Memory is freed all at once when the arena dies.
// HugeBlockPool: huge blocks from dead arenas, kept for the next memtable's arena.
//
// Invariants: every block handed out stays valid and unmoved for the arena's lifetime.
// Thread-safety: Allocate is for one writer at a time (the DB serializes memtable inserts);
// MemoryUsage may be read from any thread. A HugeBlockPool is safe to share between threads.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

namespace ebb::storage {

// `bytes` of uninitialized memory; from a huge page up, rounded up to whole huge pages, aligned
// to one and marked for transparent huge pages. Release it with std::free. Throws
// std::bad_alloc.
char* AllocateHugePages(size_t bytes);

// Keeps the huge blocks of arenas that died, up to a capacity, and hands them to new arenas.
// A block taken from the pool is already faulted in, so a memtable filling it skips the page
// faults and the kernel's zeroing of a fresh huge page, which cost the writing thread ~5% of
// its time when every memtable started from fresh memory.
class HugeBlockPool {
 public:
  static constexpr size_t kBlockSize = 2 * 1024 * 1024;  // one transparent huge page

  // Holds at most `capacity_bytes` of blocks; what a dying arena gives beyond that is freed.
  explicit HugeBlockPool(size_t capacity_bytes) : capacity_blocks_(capacity_bytes / kBlockSize) {}
  ~HugeBlockPool();
  HugeBlockPool(const HugeBlockPool&) = delete;
  HugeBlockPool& operator=(const HugeBlockPool&) = delete;

  // A kBlockSize block with unspecified contents, aligned to kBlockSize: a pooled one when
  // there is one, else fresh memory. Throws std::bad_alloc when there is no memory.
  char* Take();
  // Returns a block that Take handed out; the pool keeps or frees it.
  void Give(char* block);
  // Blocks held now.
  size_t size() const;

 private:
  const size_t capacity_blocks_;
  mutable std::mutex mu_;
  std::vector<char*> blocks_;  // guarded by mu_
};

class Arena {
 public:
  // Huge blocks come from, and go back to, `pool` when one is given.
  explicit Arena(std::shared_ptr<HugeBlockPool> pool = nullptr) : pool_(std::move(pool)) {}
  ~Arena();
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  // Returns `bytes` bytes aligned for any pointer-sized type. REQUIRES: bytes > 0.
  char* Allocate(size_t bytes);
  // Bytes handed out by Allocate so far (what the entries need, not the blocks reserved).
  size_t MemoryUsage() const { return usage_.load(std::memory_order_relaxed); }

 private:
  // Small blocks first, so a small memtable stays small; past kHugeAfter bytes, blocks are
  // one transparent huge page each.
  static constexpr size_t kBlockSize = 64 * 1024;
  static constexpr size_t kHugeAfter = 1024 * 1024;
  struct Block {
    char* data;
    bool huge;  // from HugeBlockPool::Take
  };
  char* AllocateNewBlock(size_t bytes);

  std::shared_ptr<HugeBlockPool> pool_;
  char* ptr_ = nullptr;
  size_t remaining_ = 0;
  size_t reserved_ = 0;  // bytes in blocks_
  std::vector<Block> blocks_;
  std::atomic<size_t> usage_{0};
};

}  // namespace ebb::storage
