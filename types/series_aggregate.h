// Bucket aggregation of a time series (TS.RANGE / TS.REVRANGE ... AGGREGATION), with
// RedisTimeSeries' semantics (its compaction.c and filter_iterator.c):
//
// - A sample at ts falls in the bucket starting at ts - ((ts - align) mod bucket), the modulo
//   taken non-negative; a bucket is reported at its start (BUCKETTIMESTAMP - / start), its middle
//   (start + bucket/2: ~ / mid) or its end (start + bucket: + / end), a negative start as 0.
// - avg, sum, min, max, range (max - min), count, first, last; var.p / std.p: the population
//   variance / deviation; var.s / std.s: the sample ones (count - 1; a lone sample gives 0).
// - twa, the time-weighted average: the area under the line joining the samples, over the span
//   from the bucket's first sample to its last, divided by that span; when a sample precedes the
//   bucket, the line from it is interpolated at the bucket's start and the span starts there,
//   and when a sample follows it, likewise up to the bucket's end (start + bucket). A span of
//   zero length gives the bucket's last value. Over a range query whose ends fall inside a
//   bucket, the span stops at the range's end instead: a bucket's start and end are clipped to
//   [from, to] (BucketAggregator::ClipToRange), as RedisTimeSeries' twa_calc_ta/tb do.
// - EMPTY also reports the empty buckets between two non-empty ones: sum and count 0, last the
//   value of the last sample before the bucket, twa the average of the line joining the samples
//   around it over the bucket, every other aggregator NaN. With twa over a clipped range (as
//   RedisTimeSeries' filter_iterator.c), EMPTY also reports the empty buckets between the
//   range's start and its first sample, and between its last sample and the range's end (all of
//   the range's buckets when it holds no sample), when the series has a sample before and one
//   after them.
// Thread-safety: a value type.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string_view>

#include "types/sample_block.h"

namespace ebb::types {

enum class Aggregator {
  kAvg,
  kSum,
  kMin,
  kMax,
  kRange,
  kCount,
  kFirst,
  kLast,
  kStdP,
  kStdS,
  kVarP,
  kVarS,
  kTwa
};
// "avg", "std.p", ... case-insensitive; nullopt if unknown.
std::optional<Aggregator> AggregatorFromName(std::string_view name);
// Its name in lower case ("avg", "std.p", ...).
std::string_view AggregatorName(Aggregator aggregator);

enum class BucketTimestamp { kStart, kMid, kEnd };

struct AggregationSpec {
  Aggregator aggregator = Aggregator::kAvg;
  int64_t bucket_ms = 1;  // > 0
  int64_t align = 0;
  BucketTimestamp bucket_timestamp = BucketTimestamp::kStart;
  bool empty = false;
};

// How far `ts` lies into its bucket: (ts - align) mod bucket, in [0, bucket), computed without
// overflow over the whole unsigned range (TLOG timestamps use it). REQUIRES: bucket > 0.
uint64_t BucketOffset(uint64_t ts, uint64_t bucket, uint64_t align);
// The start of the bucket holding `ts` (may be negative). REQUIRES: ts, align >= 0, bucket_ms > 0.
int64_t BucketStart(int64_t ts, int64_t bucket_ms, int64_t align);

// The figures of a set of values whose order does not matter, and the aggregators they give
// (avg, sum, min, max, range, count, std.p, std.s, var.p, var.s): a bucket's, or the values a
// GROUPBY reducer meets at one timestamp.
struct ValueStats {
  uint64_t count = 0;
  double sum = 0;
  double sum_squares = 0;
  double min = 0;
  double max = 0;

  void Add(double value);
  // REQUIRES: count > 0 and `aggregator` is none of first, last, twa.
  double Value(Aggregator aggregator) const;
};

// Aggregates samples given oldest first into buckets, emitting each finished bucket as a
// (reported timestamp, value) sample, oldest first.
class BucketAggregator {
 public:
  using Emit = std::function<bool(const Sample&)>;  // false: stop (Add then returns false)
  // `before`: the sample preceding the first one given (twa interpolates from it), if any.
  BucketAggregator(const AggregationSpec& spec, std::optional<Sample> before, Emit emit)
      : spec_(spec), prev_(before), emit_(std::move(emit)) {}

  // A range query's bounds: twa interpolates at max(bucket start, from) and min(bucket end,
  // to) rather than at the bucket's own ends. REQUIRES: called before Add.
  void ClipToRange(int64_t from, int64_t to) {
    range_from_ = from;
    range_to_ = to;
    clipped_ = true;
  }
  // REQUIRES: ts above every sample given before. False once `emit` asked to stop.
  bool Add(const Sample& sample);
  // Emits the last bucket (and, for twa with EMPTY over a range, the empty buckets up to the
  // range's end). `after`: the sample following the last one given, if any (twa).
  bool Finish(std::optional<Sample> after);

 private:
  // Emits the open bucket; `next`: the sample after it, if known.
  bool EmitBucket(std::optional<Sample> next);
  // Emits the empty buckets from the one starting at `first` up to `next_start` (excluded);
  // `next`: the sample after them.
  bool EmitEmpty(int64_t first, int64_t next_start, const Sample& next);
  // twa with EMPTY over a range: the empty buckets at the range's ends are reported too.
  bool TwaEdges() const { return clipped_ && spec_.empty && spec_.aggregator == Aggregator::kTwa; }
  bool Report(int64_t start, double value);
  double EmptyValue(int64_t start, const Sample& next) const;

  AggregationSpec spec_;
  std::optional<Sample> prev_;  // the last sample before the open bucket
  Emit emit_;
  bool open_ = false;
  bool stopped_ = false;
  int64_t start_ = 0;  // the open bucket's start
  // The open bucket's figures.
  ValueStats stats_;
  Sample first_;
  Sample last_;
  double area_ = 0;  // twa: the area between the bucket's first and last samples
  int64_t range_from_ = std::numeric_limits<int64_t>::min();  // ClipToRange
  int64_t range_to_ = std::numeric_limits<int64_t>::max();
  bool clipped_ = false;
};

}  // namespace ebb::types
