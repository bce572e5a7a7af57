// Text helpers every layer shares: Redis's number parsing and ASCII case folding.
//
// Each is the one implementation in ebb; the protocol parser, the command arguments, the option
// table and the types all call these. Pure functions; thread-safe.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

namespace ebb {

namespace strings_internal {

// Whether the 8 bytes of `chunk` (loaded little-endian: the first byte the lowest) are all decimal
// digits, and their value (the first the most significant) in *value.
inline bool EightDigitsOf(uint64_t chunk, uint64_t* value) {
  // Each byte 0x30..0x39: its high nibble 3, and still 3 after adding 6 (0x3A and above carry).
  constexpr uint64_t kHigh = 0xF0F0F0F0F0F0F0F0ULL;
  if (((chunk & kHigh) | (((chunk + 0x0606060606060606ULL) & kHigh) >> 4)) !=
      0x3333333333333333ULL) {
    return false;
  }
  // Pairs, then fours, then all eight: each step multiplies the earlier (lower) lane by 10, 100
  // or 10000 and adds the later one, the first digit being in the lowest byte.
  chunk = ((chunk & 0x0F0F0F0F0F0F0F0FULL) * 2561) >> 8;
  chunk = ((chunk & 0x00FF00FF00FF00FFULL) * 6553601) >> 16;
  *value = ((chunk & 0x0000FFFF0000FFFFULL) * 42949672960001ULL) >> 32;
  return true;
}

// The 8 bytes at `p` as EightDigitsOf reads them. Little-endian loads only (ParseDigits asks
// nothing of it elsewhere).
inline bool EightDigits(const char* p, uint64_t* value) {
  uint64_t chunk;
  std::memcpy(&chunk, p, sizeof(chunk));
  return EightDigitsOf(chunk, value);
}

// The last `n` (1 to 7) of the 8 bytes at `p` as digits, the bytes before them read as '0's:
// the end of a text whose earlier bytes were read already, in one load.
inline bool LastDigits(const char* p, size_t n, uint64_t* value) {
  uint64_t chunk;
  std::memcpy(&chunk, p, sizeof(chunk));
  const uint64_t kept = ~uint64_t{0} << (8 * (8 - n));  // the last n bytes are the highest
  return EightDigitsOf((chunk & kept) | (0x3030303030303030ULL & ~kept), value);
}

// 10^n, for the n digits LastDigits reads.
inline constexpr uint64_t kPowersOfTen[8] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};

// ParseDigits for a text of 20 digits or more (leading zeros), or of 8 or more where loads are not
// little-endian: every step checked for overflow (strings.cc).
bool ParseManyDigits(std::string_view text, uint64_t* value);

}  // namespace strings_internal

// One or more decimal digits and nothing else (no sign, spaces or '+'), leading zeros allowed,
// within uint64: TLOG/TREG logical timestamps and counts, which redis-benchmark's __rand_int__
// sends zero-padded. Returns false otherwise and leaves *value unchanged.
// Up to 19 digits nothing can overflow (10^19 - 1 < 2^64): fewer than 8 one digit a step, 8 to 19
// eight a step and the last 1 to 7 from the 8 bytes that end the text (a timestamp in ms or ns, an
// offset, redis-benchmark's 12 digits: two or three steps).
inline bool ParseDigits(std::string_view text, uint64_t* value) {
  const char* p = text.data();
  size_t left = text.size();
  if (left == 0) return false;
  uint64_t v = 0;
  if (left < 8) {
    for (; left > 0; ++p, --left) {
      const auto digit = static_cast<uint64_t>(static_cast<unsigned char>(*p) - '0');
      if (digit > 9) return false;
      v = v * 10 + digit;
    }
    *value = v;
    return true;
  }
  if (left > 19 || std::endian::native != std::endian::little) {
    return strings_internal::ParseManyDigits(text, value);
  }
  for (uint64_t eight = 0; left >= 8; p += 8, left -= 8) {
    if (!strings_internal::EightDigits(p, &eight)) return false;
    v = v * 100000000 + eight;
  }
  if (left > 0) {
    uint64_t rest = 0;
    if (!strings_internal::LastDigits(p + left - 8, left, &rest)) return false;
    v = v * strings_internal::kPowersOfTen[left] + rest;
  }
  *value = v;
  return true;
}

// Decimal digits only (no sign, no leading zero unless "0"), within uint64.
inline bool ParseUint64(std::string_view text, uint64_t* value) {
  if (!text.empty() && text[0] == '0' && text.size() > 1) return false;
  return ParseDigits(text, value);
}

// Redis's string2ll: an optional '-', then decimal digits with no leading zero ("0" alone is
// fine; "-0", "+1", " 1", "01", "" are not), within int64. Returns false otherwise and leaves
// *value unchanged.
inline bool ParseInt64(std::string_view text, int64_t* value) {
  const bool negative = !text.empty() && text[0] == '-';
  if (negative) {
    text.remove_prefix(1);
    if (text == "0") return false;  // string2ll rejects "-0"
  }
  uint64_t magnitude = 0;
  if (!ParseUint64(text, &magnitude)) return false;
  constexpr uint64_t kMaxPositive = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (magnitude > kMaxPositive + (negative ? 1 : 0)) return false;
  *value = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  return true;
}

// Redis's string2ld-based float parsing (INCRBYFLOAT, DEBUG SLEEP): no leading space, the whole
// text consumed, no overflow, not NaN.
bool ParseDouble(std::string_view text, double* value);
// The same rules in long double (INCRBYFLOAT's arithmetic, as Redis).
bool ParseLongDouble(std::string_view text, long double* value);

// ASCII case folding; other bytes are unchanged.
inline char AsciiLower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}
inline char AsciiUpper(char c) {
  return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
}
std::string AsciiLower(std::string_view text);
std::string AsciiUpper(std::string_view text);
// *text folded where it stands: no copy, no allocation.
inline void AsciiLowerInPlace(std::string* text) {
  for (char& c : *text) c = AsciiLower(c);
}

// a == b, inline: where b is a constant, its bytes compare in a load or two. (A string_view's ==
// calls an out-of-line compare on this compiler whenever the sizes match, the common case on a
// hot path that checks a word it expects.)
inline bool SameBytes(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), b.size()) == 0;
}

// *out = bytes, keeping *out's buffer when it is large enough, as assign does — through append,
// which on this library copies with a capacity check where assign's general replace first
// weighs overlaps: about a fifth of the instructions for a short string. REQUIRES: `bytes` does
// not view *out.
inline void AssignBytes(std::string* out, std::string_view bytes) {
  out->clear();
  out->append(bytes.data(), bytes.size());
}

// ASCII case-insensitive equality.
inline bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

}  // namespace ebb
