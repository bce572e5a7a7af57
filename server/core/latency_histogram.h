// LatencyHistogram: how long the calls of one command took (INFO latencystats), as counts in
// log-linear buckets — the HdrHistogram idea at a fixed precision, for CycleClock ticks.
//
// Values below 2^kSubBits ticks have a bucket each; above, every power-of-two range
// [2^e, 2^(e+1)) is split into 2^kSubBits equal buckets, so a bucket's width is at most
// 1/2^kSubBits (about 3%) of its values. Record is a bit scan, a shift and an increment;
// ValueAtPercentile walks the buckets (INFO only). 1,920 counters: 15 KB per tracked command.
// Thread-safety: none; the command (io) thread only.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <string>

namespace ebb::server {

class LatencyHistogram {
 public:
  static constexpr int kSubBits = 5;
  static constexpr uint64_t kSubBuckets = uint64_t{1} << kSubBits;
  static constexpr size_t kBuckets = (64 - kSubBits + 1) * kSubBuckets;

  void Record(uint64_t ticks) {
    ++counts_[BucketOf(ticks)];
    ++total_;
  }
  uint64_t total() const { return total_; }
  // The calls recorded in `bucket`. REQUIRES: bucket < kBuckets.
  uint64_t count(size_t bucket) const { return counts_[bucket]; }

  // The smallest value v such that at least `percentile`% (0..100) of the recorded values are
  // <= v, given as the highest value of v's bucket (as HdrHistogram reports); 0 when empty.
  uint64_t ValueAtPercentile(double percentile) const;

  static size_t BucketOf(uint64_t ticks) {
    if (ticks < kSubBuckets) return static_cast<size_t>(ticks);
    const int e = 63 - std::countl_zero(ticks);         // >= kSubBits
    const uint64_t mantissa = ticks >> (e - kSubBits);  // in [kSubBuckets, 2 * kSubBuckets)
    return static_cast<size_t>((e - kSubBits + 1) * kSubBuckets + (mantissa - kSubBuckets));
  }
  // The greatest value that falls in `bucket`.
  static uint64_t HighestInBucket(size_t bucket);

 private:
  std::array<uint64_t, kBuckets> counts_{};
  uint64_t total_ = 0;
};

// A percentile as Redis prints it (INFO latencystats, CONFIG GET): "%f" without trailing zeros,
// "50", "99.9".
std::string PercentileText(double percentile);

}  // namespace ebb::server
