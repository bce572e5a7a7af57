#include "storage/db/version_chooser.h"

namespace ebb::storage {

bool VersionChooser::Choose(RowKind kind, const RowMeta& meta, std::string_view value,
                            uint64_t sequence, bool pinned) {
  if (sequence < floor_sequence_) return false;  // deleted by a range deletion, and all older
  if (has_choice_) {
    if (kind == RowKind::kWipe) return false;  // everything older is deleted
    const int64_t ts = meta.timestamp_or_zero();
    const int64_t best = meta_.timestamp_or_zero();
    // ts > best - grace, written without overflow: ts - best > -grace.
    const bool in_window =
        grace_ms_ > 0 && (grace_ms_ == std::numeric_limits<int64_t>::max() ||
                          static_cast<__int128>(ts) - best > -static_cast<__int128>(grace_ms_));
    if (!in_window) return false;
    if (ts <= best) return true;
  }
  has_choice_ = true;
  kind_ = kind;
  meta_ = meta;
  value_pinned_ = pinned;
  if (pinned) {
    pinned_ = value;
  } else {
    value_.assign(value.data(), value.size());
  }
  sequence_ = sequence;
  return grace_ms_ > 0 && kind != RowKind::kWipe;
}

}  // namespace ebb::storage
