// TableWriter: writes one SST file for a flush or a compaction output and describes it as a
// FileMetaData for the manifest.
//
// Lifecycle: Open(number) -> Add()* -> Finish(&meta). Destroyed without a successful Finish,
// it removes the partial file.
// Thread-safety: not thread-safe; used by the one thread doing the flush or compaction.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "storage/db/version_edit.h"
#include "storage/env/file.h"
#include "storage/table/table_builder.h"

namespace ebb::storage {

class TableWriter {
 public:
  TableWriter(std::shared_ptr<FileSystem> fs, std::string dir, const TableOptions& options);
  ~TableWriter();
  TableWriter(const TableWriter&) = delete;
  TableWriter& operator=(const TableWriter&) = delete;

  Status Open(uint64_t number);
  // REQUIRES: Open succeeded; keys strictly increasing.
  Status Add(std::string_view internal_key, std::string_view encoded_row);
  uint64_t NumEntries() const { return builder_ ? builder_->NumEntries() : 0; }
  uint64_t FileSize() const { return builder_ ? builder_->FileSize() : 0; }
  // Finishes, syncs and closes the file. Postcondition on OK: *meta describes it.
  Status Finish(FileMetaData* meta);

 private:
  const std::shared_ptr<FileSystem> fs_;
  const std::string dir_;
  const TableOptions options_;
  uint64_t number_ = 0;
  std::string path_;
  std::unique_ptr<WritableFile> file_;
  std::unique_ptr<TableBuilder> builder_;
  bool finished_ = false;
};

}  // namespace ebb::storage
