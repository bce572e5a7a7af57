#include "storage/table/readahead.h"

#include <algorithm>

namespace ebb::storage {

bool Readahead::Read(const RandomAccessFile& file, const BlockHandle& handle,
                     std::string_view* data, Status* status) {
  const size_t alignment = file.alignment();
  if (alignment == 1) return false;  // the OS reads ahead
  const uint64_t end = handle.offset + handle.size + kBlockTrailerSize;
  // The next block follows, or starts at the next multiple of the alignment after the padding
  // of a table written with block_align.
  const bool sequential = expected_offset_ != UINT64_MAX && handle.offset >= expected_offset_ &&
                          handle.offset <= AlignUp(expected_offset_, alignment);
  expected_offset_ = end;
  if (handle.offset >= start_ && end <= start_ + length_) {
    *data = std::string_view(base_ + (handle.offset - start_),
                             static_cast<size_t>(end - handle.offset));
    *status = Status::OK();
    return true;
  }
  if (!sequential) {
    next_size_ = kInitialBytes;
    return false;
  }
  const uint64_t start = AlignDown(handle.offset, alignment);
  const size_t size =
      static_cast<size_t>(AlignUp(std::max<uint64_t>(end - start, next_size_), alignment));
  next_size_ = std::min(next_size_ * 2, std::max(max_bytes_, kInitialBytes));
  if (buffer_.size() < size) buffer_ = AlignedBuffer(alignment, size);
  std::string_view got;
  *status = file.Read(start, size, &got, buffer_.data());
  start_ = start;
  base_ = got.data();
  length_ = status->ok() ? got.size() : 0;
  if (!status->ok()) return true;
  // A read that ended short leaves the block truncated: the caller's decode reports it.
  const uint64_t skip = handle.offset - start_;
  const uint64_t available = length_ > skip ? length_ - skip : 0;
  *data =
      std::string_view(base_ + skip, static_cast<size_t>(std::min(available, end - handle.offset)));
  return true;
}

void Readahead::Reset() {
  expected_offset_ = UINT64_MAX;
  next_size_ = kInitialBytes;
  buffer_ = AlignedBuffer();
  base_ = nullptr;
  start_ = 0;
  length_ = 0;
}

}  // namespace ebb::storage
