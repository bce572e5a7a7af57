#include "storage/key_range.h"

#include "storage/format/internal_key.h"

namespace ebb::storage {

bool KeyRange::Contains(std::string_view user_key) const {
  return CompareUserKeys(user_key, begin) >= 0 && CompareUserKeys(user_key, end) < 0;
}

bool KeyRange::Overlaps(std::string_view smallest, std::string_view largest) const {
  return CompareUserKeys(largest, begin) >= 0 && CompareUserKeys(smallest, end) < 0;
}

bool KeyRange::Covers(std::string_view smallest, std::string_view largest) const {
  return CompareUserKeys(smallest, begin) >= 0 && CompareUserKeys(largest, end) < 0;
}

}  // namespace ebb::storage
