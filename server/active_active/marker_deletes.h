// The deletes a key marker or a database's horizon keeps in active-active mode, each with the
// dot of the delta that made it (docs/key-encoding.md, "Active-active markers"; the rule they
// serve is server/active_active/whole_key.h). The dots are what collecting markers goes by
// (docs/active-active.md, "Status", marker collection): a delete can go once every origin has
// announced that it applied that dot.
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "types/or_context.h"

namespace ebb::server {

// One delete: the dot of the delta that made it (its origin and that origin's offset; DEBUG
// PEER-APPLY without OFFSET gives offset 0) and its T.
struct MarkerDelete {
  types::Dot dot;
  int64_t ts = 0;

  bool operator==(const MarkerDelete&) const = default;
};

// The dot of the deletes a row kept before rows kept their deletes (a key marker of version 1, a
// horizon in decimal): the pre-mode dot (20 zero bytes, 1), as the observed-remove rule names
// data from before the mode (types/or_string_rows.h). No origin announces it, so it is never
// collected.
types::Dot PreModeMarkerDot();

// The deletes of a key marker or a horizon: per origin, each delete no other delete of that
// origin dominates (one at an offset and a T both at least its own covers every write it covers,
// and will be collected no sooner), ascending by (origin, offset). Add is the join of a
// semilattice, so the set is the same whatever the order its deletes arrive in.
// Example: adding (A,2,T=5), (B,7,3), (A,3,4) keeps all three; then (A,4,6) leaves (A,4,6) and
// (B,7,3).
class MarkerDeletes {
 public:
  static constexpr int64_t kNothingDeleted = std::numeric_limits<int64_t>::min();

  // Joins `del` in; true when the set changed.
  bool Add(const MarkerDelete& del);
  // The greatest T held; kNothingDeleted for none.
  int64_t UpTo() const;
  const std::vector<MarkerDelete>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }

  bool operator==(const MarkerDeletes&) const = default;

 private:
  std::vector<MarkerDelete> entries_;
};
// on-disk: count:varint32 (origin:byte[20] offset:varint64 ts:fixed64-LE){count}, in the set's
// order.
void AppendMarkerDeletes(const MarkerDeletes& deletes, std::string* out);
// Consumes that form from the front of *input; false unless it is exactly a set as above (in
// order, none dominated, varints in their shortest form).
bool ConsumeMarkerDeletes(std::string_view* input, MarkerDeletes* deletes);

}  // namespace ebb::server
