// AlignedBuffer: heap memory whose address and size are multiples of an alignment, as reads of
// a file opened for direct I/O need (storage/env/file.h, RandomAccessFile::alignment).
// Thread-safety: a value type (move-only); its bytes are the owner's to share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>

namespace ebb::storage {

// `n` rounded down / up to a multiple of `alignment`. REQUIRES: alignment is a power of two.
constexpr uint64_t AlignDown(uint64_t n, size_t alignment) {
  return n & ~(uint64_t{alignment} - 1);
}
constexpr uint64_t AlignUp(uint64_t n, size_t alignment) {
  return AlignDown(n + alignment - 1, alignment);
}

class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  // size bytes (rounded up to the alignment), uninitialized, at an address that is a multiple
  // of `alignment`. REQUIRES: alignment is a power of two. Throws std::bad_alloc.
  AlignedBuffer(size_t alignment, size_t size)
      : size_(static_cast<size_t>(AlignUp(size, alignment))),
        data_(static_cast<char*>(std::aligned_alloc(alignment, size_ == 0 ? alignment : size_))) {
    if (data_ == nullptr) throw std::bad_alloc();
  }

  char* data() { return data_.get(); }
  const char* data() const { return data_.get(); }
  size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(char* p) const { std::free(p); }
  };
  size_t size_ = 0;
  std::unique_ptr<char, Free> data_;
};

}  // namespace ebb::storage
