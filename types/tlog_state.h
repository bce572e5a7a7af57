// TlogState: a timestamped log (Jylis's TLOG CRDT) as a plain in-memory value.
//
// This is the reference model of a TLOG: the engine-backed Tlog (types/tlog.h) must answer every
// command exactly as this class does, and the tests compare the two.
//
// State: a grow-only `cutoff` and a set of entries (value, ts) kept sorted newest first.
// Order (docs/commands.md, TLOG): higher ts first; equal ts -> greater value first, comparing bytes
// as unsigned and treating a prefix as smaller than its extensions — so in this newest-first list
// an extension ("ab") comes BEFORE its prefix ("a"). Identical (value, ts) pairs are one entry.
//
// Invariants: entries are strictly ordered by EntryBefore (no duplicates) and every entry has
// ts >= cutoff.
//
// Merge (union of entries, max of cutoffs, entries below the merged cutoff dropped) is
// commutative, associative and idempotent.
//
// Header-only, so tests outside the types library (integration) can use it as their model.
// Thread-safety: a value type; no internal synchronisation.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
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
inline bool EntryBefore(uint64_t a_ts, std::string_view a_value, uint64_t b_ts,
                        std::string_view b_value) {
  if (a_ts != b_ts) return a_ts > b_ts;
  // std::string_view compares chars as unsigned (char_traits<char>), a prefix first.
  return a_value > b_value;
}
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
  // A TLOG key exists while it has entries or a cutoff above 0 (docs/commands.md).
  bool exists() const { return cutoff_ > 0 || !entries_.empty(); }

  bool operator==(const TlogState&) const = default;

 private:
  void DropBelowCutoff();

  uint64_t cutoff_ = 0;
  std::vector<TlogEntry> entries_;  // newest first, no duplicates
};

// ---- implementation
inline bool TlogState::Insert(std::string_view value, uint64_t ts) {
  if (ts < cutoff_) return false;
  auto it = std::lower_bound(
      entries_.begin(), entries_.end(), value,
      [ts](const TlogEntry& e, std::string_view v) { return EntryBefore(e.ts, e.value, ts, v); });
  if (it != entries_.end() && it->ts == ts && it->value == value) return false;
  entries_.insert(it, TlogEntry{std::string(value), ts});
  return true;
}

inline void TlogState::DropBelowCutoff() {
  // Entries are newest first, so the ones below the cutoff form the tail.
  auto it = std::find_if(entries_.begin(), entries_.end(),
                         [this](const TlogEntry& e) { return e.ts < cutoff_; });
  entries_.erase(it, entries_.end());
}

inline void TlogState::TrimAt(uint64_t ts) {
  if (ts <= cutoff_) return;
  cutoff_ = ts;
  DropBelowCutoff();
}

inline void TlogState::Trim(uint64_t count) {
  if (count == 0) {
    Clear();
    return;
  }
  if (entries_.size() < count) return;
  TrimAt(entries_[count - 1].ts);
}

inline void TlogState::Clear() {
  if (entries_.empty()) return;
  uint64_t newest = entries_.front().ts;
  uint64_t next = newest == std::numeric_limits<uint64_t>::max() ? newest : newest + 1;
  cutoff_ = std::max(cutoff_, next);
  entries_.clear();
}

inline void TlogState::Merge(const TlogState& other) {
  if (&other == this) return;  // idempotent
  std::vector<TlogEntry> merged;
  merged.reserve(entries_.size() + other.entries_.size());
  auto a = entries_.begin();
  auto b = other.entries_.begin();
  while (a != entries_.end() || b != other.entries_.end()) {
    if (b == other.entries_.end() || (a != entries_.end() && EntryBefore(*a, *b))) {
      merged.push_back(std::move(*a++));
    } else if (a == entries_.end() || EntryBefore(*b, *a)) {
      merged.push_back(*b++);
    } else {  // equal: one entry
      merged.push_back(std::move(*a++));
      ++b;
    }
  }
  entries_ = std::move(merged);
  cutoff_ = std::max(cutoff_, other.cutoff_);
  DropBelowCutoff();
}

inline std::vector<TlogEntry> TlogState::Get(uint64_t count) const {
  size_t n = count < entries_.size() ? static_cast<size_t>(count) : entries_.size();
  return std::vector<TlogEntry>(entries_.begin(), entries_.begin() + n);
}

}  // namespace ebb::types
