// VersionChooser: the read rule for one key (db.h, "Reading one key"), applied to its versions
// offered in walk order — most recently written first.
//
// grace <= 0: the first version offered wins. grace > 0: keep walking while the next version's
// timestamp > best.ts - grace, keeping the greatest timestamp (ties: the earlier offered, i.e.
// more recently written). FullGrace() walks every version: what compaction keeps when it merges
// a key's whole history. A version without a timestamp counts as timestamp 0.
// Whole-key deletes end the walk: a wipe (RowKind::kWipe) is chosen when it is the first version
// offered, and otherwise stops the walk with the choice made so far; a version written before a
// range deletion covering the key (sequence < floor_sequence) stops it the same way, unchosen.
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
  // `floor_sequence`: versions with a smaller sequence are deleted by a range deletion (0: none).
  explicit VersionChooser(int64_t grace_ms, uint64_t floor_sequence = 0)
      : grace_ms_(grace_ms), floor_sequence_(floor_sequence) {}
  static VersionChooser FullGrace(uint64_t floor_sequence = 0) {
    return VersionChooser(std::numeric_limits<int64_t>::max(), floor_sequence);
  }

  // REQUIRES: nothing offered yet.
  void set_floor_sequence(uint64_t floor_sequence) { floor_sequence_ = floor_sequence; }

  // Offers the next older version. Returns true if the walk should go on to the next one.
  // Postcondition: the choice describes the version the rule picks among those offered so far.
  // The chooser copies `value` if it chooses the version.
  bool Offer(RowKind kind, const RowMeta& meta, std::string_view value, uint64_t sequence) {
    return Choose(kind, meta, value, sequence, /*pinned=*/false);
  }
  // Offer for a version whose value bytes outlive every use of the chooser (a memtable row the
  // caller keeps alive): the chooser keeps a view of them instead of a copy.
  bool OfferPinned(RowKind kind, const RowMeta& meta, std::string_view value, uint64_t sequence) {
    return Choose(kind, meta, value, sequence, /*pinned=*/true);
  }

  bool has_choice() const { return has_choice_; }
  RowKind kind() const { return kind_; }
  const RowMeta& meta() const { return meta_; }
  std::string_view value() const { return value_pinned_ ? pinned_ : std::string_view(value_); }
  // True when the chosen version came through OfferPinned: value() views the caller's bytes.
  bool value_pinned() const { return value_pinned_; }
  // The chosen value as a string of its own (value() is empty afterwards).
  std::string TakeValue() {
    if (!value_pinned_) return std::move(value_);
    value_pinned_ = false;
    value_.clear();
    return std::string(std::exchange(pinned_, {}));
  }
  uint64_t sequence() const { return sequence_; }
  // True when the chosen version makes the key absent: a tombstone, a wipe, or a value expired
  // at `expiry_now_ms` (the engine's expiry clock, db_impl.h ExpiryNow).
  bool ChosenIsDead(int64_t expiry_now_ms) const {
    return kind_ != RowKind::kValue || meta_.ExpiredAt(expiry_now_ms);
  }

 private:
  bool Choose(RowKind kind, const RowMeta& meta, std::string_view value, uint64_t sequence,
              bool pinned);

  int64_t grace_ms_;
  uint64_t floor_sequence_;
  bool has_choice_ = false;
  bool value_pinned_ = false;
  std::string_view pinned_;  // the chosen value when value_pinned_
  RowKind kind_ = RowKind::kTombstone;
  RowMeta meta_;
  std::string value_;
  uint64_t sequence_ = 0;
};

}  // namespace ebb::storage
