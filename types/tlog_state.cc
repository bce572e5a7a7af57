#include "types/tlog_state.h"

#include <algorithm>
#include <iterator>
#include <limits>

namespace ebb::types {

bool EntryBefore(uint64_t a_ts, std::string_view a_value, uint64_t b_ts, std::string_view b_value) {
  if (a_ts != b_ts) return a_ts > b_ts;
  // std::string_view compares chars as unsigned (char_traits<char>), a prefix first.
  return a_value > b_value;
}

bool TlogState::Insert(std::string_view value, uint64_t ts) {
  if (ts < cutoff_) return false;
  auto it = std::lower_bound(
      entries_.begin(), entries_.end(), value,
      [ts](const TlogEntry& e, std::string_view v) { return EntryBefore(e.ts, e.value, ts, v); });
  if (it != entries_.end() && it->ts == ts && it->value == value) return false;
  entries_.insert(it, TlogEntry{std::string(value), ts});
  return true;
}

void TlogState::DropBelowCutoff() {
  // Entries are newest first, so the ones below the cutoff form the tail.
  auto it = std::find_if(entries_.begin(), entries_.end(),
                         [this](const TlogEntry& e) { return e.ts < cutoff_; });
  entries_.erase(it, entries_.end());
}

void TlogState::TrimAt(uint64_t ts) {
  if (ts <= cutoff_) return;
  cutoff_ = ts;
  DropBelowCutoff();
}

void TlogState::Trim(uint64_t count) {
  if (count == 0) {
    Clear();
    return;
  }
  if (entries_.size() < count) return;
  TrimAt(entries_[count - 1].ts);
}

void TlogState::Clear() {
  if (entries_.empty()) return;
  uint64_t newest = entries_.front().ts;
  uint64_t next = newest == std::numeric_limits<uint64_t>::max() ? newest : newest + 1;
  cutoff_ = std::max(cutoff_, next);
  entries_.clear();
}

void TlogState::Merge(const TlogState& other) {
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

std::vector<TlogEntry> TlogState::Get(uint64_t count) const {
  size_t n = count < entries_.size() ? static_cast<size_t>(count) : entries_.size();
  return std::vector<TlogEntry>(entries_.begin(), entries_.begin() + n);
}

}  // namespace ebb::types
