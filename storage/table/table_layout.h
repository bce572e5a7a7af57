// Names of an SST's meta blocks in its metaindex (docs/sst-format.md). on-disk: never change.
#pragma once

namespace ebb::storage {

inline constexpr char kBloomFilterBlockName[] = "ebb.filter.bloom";
inline constexpr char kPropertiesBlockName[] = "ebb.properties";

}  // namespace ebb::storage
