// libFuzzer target for the duration and memory-size parsers (common/units.h).
//
// Each input is checked against a slow reference parser written from the documented grammar
// (128-bit arithmetic, so overflow is decided exactly): both must accept the same texts with the
// same values. Every accepted non-negative duration must survive FormatDuration -> ParseDuration,
// and FormatDuration of any value must parse back to it.
// Build and run: `make fuzz-smoke` or `make fuzz`.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>

#include "common/units.h"

namespace {

using ebb::FormatDuration;
using ebb::ParseDuration;
using ebb::ParseMemorySize;

void Check(bool ok, const char* what, std::string_view text) {
  if (!ok) {
    fprintf(stderr, "invariant violated: %s (input '%.*s')\n", what, static_cast<int>(text.size()),
            text.data());
    abort();
  }
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Reads digits at text[*pos...]; false if none. Saturates far above any valid value.
bool RefNumber(std::string_view text, size_t* pos, __int128* value) {
  const size_t start = *pos;
  __int128 v = 0;
  const __int128 cap = static_cast<__int128>(1) << 70;
  while (*pos < text.size() && IsDigit(text[*pos])) {
    v = v * 10 + (text[*pos] - '0');
    if (v > cap) v = cap;
    ++*pos;
  }
  *value = v;
  return *pos > start;
}

bool RefDuration(std::string_view text, int64_t* ms) {
  constexpr __int128 kMax = std::numeric_limits<int64_t>::max();
  if (text == "unlimited") {
    *ms = -1;
    return true;
  }
  size_t pos = 0;
  __int128 number = 0;
  if (!RefNumber(text, &pos, &number)) return false;
  if (number > kMax) return false;
  if (pos == text.size()) {
    *ms = static_cast<int64_t>(number);
    return true;
  }
  __int128 total = 0;
  for (;;) {
    __int128 per = 0;
    const std::string_view rest = text.substr(pos);
    if (rest.starts_with("ms")) {
      per = 1, pos += 2;
    } else if (rest.starts_with("f")) {
      per = 14 * 86400000LL, pos += 1;
    } else if (rest.starts_with("w")) {
      per = 7 * 86400000LL, pos += 1;
    } else if (rest.starts_with("d")) {
      per = 86400000LL, pos += 1;
    } else if (rest.starts_with("h")) {
      per = 3600000LL, pos += 1;
    } else if (rest.starts_with("m")) {
      per = 60000LL, pos += 1;
    } else if (rest.starts_with("s")) {
      per = 1000LL, pos += 1;
    } else {
      return false;
    }
    total += number * per;
    if (total > kMax) return false;
    if (pos == text.size()) break;
    if (!RefNumber(text, &pos, &number) || number > kMax || pos == text.size()) return false;
  }
  *ms = static_cast<int64_t>(total);
  return true;
}

bool RefMemory(std::string_view text, uint64_t* bytes) {
  size_t pos = 0;
  __int128 number = 0;
  if (!RefNumber(text, &pos, &number)) return false;
  std::string unit;
  for (char c : text.substr(pos)) unit.push_back(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  __int128 mul = 0;
  if (unit.empty() || unit == "b") mul = 1;
  if (unit == "k") mul = 1000;
  if (unit == "kb") mul = 1024;
  if (unit == "m") mul = 1000 * 1000;
  if (unit == "mb") mul = 1024 * 1024;
  if (unit == "g") mul = 1000 * 1000 * 1000;
  if (unit == "gb") mul = 1024LL * 1024 * 1024;
  if (mul == 0) return false;
  const __int128 v = number * mul;
  if (v > static_cast<__int128>(std::numeric_limits<uint64_t>::max())) return false;
  *bytes = static_cast<uint64_t>(v);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  const int64_t any = fdp.ConsumeIntegral<int64_t>();
  const std::string text = fdp.ConsumeRemainingBytesAsString();

  int64_t ms = 12345, ref_ms = 12345;
  const bool ok = ParseDuration(text, &ms);
  Check(ok == RefDuration(text, &ref_ms), "ParseDuration accepts differently", text);
  if (ok) {
    Check(ms == ref_ms, "ParseDuration value differs from the grammar", text);
    Check(ms >= -1, "ParseDuration produced a negative value other than -1", text);
    int64_t again = 0;
    Check(ParseDuration(FormatDuration(ms), &again) && again == ms,
          "FormatDuration does not parse back", text);
  }

  uint64_t bytes = 777, ref_bytes = 777;
  const bool mem_ok = ParseMemorySize(text, &bytes);
  Check(mem_ok == RefMemory(text, &ref_bytes), "ParseMemorySize accepts differently", text);
  if (mem_ok) Check(bytes == ref_bytes, "ParseMemorySize value differs", text);

  const std::string formatted = FormatDuration(any);
  int64_t back = 0;
  Check(ParseDuration(formatted, &back), "FormatDuration output does not parse", formatted);
  Check(back == (any < 0 ? -1 : any), "FormatDuration round trip changed the value", formatted);
  return 0;
}
