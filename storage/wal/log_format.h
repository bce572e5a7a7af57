// The log file framing shared by WAL files (*.log) and the manifest (MANIFEST-*), after LevelDB.
// Full description: docs/wal-format.md.
//
//   file     = block* [partial block]
//   block    = record* [trailer]          (kBlockSize bytes; the trailer is < kHeaderSize zeros)
//   record   = checksum:fixed32 length:fixed16 type:u8 data[length]
//   checksum = crc32c::Mask(crc32c(type, data))
//
// A logical record too big for the rest of a block is split into FIRST, MIDDLE..., LAST
// fragments, one per block; one that fits is a single FULL record.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ebb::storage::log {

// on-disk: never change.
enum class RecordType : uint8_t {
  kZero = 0,  // reserved: what a zero-filled (preallocated or torn) region reads as
  kFull = 1,
  kFirst = 2,
  kMiddle = 3,
  kLast = 4,
};
inline constexpr uint8_t kMaxRecordType = 4;

inline constexpr size_t kBlockSize = 32768;
// checksum (4) + length (2) + type (1)
inline constexpr size_t kHeaderSize = 4 + 2 + 1;

}  // namespace ebb::storage::log
