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
  uint64_t expired_rows_dropped = 0;    // by compaction (turned to tombstones or removed)
  uint64_t filter_rows_dropped = 0;     // dropped by the CompactionFilter
  uint64_t files_expired_whole = 0;     // deleted by whole-file expiry
  uint64_t bytes_expired_whole = 0;     // their sizes
  uint64_t range_deletions = 0;         // ranges deleted (DeleteRange, batches holding them)
  uint64_t files_deleted_by_range = 0;  // deleted whole because a range deletion covers them
  uint64_t bytes_deleted_by_range = 0;
  uint64_t versions_deleted = 0;  // versions compaction dropped under a wipe or range deletion
  uint64_t range_deletions_pending = 0;  // range deletions not yet applied to every file
  uint64_t purge_hints_pending = 0;      // purge hints not yet applied
  uint64_t wal_syncs = 0;
  uint64_t wal_bytes = 0;
  uint64_t write_stalls = 0;       // times writes began to wait for a flush or compaction
  uint64_t compaction_errors = 0;  // compactions that failed (their inputs stay as they were)
  // While compactions fail on an I/O error and are retried with a pause: that error; "" if none.
  std::string compaction_error;
  // Tables a compaction found damaged, which compaction leaves alone: "<path>: <what>" each.
  std::vector<std::string> damaged_tables;
  uint64_t last_sequence = 0;
  // NewIterator: trees of iterators built, and spare trees reused instead (db_impl.h).
  uint64_t iterator_trees_built = 0;
  uint64_t iterator_trees_reused = 0;
};

}  // namespace ebb::storage
