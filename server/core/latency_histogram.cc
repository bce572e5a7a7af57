#include "server/core/latency_histogram.h"

#include <fmt/format.h>

#include <cmath>

namespace ebb::server {

uint64_t LatencyHistogram::HighestInBucket(size_t bucket) {
  if (bucket < kSubBuckets) return bucket;
  const int shift = static_cast<int>(bucket / kSubBuckets) - 1;  // e - kSubBits
  const uint64_t mantissa = kSubBuckets + bucket % kSubBuckets;
  const uint64_t low = mantissa << shift;
  return low + ((uint64_t{1} << shift) - 1);
}

uint64_t LatencyHistogram::ValueAtPercentile(double percentile) const {
  if (total_ == 0) return 0;
  const double wanted = std::ceil(percentile / 100.0 * static_cast<double>(total_));
  const uint64_t rank = wanted < 1 ? 1 : static_cast<uint64_t>(wanted);
  uint64_t seen = 0;
  for (size_t b = 0; b < kBuckets; ++b) {
    seen += counts_[b];
    if (seen >= rank) return HighestInBucket(b);
  }
  return HighestInBucket(kBuckets - 1);
}

std::string PercentileText(double percentile) {
  std::string text = fmt::format("{:f}", percentile);
  text.erase(text.find_last_not_of('0') + 1);
  if (text.back() == '.') text.pop_back();
  return text;
}

}  // namespace ebb::server
