// Parsers and formatters for the units used by options and commands: durations and memory sizes.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ebb {

// Durations (docs/commands.md, "Conventions"): a plain non-negative integer of milliseconds
// ("1500"), or one or more <integer><unit> groups with units f (fortnight), w, d, h, m, s, ms
// ("2d7h32m", "90s", "1500ms"), or "unlimited" (-> -1). Units are case-sensitive lower case. No
// sign, no spaces, no empty input, no unit without a number, no overflow of int64 milliseconds.
// Returns false on anything else; the caller replies "ERR invalid duration '<text>'".
bool ParseDuration(std::string_view text, int64_t* ms);

// The canonical text of a duration: "unlimited" for any negative value, "0", otherwise groups
// of d, h, m, s, ms from the largest down, e.g. 1500 -> "1s500ms", 90000 -> "1m30s",
// 86400000 -> "1d". ParseDuration(FormatDuration(x)) == x for x >= 0.
std::string FormatDuration(int64_t ms);

// Redis memory units (config.c memtoull): a plain number of bytes, or a number followed by
// k (1000), kb (1024), m (1000^2), mb (1024^2), g (1000^3), gb (1024^3), case-insensitive.
// No sign, no fraction, no overflow. Returns false on anything else.
bool ParseMemorySize(std::string_view text, uint64_t* bytes);

// A memory size as Redis's CONFIG GET prints it: plain bytes ("4096").
std::string FormatMemorySize(uint64_t bytes);

}  // namespace ebb
