// Compaction planning and the per-key reduction rule.
//
// PickCompaction decides what to compact next from a Version (no I/O): first range jobs (a
// range deletion or purge hint still to apply: every file its range touches, down to the
// bottom), then files whose expired rows are due for purge (compacted down to the bottom of
// their key range so the expired rows disappear), then L0 by file count (Level0Files: per key
// region), then the level with the highest size score >= 1. A manual CompactAll takes every
// file down to the deepest level. Apart from jobs, PickFileMoves names the level-0 files of a
// separate prefix's region (file_regions.h) that move down as they are, unread.
//
// ReduceVersions applies the compaction rule to all versions of one user key (docs/expiry.md,
// "How versions merge"). Versions a whole-key delete hides (older than a wipe, or than a range
// deletion covering the key) go. When the job holds the key's whole history (nothing older
// under it, nothing newer outside it, no snapshot), the versions collapse to the one a
// full-grace read returns: from then on every grace reads the same. Otherwise only versions no
// read at any grace can tell apart go (a run of versions whose newest has the greatest
// timestamp keeps that one and the one with the least timestamp), so no answer changes. A
// survivor that is dead (a tombstone, wipe, expired value or one the filter drops) becomes a
// tombstone (a value's carrying CompactionFilter::ReducedDeadValue), or disappears when nothing
// older can lie under it and no newer version has a smaller timestamp (which it would otherwise
// hide from a full-grace read). ReduceInput groups a sorted input by user key and applies a
// reduction to each: compaction (ReduceVersions) and memtable flush (ReduceForFlush) both write
// through it. Thread-safety: pure functions over immutable inputs (the filter is called as
// documented in storage/compaction_filter.h).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "storage/compaction_filter.h"
#include "storage/db/file_regions.h"
#include "storage/db/version_set.h"
#include "storage/format/internal_iterator.h"
#include "storage/format/internal_key.h"
#include "storage/row.h"

namespace ebb::storage {

struct CompactionJob {
  std::vector<std::pair<int, std::shared_ptr<const FileMetaData>>> inputs;  // (level, file)
  int output_level = 1;
  // No file deeper than output_level overlaps an input's key range: nothing older lies under
  // what this compaction writes.
  bool bottommost = false;
  // False for range jobs: they apply deletions and hints without collapsing any key's versions,
  // so that when they run changes no answer (they run whenever a FLUSHDB allows).
  bool may_collapse = true;
  // Range deletions and purge hints this job applies to every file their range touches: its
  // edit retires them.
  std::vector<RangeDeletion> retires_deletions;
  std::vector<PurgeHint> retires_hints;
  const char* reason = "";
};

struct PickParams {
  bool manual_all = false;
  // Expired rows may be purged: expiration on and no snapshot that would keep expired rows.
  bool purge_enabled = true;
  int64_t now_ms = 0;             // the clock (purge deadlines count in clock time)
  int64_t expiry_now_ms = 0;      // the expiry clock (db_impl.h ExpiryNow)
  int64_t purge_deadline_ms = 0;  // < 0: no deadline
  // The least sequence any memtable holds (UINT64_MAX: none): a range deletion is applied to
  // the files only once no memtable holds a version it deletes.
  uint64_t memtable_min_sequence = std::numeric_limits<uint64_t>::max();
  // A snapshot is live: compaction keeps what it may see, so no job retires a range deletion.
  bool snapshots = false;
  int l0_compaction_trigger = 4;  // compared with Level0Files
  // The regions table files keep apart; null: one region.
  const FileRegions* regions = nullptr;
  uint64_t level1_max_bytes = 0;
  int level_size_multiplier = 10;
  // Tables no compaction may read (found damaged); a job that needs one is not picked.
  const std::set<uint64_t>* excluded = nullptr;
};

// When a file holding rows that expire at `min_expire_at` is due for a purge compaction: half
// the deadline after, so the compaction finishes within it (INT64_MAX: never, for a negative
// deadline or no expiring rows).
int64_t PurgeDueAt(int64_t min_expire_at, int64_t purge_deadline_ms);

// Range deletions and purge hints of `v` that need no compaction any more (no file their range
// touches holds what they act on), given the least sequence the memtables hold.
void RetirableRangeFacts(const Version& v, const PickParams& params,
                         std::vector<RangeDeletion>* deletions, std::vector<PurgeHint>* hints);

// nullptr when there is nothing to do (or only jobs that read an excluded table).
// `next_file` (per level) rotates size-triggered picks.
std::unique_ptr<CompactionJob> PickCompaction(const Version& v, const PickParams& params,
                                              size_t next_file[kNumLevels]);

// The most level-0 files of `v` one region of `regions` holds (a file spanning several counts in
// each): with no separate prefixes, level 0's file count. Level 0's compaction and write-stall
// triggers are counted by it, so the files of one flush that the regions keep apart count once.
int Level0Files(const Version& v, const FileRegions& regions);

// A level-0 file that moves down without a rewrite, and the level it goes to.
struct FileMove {
  std::shared_ptr<const FileMetaData> file;
  int to_level = 0;
};

// The level-0 files that lie inside one separate prefix's region (FileRegions::InsidePrefix)
// and can move down as they are: no older level-0 file overlaps one, and it goes to the deepest
// level L such that no file of levels 1 .. L overlaps it (it stays when a level-1 file does).
// Shallower data stays newer, as the tree requires (version_set.h). Oldest first, each decided
// on the tree the earlier ones leave; tables in `excluded` (may be null) stay.
std::vector<FileMove> PickFileMoves(const Version& v, const FileRegions& regions,
                                    const std::set<uint64_t>* excluded);

// Compaction debt (Stats::compaction_pending_bytes): the bytes compaction must still move to
// bring every level within its target size, by the targets PickCompaction uses — level 0's
// bytes once it holds l0_compaction_trigger files, then down the levels 1 .. kNumLevels - 2 the
// excess of each level's bytes, plus the excess carried into it from the level above, over its
// target. Only params' l0_compaction_trigger, level1_max_bytes and level_size_multiplier count.
uint64_t PendingCompactionBytes(const Version& v, const PickParams& params);

// One version of a user key as compaction sees it.
struct KeyVersion {
  uint64_t sequence = 0;
  RowKind kind = RowKind::kValue;
  RowMeta meta;
  std::string value;
};

struct ReduceStats {
  uint64_t expired = 0;        // survivors turned dead by expiry (to a tombstone or dropped)
  uint64_t expired_bytes = 0;  // their user key and value bytes
  uint64_t filtered = 0;       // survivors dropped by the filter
  uint64_t deleted = 0;        // versions gone because a wipe or range deletion hid them
  uint64_t collected = 0;      // newest dead versions CollectsNewestDead let go
};

// What a reduction knows about the versions it does not see.
struct ReduceContext {
  // Live snapshot sequences, ascending.
  std::vector<uint64_t> snapshots;
  // Range deletions in force (Version::range_deletions).
  const std::vector<RangeDeletion>* range_deletions = nullptr;
  // The reduction sees every version of its keys (nothing older under the output, nothing newer
  // outside the input, no snapshot): versions collapse to the full-grace choice.
  bool whole_history = false;
  // Nothing older lies under the output (the job is bottommost).
  bool nothing_below = false;
  // The least timestamp a newer version outside the input may have (INT64_MAX: none).
  int64_t newer_min_timestamp = std::numeric_limits<int64_t>::max();
  // A key's newest dead version, which every read takes now (so the key is absent), may vanish
  // when nothing lies under it. It would hide a later write with an older timestamp, so a
  // reduction whose timing the data does not decide keeps it (with its expiry, for the purge).
  bool forget_newest_dead = true;
  // Values with expire_at <= this have expired (INT64_MIN: nothing expires, as in a flush).
  int64_t expiry_now_ms = std::numeric_limits<int64_t>::min();
  // Shown every live value that survives; nullptr: none.
  const CompactionFilter* filter = nullptr;
  int64_t filter_now_ms = 0;
  // Receives the ranges ExpiredRowRanges names for the expired values removed; may be null.
  std::vector<KeyRange>* expired_ranges = nullptr;
};

// `versions`: all versions of `user_key` the input holds, most recently written first. Returns
// what to write, most recently written first (the rule in the header comment).
std::vector<KeyVersion> ReduceVersions(std::string_view user_key, std::vector<KeyVersion> versions,
                                       const ReduceContext& context, ReduceStats* stats);

// The flush rule for the versions of one key in a memtable, most recently written first, when
// no snapshot is live: ReduceVersions with nothing known beyond them and nothing expiring —
// versions hidden by a wipe or by a range deletion below `floor_sequence` go; of a run whose
// newest version has the greatest timestamp, no read at any grace can choose an older one —
// they can only end a grace walk early, and the one with the least timestamp ends it exactly
// when any of them would — so the newest and that one are kept. Out-of-order runs are kept
// whole. Reads return the same before and after the flush.
// In place: *versions is left with the survivors.
void ReduceForFlush(std::vector<KeyVersion>* versions, uint64_t floor_sequence = 0);

// Reads `input` from its current position to its end, reduces the versions of each user key
// with `reduce` (ReduceVersions or ReduceForFlush), which leaves the survivors in *versions (most
// recently written first, possibly none), and hands them to `emit`. Stops at the first error:
// the input's, a malformed entry, a callback's.
using KeyReducer =
    std::function<void(std::string_view user_key, std::vector<KeyVersion>* versions)>;
using KeyEmitter =
    std::function<Status(std::string_view user_key, const std::vector<KeyVersion>& survivors)>;
Status ReduceInput(InternalIterator* input, const KeyReducer& reduce, const KeyEmitter& emit);

// Appends a key's survivors to a table as entries (internal key, encoded row), reusing the
// buffers.
using EntryEmitter = std::function<Status(std::string_view internal_key, std::string_view row)>;
Status EmitEntries(std::string_view user_key, const std::vector<KeyVersion>& survivors,
                   const EntryEmitter& add, std::string* internal_key, std::string* row);

}  // namespace ebb::storage
