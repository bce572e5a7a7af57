// Compaction planning and the per-key reduction rule.
//
// PickCompaction decides what to compact next from a Version (no I/O): first files whose expired
// rows are past the purge deadline (compacted down to the bottom of their key range so the
// expired rows disappear), then L0 by file count, then the level with the highest size score
// >= 1. A manual CompactAll takes every file down to the deepest level.
//
// ReduceVersions applies the compaction rule to all versions of one user key: versions between
// snapshot boundaries collapse to the one a full-grace read returns (greatest timestamp, ties:
// most recently written); a survivor that is a tombstone, expired, or dropped by the filter
// becomes a tombstone (keeping its timestamp), or disappears if nothing older can lie under it.
// ReduceInput groups a sorted input by user key and applies a reduction to each: compaction
// (ReduceVersions) and memtable flush (ReduceForFlush) both write through it.
// Thread-safety: pure functions over immutable inputs.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "storage/compaction_filter.h"
#include "storage/db/version_set.h"
#include "storage/format/internal_iterator.h"
#include "storage/format/internal_key.h"
#include "storage/row.h"

namespace ebb::storage {

struct CompactionJob {
  std::vector<std::pair<int, std::shared_ptr<const FileMetaData>>> inputs;  // (level, file)
  int output_level = 1;
  // No file deeper than output_level overlaps the inputs' key range: nothing older lies under
  // what this compaction writes.
  bool bottommost = false;
  // Also no newer data outside the inputs (memtables, shallower or unpicked files) overlaps the
  // range, so a dead survivor can vanish without changing what any read returns. Set by the DB.
  bool drop_dead = false;
  const char* reason = "";
};

struct PickParams {
  bool manual_all = false;
  bool purge_enabled = true;  // expiration on and no snapshot that would keep expired rows
  int64_t now_ms = 0;
  int64_t purge_deadline_ms = 0;
  int l0_compaction_trigger = 4;
  uint64_t level1_max_bytes = 0;
  int level_size_multiplier = 10;
};

// nullptr when there is nothing to do. `next_file` (per level) rotates size-triggered picks.
std::unique_ptr<CompactionJob> PickCompaction(const Version& v, const PickParams& params,
                                              size_t next_file[kNumLevels]);

// One version of a user key as compaction sees it.
struct KeyVersion {
  uint64_t sequence = 0;
  RowKind kind = RowKind::kValue;
  RowMeta meta;
  std::string value;
};

struct ReduceStats {
  uint64_t expired = 0;   // survivors turned dead by expiry (to a tombstone or dropped)
  uint64_t filtered = 0;  // survivors dropped by the filter
};

// `versions`: all versions of `user_key`, most recently written first. `snapshots`: live snapshot
// sequences, ascending. `drop_dead`: nothing outside these versions can hold the key (see
// CompactionJob), so dead survivors may vanish — each only if every newer survivor has a
// timestamp >= its own (else a full-grace read would change). Returns what to write, most
// recently written first.
std::vector<KeyVersion> ReduceVersions(std::string_view user_key, std::vector<KeyVersion> versions,
                                       const std::vector<uint64_t>& snapshots, bool drop_dead,
                                       bool expiration_enabled, int64_t now_ms,
                                       const CompactionFilter* filter, ReduceStats* stats);

// The flush rule for the versions of one key in a memtable, most recently written first, when
// no snapshot is live: if the newest version has the greatest timestamp, no read at any grace
// can choose an older one — they can only end a grace walk early, and the one with the least
// timestamp ends it exactly when any of them would. So the newest and that one are kept, the
// rest dropped; reads return the same before and after the flush. Otherwise (out-of-order
// writes) every version is kept.
std::vector<KeyVersion> ReduceForFlush(std::vector<KeyVersion> versions);

// Reads `input` from its current position to its end, reduces the versions of each user key
// with `reduce` (ReduceVersions or ReduceForFlush), and passes every survivor to `emit` as a
// table entry — internal key and encoded row — most recently written first; after each user
// key's survivors it calls `after_key` (where an output file may end). Stops at the first
// error: the input's, a malformed entry, a callback's.
using KeyReducer =
    std::function<std::vector<KeyVersion>(std::string_view user_key, std::vector<KeyVersion>)>;
using EntryEmitter = std::function<Status(std::string_view internal_key, std::string_view row)>;
Status ReduceInput(InternalIterator* input, const KeyReducer& reduce, const EntryEmitter& emit,
                   const std::function<Status()>& after_key);

}  // namespace ebb::storage
