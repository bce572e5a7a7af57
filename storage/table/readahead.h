// Readahead: larger reads ahead of a sequential scan of a file read with direct I/O, which has
// no OS readahead — RocksDB's automatic iterator readahead.
//
// A table iterator asks it for each data block it moves to. Once two blocks were read back to
// back (the second starts where the first ended), the next block is read together with what
// follows it: first kInitialBytes, then twice as much each time the buffer runs out, up to the
// maximum. Blocks inside the buffer are then served from it. A read elsewhere (a Seek) starts
// over; Reset frees the buffer.
// Thread-safety: one thread at a time (the iterator's).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "storage/env/aligned_buffer.h"
#include "storage/env/file.h"
#include "storage/status.h"
#include "storage/table/format.h"

namespace ebb::storage {

class Readahead {
 public:
  static constexpr size_t kInitialBytes = 16 << 10;

  explicit Readahead(size_t max_bytes) : max_bytes_(max_bytes) {}

  // True when the block at `handle` (and its trailer) was served through the readahead
  // buffer: *data views its bytes (until the next call) or *status says why the read failed.
  // False: the caller reads the block itself (not a sequential run yet, or a file without
  // direct I/O).
  bool Read(const RandomAccessFile& file, const BlockHandle& handle, std::string_view* data,
            Status* status);
  // Forgets the run and frees the buffer.
  void Reset();

  size_t buffered_bytes() const { return length_; }  // for tests

 private:
  const size_t max_bytes_;
  size_t next_size_ = kInitialBytes;
  uint64_t expected_offset_ = UINT64_MAX;  // where the next block of a sequential run starts
  AlignedBuffer buffer_;
  const char* base_ = nullptr;  // where the file's bytes from start_ on are (in buffer_)
  uint64_t start_ = 0;
  size_t length_ = 0;  // how many there are
};

}  // namespace ebb::storage
