// TableProperties: the facts an SST records about its rows (its properties block), which the
// manifest repeats so compaction and expiry decisions need no file reads.
// Encoding: docs/sst-format.md ("properties") and docs/manifest-format.md.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "storage/status.h"

namespace ebb::storage {

struct TableProperties {
  uint32_t format_version = 1;
  uint8_t meta_features = 0;  // OR of kRowHasTimestamp / kRowHasExpiry over all rows
  uint64_t entries = 0;       // rows of every kind
  uint64_t tombstones = 0;
  uint64_t expired_at_write = 0;  // value rows already expired when the file was written
  int64_t min_timestamp = std::numeric_limits<int64_t>::max();
  int64_t max_timestamp = std::numeric_limits<int64_t>::min();
  int64_t min_expire_at = std::numeric_limits<int64_t>::max();  // over rows that carry one
  int64_t max_expire_at = std::numeric_limits<int64_t>::min();
  // Some value row carries no expiry. (Files written before ebb 0.1.1 also set it for
  // tombstones, which only makes whole-file expiry of those files more conservative.)
  bool has_non_expiring = false;
  uint64_t min_sequence = std::numeric_limits<uint64_t>::max();
  uint64_t max_sequence = 0;
  std::string smallest_key;  // internal keys
  std::string largest_key;
  uint64_t raw_key_bytes = 0;
  uint64_t raw_value_bytes = 0;
  // Some row carries no timestamp (it counts as timestamp 0 in the read rule). Absent from the
  // encoding (older files): true, the safe assumption.
  bool has_untimed_rows = false;
  // Value rows with an expiry whose key a ttl-rule gives `mode per-item` / `mode whole-file`
  // (CompactionFilter::ExpiryModeOf): whole-file expiry never drops a file holding a per-item
  // row, and may drop one made only of whole-file rows even when it is off globally.
  uint64_t per_item_rows = 0;
  uint64_t whole_file_rows = 0;
  // Rows that other rows depend on (CompactionFilter::OwnsRanges): whole-file expiry leaves
  // such a file to compaction, which schedules the purge of what depended on them.
  uint64_t owner_rows = 0;

  // The least timestamp a version in this file can count with in the read rule (untimed rows
  // count 0); INT64_MAX for a file without rows.
  int64_t EffectiveMinTimestamp() const {
    return has_untimed_rows ? std::min<int64_t>(min_timestamp, 0) : min_timestamp;
  }
  int64_t EffectiveMaxTimestamp() const {
    return has_untimed_rows ? std::max<int64_t>(max_timestamp, 0) : max_timestamp;
  }

  void EncodeTo(std::string* dst) const;
  Status DecodeFrom(std::string_view src);
  bool operator==(const TableProperties&) const = default;
};

}  // namespace ebb::storage
