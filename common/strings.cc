#include "common/strings.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace ebb {

namespace {

// string2ld's rules around a strtod-family parse.
template <typename Float, Float (*kParse)(const char*, char**)>
bool ParseFloat(std::string_view text, Float* value) {
  if (text.empty() || text.size() > 5 * 1024 || text[0] == ' ' ||
      (text[0] >= '\t' && text[0] <= '\r')) {
    return false;
  }
  const std::string copy(text);  // strtod needs a terminated string
  errno = 0;
  char* end = nullptr;
  const Float v = kParse(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || errno == ERANGE || std::isnan(v)) return false;
  *value = v;
  return true;
}

}  // namespace

namespace strings_internal {

// Eight digits a step (where loads are little-endian) while v * 10^8 + 99999999 stays within
// uint64, then one digit a step, checked.
bool ParseManyDigits(std::string_view text, uint64_t* value) {
  const char* p = text.data();
  size_t left = text.size();
  uint64_t v = 0;
  if constexpr (std::endian::native == std::endian::little) {
    constexpr uint64_t kEightFit = (std::numeric_limits<uint64_t>::max() - 99999999) / 100000000;
    for (uint64_t eight = 0; left >= 8 && v <= kEightFit; p += 8, left -= 8) {
      if (!EightDigits(p, &eight)) return false;
      v = v * 100000000 + eight;
    }
  }
  for (; left > 0; ++p, --left) {
    const auto digit = static_cast<uint64_t>(static_cast<unsigned char>(*p) - '0');
    if (digit > 9) return false;
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, digit, &v)) return false;
  }
  *value = v;
  return true;
}

}  // namespace strings_internal

bool ParseDouble(std::string_view text, double* value) {
  return ParseFloat<double, std::strtod>(text, value);
}

bool ParseLongDouble(std::string_view text, long double* value) {
  return ParseFloat<long double, std::strtold>(text, value);
}

std::string AsciiLower(std::string_view text) {
  std::string out(text);
  AsciiLowerInPlace(&out);
  return out;
}

std::string AsciiUpper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = AsciiUpper(c);
  return out;
}

}  // namespace ebb
