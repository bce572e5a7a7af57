// TableProperties: the facts an SST records about its rows (its properties block), which the
// manifest repeats so compaction and expiry decisions need no file reads.
// Encoding: docs/sst-format.md ("properties") and docs/manifest-format.md.
#pragma once

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
  bool has_non_expiring = false;  // some row (tombstones included) carries no expiry
  uint64_t min_sequence = std::numeric_limits<uint64_t>::max();
  uint64_t max_sequence = 0;
  std::string smallest_key;  // internal keys
  std::string largest_key;
  uint64_t raw_key_bytes = 0;
  uint64_t raw_value_bytes = 0;

  void EncodeTo(std::string* dst) const;
  Status DecodeFrom(std::string_view src);
  bool operator==(const TableProperties&) const = default;
};

}  // namespace ebb::storage
