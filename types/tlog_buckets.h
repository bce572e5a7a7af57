// Buckets of a TLOG range (TLOG RANGE ... AGGREGATION): the entries of a log grouped by the
// bucket their timestamp falls in, the way TS.RANGE groups a series' samples
// (types/series_aggregate.h), over the log's unsigned timestamps and string values.
//
// - An entry at ts falls in the bucket starting at ts - ((ts - align) mod bucket), the modulo taken
//   non-negative; a start below 0 is reported as 0. The bucket is reported at its start
//   (BUCKETTIMESTAMP - / start), its middle (~ / mid: start + bucket/2) or its end (+ / end:
//   start + bucket), saturating at 2^64-1.
// - count: the entries in the bucket; first: the oldest one's value; last: the newest one's
//   (entries sharing a timestamp keep the log's order among them).
// - Entries arrive in either direction (newest first or oldest first) but in one direction;
//   buckets are emitted in that same direction, each once it is complete.
// Thread-safety: a value type.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "types/series_aggregate.h"
#include "types/tlog_state.h"

namespace ebb::types {

enum class TlogAggregator { kCount, kFirst, kLast };
// "count", "first", "last", case-insensitive; nullopt otherwise.
std::optional<TlogAggregator> TlogAggregatorFromName(std::string_view name);

struct TlogBucketSpec {
  TlogAggregator aggregator = TlogAggregator::kCount;
  uint64_t bucket = 1;  // > 0
  uint64_t align = 0;
  BucketTimestamp reported = BucketTimestamp::kStart;
};

// The start of the bucket holding `ts`, or nullopt when it lies below 0. REQUIRES: bucket > 0.
std::optional<uint64_t> TlogBucketStart(uint64_t ts, uint64_t bucket, uint64_t align);

// One complete bucket: the timestamp it is reported at, and its figures.
struct TlogBucket {
  uint64_t ts = 0;
  uint64_t count = 0;
  std::string first;  // the oldest entry's value
  std::string last;   // the newest entry's value
};

class TlogBuckets {
 public:
  using Emit = std::function<bool(const TlogBucket&)>;  // false: stop
  // `oldest_first`: the direction the entries will arrive in.
  TlogBuckets(const TlogBucketSpec& spec, bool oldest_first, Emit emit)
      : spec_(spec), oldest_first_(oldest_first), emit_(std::move(emit)) {}

  // Adds the next entry in the direction given. False once `emit` asked to stop.
  bool Add(const TlogEntry& entry);
  // Emits the last open bucket. False if `emit` asked to stop.
  bool Finish();

 private:
  uint64_t Reported(std::optional<uint64_t> start) const;

  TlogBucketSpec spec_;
  bool oldest_first_;
  Emit emit_;
  bool open_ = false;
  bool stopped_ = false;
  std::optional<uint64_t> start_;  // the open bucket's start (nullopt: below 0)
  TlogBucket bucket_;
};

}  // namespace ebb::types
