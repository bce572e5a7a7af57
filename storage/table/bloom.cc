#include "storage/table/bloom.h"

#include <algorithm>

#include "storage/util/hash.h"

namespace ebb::storage {
namespace {

uint32_t BloomHash(std::string_view key) { return Hash(key.data(), key.size(), 0xbc9f1d34); }

}  // namespace

BloomFilterBuilder::BloomFilterBuilder(int bits_per_key) : bits_per_key_(bits_per_key) {
  // 0.69 =~ ln(2): the k that minimises the false positive rate.
  k_ = std::clamp(static_cast<int>(bits_per_key * 0.69), 1, 30);
}

void BloomFilterBuilder::AddKey(std::string_view user_key) {
  hashes_.push_back(BloomHash(user_key));
}

std::string BloomFilterBuilder::Finish() const {
  // Small n would give a high false positive rate: use at least 64 bits.
  const size_t bits = std::max<size_t>(hashes_.size() * bits_per_key_, 64);
  const size_t bytes = (bits + 7) / 8;
  const size_t nbits = bytes * 8;
  std::string filter(bytes, '\0');
  for (uint32_t h : hashes_) {
    const uint32_t delta = (h >> 17) | (h << 15);  // rotate right 17 bits
    for (int j = 0; j < k_; ++j) {
      const size_t pos = h % nbits;
      filter[pos / 8] = static_cast<char>(filter[pos / 8] | (1 << (pos % 8)));
      h += delta;
    }
  }
  filter.push_back(static_cast<char>(k_));
  return filter;
}

bool BloomKeyMayMatch(std::string_view filter, std::string_view user_key) {
  if (filter.size() < 2) return true;
  const size_t nbits = (filter.size() - 1) * 8;
  const int k = static_cast<uint8_t>(filter.back());
  if (k > 30) return true;  // reserved for other encodings
  uint32_t h = BloomHash(user_key);
  const uint32_t delta = (h >> 17) | (h << 15);
  for (int j = 0; j < k; ++j) {
    const size_t pos = h % nbits;
    if ((filter[pos / 8] & (1 << (pos % 8))) == 0) return false;
    h += delta;
  }
  return true;
}

}  // namespace ebb::storage
