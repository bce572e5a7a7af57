#include "types/series_aggregate.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/strings.h"

namespace ebb::types {
namespace {

constexpr std::string_view kNames[] = {"avg",  "sum",   "min",   "max",   "range", "count", "first",
                                       "last", "std.p", "std.s", "var.p", "var.s", "twa"};

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The line through a and b at t.
double Interpolate(const Sample& a, const Sample& b, double t) {
  if (b.ts == a.ts) return b.value;
  return a.value +
         (b.value - a.value) * (t - static_cast<double>(a.ts)) / static_cast<double>(b.ts - a.ts);
}

// RedisTimeSeries' variance: (sum of squares - 2 sum mean + count mean^2) / count.
double Variance(double sum, double sum_squares, double count) {
  if (count == 0) return 0;
  const double mean = sum / count;
  return (sum_squares - 2 * sum * mean + mean * mean * count) / count;
}

}  // namespace

std::optional<Aggregator> AggregatorFromName(std::string_view name) {
  for (size_t i = 0; i < std::size(kNames); ++i) {
    if (EqualsIgnoreCase(name, kNames[i])) return static_cast<Aggregator>(i);
  }
  return std::nullopt;
}

std::string_view AggregatorName(Aggregator aggregator) {
  return kNames[static_cast<size_t>(aggregator)];
}

uint64_t BucketOffset(uint64_t ts, uint64_t bucket, uint64_t align) {
  return ts >= align ? (ts - align) % bucket : (bucket - (align - ts) % bucket) % bucket;
}

int64_t BucketStart(int64_t ts, int64_t bucket_ms, int64_t align) {
  // ts and the offset are in [0, 2^63-1]: the difference fits.
  return ts - static_cast<int64_t>(BucketOffset(static_cast<uint64_t>(ts),
                                                static_cast<uint64_t>(bucket_ms),
                                                static_cast<uint64_t>(align)));
}

void ValueStats::Add(double value) {
  min = count == 0 ? value : std::min(min, value);
  max = count == 0 ? value : std::max(max, value);
  ++count;
  sum += value;
  sum_squares += value * value;
}

double ValueStats::Value(Aggregator aggregator) const {
  const double n = static_cast<double>(count);
  switch (aggregator) {
    case Aggregator::kAvg:
      return sum / n;
    case Aggregator::kSum:
      return sum;
    case Aggregator::kMin:
      return min;
    case Aggregator::kMax:
      return max;
    case Aggregator::kRange:
      return max - min;
    case Aggregator::kCount:
      return n;
    case Aggregator::kVarP:
      return Variance(sum, sum_squares, n);
    case Aggregator::kStdP:
      return std::sqrt(Variance(sum, sum_squares, n));
    case Aggregator::kVarS:
      return count == 1 ? 0 : Variance(sum, sum_squares, n) * n / (n - 1);
    case Aggregator::kStdS:
      return count == 1 ? 0 : std::sqrt(Variance(sum, sum_squares, n) * n / (n - 1));
    default:
      return kNaN;
  }
}

bool BucketAggregator::Report(int64_t start, double value) {
  int64_t ts = std::max<int64_t>(start, 0);
  const int64_t shift = spec_.bucket_timestamp == BucketTimestamp::kMid   ? spec_.bucket_ms / 2
                        : spec_.bucket_timestamp == BucketTimestamp::kEnd ? spec_.bucket_ms
                                                                          : 0;
  ts = ts > std::numeric_limits<int64_t>::max() - shift ? std::numeric_limits<int64_t>::max()
                                                        : ts + shift;
  if (!emit_(Sample{ts, value})) stopped_ = true;
  return !stopped_;
}

bool BucketAggregator::Add(const Sample& sample) {
  if (stopped_) return false;
  const int64_t start = BucketStart(sample.ts, spec_.bucket_ms, spec_.align);
  if (open_ && start != start_) {
    if (!EmitBucket(sample)) return false;
    if (spec_.empty && !EmitEmpty(start_ + spec_.bucket_ms, start, sample)) return false;
  } else if (!open_ && TwaEdges() && prev_ &&
             !EmitEmpty(BucketStart(range_from_, spec_.bucket_ms, spec_.align), start, sample)) {
    return false;  // the empty buckets from the range's start to its first sample's
  }
  if (!open_ || start != start_) {
    open_ = true;
    start_ = start;
    stats_ = ValueStats();
    area_ = 0;
    first_ = sample;
  } else {
    area_ += (last_.value + sample.value) * static_cast<double>(sample.ts - last_.ts) / 2;
  }
  stats_.Add(sample.value);
  last_ = sample;
  return true;
}

bool BucketAggregator::Finish(std::optional<Sample> after) {
  if (stopped_) return false;
  const bool was_open = open_;
  if (open_) {
    open_ = false;
    if (!EmitBucket(after)) return false;
  }
  if (!TwaEdges() || !prev_ || !after) return true;
  // Only a clipped range reaches here: range_from_ is a timestamp, not the unclipped minimum.
  const int64_t first_empty =
      was_open ? start_ + spec_.bucket_ms : BucketStart(range_from_, spec_.bucket_ms, spec_.align);
  // The empty buckets from the last sample's (or the range's start) to the range's end. `after`
  // lies past range_to_, so the last bucket's end does not overflow.
  const int64_t last = BucketStart(range_to_, spec_.bucket_ms, spec_.align);
  return last < first_empty || EmitEmpty(first_empty, last + spec_.bucket_ms, *after);
}

bool BucketAggregator::EmitBucket(std::optional<Sample> next) {
  double value = 0;
  switch (spec_.aggregator) {
    case Aggregator::kFirst:
      value = first_.value;
      break;
    case Aggregator::kLast:
      value = last_.value;
      break;
    case Aggregator::kTwa: {
      double area = area_;
      double span_start = static_cast<double>(first_.ts);
      double span_end = static_cast<double>(last_.ts);
      if (prev_) {
        span_start = static_cast<double>(std::max(start_, range_from_));
        area += (Interpolate(*prev_, first_, span_start) + first_.value) *
                (static_cast<double>(first_.ts) - span_start) / 2;
      }
      if (next) {
        span_end = std::min(static_cast<double>(start_) + static_cast<double>(spec_.bucket_ms),
                            static_cast<double>(range_to_));
        area += (last_.value + Interpolate(last_, *next, span_end)) *
                (span_end - static_cast<double>(last_.ts)) / 2;
      }
      value = span_end == span_start ? last_.value : area / (span_end - span_start);
      break;
    }
    default:
      value = stats_.Value(spec_.aggregator);
      break;
  }
  prev_ = last_;
  return Report(start_, value);
}

double BucketAggregator::EmptyValue(int64_t start, const Sample& next) const {
  switch (spec_.aggregator) {
    case Aggregator::kSum:
    case Aggregator::kCount:
      return 0;
    case Aggregator::kLast:
      return prev_->value;
    case Aggregator::kTwa: {
      const double a = static_cast<double>(std::max(start, range_from_));
      const double b = std::min(static_cast<double>(start) + static_cast<double>(spec_.bucket_ms),
                                static_cast<double>(range_to_));
      return (Interpolate(*prev_, next, a) + Interpolate(*prev_, next, b)) / 2;
    }
    default:
      return kNaN;
  }
}

bool BucketAggregator::EmitEmpty(int64_t first, int64_t next_start, const Sample& next) {
  // prev_ is the sample before `first`. Bounded by the gap between two samples (emit stops a
  // reply that grows too long).
  for (int64_t start = first; start < next_start; start += spec_.bucket_ms) {
    if (!Report(start, EmptyValue(start, next))) return false;
  }
  return true;
}

}  // namespace ebb::types
