#include "storage/db/key_filter.h"

#include <functional>

namespace ebb::storage {
namespace {

uint64_t HashKey(std::string_view key) { return std::hash<std::string_view>{}(key); }

}  // namespace

KeyFilter::KeyFilter(size_t bits)
    : num_blocks_(bits / (kWordsPerBlock * 64) + 1),
      words_(new std::atomic<uint64_t>[num_blocks_ * kWordsPerBlock]()) {}

const std::atomic<uint64_t>* KeyFilter::Block(uint64_t hash) const {
  // The high half picks the block (multiply-shift: no division), the low half the bits.
  const uint64_t block = ((hash >> 32) * num_blocks_) >> 32;
  return &words_[block * kWordsPerBlock];
}

void KeyFilter::Add(std::string_view key) {
  const uint64_t hash = HashKey(key);
  auto* block = const_cast<std::atomic<uint64_t>*>(Block(hash));
  uint32_t h = static_cast<uint32_t>(hash);
  const uint32_t delta = (h >> 17) | (h << 15);
  for (int i = 0; i < kProbes; i++, h += delta) {
    const uint32_t bit = h & 511;
    std::atomic<uint64_t>& word = block[bit >> 6];  // one writer: no read-modify-write needed
    word.store(word.load(std::memory_order_relaxed) | (uint64_t{1} << (bit & 63)),
               std::memory_order_relaxed);
  }
}

bool KeyFilter::MayContain(std::string_view key) const {
  const uint64_t hash = HashKey(key);
  const std::atomic<uint64_t>* block = Block(hash);
  uint32_t h = static_cast<uint32_t>(hash);
  const uint32_t delta = (h >> 17) | (h << 15);
  for (int i = 0; i < kProbes; i++, h += delta) {
    const uint32_t bit = h & 511;
    if ((block[bit >> 6].load(std::memory_order_relaxed) & (uint64_t{1} << (bit & 63))) == 0) {
      return false;
    }
  }
  return true;
}

}  // namespace ebb::storage
