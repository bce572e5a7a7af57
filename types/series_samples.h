// SeriesSamples: the one reader of a series incarnation's stored samples — its blocks and its tail
// rows (docs/key-encoding.md, "SERIES") merged in timestamp order. Every reader of samples goes
// through it: Series' scans, neighbours, TS.INFO, TS.DEL, the writes' reads, and the keyspace's
// COPY/RENAME/MOVE/DUMP (Keyspace::ForEachSeriesSample).
//
// The rows under an incarnation's prefix are its blocks (element fixed64-BE(first ts), first byte
// <= 0x7F), then its tail rows (element 0xFF | fixed64-BE(ts), one sample each). The blocks are
// read with an iterator bounded below the tail, the tail with one bounded from the metadata's
// tail_from up: the tail rows earlier folds deleted (all below tail_from, their tombstones still
// in the engine until compaction) are never stepped over, and with no tail no tail row is read.
// Rows must not overlap: every row's samples are above the previous row's (so every tail sample
// is above every block sample). A row that does not decode, or overlaps its neighbour, is
// Corruption. It filters nothing by retention: callers pass the visible floor as `from` when they
// want only visible samples. Timestamps below 0 read as 0.
// Thread-safety: one caller; reads the engine through its own iterators.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "storage/db.h"
#include "storage/status.h"
#include "types/sample_block.h"
#include "types/series_codec.h"

namespace ebb::types {

// One stored row, as SeriesSamples::ForEachRow shows it.
struct SeriesRow {
  bool tail = false;       // a tail row (one sample), else a block
  size_t key_bytes = 0;    // the row's key
  size_t value_bytes = 0;  // its value: the encoded block, or the tail sample's 8 bytes
  const std::vector<Sample>* samples = nullptr;  // ascending, at least one
};

class SeriesSamples {
 public:
  // The rows of `meta`'s incarnation under `prefix` (its SubRowPrefix), read with `options`
  // (their bounds are replaced).
  SeriesSamples(storage::DB& db, const storage::ReadOptions& options, std::string prefix,
                const SeriesMeta& meta);

  // Calls `visit` with the rows, oldest first from the one that holds the first sample >= start
  // (newest first from the one that holds the last sample <= start when `reverse`) — possibly a
  // row wholly before it — until it returns false or the rows end.
  storage::Status ForEachRow(int64_t start, bool reverse,
                             const std::function<bool(const SeriesRow&)>& visit);
  // Calls `visit` with every stored sample with from <= ts <= to, oldest first (newest first when
  // `reverse`), until it returns false.
  storage::Status Scan(int64_t from, int64_t to, bool reverse,
                       const std::function<bool(const Sample&)>& visit);
  // The tail's samples, oldest first (appended to a cleared *tail).
  storage::Status ReadTail(std::vector<Sample>* tail);

 private:
  // Walks `it` from where it is (forward or back), calling `visit` with each row: false when
  // `visit` stopped the walk (*stopped) or a row is corrupt.
  storage::Status Walk(storage::Iterator* it, bool tail, bool reverse,
                       const std::function<bool(const SeriesRow&)>& visit, bool* stopped);
  storage::Iterator* Blocks();  // [prefix, prefix|0xFF), made on first use
  storage::Iterator* Tail();    // [prefix|0xFF|fixed64-BE(tail_from), end of prefix)

  storage::DB& db_;
  storage::ReadOptions options_;
  std::string prefix_;
  std::optional<int64_t> tail_from_;  // none: no tail
  std::unique_ptr<storage::Iterator> blocks_;
  std::unique_ptr<storage::Iterator> tail_;
  std::optional<int64_t> edge_;  // the last row's edge in the walk: rows must not overlap
  std::vector<Sample> samples_;
};

}  // namespace ebb::types
