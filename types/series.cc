#include "types/series.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <memory>

#include "common/strings.h"
#include "storage/util/coding.h"
#include "storage/write_batch.h"
#include "types/key_encoding.h"
#include "types/key_meta.h"

namespace ebb::types {

using storage::Status;

OpResult<Series::Found> Series::ReadMeta(std::string_view key) {
  Found found;
  KeyMetaRow row;
  Status s = keyspace_.GetMeta(db_, key, &row, keyspace_.settings().default_retrieval_grace_ms,
                               &found.dead);
  if (s.IsNotFound()) return found;
  if (!s.ok()) return s;
  if (row.type != KeyType::kSeries) return OpStatus::kWrongType;
  if (!DecodeSeriesMeta(row.payload, &found.meta)) {
    return Status::Corruption("bad SERIES metadata payload");
  }
  found.row_meta = row.meta;
  found.live = true;
  return found;
}

int64_t Series::VisibleFloor(const SeriesMeta& meta) {
  if (meta.settings.retention_ms == 0 || !meta.newest) return 0;
  const uint64_t newest = static_cast<uint64_t>(meta.newest->ts);
  if (newest <= meta.settings.retention_ms) return 0;
  return static_cast<int64_t>(newest - meta.settings.retention_ms);
}

std::string Series::SamplePrefix(std::string_view key, uint64_t version) const {
  return SubRowPrefix(keyspace_.layout(), db_, key, version);
}

Status Series::NewIncarnation(const SeriesSettings& settings, SeriesMeta* meta) {
  *meta = SeriesMeta();
  meta->settings = settings;
  return keyspace_.NewVersion(&meta->version);
}

Status Series::WriteMeta(std::string_view key, SeriesMeta meta, const Found& previous,
                         storage::WriteBatch* batch) {
  storage::WriteOptions options = keyspace_.WriteOptions();
  const int64_t now = keyspace_.NowMs();
  if (previous.live) {
    options.timestamp_ms = std::max(now, previous.row_meta.timestamp_or_zero());
    options.expire_at_ms = previous.row_meta.expire_at_ms;
  } else {
    int64_t ts;
    Status s = keyspace_.TypeWriteTimestamp(db_, key, nullptr, previous.dead, &ts);
    if (!s.ok()) return s;
    options.timestamp_ms = ts;
  }
  // The window moved by a whole window past what was purged: the same write range-deletes the
  // sub-rows below it (one WAL record: the purge and its mark go together).
  const int64_t floor = VisibleFloor(meta);
  const uint64_t retention = meta.settings.retention_ms;
  if (retention > 0 && floor > meta.purged_below &&
      static_cast<uint64_t>(floor - meta.purged_below) >= retention) {
    const std::string prefix = SamplePrefix(key, meta.version);
    batch->DeleteRange(storage::KeyRange{prefix + SeriesElement(meta.purged_below),
                                         prefix + SeriesElement(floor)});
    meta.purged_below = floor;
  }
  batch->Put(options, MetaKey(keyspace_.layout(), db_, key),
             EncodeMetaValue(KeyType::kSeries, EncodeSeriesMeta(meta)), now);
  return keyspace_.db().Write(options, *batch);
}

OpResult<bool> Series::Create(std::string_view key, const SeriesSettings& settings) {
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  if (read->live) return false;
  SeriesMeta meta;
  Status s = NewIncarnation(settings, &meta);
  if (!s.ok()) return s;
  storage::WriteBatch batch;
  s = WriteMeta(key, meta, *read, &batch);
  if (!s.ok()) return s;
  return true;
}

OpResult<void> Series::Alter(std::string_view key, const SeriesAlter& alter) {
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  if (!read->live) return OpStatus::kNotFound;
  SeriesMeta meta = read->meta;
  if (alter.retention_ms) meta.settings.retention_ms = *alter.retention_ms;
  if (alter.duplicate_policy) meta.settings.duplicate_policy = *alter.duplicate_policy;
  if (alter.chunk_size) meta.settings.chunk_size = *alter.chunk_size;
  if (alter.labels) meta.settings.labels = *alter.labels;
  storage::WriteBatch batch;
  Status s = WriteMeta(key, meta, *read, &batch);
  if (!s.ok()) return s;
  return {};
}

OpResult<void> Series::SetRules(std::string_view key, const std::optional<std::string>& source,
                                const std::vector<SeriesRule>& rules) {
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  if (!read->live) return OpStatus::kNotFound;
  SeriesMeta meta = read->meta;
  meta.source = source;
  meta.rules = rules;
  storage::WriteBatch batch;
  Status s = WriteMeta(key, meta, *read, &batch);
  if (!s.ok()) return s;
  return {};
}

namespace {

// The value a duplicate sample at the same timestamp leaves; nullopt: BLOCK refuses it.
std::optional<double> ResolveDuplicate(DuplicatePolicy policy, double old_value, double value) {
  switch (policy) {
    case DuplicatePolicy::kUnset:
    case DuplicatePolicy::kBlock:
      return std::nullopt;
    case DuplicatePolicy::kFirst:
      return old_value;
    case DuplicatePolicy::kLast:
      return value;
    case DuplicatePolicy::kMin:
      return std::min(old_value, value);
    case DuplicatePolicy::kMax:
      return std::max(old_value, value);
    case DuplicatePolicy::kSum:
      return old_value + value;
  }
  return std::nullopt;
}

}  // namespace

OpResult<Series::AddOutcome> Series::Store(std::string_view key, const Found& found, int64_t ts,
                                           double value, DuplicatePolicy policy) {
  SeriesMeta meta = found.meta;
  const uint64_t retention = meta.settings.retention_ms;
  if (retention > 0 && meta.newest &&
      ts<meta.newest->ts&& static_cast<uint64_t>(meta.newest->ts - ts)> retention) {
    return AddOutcome::kTooOld;
  }
  const std::string sub_key = SamplePrefix(key, meta.version) + SeriesElement(ts);
  double stored = value;
  if (found.live && meta.newest && ts <= meta.newest->ts) {
    storage::Row existing;
    Status s = keyspace_.db().Get(keyspace_.ReadOptions(), sub_key, &existing);
    if (s.ok()) {
      double old_value = 0;
      if (!DecodeSampleValue(existing.value, &old_value)) {
        return Status::Corruption("bad SERIES sample value");
      }
      const std::optional<double> resolved = ResolveDuplicate(policy, old_value, value);
      if (!resolved) return AddOutcome::kBlocked;
      stored = *resolved;
    } else if (!s.IsNotFound()) {
      return s;
    }
  }
  if (!meta.newest || ts >= meta.newest->ts) meta.newest = Sample{ts, stored};
  storage::WriteBatch batch;
  batch.Put(keyspace_.WriteOptions(), sub_key, EncodeSampleValue(stored), keyspace_.NowMs());
  Status s = WriteMeta(key, meta, found, &batch);
  if (!s.ok()) return s;
  return AddOutcome::kAdded;
}

OpResult<Series::AddOutcome> Series::Add(std::string_view key, int64_t ts, double value,
                                         DuplicatePolicy on_duplicate,
                                         const SeriesSettings* create) {
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  Found found = std::move(*read);
  if (!found.live) {
    if (create == nullptr) return OpStatus::kNotFound;
    Status s = NewIncarnation(*create, &found.meta);
    if (!s.ok()) return s;
  }
  const DuplicatePolicy policy =
      on_duplicate != DuplicatePolicy::kUnset ? on_duplicate : found.meta.settings.duplicate_policy;
  return Store(key, found, ts, value, policy);
}

OpResult<Series::IncrResult> Series::IncrBy(std::string_view key, int64_t ts, double delta,
                                            const SeriesSettings& create) {
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  Found found = std::move(*read);
  if (!found.live) {
    Status s = NewIncarnation(create, &found.meta);
    if (!s.ok()) return s;
  }
  IncrResult result;
  const std::optional<Sample>& newest = found.meta.newest;
  if (newest && ts < newest->ts) {
    result.below_newest = true;
    return result;
  }
  const double base = newest ? newest->value : 0.0;
  if (std::isnan(base)) {
    result.newest_is_nan = true;
    return result;
  }
  OpResult<AddOutcome> stored = Store(key, found, ts, base + delta, DuplicatePolicy::kLast);
  if (!stored.ok()) return FailureOf(stored);
  result.outcome = *stored;
  return result;
}

OpResult<SeriesMeta> Series::Meta(std::string_view key) {
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  if (!read->live) return OpStatus::kNotFound;
  return read->meta;
}

OpResult<std::optional<Sample>> Series::Latest(std::string_view key) {
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  if (!read->live) return OpStatus::kNotFound;
  return read->meta.newest;
}

namespace {

// An iterator over one incarnation's samples (the sub-rows under `prefix`).
std::unique_ptr<storage::Iterator> SampleIterator(Keyspace& keyspace, const std::string& prefix) {
  storage::ReadOptions options = keyspace.ReadOptions();
  options.lower_bound = prefix;
  std::string upper = PrefixUpperBound(prefix);
  if (!upper.empty()) options.upper_bound = upper;
  return keyspace.db().NewIterator(options);
}

Status DecodeAt(const storage::Iterator& it, size_t prefix_size, Sample* sample) {
  if (!DecodeSeriesElement(it.key().substr(prefix_size), &sample->ts) ||
      !DecodeSampleValue(it.value(), &sample->value)) {
    return Status::Corruption("bad SERIES sample row");
  }
  return Status::OK();
}

}  // namespace

OpResult<void> Series::Scan(std::string_view key, int64_t from, int64_t to, bool reverse,
                            const std::function<bool(const Sample&)>& visit) {
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  if (!read->live) return OpStatus::kNotFound;
  const int64_t low = std::max(from, VisibleFloor(read->meta));
  if (low > to) return {};
  const std::string prefix = SamplePrefix(key, read->meta.version);
  std::unique_ptr<storage::Iterator> it = SampleIterator(keyspace_, prefix);
  if (reverse) {
    it->SeekForPrev(prefix + SeriesElement(to));
  } else {
    it->Seek(prefix + SeriesElement(low));
  }
  for (; it->Valid(); reverse ? it->Prev() : it->Next()) {
    Sample sample;
    Status s = DecodeAt(*it, prefix.size(), &sample);
    if (!s.ok()) return s;
    if (reverse ? sample.ts < low : sample.ts > to) break;
    if (!visit(sample)) break;
  }
  if (!it->status().ok()) return it->status();
  return {};
}

OpResult<std::optional<Sample>> Series::Neighbor(std::string_view key, int64_t ts, bool after) {
  std::optional<Sample> found;
  if (after ? ts == kMaxSeriesTimestamp : ts <= 0) return found;
  OpResult<void> scanned = Scan(key, after ? ts + 1 : 0, after ? kMaxSeriesTimestamp : ts - 1,
                                !after, [&](const Sample& sample) {
                                  found = sample;
                                  return false;
                                });
  if (!scanned.ok()) return FailureOf(scanned);
  return found;
}

OpResult<SeriesInfo> Series::Info(std::string_view key) {
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  if (!read->live) return OpStatus::kNotFound;
  SeriesInfo info;
  info.meta = read->meta;
  bool first = true;
  OpResult<void> scanned = Scan(key, 0, kMaxSeriesTimestamp, false, [&](const Sample& sample) {
    if (first) info.first_timestamp = sample.ts;
    first = false;
    ++info.total_samples;
    return true;
  });
  if (!scanned.ok()) return FailureOf(scanned);
  return info;
}

Status Series::ReadNewestBelow(std::string_view key, const SeriesMeta& meta, int64_t below,
                               std::optional<Sample>* newest) {
  newest->reset();
  if (below <= 0) return Status::OK();
  const std::string prefix = SamplePrefix(key, meta.version);
  std::unique_ptr<storage::Iterator> it = SampleIterator(keyspace_, prefix);
  it->SeekForPrev(prefix + SeriesElement(below - 1));
  if (it->Valid()) {
    Sample sample;
    Status s = DecodeAt(*it, prefix.size(), &sample);
    if (!s.ok()) return s;
    *newest = sample;
  }
  return it->status();
}

OpResult<uint64_t> Series::DeleteRange(std::string_view key, int64_t from, int64_t to) {
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  if (!read->live) return OpStatus::kNotFound;
  uint64_t count = 0;
  OpResult<void> scanned = Scan(key, from, to, false, [&](const Sample&) {
    ++count;
    return true;
  });
  if (!scanned.ok()) return FailureOf(scanned);
  if (count == 0) return count;
  SeriesMeta meta = read->meta;
  Status s;
  // The newest sample went: the new newest is the last one below the range (none above it).
  if (meta.newest && meta.newest->ts >= from && meta.newest->ts <= to) {
    s = ReadNewestBelow(key, meta, from, &meta.newest);
    if (!s.ok()) return s;
  }
  const std::string prefix = SamplePrefix(key, meta.version);
  const std::string end =
      to == kMaxSeriesTimestamp ? PrefixUpperBound(prefix) : prefix + SeriesElement(to + 1);
  storage::WriteBatch batch;
  batch.DeleteRange(storage::KeyRange{prefix + SeriesElement(from), end});
  s = WriteMeta(key, meta, *read, &batch);
  if (!s.ok()) return s;
  return count;
}

}  // namespace ebb::types
