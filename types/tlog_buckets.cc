#include "types/tlog_buckets.h"

#include <limits>

#include "common/strings.h"

namespace ebb::types {

std::optional<TlogAggregator> TlogAggregatorFromName(std::string_view name) {
  if (EqualsIgnoreCase(name, "count")) return TlogAggregator::kCount;
  if (EqualsIgnoreCase(name, "first")) return TlogAggregator::kFirst;
  if (EqualsIgnoreCase(name, "last")) return TlogAggregator::kLast;
  return std::nullopt;
}

std::optional<uint64_t> TlogBucketStart(uint64_t ts, uint64_t bucket, uint64_t align) {
  const uint64_t offset = BucketOffset(ts, bucket, align);
  if (offset > ts) return std::nullopt;
  return ts - offset;
}

uint64_t TlogBuckets::Reported(std::optional<uint64_t> start) const {
  if (!start) return 0;  // a bucket starting below 0 is reported at 0
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  uint64_t add = 0;
  if (spec_.reported == BucketTimestamp::kMid) add = spec_.bucket / 2;
  if (spec_.reported == BucketTimestamp::kEnd) add = spec_.bucket;
  return *start > kMax - add ? kMax : *start + add;
}

bool TlogBuckets::Add(const TlogEntry& entry) {
  if (stopped_) return false;
  const std::optional<uint64_t> start = TlogBucketStart(entry.ts, spec_.bucket, spec_.align);
  if (open_ && start != start_ && !Finish()) return false;
  if (!open_) {
    open_ = true;
    start_ = start;
    bucket_ = TlogBucket{.ts = Reported(start)};
  }
  bucket_.count++;
  if (spec_.aggregator == TlogAggregator::kCount) return true;
  // The entry seen first in a bucket is its oldest (oldest first) or its newest; each later one
  // is the bucket's other end so far.
  std::string& end_seen_first = oldest_first_ ? bucket_.first : bucket_.last;
  std::string& end_seen_last = oldest_first_ ? bucket_.last : bucket_.first;
  if (bucket_.count == 1) end_seen_first = entry.value;
  end_seen_last = entry.value;
  return true;
}

bool TlogBuckets::Finish() {
  if (stopped_) return false;
  if (!open_) return true;
  open_ = false;
  if (!emit_(bucket_)) stopped_ = true;
  return !stopped_;
}

}  // namespace ebb::types
