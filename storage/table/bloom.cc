#include "storage/table/bloom.h"

#include <algorithm>

#include "storage/util/hash.h"

namespace ebb::storage {
namespace {

constexpr char kCacheLocalTag = 0x40;  // the last byte of a cache-local filter
constexpr size_t kBlockBytes = 64;
constexpr size_t kBlockBits = kBlockBytes * 8;
constexpr uint32_t kProbeMultiplier = 0x9e3779b9;
constexpr int kMaxProbes = 30;

uint64_t CacheLocalHash(std::string_view key) { return Hash64(key.data(), key.size()); }

// The first byte of the block a key's probes fall in, in a filter of `blocks` blocks.
size_t BlockOffset(uint64_t h, size_t blocks) {
  return static_cast<size_t>(((h >> 32) * blocks) >> 32) * kBlockBytes;
}

// Calls probe(bit) for each of the k bits within the block, bit < kBlockBits; stops early (and
// returns false) when probe does.
template <typename Probe>
bool ForEachProbe(uint64_t h, int k, Probe probe) {
  uint32_t x = static_cast<uint32_t>(h);
  for (int j = 0; j < k; ++j) {
    x *= kProbeMultiplier;
    if (!probe(x >> (32 - 9))) return false;
  }
  return true;
}

bool CacheLocalMayMatch(std::string_view filter, std::string_view user_key) {
  // block[nblocks][64] k 0x40
  if (filter.size() < kBlockBytes + 2 || (filter.size() - 2) % kBlockBytes != 0) return true;
  const int k = static_cast<uint8_t>(filter[filter.size() - 2]);
  if (k < 1 || k > kMaxProbes) return true;
  const uint64_t h = CacheLocalHash(user_key);
  const char* block = filter.data() + BlockOffset(h, (filter.size() - 2) / kBlockBytes);
  return ForEachProbe(h, k, [block](uint32_t bit) { return (block[bit / 8] >> (bit % 8)) & 1; });
}

bool LevelDbMayMatch(std::string_view filter, std::string_view user_key) {
  const size_t nbits = (filter.size() - 1) * 8;
  const int k = static_cast<uint8_t>(filter.back());
  uint32_t h = Hash(user_key.data(), user_key.size(), 0xbc9f1d34);
  const uint32_t delta = (h >> 17) | (h << 15);  // rotate right 17 bits
  for (int j = 0; j < k; ++j) {
    const size_t pos = h % nbits;
    if ((filter[pos / 8] & (1 << (pos % 8))) == 0) return false;
    h += delta;
  }
  return true;
}

}  // namespace

BloomFilterBuilder::BloomFilterBuilder(int bits_per_key) : bits_per_key_(bits_per_key) {
  // 0.69 =~ ln(2): the k that minimises the false positive rate.
  k_ = std::clamp(static_cast<int>(bits_per_key * 0.69), 1, kMaxProbes);
}

void BloomFilterBuilder::AddKey(std::string_view user_key) {
  hashes_.push_back(CacheLocalHash(user_key));
}

std::string BloomFilterBuilder::Finish() const {
  const size_t bits = std::max<size_t>(hashes_.size() * bits_per_key_, kBlockBits);
  const size_t blocks = (bits + kBlockBits - 1) / kBlockBits;
  std::string filter(blocks * kBlockBytes, '\0');
  for (const uint64_t h : hashes_) {
    char* block = filter.data() + BlockOffset(h, blocks);
    ForEachProbe(h, k_, [block](uint32_t bit) {
      block[bit / 8] = static_cast<char>(block[bit / 8] | (1 << (bit % 8)));
      return true;
    });
  }
  filter.push_back(static_cast<char>(k_));
  filter.push_back(kCacheLocalTag);
  return filter;
}

bool BloomKeyMayMatch(std::string_view filter, std::string_view user_key) {
  if (filter.size() < 2) return true;
  const uint8_t last = static_cast<uint8_t>(filter.back());
  if (last == static_cast<uint8_t>(kCacheLocalTag)) return CacheLocalMayMatch(filter, user_key);
  if (last < 1 || last > kMaxProbes) return true;  // a format from the future
  return LevelDbMayMatch(filter, user_key);
}

}  // namespace ebb::storage
