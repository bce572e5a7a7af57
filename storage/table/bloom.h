// Bloom filter over user keys, one per SST (the "filter" meta block), after LevelDB's:
// k probes derived by double hashing from one 32-bit hash (util/hash.h, seed 0xbc9f1d34).
//
//   filter = bits[ceil(n * bits_per_key / 8), at least 8 bytes] k:u8
// k = floor(bits_per_key * 0.69) (~ ln 2), clamped to [1, 30]. A filter whose k byte is > 30 is a
// format from the future and matches everything. Thread-safety: BloomFilterBuilder is not
// thread-safe; BloomKeyMayMatch is a pure function.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ebb::storage {

class BloomFilterBuilder {
 public:
  // REQUIRES: bits_per_key > 0.
  explicit BloomFilterBuilder(int bits_per_key);

  // Adding the same key twice is harmless.
  void AddKey(std::string_view user_key);
  size_t num_keys() const { return hashes_.size(); }
  // The encoded filter over every key added.
  std::string Finish() const;

 private:
  int bits_per_key_;
  int k_;
  std::vector<uint32_t> hashes_;
};

// False only if `user_key` was certainly not added to the filter that produced `filter`.
// A malformed (too short) filter matches everything.
bool BloomKeyMayMatch(std::string_view filter, std::string_view user_key);

}  // namespace ebb::storage
