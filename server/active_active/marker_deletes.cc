#include "server/active_active/marker_deletes.h"

#include <algorithm>

#include "storage/util/coding.h"
#include "types/or_string_rows.h"

namespace ebb::server {
namespace {

// Whether `a` makes `b` redundant: the same origin, an offset and a T both at least b's.
bool Dominates(const MarkerDelete& a, const MarkerDelete& b) {
  return a.dot.origin == b.dot.origin && a.dot.offset >= b.dot.offset && a.ts >= b.ts;
}

// The set order: (origin, offset).
bool DotBefore(const MarkerDelete& a, const MarkerDelete& b) {
  return a.dot.origin != b.dot.origin ? a.dot.origin < b.dot.origin : a.dot.offset < b.dot.offset;
}

}  // namespace

types::Dot PreModeMarkerDot() { return types::Dot{types::kPreModeOrigin, 1}; }

bool MarkerDeletes::Add(const MarkerDelete& del) {
  for (const MarkerDelete& held : entries_) {
    if (Dominates(held, del)) return false;
  }
  std::erase_if(entries_, [&del](const MarkerDelete& held) { return Dominates(del, held); });
  entries_.insert(std::upper_bound(entries_.begin(), entries_.end(), del, DotBefore), del);
  return true;
}

int64_t MarkerDeletes::UpTo() const {
  int64_t up_to = kNothingDeleted;
  for (const MarkerDelete& del : entries_) up_to = std::max(up_to, del.ts);
  return up_to;
}

void AppendMarkerDeletes(const MarkerDeletes& deletes, std::string* out) {
  storage::PutVarint32(out, static_cast<uint32_t>(deletes.entries().size()));
  for (const MarkerDelete& del : deletes.entries()) {
    out->append(del.dot.origin.view());
    storage::PutVarint64(out, del.dot.offset);
    storage::PutFixed64(out, static_cast<uint64_t>(del.ts));
  }
}

bool ConsumeMarkerDeletes(std::string_view* input, MarkerDeletes* deletes) {
  *deletes = MarkerDeletes();
  uint32_t count = 0;
  if (!types::GetShortestVarint32(input, &count)) return false;
  for (uint32_t i = 0; i < count; i++) {
    if (input->size() < types::kOriginIdSize) return false;
    MarkerDelete del;
    del.dot.origin = types::OriginId(input->substr(0, types::kOriginIdSize));
    input->remove_prefix(types::kOriginIdSize);
    uint64_t ts = 0;
    if (!types::GetShortestVarint64(input, &del.dot.offset) || !storage::GetFixed64(input, &ts)) {
      return false;
    }
    del.ts = static_cast<int64_t>(ts);
    // In the set's order and dominated by none: then Add appends it and drops nothing.
    const auto& held = deletes->entries();
    if (!held.empty() && (!DotBefore(held.back(), del) || Dominates(del, held.back()))) {
      return false;
    }
    if (!deletes->Add(del)) return false;
  }
  return true;
}

}  // namespace ebb::server
