// The entries a key marker or a database's horizon keeps in active-active mode, each with the dot
// of the delta that made it (docs/key-encoding.md, "Active-active markers"; the rules they serve
// are server/active_active/whole_key.h): a key's deletes and its database's flushes, each value a
// T. The dots are what collecting markers goes by (docs/active-active.md, "Status", marker
// collection): an entry can go once every origin has announced that it applied that dot.
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "types/or_context.h"

namespace ebb::server {

// One entry: the dot of the delta that made it (its origin and that origin's offset; DEBUG
// PEER-APPLY without OFFSET gives offset 0) and its value (a delete's T).
struct MarkerEntry {
  types::Dot dot;
  int64_t value = 0;

  bool operator==(const MarkerEntry&) const = default;
};

// The dot of the entries a row kept before rows kept their dots (a key marker of version 1, a
// horizon in decimal): the pre-mode dot (20 zero bytes, 1), as the observed-remove rule names
// data from before the mode (types/or_string_rows.h). No origin announces it, so it is never
// collected.
types::Dot PreModeMarkerDot();

// A set of entries, each a bound the marker holds (a delete covers the writes at or below its T):
// per origin, each entry no other entry of that origin dominates (one at an offset and a value
// both at least its own bounds everything it bounds, and will be collected no sooner), ascending
// by (origin, offset). Add is the join of
// a semilattice, so the set is the same whatever the order its entries arrive in.
// Example: adding (A,2,5), (B,7,3), (A,3,4) keeps all three; then (A,4,6) leaves (A,4,6) and
// (B,7,3).
class MarkerEntries {
 public:
  static constexpr int64_t kNone = std::numeric_limits<int64_t>::min();

  // Joins `entry` in; true when the set changed.
  bool Add(const MarkerEntry& entry);
  // Appends `entry` when the set's only form goes on with it (what a decoder reads): after the
  // last entry in (origin, offset) order and neither dominated by it nor dominating it — then no
  // earlier entry of its origin is dominated either, their values falling as offsets rise. False
  // otherwise, the set unchanged.
  bool AppendInOrder(const MarkerEntry& entry);
  // The greatest value held; kNone for none.
  int64_t Greatest() const;
  // The greatest value of an entry `view` does not cover; kNone for none. A view is an origin's
  // last collect (collect.h): it covers an entry whose dot's offset is at or below its own for
  // that origin. Offset 0 names no delta (DEBUG PEER-APPLY without OFFSET) and the pre-mode dot
  // no origin announces: neither is ever covered.
  // Example: entries (A,2,5), (B,7,9); view {B:7} -> 5; view {A:2, B:7} -> kNone.
  int64_t GreatestBeyond(const types::OrContext& view) const;
  const std::vector<MarkerEntry>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }

  bool operator==(const MarkerEntries&) const = default;

 private:
  std::vector<MarkerEntry> entries_;
};
// on-disk: count:varint32 (origin:byte[20] offset:varint64 value:fixed64-LE){count}, in the set's
// order.
void AppendMarkerEntries(const MarkerEntries& entries, std::string* out);
// Consumes that form from the front of *input; false unless it is exactly a set as above (in
// order, none dominated, varints in their shortest form).
bool ConsumeMarkerEntries(std::string_view* input, MarkerEntries* entries);

}  // namespace ebb::server
