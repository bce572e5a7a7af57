// In-memory files for table tests: a WritableFile that keeps what is appended, and a
// RandomAccessFile over a string that copies into the caller's scratch (as a file read does)
// and counts its reads, so tests can see which lookups touched the file.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>

#include "storage/env/file.h"

namespace ebb::storage {

class MemFile final : public WritableFile {
 public:
  Status Append(std::string_view data) override {
    contents.append(data);
    return Status::OK();
  }
  Status Flush() override { return Status::OK(); }
  Status Sync() override { return Status::OK(); }
  Status Close() override { return Status::OK(); }
  uint64_t Size() const override { return contents.size(); }
  std::string contents;
};

class MemRandomAccessFile final : public RandomAccessFile {
 public:
  explicit MemRandomAccessFile(std::string contents) : contents_(std::move(contents)) {}
  Status Read(uint64_t offset, size_t n, std::string_view* result, char* scratch) const override {
    ++reads;
    const std::string_view part = offset > contents_.size()
                                      ? std::string_view()
                                      : std::string_view(contents_).substr(offset, n);
    std::copy(part.begin(), part.end(), scratch);
    *result = std::string_view(scratch, part.size());
    return Status::OK();
  }
  mutable int reads = 0;

 private:
  std::string contents_;
};

}  // namespace ebb::storage
