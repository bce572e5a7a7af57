#include "storage/db/file_regions.h"

#include <algorithm>

#include "storage/format/internal_key.h"

namespace ebb::storage {

FileRegions::FileRegions(std::vector<std::string> prefixes) : prefixes_(std::move(prefixes)) {
  std::sort(prefixes_.begin(), prefixes_.end());
}

size_t FileRegions::RegionOf(std::string_view user_key) const {
  for (size_t i = 0; i < prefixes_.size(); i++) {
    if (user_key.starts_with(prefixes_[i])) return 2 * i + 1;
    if (CompareUserKeys(user_key, prefixes_[i]) < 0) return 2 * i;
  }
  return 2 * prefixes_.size();
}

bool FileRegions::InsidePrefix(std::string_view smallest, std::string_view largest) const {
  const size_t region = RegionOf(smallest);
  return IsPrefixRegion(region) && RegionOf(largest) == region;
}

}  // namespace ebb::storage
