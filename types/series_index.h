// The series' label index: which series hold a label with a value, kept in engine rows so that
// TS.QUERYINDEX, TS.MGET, TS.MRANGE and TS.MREVRANGE (types/series_query.h) read the series
// their filter names instead of every key of the database (docs/time-series.md, "How the series
// are found"; the rows' bytes: docs/key-encoding.md, "Series label index").
//
// One system row per (database, label, value, series key):
//   0x00 | 0xFF "ts-label:" | db:u8 | varint32 len(label) | label | varint32 len(value) | value |
//   key
// with an empty value and no timestamp or expiry, so the series holding label=value in a
// database are the keys of one contiguous range (SeriesIndexValuePrefix), in key order. The 0xFF
// sorts the rows after every other system row (whose names are text), just before the
// databases' rows: FLUSHALL deletes them and the databases as one range.
//
// Contract: the index may hold rows of series that are gone or no longer hold that label (stale
// rows), never lack one: every live series of an indexed engine has a row for each of its label
// pairs. So a query takes the keys from the index as candidates only and checks each against its
// metadata row and the whole filter. What keeps it so:
//   - every write of a series' metadata row that gives it labels writes their rows in the same
//     engine write (Series' metadata write, CopyKey, RestoreKey: WriteSeriesIndexRows), and one
//     that drops a label deletes its row in that write where it knows it (TS.ALTER, RENAME,
//     MOVE); the replication stream and a replica's snapshot carry them as any engine row;
//   - FLUSHDB/FLUSHALL range-delete the database's rows (SeriesIndexDbRange);
//   - the rest of the stale rows (DEL, UNLINK, expiry, a type change, a replaced target, a
//     cluster slot dropped) are dropped by compaction: the hook (RegisterSeriesIndexCompaction-
//     Hook) reads the series' metadata row through the compaction's durable view and drops a row
//     whose series is absent or no longer holds the pair;
//   - an engine written before the index (no version row) is indexed once by BuildSeriesIndex;
//     until then queries walk the database as before (SeriesIndexReady).
// Thread-safety: as Keyspace (the command thread); the compaction hook runs on engine threads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/options.h"
#include "storage/status.h"
#include "storage/write_batch.h"
#include "types/compaction_filter.h"
#include "types/keyspace.h"

namespace ebb::types {

using SeriesLabelPairs = std::vector<std::pair<std::string, std::string>>;

// The name prefix of the index rows (after the system tag 0x00).
inline constexpr std::string_view kSeriesIndexRowPrefix =
    "\xff"
    "ts-label:";
// The system row whose presence says the engine's series are all indexed, and its value.
inline constexpr std::string_view kSeriesIndexVersionRow = "series-index";
inline constexpr std::string_view kSeriesIndexVersion = "1";

// The engine key of the row naming series `key` of `db` as holding label=value.
std::string SeriesIndexKey(int db, std::string_view label, std::string_view value,
                           std::string_view key);
// The prefix of the rows of (db, label, value): the series keys follow it.
std::string SeriesIndexValuePrefix(int db, std::string_view label, std::string_view value);
// Every index row of `db`: [begin, end).
storage::KeyRange SeriesIndexDbRange(int db);
// Every index row of every database; it ends where the system rows end (0x01), after every other
// one.
storage::KeyRange SeriesIndexRange();

struct SeriesIndexEntry {
  int db = 0;
  std::string_view label;
  std::string_view value;
  std::string_view key;
};
// Parses an index row's engine key; false when it is not one.
bool ParseSeriesIndexKey(std::string_view engine_key, SeriesIndexEntry* entry);

// Adds to `batch` a row for every pair of `labels` of series `key`, and, when `old` is given
// (the labels the series held), the deletion of each row of `old` that `labels` no longer
// holds. `options` carries the write's defer_sync and block fetch only (no timestamp, no expiry).
void WriteSeriesIndexRows(const storage::WriteOptions& options, int db, std::string_view key,
                          const SeriesLabelPairs* old, const SeriesLabelPairs& labels,
                          int64_t now_ms, storage::WriteBatch* batch);
// Adds to `batch` the deletion of the rows of `labels` of series `key` (a series moved away).
void DeleteSeriesIndexRows(const storage::WriteOptions& options, int db, std::string_view key,
                           const SeriesLabelPairs& labels, storage::WriteBatch* batch);

// Whether the engine's series are all indexed (its version row is present): a point read.
storage::Status SeriesIndexReady(Keyspace& keyspace, bool* ready);

// One label and the values a matcher accepts (l=v: one; l=(a,b): several; none: no series).
struct SeriesIndexLookup {
  std::string label;
  std::vector<std::string> values;
};
// The keys the index names for the most selective of `lookups` (the one with the fewest rows),
// sorted and without duplicates, into *keys; a superset of the live series of `db` that pass
// that lookup. Reads the lookups' rows side by side and stops when one of them ends, so it reads
// at most lookups.size() * (that lookup's rows + 1) rows; *rows_read (when given) adds them.
// REQUIRES: !lookups.empty(); SeriesIndexReady.
storage::Status SeriesIndexCandidates(Keyspace& keyspace, int db,
                                      const std::vector<SeriesIndexLookup>& lookups,
                                      std::vector<std::string>* keys, uint64_t* rows_read);

// What BuildSeriesIndex did.
struct SeriesIndexBuild {
  bool built = false;    // false: the engine was already indexed, nothing written
  uint64_t series = 0;   // series indexed
  uint64_t rows = 0;     // index rows written
  uint64_t skipped = 0;  // series whose metadata did not decode (left out: queries skip them)
};
// Indexes an engine written before the index: walks every database's series (their metadata
// rows, no sample), writes their rows in engine writes of at most 1,024 rows, then the version
// row (durable on return). Does nothing when the version row is present. Memory: one write's rows.
// REQUIRES: !keyspace.in_batch(); not on a replica (its engine takes only its master's writes).
storage::Status BuildSeriesIndex(Keyspace& keyspace, SeriesIndexBuild* report);

// Installs the compaction hook that drops stale index rows (above).
void RegisterSeriesIndexCompactionHook(TypesCompactionFilter& filter);

}  // namespace ebb::types
