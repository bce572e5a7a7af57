// Text helpers every layer shares: Redis's number parsing and ASCII case folding.
//
// Each is the one implementation in ebb; the protocol parser, the command arguments, the option
// table and the types all call these. Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace ebb {

// One or more decimal digits and nothing else (no sign, spaces or '+'), leading zeros allowed,
// within uint64: TLOG/TREG logical timestamps and counts, which redis-benchmark's __rand_int__
// sends zero-padded. Returns false otherwise and leaves *value unchanged.
inline bool ParseDigits(std::string_view text, uint64_t* value) {
  if (text.empty()) return false;
  // Nineteen digits stay below 10^19 < 2^64: only a longer text needs the overflow check, so
  // the usual number (a timestamp, an offset, a count) costs a compare and a multiply a digit.
  constexpr size_t kDigitsThatFit = 19;
  uint64_t v = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto digit = static_cast<uint64_t>(static_cast<unsigned char>(text[i]) - '0');
    if (digit > 9) return false;
    if (i >= kDigitsThatFit && v > (std::numeric_limits<uint64_t>::max() - digit) / 10) {
      return false;  // overflow
    }
    v = v * 10 + digit;
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

// ASCII case-insensitive equality.
inline bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

}  // namespace ebb
