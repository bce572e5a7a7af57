#include "storage/db/arena.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace ebb::storage {

// Random reads over memory in huge pages miss the TLB far less often than over 4 KiB pages.
char* AllocateHugePages(size_t bytes) {
  constexpr size_t kPage = HugeBlockPool::kBlockSize;
  if (bytes < kPage) {
    void* small = std::malloc(bytes);
    if (small == nullptr) throw std::bad_alloc();
    return static_cast<char*>(small);
  }
  const size_t rounded = (bytes + kPage - 1) / kPage * kPage;
  void* block = std::aligned_alloc(kPage, rounded);
  if (block == nullptr) throw std::bad_alloc();
  madvise(block, rounded, MADV_HUGEPAGE);
  return static_cast<char*>(block);
}

HugeBlockPool::~HugeBlockPool() {
  for (char* block : blocks_) std::free(block);
}

char* HugeBlockPool::Take() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!blocks_.empty()) {
      char* block = blocks_.back();
      blocks_.pop_back();
      return block;
    }
  }
  return AllocateHugePages(kBlockSize);
}

void HugeBlockPool::Give(char* block) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (blocks_.size() < capacity_blocks_) {
      blocks_.push_back(block);
      return;
    }
  }
  std::free(block);
}

size_t HugeBlockPool::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return blocks_.size();
}

Arena::~Arena() {
  for (const Block& block : blocks_) {
    if (block.huge && pool_ != nullptr) {
      pool_->Give(block.data);
    } else {
      std::free(block.data);
    }
  }
}

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
  const size_t block_size = reserved_ < kHugeAfter ? kBlockSize : HugeBlockPool::kBlockSize;
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
  // Room first, so that push_back below cannot throw and leak the new block.
  if (blocks_.size() == blocks_.capacity()) {
    blocks_.reserve(std::max<size_t>(8, 2 * blocks_.size()));
  }
  char* block;
  const bool huge = bytes == HugeBlockPool::kBlockSize;
  if (huge) {
    block = pool_ != nullptr ? pool_->Take() : AllocateHugePages(bytes);
  } else {
    block = static_cast<char*>(std::malloc(bytes));
    if (block == nullptr) throw std::bad_alloc();
  }
  blocks_.push_back({block, huge});
  reserved_ += bytes;
  return block;
}

}  // namespace ebb::storage
