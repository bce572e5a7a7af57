// VersionEdit: one change to the live file set, as recorded in the MANIFEST
// (docs/manifest-format.md). FileMetaData: what the manifest knows about one table file —
// enough for reads (key range) and for compaction/expiry decisions (time facts) without
// opening it.
// Thread-safety: value types. A FileMetaData is immutable once shared (shared_ptr<const>).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/format/table_properties.h"
#include "storage/status.h"

namespace ebb::storage {

inline constexpr int kNumLevels = 7;

struct FileMetaData {
  uint64_t number = 0;
  uint64_t file_size = 0;
  std::string smallest;  // internal keys
  std::string largest;
  // Time facts copied from the table's properties (smallest_key/largest_key unused here).
  TableProperties props;
};

class VersionEdit {
 public:
  // on-disk: never change. Tags of the fields of an edit record.
  enum Tag : uint32_t {
    kLogNumber = 1,
    kNextFileNumber = 2,
    kLastSequence = 3,
    kDeletedFile = 4,
    kNewFile = 5,
  };

  void SetLogNumber(uint64_t n) { log_number_ = n; }
  void SetNextFileNumber(uint64_t n) { next_file_number_ = n; }
  void SetLastSequence(uint64_t s) { last_sequence_ = s; }
  void AddFile(int level, const FileMetaData& f) { new_files_.emplace_back(level, f); }
  void RemoveFile(int level, uint64_t number) { deleted_files_.emplace_back(level, number); }

  const std::optional<uint64_t>& log_number() const { return log_number_; }
  const std::optional<uint64_t>& next_file_number() const { return next_file_number_; }
  const std::optional<uint64_t>& last_sequence() const { return last_sequence_; }
  const std::vector<std::pair<int, FileMetaData>>& new_files() const { return new_files_; }
  const std::vector<std::pair<int, uint64_t>>& deleted_files() const { return deleted_files_; }

  void EncodeTo(std::string* dst) const;
  // Corruption (naming `where`) if the record does not decode.
  Status DecodeFrom(std::string_view src, std::string_view where);

 private:
  std::optional<uint64_t> log_number_;
  std::optional<uint64_t> next_file_number_;
  std::optional<uint64_t> last_sequence_;
  std::vector<std::pair<int, uint64_t>> deleted_files_;
  std::vector<std::pair<int, FileMetaData>> new_files_;
};

}  // namespace ebb::storage
