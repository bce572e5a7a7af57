#include "storage/util/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#include <nmmintrin.h>
#endif

namespace ebb::storage::crc32c {
namespace {

constexpr uint32_t kPoly = 0x82f63b78u;

// Slicing-by-4 tables: table[k][b] is the crc contribution of byte b followed by k zero bytes.
constexpr std::array<std::array<uint32_t, 256>, 4> MakeTables() {
  std::array<std::array<uint32_t, 256>, 4> t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t crc = b;
    for (int i = 0; i < 8; ++i) crc = (crc >> 1) ^ ((crc & 1) ? kPoly : 0);
    t[0][b] = crc;
  }
  for (uint32_t b = 0; b < 256; ++b) {
    for (int k = 1; k < 4; ++k) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xff];
  }
  return t;
}

constexpr auto kTables = MakeTables();

#if defined(__x86_64__)
// The hardware path runs three crc32 instructions at once, over three stretches of kStride
// bytes (one instruction's latency is three times its throughput), then joins the three: the
// crc of A then B, from crc a of A, is Shift(a) ^ (the crc of B started from 0), where Shift
// feeds kStride zero bytes. Shift is linear, so it is four table lookups, one per byte of a:
// kShift[k][b] = Shift(b << 8k).
constexpr size_t kStride = 256;

constexpr std::array<std::array<uint32_t, 256>, 4> MakeShiftTables() {
  std::array<uint32_t, 32> bit{};  // Shift(1 << i)
  for (int i = 0; i < 32; ++i) {
    uint32_t crc = 1u << i;
    for (size_t z = 0; z < kStride; ++z) crc = (crc >> 8) ^ kTables[0][crc & 0xff];
    bit[i] = crc;
  }
  std::array<std::array<uint32_t, 256>, 4> t{};
  for (int k = 0; k < 4; ++k) {
    for (uint32_t b = 0; b < 256; ++b) {
      uint32_t v = 0;
      for (int i = 0; i < 8; ++i) {
        if (b & (1u << i)) v ^= bit[8 * k + i];
      }
      t[k][b] = v;
    }
  }
  return t;
}

constexpr auto kShift = MakeShiftTables();

inline uint32_t ShiftStride(uint32_t crc) {
  return kShift[0][crc & 0xff] ^ kShift[1][(crc >> 8) & 0xff] ^ kShift[2][(crc >> 16) & 0xff] ^
         kShift[3][crc >> 24];
}

inline uint64_t Load64(const unsigned char* p) {
  uint64_t word;
  std::memcpy(&word, p, 8);
  return word;
}
#endif

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t ExtendSse42(uint32_t init_crc, const char* data,
                                                       size_t n) {
  uint64_t crc = ~init_crc;
  const auto* p = reinterpret_cast<const unsigned char*>(data);
  while (n >= 3 * kStride) {
    uint64_t crc1 = 0, crc2 = 0;
    for (size_t i = 0; i < kStride; i += 8) {
      crc = _mm_crc32_u64(crc, Load64(p + i));
      crc1 = _mm_crc32_u64(crc1, Load64(p + kStride + i));
      crc2 = _mm_crc32_u64(crc2, Load64(p + 2 * kStride + i));
    }
    crc = ShiftStride(static_cast<uint32_t>(crc)) ^ crc1;
    crc = ShiftStride(static_cast<uint32_t>(crc)) ^ crc2;
    p += 3 * kStride;
    n -= 3 * kStride;
  }
  while (n >= 8) {
    crc = _mm_crc32_u64(crc, Load64(p));
    p += 8;
    n -= 8;
  }
  uint32_t crc32 = static_cast<uint32_t>(crc);
  while (n-- > 0) crc32 = _mm_crc32_u8(crc32, *p++);
  return ~crc32;
}

bool CpuHasSse42() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (ecx & bit_SSE4_2) != 0;
}
#endif

}  // namespace

uint32_t ExtendPortable(uint32_t init_crc, const char* data, size_t n) {
  uint32_t crc = ~init_crc;
  const auto* p = reinterpret_cast<const unsigned char*>(data);
  while (n >= 4) {
    uint32_t word;
    std::memcpy(&word, p, 4);  // little-endian hosts only (as the rest of the format)
    crc ^= word;
    crc = kTables[3][crc & 0xff] ^ kTables[2][(crc >> 8) & 0xff] ^ kTables[1][(crc >> 16) & 0xff] ^
          kTables[0][crc >> 24];
    p += 4;
    n -= 4;
  }
  while (n-- > 0) crc = (crc >> 8) ^ kTables[0][(crc ^ *p++) & 0xff];
  return ~crc;
}

uint32_t Extend(uint32_t init_crc, const char* data, size_t n) {
#if defined(__x86_64__)
  static const bool kHardware = CpuHasSse42();
  if (kHardware) return ExtendSse42(init_crc, data, n);
#endif
  return ExtendPortable(init_crc, data, n);
}

}  // namespace ebb::storage::crc32c
