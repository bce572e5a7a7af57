// A compaction rule between active-active peers (docs/active-active.md, "Time series", "Rules"):
// one last-writer-wins register per destination series, by stamp (ms, origin id) as the
// settings register (types/series_merge.h). TS.CREATERULE writes it naming its source and the
// rule, TS.DELETERULE writes it naming none; the greater stamp wins whole, so two concurrent
// TS.CREATERULEs to one destination leave it one source on every node, and a TS.DELETERULE
// concurrent with a TS.CREATERULE ends as the later of the two.
//
// Encoding (docs/key-encoding.md, "Active-active series"), little-endian:
//   SeriesRuleRegister = version:u8 (1 or 2) ms:fixed64 origin:length-prefixed
//                        present:u8 (0 or 1)
//                        [source:length-prefixed aggregator:u8 bucket_ms:varint64
//                         align:varint64 [floor:varint64 (version 2 only, > 0)]]
//                                                                     (only when present)
// A register with floor 0 is written as version 1, byte for byte as before floors existed.
// Thread-safety: plain values and functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "types/series_codec.h"

namespace ebb::types {

struct SeriesRuleRegister {
  int64_t ms = 0;
  std::string origin;
  bool present = false;  // false: the destination has no rule (TS.DELETERULE)
  std::string source;    // present only: the source series
  SeriesRule rule;       // present only; rule.dest is the register's key, not encoded
  // present only: the rule reads only the source's samples at or above it (the source's window
  // floor where TS.CREATERULE ran, so every node computes the destination from the same samples
  // whatever some of them purged below it; docs/active-active.md, "Rules"). >= 0.
  int64_t floor = 0;

  // The register order made total: (ms, origin), then the encoding.
  bool Below(const SeriesRuleRegister& other) const;
  bool operator==(const SeriesRuleRegister&) const = default;
};

std::string EncodeSeriesRuleRegister(const SeriesRuleRegister& reg);
// False when `in` is malformed: another version, an unknown aggregator, a bucket of 0 or above
// 2^63-1, an align above 2^63-1, a version 2 floor of 0 or above 2^63-1, trailing bytes. `dest`
// becomes reg->rule.dest.
bool DecodeSeriesRuleRegister(std::string_view in, std::string_view dest, SeriesRuleRegister* reg);

}  // namespace ebb::types
