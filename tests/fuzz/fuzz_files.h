// In-memory files for the storage fuzz targets: the readers under test see arbitrary bytes
// through the same storage::FileSystem interfaces as production files, without touching disk.
//
// StringSink collects what a writer appends; StringSequentialFile returns its bytes in reads of
// at most `max_chunk` bytes (short reads exercise the reader's refill loop);
// StringRandomAccessFile serves pread-style reads and clamps them at the end like pread does.
// Thread-safety: none needed; each fuzz iteration owns its files.
#pragma once

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>

#include "storage/env/file.h"

namespace ebb::fuzz {

class StringSink : public storage::WritableFile {
 public:
  explicit StringSink(std::string* out) : out_(out) {}
  storage::Status Append(std::string_view data) override {
    out_->append(data);
    return storage::Status::OK();
  }
  storage::Status Flush() override { return storage::Status::OK(); }
  storage::Status Sync() override { return storage::Status::OK(); }
  storage::Status Close() override { return storage::Status::OK(); }
  uint64_t Size() const override { return out_->size(); }

 private:
  std::string* out_;
};

class StringSequentialFile : public storage::SequentialFile {
 public:
  // REQUIRES: max_chunk > 0.
  StringSequentialFile(std::string data, size_t max_chunk)
      : data_(std::move(data)), max_chunk_(max_chunk) {}
  storage::Status Read(size_t n, std::string_view* result, char* scratch) override {
    const size_t len = std::min({n, max_chunk_, data_.size() - pos_});
    if (len > 0) std::memcpy(scratch, data_.data() + pos_, len);
    *result = std::string_view(scratch, len);
    pos_ += len;
    return storage::Status::OK();
  }
  storage::Status Skip(uint64_t n) override {
    pos_ += static_cast<size_t>(std::min<uint64_t>(n, data_.size() - pos_));
    return storage::Status::OK();
  }

 private:
  const std::string data_;
  const size_t max_chunk_;
  size_t pos_ = 0;
};

class StringRandomAccessFile : public storage::RandomAccessFile {
 public:
  explicit StringRandomAccessFile(std::string data) : data_(std::move(data)) {}
  storage::Status Read(uint64_t offset, size_t n, std::string_view* result,
                       char* scratch) const override {
    if (offset > data_.size()) {
      *result = {};
      return storage::Status::IOError("read past the end of the file");
    }
    const size_t len = std::min<uint64_t>(n, data_.size() - offset);
    if (len > 0) std::memcpy(scratch, data_.data() + offset, len);
    *result = std::string_view(scratch, len);
    return storage::Status::OK();
  }

 private:
  const std::string data_;
};

}  // namespace ebb::fuzz
