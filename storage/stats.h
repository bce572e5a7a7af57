// Stats: the engine's counters, read for INFO (storage section) and tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ebb::storage {

struct LevelStats {
  int files = 0;
  uint64_t bytes = 0;
  uint64_t entries = 0;  // rows of every kind in its files
};

// Disk reads of table blocks by how long they took (storage/disk_read_latency.h says which).
struct DiskReadHistogram {
  std::vector<uint64_t> bounds_us;  // the buckets' upper bounds, ascending
  // Reads per bucket, not cumulative: counts[i] took more than bounds_us[i - 1] and at most
  // bounds_us[i]; the last one (counts.size() == bounds_us.size() + 1) more than every bound.
  std::vector<uint64_t> counts;
  uint64_t sum_ns = 0;  // their durations added up
  uint64_t count = 0;   // reads timed
};

struct Stats {
  std::vector<LevelStats> levels;  // index = level number
  uint64_t memtable_bytes = 0;     // active + frozen memtables
  uint64_t block_cache_capacity = 0;
  uint64_t block_cache_bytes = 0;
  uint64_t block_cache_hits = 0;
  uint64_t block_cache_misses = 0;
  // Open tables (the table cache), how many of them are read with direct I/O, and the memory
  // their index blocks and bloom filters hold (kept for as long as a table is open).
  uint64_t open_tables = 0;
  uint64_t open_tables_direct = 0;
  uint64_t table_index_bytes = 0;
  uint64_t table_filter_bytes = 0;
  uint64_t flush_bytes_written = 0;
  uint64_t compaction_bytes_read = 0;
  uint64_t compaction_bytes_written = 0;
  uint64_t flushes = 0;
  uint64_t compactions = 0;
  uint64_t files_moved = 0;  // level-0 files moved down whole, unread (compaction.h, PickFileMoves)
  uint64_t expired_rows_dropped = 0;  // by compaction (turned to tombstones or removed)
  uint64_t filter_rows_dropped = 0;   // dropped by the CompactionFilter
  // Newest dead versions a kept-dead filter let go (CompactionFilter::CollectsNewestDead).
  uint64_t dead_versions_collected = 0;
  // Dead rows (tombstones, wipes) in the table files: the newest dead versions a kept-dead filter
  // keeps (CompactionFilter::KeepsNewestDead), and those no compaction has reached yet.
  uint64_t dead_rows_in_tables = 0;
  uint64_t files_expired_whole = 0;  // deleted by whole-file expiry
  uint64_t bytes_expired_whole = 0;  // their sizes
  // Key and value bytes of the expired rows compaction dropped or turned to tombstones (the
  // rows expired_rows_dropped counts): what rewriting reclaimed, beside bytes_expired_whole.
  uint64_t expired_rewritten_bytes = 0;
  // Table files of the current version holding a row already expired by the expiry clock (their
  // min_expire_at <= it): their whole sizes added up (an upper bound on the expired bytes they
  // hold), and how long ago, on the expiry clock, the earliest expiry among them passed (0 when
  // there is none). Judged from the manifest's file metadata; memtables are not counted.
  uint64_t expired_pending_bytes = 0;
  int64_t oldest_expired_age_ms = 0;
  // The purge deadline in force (Options::purge_deadline_ms, DB::SetPurgeDeadline); < 0: none.
  int64_t purge_deadline_ms = 0;
  uint64_t range_deletions = 0;         // ranges deleted (DeleteRange, batches holding them)
  uint64_t files_deleted_by_range = 0;  // deleted whole because a range deletion covers them
  uint64_t bytes_deleted_by_range = 0;
  uint64_t versions_deleted = 0;  // versions compaction dropped under a wipe or range deletion
  uint64_t range_deletions_pending = 0;  // range deletions not yet applied to every file
  uint64_t purge_hints_pending = 0;      // purge hints not yet applied
  uint64_t wal_syncs = 0;
  uint64_t wal_bytes = 0;
  uint64_t write_stalls = 0;  // times writes began to wait for a flush or compaction
  // Compaction debt: the bytes compaction must still move to bring every level within its
  // target size — level 0's bytes once it has l0_compaction_trigger files, then for each level
  // 1 .. kNumLevels - 2 the excess of its bytes (plus the excess moved into it from above) over
  // its target (level1_max_bytes, times level_size_multiplier per level down); as RocksDB's
  // estimate of pending compaction bytes, without its rewrite factor.
  uint64_t compaction_pending_bytes = 0;
  uint64_t compaction_errors = 0;  // compactions that failed (their inputs stay as they were)
  // While compactions fail on an I/O error and are retried with a pause: that error; "" if none.
  std::string compaction_error;
  // Tables a compaction found damaged, which compaction leaves alone: "<path>: <what>" each.
  std::vector<std::string> damaged_tables;
  uint64_t last_sequence = 0;
  // NewIterator: trees of iterators built, and spare trees reused instead (db_impl.h).
  uint64_t iterator_trees_built = 0;
  uint64_t iterator_trees_reused = 0;
  DiskReadHistogram disk_read_latency;
};

}  // namespace ebb::storage
