// The counter CRDT of active-active peers (docs/active-active.md, "Counters"): the state behind a
// string key that INCR, INCRBY, DECR, DECRBY and INCRBYFLOAT wrote in the mode.
//
// A counter is a base — the last string version written to the key by SET, PUT or DELETE (a
// value, a tombstone, or an expired value without its bytes), ranked by the string LWW order
// (merge_rule.h, StringVersion) — plus one record per origin node: that node's total of
// increments (an integer total and INCRBYFLOAT's float total), with a per-origin position
// (ts, seq). Its value:
//
//   base value (0 without one) + the sum over records of what each adds beyond the base's
//   `observed` entry for its origin
//
// The base carries what its origin had observed of each record when it was written (`observed`:
// the record's ts, seq and total), so a SET subtracts exactly the increments its origin saw
// (observed-remove) and every increment it did not see still adds to it.
//
// Merge (MergeBase, MergeRecord) is a join: the greater base by the string order (two bases of
// equal rank are one version: it observed what either observed, per origin the later position);
// per origin the record with the greater (ts, seq) — a tie, which only a damaged or forged copy
// of a record can make, broken by the greater totals. Both are commutative, associative and
// idempotent, so every node that received the same bases and records holds the same state, whatever
// the order and however often each arrived (a delta by the stream and again in a snapshot).
//
// Deletes. A record's ts is its origin's delete horizon for the key when it incremented, plus 1
// (never below 0): while that horizon stays, the origin adds into the same record (seq + 1);
// once the origin knows a delete at T, its next increment starts a new record at T + 1 (its
// total from 0). So a record lies wholly at or below a delete's T or wholly above it, and a
// delete at T removes the base when base.ts <= T and each record with ts <= T (Prune), as it
// removes a string version at or before T. Since a delete's T is at least the counter's
// timestamp on its origin (View: the greatest ts of its parts), a delete removes every increment
// its origin saw; an increment made concurrently on a node that had not seen it is removed too
// (its record is at or below T).
//
// Thread-safety: pure functions and plain values.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ebb::types {

// One origin's increments: their total since the record's ts began — INCR's in `total`,
// INCRBYFLOAT's in `ftotal` (exact in the row and the delta: FloatTotalText).
struct CounterRecord {
  std::string origin;  // the origin node's id
  int64_t ts = 0;      // the origin's delete horizon for the key + 1, >= 0
  uint64_t seq = 0;    // 1 for the record's first increment, + 1 per increment
  int64_t total = 0;
  long double ftotal = 0;

  bool operator==(const CounterRecord&) const = default;
};

// What a base's origin had of one origin's record when it wrote the base.
struct CounterObserved {
  std::string origin;
  int64_t ts = 0;
  uint64_t seq = 0;
  int64_t total = 0;
  long double ftotal = 0;

  bool operator==(const CounterObserved&) const = default;
};

struct CounterBase {
  enum class Kind : uint8_t { kValue = 0, kTombstone = 1, kReduced = 2 };
  // The expire_at of a base that never expires: the greatest.
  static constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
  Kind kind = Kind::kValue;
  int64_t ts = 0;
  int64_t expire_at = kNever;
  std::string value;  // kValue: the bytes; kReduced: their SHA-256 (string_rank.h); else ""
  std::vector<CounterObserved> observed;  // sorted by origin, one per origin

  bool operator==(const CounterBase&) const = default;
};

struct CounterState {
  std::optional<CounterBase> base;
  std::vector<CounterRecord> records;  // sorted by origin, one per origin

  bool empty() const { return !base && records.empty(); }
  bool operator==(const CounterState&) const = default;
  // The record of `origin`, or null.
  const CounterRecord* RecordOf(std::string_view origin) const;
};

// The state row's value (docs/key-encoding.md, "Counters"). Decode: false if malformed.
std::string EncodeCounterState(const CounterState& state);
bool DecodeCounterState(std::string_view encoded, CounterState* state);

// A base whose value expired at or before `now_ms` keeps its rank without its bytes: kValue
// becomes kReduced (the value's StringDigest). True when it changed. Compaction calls it with
// its clock half the purge deadline behind (docs/active-active.md, "Counters"), as it reduces a
// string version.
bool ReduceExpiredBase(CounterState* state, int64_t now_ms);

// a < b in the string order (ts, tombstone, digest, expire_at).
bool CounterBaseRanksBelow(const CounterBase& a, const CounterBase& b);

// Joins `incoming` into *state; true when it changed.
bool MergeBase(CounterState* state, const CounterBase& incoming);
bool MergeRecord(CounterState* state, const CounterRecord& incoming);

// Drops what a delete at `deleted_up_to` removes: the base when its ts <= it, each record and
// each observed entry with ts <= it.
void Prune(CounterState* state, int64_t deleted_up_to);

// The string version a counter reads as.
struct CounterView {
  bool present = false;  // false: the key reads as absent (a tombstone at `ts`)
  int64_t ts = 0;        // the greatest ts of the base and the records
  // The sum: exact decimal while the base is an integer and no INCRBYFLOAT added anything, else
  // as Redis prints INCRBYFLOAT's result (FormatLongDouble), summed in a fixed order (the base,
  // the integer totals, then each record's float total by origin); a base that is no number
  // reads as its own bytes.
  std::string value;
  std::optional<int64_t> expire_at;  // the base's own expiry (none without a value base)
};
// REQUIRES: !state.empty().
CounterView ViewOf(const CounterState& state);

// The increment's new record for `origin` at delete horizon `horizon_ts` (a record's ts: the
// key's deleted_up_to + 1, not below 0): `delta` added to its record when that is at the same
// ts, else a new record. nullopt when the total would overflow.
int64_t RecordTsFor(int64_t deleted_up_to);
std::optional<CounterRecord> NextRecord(const CounterState& state, std::string_view origin,
                                        int64_t record_ts, int64_t delta);

// NextRecord for INCRBYFLOAT: `increment` added to the record's float total. nullopt when the
// total would not be finite.
std::optional<CounterRecord> NextFloatRecord(const CounterState& state, std::string_view origin,
                                             int64_t record_ts, long double increment);

// A float total as text that parses back to the same long double (hex float; "0" for zero).
std::string FloatTotalText(long double total);
bool ParseFloatTotal(std::string_view text, long double* total);

// A long double as Redis prints INCRBYFLOAT's result (ld2string, LD_STR_HUMAN): fixed-point with
// 17 decimals, trailing zeros and a trailing point removed, "-0" as "0".
std::string FormatLongDouble(long double value);

// Every record as `observed` entries (a base written now observes all of them).
std::vector<CounterObserved> ObservedOf(const CounterState& state);

}  // namespace ebb::types
