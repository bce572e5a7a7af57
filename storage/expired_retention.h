// How long an expired row stays whole in the tables while the compaction filter keeps dead
// versions (CompactionFilter::KeepsDeadVersions; docs/active-active.md, "Dead versions"): half
// the purge deadline, or 12 h with none (`purge_deadline_ms` < 0). The purge scheduler picks a
// file at its earliest expiry + half the deadline, so the deadline still holds. A layer above
// that keeps expired content of its own beside the rows reduces it by the same rule.
// Thread-safety: a pure function.
#pragma once

#include <cstdint>

namespace ebb::storage {

inline int64_t KeptExpiredRetentionMs(int64_t purge_deadline_ms) {
  constexpr int64_t kNoDeadlineRetention = 12ll * 3600 * 1000;
  return purge_deadline_ms < 0 ? kNoDeadlineRetention : purge_deadline_ms / 2;
}

}  // namespace ebb::storage
