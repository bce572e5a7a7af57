#include "storage/db/arena.h"

#include <sys/mman.h>

#include <cstdlib>
#include <new>

namespace ebb::storage {

char* Arena::Allocate(size_t bytes) {
  usage_.fetch_add(bytes, std::memory_order_relaxed);
  constexpr size_t kAlign = alignof(void*);
  const size_t slop = reinterpret_cast<uintptr_t>(ptr_) & (kAlign - 1);
  const size_t pad = slop == 0 ? 0 : kAlign - slop;
  if (bytes + pad <= remaining_) {
    char* result = ptr_ + pad;
    ptr_ += bytes + pad;
    remaining_ -= bytes + pad;
    return result;
  }
  const size_t block_size = reserved_ < kHugeAfter ? kBlockSize : kHugeBlockSize;
  if (bytes > block_size / 4) return AllocateNewBlock(bytes);  // big: its own block
  ptr_ = AllocateNewBlock(block_size);
  remaining_ = block_size;
  char* result = ptr_;
  ptr_ += bytes;
  remaining_ -= bytes;
  return result;
}

// Blocks are left uninitialized: every byte handed out is written before it is read.
char* Arena::AllocateNewBlock(size_t bytes) {
  void* block;
  if (bytes == kHugeBlockSize) {
    // Aligned to a huge page and marked for one: a big memtable's random reads then miss the
    // TLB far less often.
    block = std::aligned_alloc(kHugeBlockSize, kHugeBlockSize);
    if (block != nullptr) madvise(block, kHugeBlockSize, MADV_HUGEPAGE);
  } else {
    block = std::malloc(bytes);
  }
  if (block == nullptr) throw std::bad_alloc();
  blocks_.emplace_back(static_cast<char*>(block));
  reserved_ += bytes;
  return static_cast<char*>(block);
}

}  // namespace ebb::storage
