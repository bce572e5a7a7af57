// CRC-32C (Castagnoli polynomial 0x1EDC6F41, reflected 0x82F63B78), as used by every checksum in
// ebb's files: WAL/manifest records and SST block trailers.
//
// Uses the SSE4.2 crc32 instruction when the CPU has it (checked once at run time), else a
// table-driven software version; both give identical results. Thread-safe (pure functions).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ebb::storage::crc32c {

// The crc of concat(A, data[0, n)) where init_crc is the crc of some string A.
uint32_t Extend(uint32_t init_crc, const char* data, size_t n);
// The software implementation, exposed so tests can compare it with the hardware one.
uint32_t ExtendPortable(uint32_t init_crc, const char* data, size_t n);

inline uint32_t Value(const char* data, size_t n) { return Extend(0, data, n); }
inline uint32_t Value(std::string_view data) { return Extend(0, data.data(), data.size()); }

// Storing the crc of a string that itself contains crcs weakens the check, so stored crcs are
// masked (LevelDB's scheme): rotate right by 15 bits, then add a constant.
inline constexpr uint32_t kMaskDelta = 0xa282ead8u;
inline uint32_t Mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + kMaskDelta; }
inline uint32_t Unmask(uint32_t masked) {
  const uint32_t rot = masked - kMaskDelta;
  return (rot >> 17) | (rot << 15);
}

}  // namespace ebb::storage::crc32c
