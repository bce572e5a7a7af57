// VersionChooser: the read rule for one key (db.h, "Reading one key"), applied to its versions
// offered in walk order — most recently written first.
//
// grace <= 0: the first version offered wins. grace > 0: keep walking while the next version's
// timestamp > best.ts - grace, keeping the greatest timestamp (ties: the earlier offered, i.e.
// more recently written). FullGrace() walks every version: what compaction keeps.
// A version without a timestamp counts as timestamp 0.
// Thread-safety: a value type, used by one thread.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "storage/format/internal_key.h"
#include "storage/row.h"

namespace ebb::storage {

class VersionChooser {
 public:
  explicit VersionChooser(int64_t grace_ms) : grace_ms_(grace_ms) {}
  static VersionChooser FullGrace() { return VersionChooser(std::numeric_limits<int64_t>::max()); }

  // Offers the next older version. Returns true if the walk should go on to the next one.
  // Postcondition: chosen() describes the version the rule picks among those offered so far.
  bool Offer(RowKind kind, const RowMeta& meta, std::string_view value, uint64_t sequence);

  bool has_choice() const { return has_choice_; }
  RowKind kind() const { return kind_; }
  const RowMeta& meta() const { return meta_; }
  const std::string& value() const { return value_; }
  // Moves the chosen value out (value() is empty afterwards).
  std::string TakeValue() { return std::move(value_); }
  uint64_t sequence() const { return sequence_; }
  // True when the chosen version makes the key absent: a tombstone or expired at `now_ms`.
  bool ChosenIsDead(bool expiration_enabled, int64_t now_ms) const {
    return kind_ == RowKind::kTombstone || (expiration_enabled && meta_.ExpiredAt(now_ms));
  }

 private:
  int64_t grace_ms_;
  bool has_choice_ = false;
  RowKind kind_ = RowKind::kTombstone;
  RowMeta meta_;
  std::string value_;
  uint64_t sequence_ = 0;
};

}  // namespace ebb::storage
