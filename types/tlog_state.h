// TlogState: a timestamped log (Jylis's TLOG CRDT) as a plain in-memory value.
//
// This is the reference model of a TLOG: the engine-backed Tlog (types/tlog.h) must answer every
// command exactly as this class does, and the tests compare the two.
//
// State: a grow-only `cutoff` and a set of entries (value, ts) kept sorted newest first.
// Order (COMMANDS.md, TLOG): higher ts first; equal ts -> greater value first, comparing bytes
// as unsigned and treating a prefix as smaller than its extensions — so in this newest-first list
// an extension ("ab") comes BEFORE its prefix ("a"). Identical (value, ts) pairs are one entry.
//
// Invariants: entries are strictly ordered by EntryBefore (no duplicates) and every entry has
// ts >= cutoff.
//
// Merge (union of entries, max of cutoffs, entries below the merged cutoff dropped) is
// commutative, associative and idempotent.
//
// Thread-safety: a value type; no internal synchronisation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ebb::types {

struct TlogEntry {
  std::string value;
  uint64_t ts = 0;

  bool operator==(const TlogEntry&) const = default;
};

// True when `a` comes before `b` in a newest-first log: a.ts > b.ts, or equal ts and
// a.value > b.value (bytewise unsigned; a prefix is smaller than its extensions).
bool EntryBefore(uint64_t a_ts, std::string_view a_value, uint64_t b_ts, std::string_view b_value);
inline bool EntryBefore(const TlogEntry& a, const TlogEntry& b) {
  return EntryBefore(a.ts, a.value, b.ts, b.value);
}

class TlogState {
 public:
  TlogState() = default;

  // Inserts (value, ts) unless ts < cutoff() or the pair is already present.
  // Returns true when the entry was added.
  bool Insert(std::string_view value, uint64_t ts);

  // cutoff = max(cutoff, ts); entries with ts < cutoff are removed.
  void TrimAt(uint64_t ts);

  // count == 0: Clear(). Fewer than `count` entries: no change. Otherwise
  // TrimAt(ts of entry count-1), so entries tied with it survive and size() may exceed count.
  void Trim(uint64_t count);

  // Empty log: no effect. Otherwise cutoff = max(cutoff, newest ts + 1) and every entry is
  // removed. When the newest ts is 2^64-1 the cutoff saturates at 2^64-1 (it never wraps) and
  // the entries at 2^64-1 are removed too, because CLR empties the log; a later Insert at
  // 2^64-1 is not below the cutoff and is accepted.
  void Clear();

  // The CRDT join: entries = union minus those below the merged cutoff; cutoff = max.
  void Merge(const TlogState& other);

  // The newest min(count, size()) entries, newest first.
  std::vector<TlogEntry> Get(uint64_t count) const;

  uint64_t cutoff() const { return cutoff_; }
  size_t size() const { return entries_.size(); }
  const std::vector<TlogEntry>& entries() const { return entries_; }
  // A TLOG key exists while it has entries or a cutoff above 0 (COMMANDS.md).
  bool exists() const { return cutoff_ > 0 || !entries_.empty(); }

  bool operator==(const TlogState&) const = default;

 private:
  void DropBelowCutoff();

  uint64_t cutoff_ = 0;
  std::vector<TlogEntry> entries_;  // newest first, no duplicates
};

}  // namespace ebb::types
