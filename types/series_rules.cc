#include "types/series_rules.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "types/series_aggregate.h"

namespace ebb::types {
namespace {

// The last timestamp of the bucket starting at `start` (saturating).
int64_t BucketEnd(int64_t start, int64_t bucket_ms) {
  return start > kMaxSeriesTimestamp - (bucket_ms - 1) ? kMaxSeriesTimestamp
                                                       : start + (bucket_ms - 1);
}

int64_t BucketOf(const SeriesRule& rule, int64_t ts) {
  return BucketStart(ts, rule.bucket_ms, rule.align);
}

AggregationSpec SpecOf(const SeriesRule& rule) {
  AggregationSpec spec;
  spec.aggregator = rule.aggregator;
  spec.bucket_ms = rule.bucket_ms;
  spec.align = rule.align;
  return spec;
}

// A missing key or another type: the chain stops there.
bool IsAbsent(OpStatus status) {
  return status == OpStatus::kNotFound || status == OpStatus::kWrongType;
}

}  // namespace

std::string_view RuleAggregatorName(Aggregator aggregator) {
  static constexpr std::string_view kNames[] = {"AVG",   "SUM",   "MIN",  "MAX",   "RANGE",
                                                "COUNT", "FIRST", "LAST", "STD.P", "STD.S",
                                                "VAR.P", "VAR.S", "TWA"};
  return kNames[static_cast<size_t>(aggregator)];
}

OpResult<bool> SeriesRules::Applies(std::string_view source, const SeriesRule& rule) {
  OpResult<SeriesMeta> dest = series_.Meta(rule.dest);
  if (!dest.ok()) {
    if (IsAbsent(dest.status())) return false;
    return FailureOf(dest);
  }
  return dest->source && *dest->source == source;
}

OpResult<bool> SeriesRules::Feeds(std::string_view source, std::string_view dest) {
  OpResult<SeriesMeta> meta = series_.Meta(source);
  if (!meta.ok()) {
    if (IsAbsent(meta.status())) return false;
    return FailureOf(meta);
  }
  return std::any_of(meta->rules.begin(), meta->rules.end(),
                     [&](const SeriesRule& rule) { return rule.dest == dest; });
}

OpResult<int64_t> SeriesRules::FloorOf(const SeriesRule& rule) {
  if (!floor_) return int64_t{0};
  return floor_(rule);
}

OpResult<std::optional<double>> SeriesRules::Aggregate(std::string_view source,
                                                       const SeriesRule& rule, int64_t start,
                                                       int64_t end, bool after) {
  const bool twa = rule.aggregator == Aggregator::kTwa;
  OpResult<int64_t> floor = FloorOf(rule);
  if (!floor.ok()) return FailureOf(floor);
  const int64_t from = std::max<int64_t>({start, 0, *floor});
  if (from > end) return std::optional<double>();  // the bucket lies below the floor
  std::optional<Sample> before;
  if (twa) {
    OpResult<std::optional<Sample>> found = series_.Neighbor(source, std::max<int64_t>(start, 0),
                                                             /*after=*/false);
    if (!found.ok()) return FailureOf(found);
    if (*found && (*found)->ts >= *floor) before = *found;
  }
  std::optional<double> value;
  BucketAggregator aggregator(SpecOf(rule), before, [&](const Sample& bucket) {
    value = bucket.value;
    return true;
  });
  OpResult<void> scanned = series_.Scan(source, from, end, false, [&](const Sample& sample) {
    aggregator.Add(sample);
    return true;
  });
  if (!scanned.ok()) return FailureOf(scanned);
  std::optional<Sample> next;
  if (twa && after) {
    OpResult<std::optional<Sample>> found = series_.Neighbor(source, end, /*after=*/true);
    if (!found.ok()) return FailureOf(found);
    next = *found;
  }
  aggregator.Finish(next);
  return value;
}

OpResult<void> SeriesRules::WriteDest(const SeriesRule& rule, int64_t ts, double value, int depth) {
  // A destination's retention may refuse an old bucket (kTooOld): it keeps what it has.
  OpResult<Series::AddOutcome> added =
      series_.Add(rule.dest, ts, value, DuplicatePolicy::kLast, nullptr);
  if (!added.ok()) return IsAbsent(added.status()) ? OpResult<void>() : FailureOf(added);
  if (*added != Series::AddOutcome::kAdded) return {};
  return AfterAdd(rule.dest, ts, depth + 1);
}

OpResult<void> SeriesRules::DeleteDest(const SeriesRule& rule, int64_t from, int64_t to,
                                       int depth) {
  OpResult<SeriesMeta> meta = series_.Meta(rule.dest);
  if (!meta.ok()) return IsAbsent(meta.status()) ? OpResult<void>() : FailureOf(meta);
  std::optional<int64_t> newest;
  if (meta->newest) newest = meta->newest->ts;
  OpResult<uint64_t> deleted = series_.DeleteRange(rule.dest, from, to);
  if (!deleted.ok()) return FailureOf(deleted);
  if (*deleted == 0) return {};
  return AfterDelete(rule.dest, from, to, newest, depth + 1);
}

OpResult<void> SeriesRules::Refresh(std::string_view source, const SeriesRule& rule, int64_t start,
                                    int depth) {
  const int64_t end = BucketEnd(start, rule.bucket_ms);
  OpResult<std::optional<double>> value = Aggregate(source, rule, start, end, /*after=*/true);
  if (!value.ok()) return FailureOf(value);
  const int64_t at = std::max<int64_t>(start, 0);
  if (!*value) return DeleteDest(rule, at, at, depth);
  return WriteDest(rule, at, **value, depth);
}

OpResult<void> SeriesRules::AfterAdd(std::string_view key, int64_t ts, int depth) {
  if (depth >= kMaxRuleChain) return {};
  OpResult<SeriesMeta> meta = series_.Meta(key);
  if (!meta.ok()) return FailureOf(meta);
  if (meta->rules.empty() || !meta->newest) return {};
  std::optional<std::optional<Sample>> previous;  // the sample before ts, read once
  for (const SeriesRule& rule : meta->rules) {
    OpResult<bool> applies = Applies(key, rule);
    if (!applies.ok()) return FailureOf(applies);
    if (!*applies) continue;
    const int64_t bucket = BucketOf(rule, ts);
    const int64_t open = BucketOf(rule, meta->newest->ts);
    OpResult<void> done;
    if (mode_ && rule.aggregator == Aggregator::kTwa) {
      // ts's bucket, and the ones whose TWA interpolates from or to it (the previous sample's,
      // which the sample may have finished, among them).
      std::vector<int64_t> buckets = {bucket};
      done = AddTwaNeighbours(key, rule, {bucket}, open, &buckets);
      if (done.ok()) done = RefreshFinished(key, rule, std::move(buckets), open, depth);
    } else if (bucket < open) {
      done = Refresh(key, rule, bucket, depth);  // a finished bucket changed
    } else {
      if (!previous) {
        OpResult<std::optional<Sample>> before = series_.Neighbor(key, ts, /*after=*/false);
        if (!before.ok()) return FailureOf(before);
        previous = *before;
      }
      // The sample opened a new bucket: the previous sample's is finished.
      if (*previous && BucketOf(rule, (*previous)->ts) < bucket) {
        done = Refresh(key, rule, BucketOf(rule, (*previous)->ts), depth);
      }
    }
    if (!done.ok()) return done;
  }
  return {};
}

OpResult<void> SeriesRules::AfterDelete(std::string_view key, int64_t from, int64_t to,
                                        std::optional<int64_t> newest_before, int depth) {
  if (depth >= kMaxRuleChain || !newest_before) return {};
  OpResult<SeriesMeta> meta = series_.Meta(key);
  if (!meta.ok()) return FailureOf(meta);
  for (const SeriesRule& rule : meta->rules) {
    OpResult<bool> applies = Applies(key, rule);
    if (!applies.ok()) return FailureOf(applies);
    if (!*applies) continue;
    if (mode_ && rule.aggregator == Aggregator::kTwa && meta->newest) {
      // The buckets whose TWA interpolated from or to a deleted sample (finished now).
      const int64_t now_open = BucketOf(rule, meta->newest->ts);
      std::vector<int64_t> around;
      OpResult<void> found = AddTwaNeighbours(
          key, rule, {BucketOf(rule, from), BucketOf(rule, std::min(to, *newest_before))}, now_open,
          &around);
      if (found.ok()) found = RefreshFinished(key, rule, std::move(around), now_open, depth);
      if (!found.ok()) return found;
    }
    const int64_t open = BucketOf(rule, *newest_before);
    const int64_t first = BucketOf(rule, from);
    if (first >= open) continue;  // only the open bucket changed
    // The last finished bucket the range touched.
    const int64_t last =
        std::min(BucketOf(rule, std::min(to, *newest_before)), open - rule.bucket_ms);
    OpResult<void> done = Refresh(key, rule, first, depth);
    if (done.ok() && last > first) done = Refresh(key, rule, last, depth);
    // The buckets strictly between lost every sample.
    // (first < open, both bucket starts: first + bucket <= open cannot overflow.)
    if (done.ok() && last > first + rule.bucket_ms) {
      done = DeleteDest(rule, first + rule.bucket_ms, last - 1, depth);
    }
    if (!done.ok()) return done;
  }
  return {};
}

OpResult<std::optional<Sample>> SeriesRules::OpenBucket(std::string_view key) {
  OpResult<SeriesMeta> meta = series_.Meta(key);
  if (!meta.ok()) return FailureOf(meta);
  std::optional<Sample> open;
  if (!meta->source) return open;
  OpResult<SeriesMeta> source = series_.Meta(*meta->source);
  if (!source.ok()) {
    if (IsAbsent(source.status())) return open;
    return FailureOf(source);
  }
  if (!source->newest) return open;
  for (const SeriesRule& rule : source->rules) {
    if (rule.dest != key) continue;
    const int64_t start = BucketOf(rule, source->newest->ts);
    OpResult<std::optional<double>> value =
        Aggregate(*meta->source, rule, start, source->newest->ts, /*after=*/false);
    if (!value.ok()) return FailureOf(value);
    if (*value) open = Sample{std::max<int64_t>(start, 0), **value};
    break;
  }
  return open;
}

OpResult<void> SeriesRules::Backfill(std::string_view source, const SeriesRule& rule) {
  OpResult<int64_t> floor = FloorOf(rule);
  if (!floor.ok()) return FailureOf(floor);
  OpResult<void> written;
  // Emits every bucket but the last (the open one: Finish is never called).
  BucketAggregator aggregator(SpecOf(rule), std::nullopt, [&](const Sample& bucket) {
    written = WriteDest(rule, bucket.ts, bucket.value, 0);
    return written.ok();
  });
  OpResult<void> scanned =
      series_.Scan(source, std::max<int64_t>(*floor, 0), kMaxSeriesTimestamp, false,
                   [&](const Sample& sample) { return aggregator.Add(sample); });
  if (!written.ok()) return written;
  return scanned;
}

OpResult<int> SeriesRules::DepthAbove(std::string_view key, std::string_view dest) {
  std::string current(key);
  for (int depth = 1; depth <= kMaxRuleChain; ++depth) {
    OpResult<SeriesMeta> meta = series_.Meta(current);
    if (!meta.ok()) return IsAbsent(meta.status()) ? OpResult<int>(depth) : FailureOf(meta);
    if (!meta->source) return depth;
    OpResult<bool> live = Feeds(*meta->source, current);
    if (!live.ok()) return FailureOf(live);
    if (!*live) return depth;  // a stale name (RENAME, COPY): no sample comes that way
    if (*meta->source == dest) return -1;
    current = *meta->source;
  }
  return kMaxRuleChain + 1;
}

OpResult<int> SeriesRules::DepthBelow(std::string_view key, int depth) {
  if (depth > kMaxRuleChain) return kMaxRuleChain + 1;
  OpResult<SeriesMeta> meta = series_.Meta(key);
  if (!meta.ok()) return IsAbsent(meta.status()) ? OpResult<int>(0) : FailureOf(meta);
  int deepest = 1;
  for (const SeriesRule& rule : meta->rules) {
    OpResult<bool> applies = Applies(key, rule);
    if (!applies.ok()) return FailureOf(applies);
    if (!*applies) continue;
    OpResult<int> below = DepthBelow(rule.dest, depth + 1);
    if (!below.ok()) return below;
    deepest = std::max(deepest, 1 + *below);
  }
  return deepest;
}

OpResult<SeriesRules::CreateOutcome> SeriesRules::Check(std::string_view source,
                                                        const SeriesRule& rule) {
  if (source == rule.dest) return CreateOutcome::kSameKey;
  OpResult<SeriesMeta> src = series_.Meta(source);
  if (!src.ok()) return FailureOf(src);
  OpResult<SeriesMeta> dest = series_.Meta(rule.dest);
  if (!dest.ok()) return FailureOf(dest);
  if (dest->source) {
    OpResult<bool> live = Feeds(*dest->source, rule.dest);
    if (!live.ok()) return FailureOf(live);
    if (*live) return CreateOutcome::kDestHasSource;
  }
  OpResult<int> above = DepthAbove(source, rule.dest);
  if (!above.ok()) return FailureOf(above);
  if (*above < 0) return CreateOutcome::kCycle;
  OpResult<int> below = DepthBelow(rule.dest, *above + 1);
  if (!below.ok()) return FailureOf(below);
  if (*above + *below > kMaxRuleChain) return CreateOutcome::kTooLong;
  return CreateOutcome::kCreated;
}

OpResult<SeriesRules::CreateOutcome> SeriesRules::Create(std::string_view source,
                                                         const SeriesRule& rule) {
  OpResult<CreateOutcome> judged = Check(source, rule);
  if (!judged.ok() || *judged != CreateOutcome::kCreated) return judged;
  OpResult<void> linked = Link(source, rule);
  if (!linked.ok()) return FailureOf(linked);
  OpResult<void> filled = Backfill(source, rule);
  if (!filled.ok()) return FailureOf(filled);
  return CreateOutcome::kCreated;
}

OpResult<void> SeriesRules::Link(std::string_view source, const SeriesRule& rule) {
  OpResult<SeriesMeta> src = series_.Meta(source);
  if (!src.ok()) return FailureOf(src);
  OpResult<SeriesMeta> dest = series_.Meta(rule.dest);
  if (!dest.ok()) return FailureOf(dest);
  OpResult<void> linked = series_.SetRules(rule.dest, std::string(source), dest->rules);
  if (!linked.ok()) return linked;
  std::vector<SeriesRule> rules;
  for (const SeriesRule& held : src->rules) {
    if (held.dest != rule.dest) rules.push_back(held);
  }
  rules.push_back(rule);
  return series_.SetRules(source, src->source, rules);
}

OpResult<void> SeriesRules::Unlink(std::string_view source, std::string_view dest) {
  OpResult<SeriesMeta> src = series_.Meta(source);
  if (!src.ok() && !IsAbsent(src.status())) return FailureOf(src);
  if (src.ok()) {
    std::vector<SeriesRule> rules;
    for (const SeriesRule& held : src->rules) {
      if (held.dest != dest) rules.push_back(held);
    }
    if (rules.size() != src->rules.size()) {
      OpResult<void> unlinked = series_.SetRules(source, src->source, rules);
      if (!unlinked.ok()) return unlinked;
    }
  }
  OpResult<SeriesMeta> dst = series_.Meta(dest);
  if (!dst.ok()) return IsAbsent(dst.status()) ? OpResult<void>() : FailureOf(dst);
  if (!dst->source || *dst->source != source) return {};
  return series_.SetRules(dest, std::nullopt, dst->rules);
}

OpResult<void> SeriesRules::Clear(std::string_view key) {
  OpResult<SeriesMeta> meta = series_.Meta(key);
  if (!meta.ok()) return IsAbsent(meta.status()) ? OpResult<void>() : FailureOf(meta);
  if (!meta->newest) return {};
  OpResult<uint64_t> deleted = series_.DeleteRange(key, 0, kMaxSeriesTimestamp);
  if (!deleted.ok()) return FailureOf(deleted);
  return AfterDelete(key, 0, kMaxSeriesTimestamp, meta->newest->ts, 0);
}

OpResult<void> SeriesRules::Put(std::string_view key, int64_t ts, double value) {
  OpResult<Series::AddOutcome> added = series_.Add(key, ts, value, DuplicatePolicy::kLast, nullptr);
  if (!added.ok()) return IsAbsent(added.status()) ? OpResult<void>() : FailureOf(added);
  if (*added != Series::AddOutcome::kAdded) return {};
  return AfterAdd(key, ts, 0);
}

OpResult<void> SeriesRules::AfterMerge(std::string_view key, const std::vector<int64_t>& touched,
                                       std::optional<int64_t> newest_before) {
  OpResult<SeriesMeta> meta = series_.Meta(key);
  if (!meta.ok()) return IsAbsent(meta.status()) ? OpResult<void>() : FailureOf(meta);
  if (meta->rules.empty() || !meta->newest) return {};
  for (const SeriesRule& rule : meta->rules) {
    OpResult<bool> applies = Applies(key, rule);
    if (!applies.ok()) return FailureOf(applies);
    if (!*applies) continue;
    const int64_t open = BucketOf(rule, meta->newest->ts);
    std::vector<int64_t> changed;
    for (int64_t ts : touched) changed.push_back(BucketOf(rule, ts));
    std::sort(changed.begin(), changed.end());
    changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
    std::vector<int64_t> buckets = changed;
    if (newest_before) buckets.push_back(BucketOf(rule, *newest_before));
    OpResult<void> done;
    if (rule.aggregator == Aggregator::kTwa) {
      done = AddTwaNeighbours(key, rule, changed, open, &buckets);
    }
    if (done.ok()) done = RefreshFinished(key, rule, std::move(buckets), open, 0);
    if (!done.ok()) return done;
  }
  return {};
}

OpResult<void> SeriesRules::RefreshFinished(std::string_view source, const SeriesRule& rule,
                                            std::vector<int64_t> buckets, int64_t open, int depth) {
  std::sort(buckets.begin(), buckets.end());
  buckets.erase(std::unique(buckets.begin(), buckets.end()), buckets.end());
  for (int64_t bucket : buckets) {
    if (bucket >= open) break;  // the open bucket and later: not finished
    OpResult<void> done = Refresh(source, rule, bucket, depth);
    if (!done.ok()) return done;
  }
  return {};
}

OpResult<void> SeriesRules::AddTwaNeighbours(std::string_view source, const SeriesRule& rule,
                                             const std::vector<int64_t>& changed, int64_t open,
                                             std::vector<int64_t>* buckets) {
  OpResult<int64_t> floor = FloorOf(rule);
  if (!floor.ok()) return FailureOf(floor);
  for (int64_t bucket : changed) {
    OpResult<std::optional<Sample>> before =
        series_.Neighbor(source, std::max<int64_t>(bucket, 0), /*after=*/false);
    if (!before.ok()) return FailureOf(before);
    // A sample below the floor is no bucket's neighbour.
    if (*before && (*before)->ts >= *floor) buckets->push_back(BucketOf(rule, (*before)->ts));
    if (bucket >= open) continue;  // what follows the open bucket is not finished
    OpResult<std::optional<Sample>> after =
        series_.Neighbor(source, BucketEnd(bucket, rule.bucket_ms), /*after=*/true);
    if (!after.ok()) return FailureOf(after);
    if (*after) buckets->push_back(BucketOf(rule, (*after)->ts));
  }
  return {};
}

OpResult<bool> SeriesRules::Delete(std::string_view source, std::string_view dest) {
  OpResult<SeriesMeta> src = series_.Meta(source);
  if (!src.ok()) return FailureOf(src);
  std::vector<SeriesRule> rules = src->rules;
  const auto it =
      std::find_if(rules.begin(), rules.end(), [&](const SeriesRule& r) { return r.dest == dest; });
  if (it == rules.end()) return false;
  rules.erase(it);
  OpResult<void> unlinked = series_.SetRules(source, src->source, rules);
  if (!unlinked.ok()) return FailureOf(unlinked);
  OpResult<SeriesMeta> dst = series_.Meta(dest);
  if (!dst.ok()) return IsAbsent(dst.status()) ? OpResult<bool>(true) : FailureOf(dst);
  if (dst->source && *dst->source == source) {
    unlinked = series_.SetRules(dest, std::nullopt, dst->rules);
    if (!unlinked.ok()) return FailureOf(unlinked);
  }
  return true;
}

OpResult<void> SeriesRules::AfterRename(std::string_view from, std::string_view to) {
  OpResult<SeriesMeta> moved = series_.Meta(to);
  if (!moved.ok()) return IsAbsent(moved.status()) ? OpResult<void>() : FailureOf(moved);
  if (moved->source) {
    OpResult<SeriesMeta> src = series_.Meta(*moved->source);
    if (!src.ok() && !IsAbsent(src.status())) return FailureOf(src);
    const auto feeds_from = [&](const SeriesRule& r) { return r.dest == from; };
    if (src.ok() && std::any_of(src->rules.begin(), src->rules.end(), feeds_from)) {
      std::vector<SeriesRule> rules;
      for (SeriesRule rule : src->rules) {
        if (rule.dest == to) continue;  // to the key RENAME overwrote
        if (rule.dest == from) rule.dest = std::string(to);
        rules.push_back(std::move(rule));
      }
      OpResult<void> relinked = series_.SetRules(*moved->source, src->source, rules);
      if (!relinked.ok()) return relinked;
    }
  }
  for (const SeriesRule& rule : moved->rules) {
    OpResult<SeriesMeta> dest = series_.Meta(rule.dest);
    if (!dest.ok()) {
      if (IsAbsent(dest.status())) continue;
      return FailureOf(dest);
    }
    if (!dest->source || *dest->source != from) continue;
    OpResult<void> relinked = series_.SetRules(rule.dest, std::string(to), dest->rules);
    if (!relinked.ok()) return relinked;
  }
  return {};
}

}  // namespace ebb::types
