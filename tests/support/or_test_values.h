// Origin ids and contexts the tests of observed-remove states build them from
// (types/or_context.h).
#pragma once

#include <initializer_list>
#include <string>

#include "types/or_context.h"

namespace ebb::test {

// Three origins, in ascending order.
inline const types::OriginId kOriginA(std::string(types::kOriginIdSize, 'a'));
inline const types::OriginId kOriginB(std::string(types::kOriginIdSize, 'b'));
inline const types::OriginId kOriginC(std::string(types::kOriginIdSize, 'c'));

// The context that names `dots`.
inline types::OrContext ContextOf(std::initializer_list<types::Dot> dots) {
  types::OrContext c;
  for (const types::Dot& d : dots) c.Raise(d.origin, d.offset);
  return c;
}

}  // namespace ebb::test
