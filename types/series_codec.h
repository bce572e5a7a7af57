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
  // Creation only, not stored: the new series takes the window the TTL policy gives its key
  // instead of retention_ms (a command that names no RETENTION; docs/time-series.md, "Retention").
  bool retention_from_policy = false;
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
// varint64 align)*, then — only when the series has tail rows, so a payload written before tails
// existed decodes with none — the tail extension: u8 kSeriesTailExtension (2) | varint64
// tail_count (1 to kMaxSeriesBlockSamples - 1) | varint64 tail_from (<= 2^63-1), then — only
// when a retention purge marker was written, so a payload from before markers existed decodes
// with none — the purge extension: u8 kSeriesPurgeExtension (3) | varint64 purge_marked_until
// (1 to 2^63-1), then — only in active-active mode, once retention hid a sample there — the
// hidden extension: u8 kSeriesHiddenExtension (4) | varint64 count (1 to kMaxSeriesHidden) |
// (varint64 at_ms | varint64 floor)* (both ascending, floor >= 1), then — only in active-active
// mode, once the key took an expiry register — the register extension: u8
// kSeriesRegisterExtension (5) | fixed64-LE ts (int64) | u8 flags (bit 0: has expire_at, bit 1:
// settings_after; no other bit) | fixed64-LE expire_at (int64, 0 without one).
struct SeriesHidden {
  int64_t at_ms = 0;  // when the floor last reached `floor` (the node's clock)
  int64_t floor = 0;  // every sample below it was hidden at or before at_ms
  bool operator==(const SeriesHidden&) const = default;
};
inline constexpr size_t kMaxSeriesHidden = 16;
struct SeriesMeta {
  uint64_t version = 0;
  SeriesSettings settings;
  std::optional<Sample> newest;       // the sample with the greatest timestamp; none when empty
  int64_t purged_below = 0;           // every sub-row with ts < this was range-deleted
  std::optional<std::string> source;  // the series whose rule feeds this one (TS.INFO sourceKey)
  std::vector<SeriesRule> rules;      // this series' rules, in creation order
  uint64_t tail_count = 0;            // tail rows stored (below), < kMaxSeriesBlockSamples
  // With tail_count > 0: every block sample is below it, every tail sample at or above it (the
  // first tail sample's timestamp when the tail began). Tail rows a fold deleted all lie below
  // it, so readers start the tail there and never step over them.
  int64_t tail_from = 0;
  // The expiry (ms since the epoch) of the retention purge marker last written for this
  // incarnation, 0 for none: samples hidden before it are purged by the deadline through that
  // marker (types/series_purge.h).
  int64_t purge_marked_until = 0;
  // Active-active mode (types/series_purge.h, SeriesPurgeFloor): when retention hid what, so that
  // a hidden sample stays whole for half the purge deadline before compaction drops it.
  std::vector<SeriesHidden> hidden;
  // Active-active mode: the key's expiry register (docs/active-active.md, "Expiry changes"):
  // once expire_at has passed, the samples at or before ts are hidden (SeriesReadFloor); the
  // metadata row expires at expire_at while nothing keeps the key (SeriesKeyExpiry).
  struct ExpiryRegister {
    int64_t ts = 0;
    std::optional<int64_t> expire_at;  // nullopt: PERSIST
    // The series' settings register was stamped after ts and at or after expire_at (a TS.CREATE
    // or TS.ALTER made once the series had expired): it keeps the key, as a new series.
    bool settings_after = false;
    bool operator==(const ExpiryRegister&) const = default;
  };
  std::optional<ExpiryRegister> expiry_register;
};
inline constexpr uint8_t kSeriesRulesExtension = 1;
inline constexpr uint8_t kSeriesTailExtension = 2;
inline constexpr uint8_t kSeriesPurgeExtension = 3;
inline constexpr uint8_t kSeriesHiddenExtension = 4;
inline constexpr uint8_t kSeriesRegisterExtension = 5;
std::string EncodeSeriesMeta(const SeriesMeta& meta);
// False if malformed (trailing bytes included).
bool DecodeSeriesMeta(std::string_view payload, SeriesMeta* meta);
// A block sub-row's element: fixed64-BE of the block's first timestamp. Decode: false if
// malformed.
std::string SeriesElement(int64_t ts);
bool DecodeSeriesElement(std::string_view element, int64_t* ts);
// A tail row's element: 0xFF | fixed64-BE(ts) — after every block's element (whose first byte is
// at most 0x7F, ts being < 2^63), so an incarnation's tail rows sort after all its blocks, in
// timestamp order. Its value is EncodeSampleValue(value). Decode: false if malformed (not 9 bytes,
// not 0xFF first, ts above 2^63-1).
inline constexpr char kSeriesTailTag = '\xFF';
std::string SeriesTailElement(int64_t ts);
bool DecodeSeriesTailElement(std::string_view element, int64_t* ts);
// A double's 8 bytes (fixed64-LE of its bits), as DUMP's series body lists samples. Decode: false
// if malformed.
std::string EncodeSampleValue(double value);
bool DecodeSampleValue(std::string_view bytes, double* value);

// Samples are stored in blocks: sub-row element = SeriesElement(first ts), value = a SampleBlock
// (types/sample_block.h) of 1 or more samples in strictly ascending timestamp order, every one
// below the next block's first timestamp. A block is at most the bound below in bytes unless it
// holds a single sample, and holds at most kMaxSeriesBlockSamples samples (an add decodes and
// re-encodes one block: this bounds its work whatever the compression).
inline constexpr uint64_t kMinSeriesBlockBytes = 48;
inline constexpr uint64_t kMaxSeriesBlockBytes = 1048576;
inline constexpr size_t kMaxSeriesBlockSamples = 1024;
// The size bound of a series' blocks: its chunk_size, clamped to [48, 1048576] (a restored or
// hostile chunk_size never makes a block unbounded).
uint64_t SeriesBlockBound(uint64_t chunk_size);
struct SeriesBlock {
  int64_t first_ts = 0;
  std::string bytes;
};
// Packs ascending, distinct samples into blocks of at most `bound` bytes (a lone sample that
// alone exceeds it makes a block by itself) and kMaxSeriesBlockSamples samples each, filling each
// block before starting the next.
std::vector<SeriesBlock> PackSeriesBlocks(const std::vector<Sample>& samples, uint64_t bound);
// A block row's samples (appended to a cleared `samples`). False if malformed: not a SampleBlock,
// no sample, a first timestamp below `first_ts` (the block's key: its first sample's timestamp,
// or below it once a retention purge dropped the samples before the floor), timestamps not
// strictly ascending or above 2^63-1.
bool DecodeSeriesBlock(int64_t first_ts, std::string_view bytes, std::vector<Sample>* samples);
// Reads a block row as DecodeSeriesBlock does (false on the same faults) without keeping its
// samples: *writer goes on after its last sample (SampleBlockWriter::ContinueAfter), *last is
// that sample.
bool ContinueSeriesBlock(int64_t first_ts, std::string_view bytes, SampleBlockWriter* writer,
                         Sample* last);

}  // namespace ebb::types
