// Range deletes of a series between active-active peers (TS.DEL; docs/active-active.md, "Range
// deletes of a series"): the key's range markers (types::SeriesRangeMarker), their row, their
// delta, and what they do to the samples a node holds.
//
// A TS.DEL key from to on its origin becomes the marker (from, to, ms, origin id), ms the
// origin's clock raised above every stamp the samples in [from, to] carry there, so it drops
// every record the origin held in the range, and every record begun at or before ms that arrives
// later, wherever it arrives. A record begun after ms survives it: an add made after the delete
// on any node (its origin stamps it after every marker whose range holds it), or concurrently on
// a node whose clock is ahead.
//
// Storage (docs/key-encoding.md, "Active-active series"), one system row per key:
//   `aa-tsd:<db>:<key>` = the key's markers (types::EncodeRangeMarkers), a set.
// The delta and the snapshot's piece: `ts-delrange key (<from> <to> <ms> <origin>)+`.
// A whole-key delete at T (DeleteSeriesUpTo) drops the markers that end at or before T: the
// key's marker covers every sample there.
// Thread-safety: the command (io) thread, inside the keyspace batch the caller opened.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "storage/status.h"
#include "types/series_merge.h"

namespace ebb::types {
class Keyspace;
}

namespace ebb::server {

inline constexpr std::string_view kSeriesRangeDelta = "ts-delrange";
inline constexpr std::string_view kSeriesRangeRowPrefix = "aa-tsd:";

// One key's markers as a delta (or a snapshot piece).
struct SeriesRangeDelete {
  std::string key;
  std::vector<types::SeriesRangeMarker> markers;
};
std::vector<std::string> SeriesRangeDeltaArgs(std::string_view key,
                                              std::span<const types::SeriesRangeMarker> markers);
// `args` (args[0] lower-case) as one key's markers; false if out of shape (no marker, a bound or
// ms that is not an integer, a negative one, from > to).
bool ParseSeriesRangeDelta(std::span<const std::string> args, SeriesRangeDelete* out);

// The key's markers (empty when it has none).
storage::Status ReadRangeMarkers(types::Keyspace& keyspace, int db, std::string_view key,
                                 std::vector<types::SeriesRangeMarker>* markers);

// The greatest stamp the sample rows of `key` at from <= ts <= to carry (INT64_MIN when none;
// a sample from before the mode has no row, and stamp 0): a TS.DEL's marker is stamped after it.
storage::Status GreatestStampInRange(types::Keyspace& keyspace, int db, std::string_view key,
                                     int64_t from, int64_t to, int64_t* greatest_stamp);

// Joins `markers` into the key's set and applies the ones it lacked to the series the key holds
// (none: only the set changes): each sample in a new marker's range loses the records the marker
// covers, and is removed when none remains or rewritten as what the rest resolve to.
// *removed_visible: how many visible samples left the series (TS.DEL's reply on the origin).
storage::Status MergeRangeMarkers(types::Keyspace& keyspace, int db, std::string_view key,
                                  std::span<const types::SeriesRangeMarker> markers,
                                  uint64_t* removed_visible);

// The snapshot's pieces of a key's range-marker row (its value `value`): `ts-delrange` deltas of
// up to 256 markers.
storage::Status SeriesRangeSnapshotPieces(std::string_view key, std::string_view value,
                                          std::vector<std::vector<std::string>>* pieces);

// A whole-key delete at `ts`: drops the key's markers that end at or before it.
storage::Status DropRangeMarkersUpTo(types::Keyspace& keyspace, int db, std::string_view key,
                                     int64_t ts);

}  // namespace ebb::server
