// DBIter: the user-facing Iterator (storage/iterator.h) over a merged InternalIterator.
//
// For each user key it shows the version the read rule (storage/db.h, "Reading one key") takes
// among those with sequence <= the snapshot, with the iterator's retrieval grace and the range
// deletions of the read state; keys whose chosen version is a tombstone, a wipe, or a value
// expired at `expiry_now_ms` (fixed at creation) are skipped (with include_dead and no grace,
// only wipes are). Bounds [lower, upper) apply to user keys.
// Invariant while Valid(): the internal iterator sits on a version of the shown key or on the
// first entry after them.
// Thread-safety: one thread at a time.
#pragma once

#include <any>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "storage/db/version_edit.h"
#include "storage/format/internal_iterator.h"
#include "storage/iterator.h"

namespace ebb::storage {

class BlockFetch;

// What a DBIter reads through, kept apart from the iterator so that a DB can hand it to the
// next iterator over the same memtables and files instead of building it again (DBImpl keeps
// one spare): the merged internal iterator, what keeps its sources alive, the bounds its level
// iterators consult (and the BlockFetch their reads carry), and the DBIter's buffers, which keep
// their capacity.
struct DBIterTree {
  // What `internal` reads (memtables, version): alive while it does (declared first, so
  // destroyed last).
  std::vector<std::any> pins;
  // Identity of the read state `internal` was built over, for the DB to compare (pinned).
  const void* source = nullptr;
  bool fill_cache = true;
  // The current iterator's bounds on user keys, [lower_bound, upper_bound).
  std::optional<std::string> lower_bound;
  std::optional<std::string> upper_bound;
  // The current iterator's BlockFetch (ReadOptions::block_fetch), which its table reads carry.
  BlockFetch* block_fetch = nullptr;
  std::unique_ptr<InternalIterator> internal;
  // DBIter's buffers: the shown key and value, the key being skipped, a Seek's lookup key.
  std::string key, value, skip, lookup;
};

// Takes back a DBIterTree when its iterator is destroyed.
class DBIterTreeRecycler {
 public:
  virtual void Recycle(std::unique_ptr<DBIterTree> tree) = 0;

 protected:
  ~DBIterTreeRecycler() = default;
};

struct DBIterParams {
  uint64_t sequence = 0;
  int64_t expiry_now_ms = 0;
  int64_t retrieval_grace_ms = 0;
  bool include_dead = false;  // ReadOptions::include_dead (with a grace <= 0 only)
  // The read state's range deletions (kept alive by the tree's pins); may be null.
  const std::vector<RangeDeletion>* range_deletions = nullptr;
};

// An iterator reading `tree` (whose bounds are already set). When it dies the tree goes to
// `recycler`, if any, or is destroyed.
std::unique_ptr<Iterator> NewDBIterator(std::unique_ptr<DBIterTree> tree, DBIterParams params,
                                        DBIterTreeRecycler* recycler);

}  // namespace ebb::storage
