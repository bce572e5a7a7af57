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
