// Encodings of the time-series type (docs/key-encoding.md, "SERIES"): the metadata payload and a
// sample's sub-row. Kept apart from types/series.h so that the DUMP codec can use them.
// on-disk: never change.
// Thread-safety: pure functions and plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "types/sample_block.h"
#include "types/series_aggregate.h"

namespace ebb::types {

// on-disk: never change (a byte of the metadata payload). kUnset answers as BLOCK and TS.INFO
// shows it as nil, as RedisTimeSeries does for a series created without the option.
enum class DuplicatePolicy : uint8_t {
  kUnset = 0,
  kBlock = 1,
  kFirst = 2,
  kLast = 3,
  kMin = 4,
  kMax = 5,
  kSum = 6
};
// "block", "first", ... (TS.INFO); nullopt for kUnset.
std::optional<std::string_view> DuplicatePolicyName(DuplicatePolicy policy);
// The inverse, case-insensitive; nullopt if unknown.
std::optional<DuplicatePolicy> DuplicatePolicyFromName(std::string_view name);

// on-disk: never change. Kept and answered (TS.INFO chunkType); samples are stored alike.
enum class SeriesEncoding : uint8_t { kCompressed = 0, kUncompressed = 1 };

inline constexpr int64_t kMaxSeriesTimestamp = INT64_MAX;
inline constexpr uint64_t kDefaultChunkSize = 4096;

struct SeriesSettings {
  uint64_t retention_ms = 0;
  DuplicatePolicy duplicate_policy = DuplicatePolicy::kUnset;
  SeriesEncoding encoding = SeriesEncoding::kCompressed;
  uint64_t chunk_size = kDefaultChunkSize;
  std::vector<std::pair<std::string, std::string>> labels;  // in the order given
};

// A compaction rule (TS.CREATERULE), held by its source series: every finished bucket of the
// source goes to `dest` as its aggregate (types/series_rules.h).
struct SeriesRule {
  std::string dest;
  Aggregator aggregator = Aggregator::kAvg;
  int64_t bucket_ms = 1;  // > 0
  int64_t align = 0;      // >= 0
  bool operator==(const SeriesRule&) const = default;
};

// The metadata payload (after the type byte): varint64 version | varint64 retention |
// u8 duplicate_policy | u8 encoding | varint64 chunk_size | varint64 label count | (varint
// length-prefixed name, value)* | u8 has_newest | [fixed64-LE ts | fixed64-LE value bits] |
// fixed64-LE purged_below, then — only when the series has a source or rules, so a payload
// without them ends there, as every payload written before rules existed does — the rules
// extension: u8 kSeriesRulesExtension (1) | u8 has_source | [length-prefixed source key] |
// varint64 rule count | (length-prefixed dest key | u8 aggregator | varint64 bucket_ms |
// varint64 align)*.
struct SeriesMeta {
  uint64_t version = 0;
  SeriesSettings settings;
  std::optional<Sample> newest;       // the sample with the greatest timestamp; none when empty
  int64_t purged_below = 0;           // every sub-row with ts < this was range-deleted
  std::optional<std::string> source;  // the series whose rule feeds this one (TS.INFO sourceKey)
  std::vector<SeriesRule> rules;      // this series' rules, in creation order
};
inline constexpr uint8_t kSeriesRulesExtension = 1;
std::string EncodeSeriesMeta(const SeriesMeta& meta);
// False if malformed (trailing bytes included).
bool DecodeSeriesMeta(std::string_view payload, SeriesMeta* meta);
// A sample's sub-row element and value. Decode: false if malformed.
std::string SeriesElement(int64_t ts);
bool DecodeSeriesElement(std::string_view element, int64_t* ts);
std::string EncodeSampleValue(double value);
bool DecodeSampleValue(std::string_view bytes, double* value);

}  // namespace ebb::types
