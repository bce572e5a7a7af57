// Shared by the table tests: in-memory files (a WritableFile that keeps what is appended, and a
// RandomAccessFile over a string that copies into the caller's scratch, as a file read does,
// and records its reads, so tests can see which lookups touched the file; it can also claim an
// alignment as a direct-I/O file does, fail, or be damaged); a model of a table's
// entries in internal-key order; and writing a model to a real table file and opening it.
#pragma once

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/env/file.h"
#include "storage/env/posix_file_system.h"
#include "storage/format/internal_key.h"
#include "storage/table/block_cache.h"
#include "storage/table/table.h"
#include "storage/table/table_builder.h"

namespace ebb::storage {

struct InternalKeyLess {
  bool operator()(const std::string& a, const std::string& b) const {
    return CompareInternalKeys(a, b) < 0;
  }
};
// Internal key -> encoded row.
using Model = std::map<std::string, std::string, InternalKeyLess>;

// Writes `model` as the table file `path` (synced and closed) through the POSIX file system,
// then opens it as table 42 reading through `cache`.
inline Status WriteAndOpenTableFile(const std::string& path, const TableOptions& options,
                                    const Model& model, BlockCache* cache,
                                    std::unique_ptr<Table>* table) {
  auto fs = DefaultFileSystem();
  std::unique_ptr<WritableFile> file;
  Status s = fs->NewWritableFile(path, &file);
  if (!s.ok()) return s;
  TableBuilder builder(options, file.get());
  for (const auto& [k, v] : model) builder.Add(k, v);
  s = builder.Finish();
  if (s.ok()) s = file->Sync();
  if (s.ok()) s = file->Close();
  uint64_t size = 0;
  if (s.ok()) s = fs->GetFileSize(path, &size);
  std::unique_ptr<RandomAccessFile> raf;
  if (s.ok()) s = fs->NewRandomAccessFile(path, &raf);
  if (!s.ok()) return s;
  return Table::Open(TableOptions{}, std::move(raf), size, 42, cache, path, table);
}

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
  explicit MemRandomAccessFile(std::string contents, size_t alignment = 1)
      : contents_(std::move(contents)), alignment_(alignment) {}
  Status Read(uint64_t offset, size_t n, std::string_view* result, char* scratch) const override {
    ++reads;
    read_log.emplace_back(offset, n);
    if (fail) return Status::IOError("pread test.sst: Input/output error");
    const std::string_view part = offset > contents_.size()
                                      ? std::string_view()
                                      : std::string_view(contents_).substr(offset, n);
    std::copy(part.begin(), part.end(), scratch);
    *result = std::string_view(scratch, part.size());
    return Status::OK();
  }
  // What a direct-I/O file claims (1: none).
  size_t alignment() const override { return alignment_; }
  // Changes a byte, as damage on the disk would, after the table opened.
  void Damage(size_t offset) { contents_[offset] ^= 0x5a; }

  mutable int reads = 0;
  mutable std::vector<std::pair<uint64_t, size_t>> read_log;  // (offset, length) of each read
  bool fail = false;  // every read fails, as on a failing disk

 private:
  std::string contents_;
  const size_t alignment_;
};

}  // namespace ebb::storage
