#include "server/active_active/marker_entries.h"

#include <algorithm>

#include "storage/util/coding.h"
#include "types/or_string_rows.h"

namespace ebb::server {
namespace {

// Whether `a` makes `b` redundant: the same origin, an offset and a value both at least b's.
bool Dominates(const MarkerEntry& a, const MarkerEntry& b) {
  return a.dot.origin == b.dot.origin && a.dot.offset >= b.dot.offset && a.value >= b.value;
}

// The set order: (origin, offset).
bool DotBefore(const MarkerEntry& a, const MarkerEntry& b) {
  return a.dot.origin != b.dot.origin ? a.dot.origin < b.dot.origin : a.dot.offset < b.dot.offset;
}

}  // namespace

types::Dot PreModeMarkerDot() { return types::Dot{types::kPreModeOrigin, 1}; }

bool MarkerEntries::Add(const MarkerEntry& entry) {
  for (const MarkerEntry& held : entries_) {
    if (Dominates(held, entry)) return false;
  }
  std::erase_if(entries_, [&entry](const MarkerEntry& held) { return Dominates(entry, held); });
  entries_.insert(std::upper_bound(entries_.begin(), entries_.end(), entry, DotBefore), entry);
  return true;
}

bool MarkerEntries::AppendInOrder(const MarkerEntry& entry) {
  if (!entries_.empty() &&
      (!DotBefore(entries_.back(), entry) || Dominates(entry, entries_.back()))) {
    return false;
  }
  entries_.push_back(entry);
  return true;
}

int64_t MarkerEntries::Greatest() const {
  int64_t greatest = kNone;
  for (const MarkerEntry& entry : entries_) greatest = std::max(greatest, entry.value);
  return greatest;
}

int64_t MarkerEntries::GreatestBeyond(const types::OrContext& view) const {
  int64_t greatest = kNone;
  for (const MarkerEntry& entry : entries_) {
    const bool covered = entry.dot.offset != 0 && entry.dot.origin != types::kPreModeOrigin &&
                         entry.dot.offset <= view.At(entry.dot.origin);
    if (!covered) greatest = std::max(greatest, entry.value);
  }
  return greatest;
}

void AppendMarkerEntries(const MarkerEntries& entries, std::string* out) {
  storage::PutVarint32(out, static_cast<uint32_t>(entries.entries().size()));
  for (const MarkerEntry& entry : entries.entries()) {
    out->append(entry.dot.origin.view());
    storage::PutVarint64(out, entry.dot.offset);
    storage::PutFixed64(out, static_cast<uint64_t>(entry.value));
  }
}

bool ConsumeMarkerEntries(std::string_view* input, MarkerEntries* entries) {
  *entries = MarkerEntries();
  uint32_t count = 0;
  if (!types::GetShortestVarint32(input, &count)) return false;
  for (uint32_t i = 0; i < count; i++) {
    if (input->size() < types::kOriginIdSize) return false;
    MarkerEntry entry;
    entry.dot.origin = types::OriginId(input->substr(0, types::kOriginIdSize));
    input->remove_prefix(types::kOriginIdSize);
    uint64_t value = 0;
    if (!types::GetShortestVarint64(input, &entry.dot.offset) ||
        !storage::GetFixed64(input, &value)) {
      return false;
    }
    entry.value = static_cast<int64_t>(value);
    if (!entries->AppendInOrder(entry)) return false;
  }
  return true;
}

}  // namespace ebb::server
