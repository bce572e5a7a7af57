// FileRegions: the key regions table files keep apart (Options::separate_file_prefixes).
//
// The prefixes, sorted, cut the user-key space into regions: region 2i + 1 is every key that
// starts with prefix i, region 2i the keys between prefix i - 1's range and prefix i's. A flush
// or compaction ends its output file wherever the next key's region differs from the file's, so
// a file written this way lies in one region. A file inside a prefix's region (keys written in
// order there, such as the active-active origin log) then overlaps no file of another region:
// it can move down the levels without a rewrite (PickFileMoves, compaction.h) and leave by a
// whole-file drop once a range deletion covers it. Such a file has no bloom filter: the keys
// under a separate prefix are scanned in order, not looked up one by one (a point read of one
// reads the block the index names), so the filter would cost its flush a hash per key and its
// table memory for good.
//
// With no prefixes there is one region, and nothing is cut or moved.
// Thread-safety: immutable after construction.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ebb::storage {

class FileRegions {
 public:
  FileRegions() = default;
  // REQUIRES: no prefix is empty or starts with another.
  explicit FileRegions(std::vector<std::string> prefixes);

  bool empty() const { return prefixes_.empty(); }
  size_t count() const { return 2 * prefixes_.size() + 1; }

  // The region `user_key` lies in, in [0, count()).
  size_t RegionOf(std::string_view user_key) const;
  // True for a prefix's region (the keys that start with it).
  static bool IsPrefixRegion(size_t region) { return region % 2 == 1; }
  // True when [smallest, largest] lies inside one prefix's region.
  bool InsidePrefix(std::string_view smallest, std::string_view largest) const;

 private:
  std::vector<std::string> prefixes_;  // sorted
};

}  // namespace ebb::storage
