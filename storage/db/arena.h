// Arena: a bump allocator for memtable entries. Memory is freed all at once when the arena dies.
//
// Invariants: every block handed out stays valid and unmoved for the arena's lifetime.
// Thread-safety: Allocate is for one writer at a time (the DB serializes memtable inserts);
// MemoryUsage may be read from any thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <vector>

namespace ebb::storage {

class Arena {
 public:
  Arena() = default;
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
  static constexpr size_t kHugeBlockSize = 2 * 1024 * 1024;
  static constexpr size_t kHugeAfter = 1024 * 1024;
  struct FreeBlock {
    void operator()(char* p) const { std::free(p); }
  };
  char* AllocateNewBlock(size_t bytes);

  char* ptr_ = nullptr;
  size_t remaining_ = 0;
  size_t reserved_ = 0;  // bytes in blocks_
  std::vector<std::unique_ptr<char, FreeBlock>> blocks_;
  std::atomic<size_t> usage_{0};
};

}  // namespace ebb::storage
