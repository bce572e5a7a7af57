// KeyRange: the user keys [begin, end), bytewise — what DB::DeleteRange deletes and what the
// compaction filter names when rows depend on another row.
// Thread-safety: a value type.
#pragma once

#include <string>
#include <string_view>

namespace ebb::storage {

struct KeyRange {
  std::string begin;
  std::string end;
  bool Contains(std::string_view user_key) const;
  // True when the keys [smallest, largest] (both inclusive) meet the range.
  bool Overlaps(std::string_view smallest, std::string_view largest) const;
  // True when every key in [smallest, largest] is in the range.
  bool Covers(std::string_view smallest, std::string_view largest) const;
  bool operator==(const KeyRange&) const = default;
};

}  // namespace ebb::storage
