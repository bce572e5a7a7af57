#include "common/units.h"

#include <array>
#include <limits>

namespace ebb {

namespace {

struct Unit {
  std::string_view name;
  int64_t ms;
};

// Longest names first where one is a prefix of another ("ms" before "m").
constexpr std::array<Unit, 7> kUnits = {{{"f", 14 * 86400000LL},
                                         {"w", 7 * 86400000LL},
                                         {"d", 86400000LL},
                                         {"h", 3600000LL},
                                         {"ms", 1},
                                         {"m", 60000LL},
                                         {"s", 1000LL}}};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Reads the digits at text[*pos...] into *value; false if none or on overflow.
bool ReadNumber(std::string_view text, size_t* pos, uint64_t max, uint64_t* value) {
  size_t start = *pos;
  uint64_t v = 0;
  while (*pos < text.size() && IsDigit(text[*pos])) {
    uint64_t digit = static_cast<uint64_t>(text[*pos] - '0');
    if (v > (max - digit) / 10) return false;
    v = v * 10 + digit;
    ++*pos;
  }
  *value = v;
  return *pos > start;
}

}  // namespace

bool ParseDuration(std::string_view text, int64_t* ms) {
  if (text == "unlimited") {
    *ms = -1;
    return true;
  }
  constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  size_t pos = 0;
  uint64_t number = 0;
  if (!ReadNumber(text, &pos, kMax, &number)) return false;
  if (pos == text.size()) {  // a plain number of milliseconds
    *ms = static_cast<int64_t>(number);
    return true;
  }
  uint64_t total = 0;
  while (true) {
    const Unit* unit = nullptr;
    for (const Unit& u : kUnits) {
      if (text.substr(pos, u.name.size()) == u.name) {
        unit = &u;
        break;
      }
    }
    if (unit == nullptr) return false;
    pos += unit->name.size();
    const uint64_t per = static_cast<uint64_t>(unit->ms);
    if (number > kMax / per) return false;
    const uint64_t part = number * per;
    if (total > kMax - part) return false;
    total += part;
    if (pos == text.size()) break;
    if (!ReadNumber(text, &pos, kMax, &number)) return false;
    if (pos == text.size()) return false;  // a trailing number without unit
  }
  *ms = static_cast<int64_t>(total);
  return true;
}

std::string FormatDuration(int64_t ms) {
  if (ms < 0) return "unlimited";
  if (ms == 0) return "0";
  static constexpr std::array<Unit, 5> kFormatUnits = {
      {{"d", 86400000LL}, {"h", 3600000LL}, {"m", 60000LL}, {"s", 1000LL}, {"ms", 1}}};
  std::string out;
  for (const Unit& u : kFormatUnits) {
    if (ms >= u.ms) {
      out += std::to_string(ms / u.ms);
      out += u.name;
      ms %= u.ms;
    }
  }
  return out;
}

bool ParseMemorySize(std::string_view text, uint64_t* bytes) {
  size_t pos = 0;
  uint64_t number = 0;
  if (!ReadNumber(text, &pos, std::numeric_limits<uint64_t>::max(), &number)) return false;
  std::string unit;
  for (char c : text.substr(pos)) {
    unit.push_back((c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c);
  }
  uint64_t mul = 0;
  if (unit.empty() || unit == "b") {
    mul = 1;
  } else if (unit == "k") {
    mul = 1000;
  } else if (unit == "kb") {
    mul = 1024;
  } else if (unit == "m") {
    mul = 1000ull * 1000;
  } else if (unit == "mb") {
    mul = 1024ull * 1024;
  } else if (unit == "g") {
    mul = 1000ull * 1000 * 1000;
  } else if (unit == "gb") {
    mul = 1024ull * 1024 * 1024;
  } else {
    return false;
  }
  if (number > std::numeric_limits<uint64_t>::max() / mul) return false;
  *bytes = number * mul;
  return true;
}

std::string FormatMemorySize(uint64_t bytes) { return std::to_string(bytes); }

}  // namespace ebb
