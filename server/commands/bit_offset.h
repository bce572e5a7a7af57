// A bit offset argument of SETBIT, GETBIT and BITFIELD, read as Redis's getBitOffsetFromArgument:
// a decimal integer, or for BITFIELD "#N", the N-th field of its width (N * bits); not negative,
// and its byte below proto-max-bulk-len. Anything else is kBitOffset's error.
// Pure function; thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/strings.h"

namespace ebb::server {

// `field_bits`: the BITFIELD type's width, which allows the "#N" form; 0 for SETBIT/GETBIT.
// False when the text is not a valid offset.
inline bool ParseBitOffset(std::string_view text, int field_bits, uint64_t max_bytes,
                           uint64_t* offset) {
  const bool indexed = field_bits > 0 && !text.empty() && text.front() == '#';
  if (indexed) text.remove_prefix(1);
  int64_t value = 0;
  if (!ParseInt64(text, &value)) return false;
  if (indexed && __builtin_mul_overflow(value, int64_t{field_bits}, &value)) return false;
  if (value < 0 || static_cast<uint64_t>(value >> 3) >= max_bytes) return false;
  *offset = static_cast<uint64_t>(value);
  return true;
}

}  // namespace ebb::server
