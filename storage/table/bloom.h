// Bloom filter over user keys, one per SST (the "filter" meta block). Two encodings, told apart
// by the filter's last byte (docs/sst-format.md, "Bloom filter"):
//
// - Cache-local (written): every probe of a key falls in one 64-byte block, so a lookup costs
//   one cache line of the filter, not one per probe.
//     filter = block[nblocks][64] k:u8 0x40
//   nblocks = ceil(max(n * bits_per_key, 512) / 512). h = Hash64(user_key) (util/hash.h); the
//   block is (h >> 32) * nblocks >> 32; probe j (0 <= j < k) sets the bit given by the top 9
//   bits of (uint32_t)h * 0x9e3779b9^(j+1), bit b being byte b / 8's bit b % 8 within the block.
// - LevelDB's (read only, tables written before): k probes by double hashing from one 32-bit
//   hash (Hash with seed 0xbc9f1d34) across the whole bit array.
//     filter = bits[ceil(n * bits_per_key / 8), at least 8 bytes] k:u8
//
// k = floor(bits_per_key * 0.69) (~ ln 2), clamped to [1, 30]. Any other last byte above 30 is a
// format from the future and matches everything (as 0x40 did before the cache-local encoding).
// Thread-safety: BloomFilterBuilder is not thread-safe; BloomKeyMayMatch is a pure function.
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
  // The cache-local filter over every key added.
  std::string Finish() const;

 private:
  int bits_per_key_;
  int k_;
  std::vector<uint64_t> hashes_;
};

// False only if `user_key` was certainly not added to the filter that produced `filter` (either
// encoding). A malformed (too short) filter matches everything.
bool BloomKeyMayMatch(std::string_view filter, std::string_view user_key);

}  // namespace ebb::storage
