// DBIter: the user-facing Iterator (storage/iterator.h) over a merged InternalIterator.
//
// For each user key it shows the most recently written version with sequence <= the snapshot;
// keys whose version is a tombstone, or expired at `now_ms` (the creation time), are skipped.
// Bounds [lower, upper) apply to user keys.
// Invariant while Valid(): the internal iterator sits on the shown version.
// Thread-safety: one thread at a time. `pins` keeps memtables, versions and tables alive.
#pragma once

#include <any>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "storage/format/internal_iterator.h"
#include "storage/iterator.h"

namespace ebb::storage {

struct DBIterParams {
  uint64_t sequence = 0;
  int64_t now_ms = 0;
  bool expiration_enabled = true;
  std::optional<std::string> lower_bound;
  std::optional<std::string> upper_bound;
  std::vector<std::any> pins;  // released when the iterator dies
};

std::unique_ptr<Iterator> NewDBIterator(std::unique_ptr<InternalIterator> internal,
                                        DBIterParams params);

}  // namespace ebb::storage
