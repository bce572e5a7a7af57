// VersionEdit: one change to the live state, as recorded in the MANIFEST
// (docs/manifest-format.md): table files added and removed, range deletions and purge hints
// added and retired, the expiry clock frozen or running. FileMetaData: what the manifest knows
// about one table file — enough for reads (key range) and for compaction/expiry decisions (time
// facts) without opening it.
// Thread-safety: value types. A FileMetaData is immutable once shared (shared_ptr<const>).
#pragma once

#include <climits>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/format/table_properties.h"
#include "storage/key_range.h"
#include "storage/status.h"

namespace ebb::storage {

inline constexpr int kNumLevels = 7;

// DB::DeleteRange: every version of a key in `range` written before `sequence` is deleted.
struct RangeDeletion {
  KeyRange range;
  uint64_t sequence = 0;
  bool operator==(const RangeDeletion&) const = default;
};

// The rows in `range` are due for a compaction from `due_ms` on, whatever their own expiry says:
// they lived only through a row that has expired (CompactionFilter::ExpiredRowRanges).
struct PurgeHint {
  KeyRange range;
  int64_t due_ms = 0;
  bool operator==(const PurgeHint&) const = default;
};

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
    kRangeDeletion = 6,
    kRangeDeletionDone = 7,
    kExpiryClock = 8,
    kPurgeHint = 9,
    kPurgeHintDone = 10,
  };
  // kExpiryClock's value while expiry follows the clock (not frozen).
  static constexpr int64_t kExpiryRunning = INT64_MAX;

  void SetLogNumber(uint64_t n) { log_number_ = n; }
  void SetNextFileNumber(uint64_t n) { next_file_number_ = n; }
  void SetLastSequence(uint64_t s) { last_sequence_ = s; }
  void AddFile(int level, const FileMetaData& f) { new_files_.emplace_back(level, f); }
  void RemoveFile(int level, uint64_t number) { deleted_files_.emplace_back(level, number); }
  void AddRangeDeletion(const RangeDeletion& d) { range_deletions_.push_back(d); }
  void RetireRangeDeletion(const RangeDeletion& d) { retired_range_deletions_.push_back(d); }
  void AddPurgeHint(const PurgeHint& h) { purge_hints_.push_back(h); }
  void RetirePurgeHint(const PurgeHint& h) { retired_purge_hints_.push_back(h); }
  // The expiry clock: frozen at `ms` (expiration off), or kExpiryRunning.
  void SetExpiryFrozenAt(int64_t ms) { expiry_frozen_at_ = ms; }

  const std::optional<uint64_t>& log_number() const { return log_number_; }
  const std::optional<uint64_t>& next_file_number() const { return next_file_number_; }
  const std::optional<uint64_t>& last_sequence() const { return last_sequence_; }
  const std::vector<std::pair<int, FileMetaData>>& new_files() const { return new_files_; }
  const std::vector<std::pair<int, uint64_t>>& deleted_files() const { return deleted_files_; }
  const std::vector<RangeDeletion>& range_deletions() const { return range_deletions_; }
  const std::vector<RangeDeletion>& retired_range_deletions() const {
    return retired_range_deletions_;
  }
  const std::vector<PurgeHint>& purge_hints() const { return purge_hints_; }
  const std::vector<PurgeHint>& retired_purge_hints() const { return retired_purge_hints_; }
  const std::optional<int64_t>& expiry_frozen_at() const { return expiry_frozen_at_; }
  bool ChangesFiles() const { return !deleted_files_.empty() || !new_files_.empty(); }

  void EncodeTo(std::string* dst) const;
  // Corruption (naming `where`) if the record does not decode.
  Status DecodeFrom(std::string_view src, std::string_view where);

 private:
  std::optional<uint64_t> log_number_;
  std::optional<uint64_t> next_file_number_;
  std::optional<uint64_t> last_sequence_;
  std::vector<std::pair<int, uint64_t>> deleted_files_;
  std::vector<std::pair<int, FileMetaData>> new_files_;
  std::vector<RangeDeletion> range_deletions_;
  std::vector<RangeDeletion> retired_range_deletions_;
  std::vector<PurgeHint> purge_hints_;
  std::vector<PurgeHint> retired_purge_hints_;
  std::optional<int64_t> expiry_frozen_at_;
};

}  // namespace ebb::storage
