#include "storage/db/arena.h"

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
  if (bytes > kBlockSize / 4) return AllocateNewBlock(bytes);  // big: its own block
  ptr_ = AllocateNewBlock(kBlockSize);
  remaining_ = kBlockSize;
  char* result = ptr_;
  ptr_ += bytes;
  remaining_ -= bytes;
  return result;
}

char* Arena::AllocateNewBlock(size_t bytes) {
  blocks_.push_back(std::make_unique_for_overwrite<char[]>(bytes));  // no zeroing
  return blocks_.back().get();
}

}  // namespace ebb::storage
