// Arena: a bump allocator for memtable entries. Memory is freed all at once when the arena dies.
//
// Invariants: every block handed out stays valid and unmoved for the arena's lifetime.
// Thread-safety: Allocate is for one writer at a time (the DB serializes memtable inserts);
// MemoryUsage may be read from any thread.
#pragma once

#include <atomic>
#include <cstddef>
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
  static constexpr size_t kBlockSize = 64 * 1024;
  char* AllocateNewBlock(size_t bytes);

  char* ptr_ = nullptr;
  size_t remaining_ = 0;
  std::vector<std::unique_ptr<char[]>> blocks_;
  std::atomic<size_t> usage_{0};
};

}  // namespace ebb::storage
