// The merge of time series between active-active peers (docs/active-active.md, "Time series"):
// what each node keeps of a sample beside its value, so that every node resolves the same value
// whatever order the writes arrive in, and the series' settings as a register.
//
// A sample (key, ts) written in the mode keeps a SampleState: per origin node, one SampleRecord
// summing up every contribution that origin made to the sample — how many (seq), their sum,
// least and greatest value, the first and the last with their origin clock (ms), and the
// duplicate policy its last contribution was made under. A record carries the origin's totals,
// not one increment, so merging is a join: per origin the record with the greater seq (equal
// seq: the greater encoding), commutative, associative and idempotent — a delta delivered by a
// snapshot and again by the stream, or applied again after a restart, changes nothing the second
// time. The sample's value is a function of the merged records (ResolveSample):
//   - the policy is that of the last contribution in the stamp order (last_ms, origin id);
//     BLOCK and an unset policy resolve as FIRST (only the origin refuses a duplicate);
//   - FIRST / LAST: the value of the contribution with the least / greatest stamp
//     (first_ms, origin) / (last_ms, origin);
//   - MIN / MAX: the least / greatest value any origin contributed;
//   - SUM: the sum of every origin's sum, added in origin order (so every node adds the same
//     doubles in the same order).
// A sample a series held before the mode, which no record describes, is adopted as a record of
// origin "" (AdoptedRecord): the same on every node that holds it.
//
// Per origin the join keeps the record with the greater (first_ms, seq): a record continued by
// its origin keeps first_ms and takes the next seq; one its origin began again after a range
// delete dropped the old one (below) has a greater first_ms, so it replaces the old one wherever
// that is still held, although its seq starts again from 1.
//
// A range delete (TS.DEL between peers) is a SeriesRangeMarker (from, to, ms, origin): it drops
// every record of a sample at from <= ts <= to that began at or before ms (first_ms <= ms), where
// it is held and wherever it arrives later; a record begun after ms survives it. A record is
// never split: one begun before the marker and continued after it by an origin that had not yet
// seen the marker is dropped whole. A key's markers merge as a set (sorted, without duplicates),
// so applying one twice is applying it once; `origin` only names a marker.
//
// The settings (retention, duplicate policy, encoding, chunk size, labels) are a last-writer-wins
// register by stamp (ms, origin id): SeriesRegister.
//
// Encodings (docs/key-encoding.md, "Active-active series"), little-endian:
//   SampleState    = version:u8 (1) count:varint32 record{count}
//   record         = origin:length-prefixed seq:varint64 policy:u8 sum:f64 min:f64 max:f64
//                    first_ms:fixed64 first:f64 last_ms:fixed64 last:f64   (f64: IEEE bits)
//   RangeMarkers   = version:u8 (1) count:varint32 marker{count}   (sorted, no duplicates)
//   marker         = from:fixed64 to:fixed64 ms:fixed64 origin:length-prefixed
//   SeriesRegister = version:u8 (1) ms:fixed64 origin:length-prefixed retention:varint64
//                    policy:u8 encoding:u8 chunk_size:varint64 labels:varint32
//                    (name:length-prefixed value:length-prefixed){labels}
// Thread-safety: plain values and functions.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "types/series_codec.h"

namespace ebb::types {

struct SampleRecord {
  std::string origin;  // the origin node's id ("" for a sample adopted from before the mode)
  uint64_t seq = 0;    // how many contributions the origin made to the sample
  DuplicatePolicy policy = DuplicatePolicy::kUnset;  // its last contribution's
  double sum = 0;
  double min = 0;
  double max = 0;
  int64_t first_ms = 0;  // the origin clock of its first contribution, and its value
  double first = 0;
  int64_t last_ms = 0;  // the same of its last contribution
  double last = 0;
  bool operator==(const SampleRecord&) const = default;
};

// One record per origin, sorted by origin id.
struct SampleState {
  std::vector<SampleRecord> records;
  bool operator==(const SampleState&) const = default;
};

// The greatest origin clock any contribution of `state` carries (INT64_MIN when none).
int64_t GreatestStampMs(const SampleState& state);

// `origin`'s record after one more contribution of `value` at origin clock `stamp_ms` under
// `policy` (the policy the origin applied: ON_DUPLICATE, else the series').
SampleRecord NextRecord(const SampleState& state, std::string_view origin, int64_t stamp_ms,
                        DuplicatePolicy policy, double value);

// The record a sample stored before the mode stands for: origin "", one contribution at ms 0
// under LAST.
SampleRecord AdoptedRecord(double value);

// Joins `record` into `state` (per origin the greater (first_ms, seq)); true when it changed.
bool MergeRecord(SampleState* state, const SampleRecord& record);

// The sample's value under the header's rules. REQUIRES: state.records not empty.
double ResolveSample(const SampleState& state);

std::string EncodeSampleState(const SampleState& state);
// False when `in` is not a SampleState of a known version (or records are out of order).
bool DecodeSampleState(std::string_view in, SampleState* state);

// The settings of a series as a last-writer-wins register by (ms, origin).
struct SeriesRegister {
  int64_t ms = 0;
  std::string origin;
  SeriesSettings settings;  // retention_from_policy is never set: the origin resolved it

  bool Precedes(const SeriesRegister& other) const {
    return ms != other.ms ? ms < other.ms : origin < other.origin;
  }
};

// A range delete of a series between peers (header): drops the records of the samples at
// from <= ts <= to that began at or before ms.
struct SeriesRangeMarker {
  int64_t from = 0;
  int64_t to = 0;
  int64_t ms = 0;
  std::string origin;  // the node that made it (it names the marker; it orders nothing)
  auto operator<=>(const SeriesRangeMarker&) const = default;
};

// Whether `marker` drops `record` of the sample at `ts`.
inline bool RangeMarkerCovers(const SeriesRangeMarker& marker, int64_t ts,
                              const SampleRecord& record) {
  return marker.from <= ts && ts <= marker.to && record.first_ms <= marker.ms;
}
// Drops from `state` (the sample at `ts`) every record one of `markers` covers; true when it
// dropped one.
bool DropCoveredRecords(std::span<const SeriesRangeMarker> markers, int64_t ts, SampleState* state);
// The greatest ms of the markers whose range holds `ts` (INT64_MIN when none): an origin stamps
// a new contribution to the sample after it.
int64_t GreatestCoveringMs(std::span<const SeriesRangeMarker> markers, int64_t ts);
// Joins `marker` into the sorted set `markers`; true when it was not there.
bool MergeRangeMarker(std::vector<SeriesRangeMarker>* markers, const SeriesRangeMarker& marker);

std::string EncodeRangeMarkers(std::span<const SeriesRangeMarker> markers);
// False when `in` is not a RangeMarkers of a known version, a marker has from > to, a negative
// bound or ms, or the markers are not sorted and distinct.
bool DecodeRangeMarkers(std::string_view in, std::vector<SeriesRangeMarker>* markers);

std::string EncodeSeriesRegister(const SeriesRegister& reg);
bool DecodeSeriesRegister(std::string_view in, SeriesRegister* reg);

// Whether two settings are the same (the register's content; retention_from_policy ignored).
bool SameSeriesSettings(const SeriesSettings& a, const SeriesSettings& b);

}  // namespace ebb::types
