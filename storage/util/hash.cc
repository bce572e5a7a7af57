#include "storage/util/hash.h"

#include "storage/util/coding.h"

namespace ebb::storage {

uint32_t Hash(const char* data, size_t n, uint32_t seed) {
  constexpr uint32_t m = 0xc6a4a793;
  constexpr uint32_t r = 24;
  const char* limit = data + n;
  uint32_t h = seed ^ static_cast<uint32_t>(n * m);
  while (data + 4 <= limit) {
    const uint32_t w = DecodeFixed32(data);
    data += 4;
    h += w;
    h *= m;
    h ^= (h >> 16);
  }
  switch (limit - data) {
    case 3:
      h += static_cast<uint32_t>(static_cast<uint8_t>(data[2])) << 16;
      [[fallthrough]];
    case 2:
      h += static_cast<uint32_t>(static_cast<uint8_t>(data[1])) << 8;
      [[fallthrough]];
    case 1:
      h += static_cast<uint32_t>(static_cast<uint8_t>(data[0]));
      h *= m;
      h ^= (h >> r);
      break;
  }
  return h;
}

uint64_t Hash64(const char* data, size_t n) {
  constexpr uint64_t kMul = 0x9e3779b97f4a7c15ULL;
  uint64_t h = (n + 1) * kMul;
  auto mix = [&h](uint64_t word) {
    h = (h ^ word) * kMul;
    h ^= h >> 32;
  };
  for (; n >= 8; data += 8, n -= 8) mix(DecodeFixed64(data));
  // The 1 to 7 bytes left, in one word: two overlapping 4-byte loads from 4 bytes on, else the
  // first, middle and last byte (the lengths already differ in h).
  if (n >= 4) {
    mix(DecodeFixed32(data) | uint64_t{DecodeFixed32(data + n - 4)} << 32);
  } else if (n > 0) {
    mix(uint64_t{static_cast<uint8_t>(data[0])} | uint64_t{static_cast<uint8_t>(data[n / 2])} << 8 |
        uint64_t{static_cast<uint8_t>(data[n - 1])} << 16);
  }
  h *= kMul;
  return h ^ (h >> 29);
}

}  // namespace ebb::storage
