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
#include "types/series_index.h"
#include "types/series_purge.h"
#include "types/series_samples.h"

namespace ebb::types {

using storage::Status;

OpResult<Series::Found> Series::ReadMeta(std::string_view key) {
  Found found;
  KeyMetaRow row;
  Status s = keyspace_.GetMeta(db_, key, &row, keyspace_.settings().default_retrieval_grace_ms,
                               &found.dead);
  if (s.IsNotFound()) {
    // A series its expiry register expired whole stays this series: a later register may bring
    // it back, and a write continues it.
    KeyType type;
    std::string_view payload;
    if (found.dead && found.dead->kind == storage::RowKind::kValue &&
        DecodeMetaValue(found.dead->value, &type, &payload) && type == KeyType::kSeries &&
        DecodeSeriesMeta(payload, &found.meta) && found.meta.expiry_register &&
        found.dead->meta.expire_at_ms &&
        found.dead->meta.expire_at_ms == SeriesKeyExpiry(found.meta)) {
      found.expired_by_register = true;
      found.row_meta = found.dead->meta;
    } else {
      found.meta = SeriesMeta();
    }
    return found;
  }
  if (!s.ok()) return s;
  if (row.type != KeyType::kSeries) return OpStatus::kWrongType;
  if (!DecodeSeriesMeta(row.payload, &found.meta)) {
    return Status::Corruption("bad SERIES metadata payload");
  }
  found.row_meta = row.meta;
  found.live = true;
  return found;
}

std::string Series::SamplePrefix(std::string_view key, uint64_t version) const {
  return SubRowPrefix(keyspace_.layout(), db_, key, version);
}

SeriesSamples Series::Samples(std::string_view key, const SeriesMeta& meta) {
  return SeriesSamples(keyspace_.db(), keyspace_.ReadOptions(), SamplePrefix(key, meta.version),
                       meta);
}

Status Series::NewIncarnation(std::string_view key, const SeriesSettings& settings,
                              SeriesMeta* meta) {
  *meta = SeriesMeta();
  meta->settings = settings;
  if (settings.retention_from_policy) {
    meta->settings.retention_ms = keyspace_.PolicyWindow(key).value_or(0);
  }
  return keyspace_.NewVersion(&meta->version);
}

Status Series::WriteMeta(std::string_view key, SeriesMeta meta, const Found& previous,
                         storage::WriteBatch* batch) {
  storage::WriteOptions options = keyspace_.WriteOptions();
  const int64_t now = keyspace_.NowMs();
  if (previous.held()) {
    options.timestamp_ms = std::max(now, previous.row_meta.timestamp_or_zero());
    options.expire_at_ms = previous.row_meta.expire_at_ms;
  } else {
    int64_t ts;
    Status s = keyspace_.TypeWriteTimestamp(db_, key, nullptr, previous.dead, &ts);
    if (!s.ok()) return s;
    options.timestamp_ms = ts;
  }
  // The retention purge of what this write hides goes in the same write (one WAL record: the
  // purge and its marks go together; types/series_purge.h).
  // In active-active mode (keep_every_sample_) a hidden sample stays whole for half the purge
  // deadline before compaction drops it.
  Status purge = keep_every_sample_ ? PlanHiddenPurge(key, &meta, batch)
                                    : PlanPurge(key, previous, &meta, batch);
  if (!purge.ok()) return purge;
  // Under an expiry register the key's expiry follows what the series holds, kept even when it
  // has passed by this node's clock: a later register may bring the series back.
  if (meta.expiry_register) options.expire_at_ms = SeriesKeyExpiry(meta);
  // The label index (types/series_index.h) in the same write: a new incarnation's labels all,
  // a change of labels the rows it adds and drops.
  if (!previous.held() || previous.meta.settings.labels != meta.settings.labels) {
    WriteSeriesIndexRows(keyspace_.WriteOptions(), db_, key,
                         previous.held() ? &previous.meta.settings.labels : nullptr,
                         meta.settings.labels, now, batch);
  }
  batch->Put(options, MetaKey(keyspace_.layout(), db_, key),
             EncodeMetaValue(KeyType::kSeries, EncodeSeriesMeta(meta)), now);
  return keyspace_.db().Write(options, *batch);
}

OpResult<bool> Series::Create(std::string_view key, const SeriesSettings& settings) {
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  if (read->held()) return false;
  SeriesMeta meta;
  Status s = NewIncarnation(key, settings, &meta);
  if (!s.ok()) return s;
  storage::WriteBatch batch;
  s = WriteMeta(key, meta, *read, &batch);
  if (!s.ok()) return s;
  return true;
}

OpResult<void> Series::Alter(std::string_view key, const SeriesAlter& alter) {
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  if (!read->held()) return OpStatus::kNotFound;
  SeriesMeta meta = read->meta;
  if (alter.retention_ms) meta.settings.retention_ms = *alter.retention_ms;
  if (alter.duplicate_policy) meta.settings.duplicate_policy = *alter.duplicate_policy;
  if (alter.chunk_size) meta.settings.chunk_size = *alter.chunk_size;
  if (alter.labels) meta.settings.labels = *alter.labels;
  if (alter.encoding) meta.settings.encoding = *alter.encoding;
  storage::WriteBatch batch;
  Status s = WriteMeta(key, meta, *read, &batch);
  if (!s.ok()) return s;
  return {};
}

OpResult<void> Series::SetRules(std::string_view key, const std::optional<std::string>& source,
                                const std::vector<SeriesRule>& rules) {
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  if (!read->held()) return OpStatus::kNotFound;
  SeriesMeta meta = read->meta;
  meta.source = source;
  meta.rules = rules;
  storage::WriteBatch batch;
  Status s = WriteMeta(key, meta, *read, &batch);
  if (!s.ok()) return s;
  return {};
}

namespace {

// An iterator over one incarnation's blocks (the sub-rows under `prefix` before its tail rows).
std::unique_ptr<storage::Iterator> BlockIterator(Keyspace& keyspace, const std::string& prefix) {
  storage::ReadOptions options = keyspace.ReadOptions();
  options.lower_bound = prefix;
  options.upper_bound = prefix + kSeriesTailTag;
  return keyspace.db().NewIterator(options);
}

// The samples of the block the iterator is at.
Status DecodeBlockAt(const storage::Iterator& it, size_t prefix_size, int64_t* first_ts,
                     std::vector<Sample>* samples) {
  if (!DecodeSeriesElement(it.key().substr(prefix_size), first_ts) ||
      !DecodeSeriesBlock(*first_ts, it.value(), samples)) {
    return Status::Corruption("bad SERIES sample block");
  }
  return Status::OK();
}

// Positions `it` at the block with the greatest first timestamp <= ts, else (`or_first`) at the
// first block; not Valid() when there is none.
void SeekBlock(storage::Iterator* it, const std::string& prefix, int64_t ts, bool or_first) {
  it->SeekForPrev(prefix + SeriesElement(ts));
  if (!it->Valid() && it->status().ok() && or_first) it->Seek(prefix);
}

}  // namespace

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

namespace {

// Adds `sample` to `writer` if the block stays within kMaxSeriesBlockSamples samples and `bound`
// bytes; false (the writer untouched) if not.
bool AddWithin(SampleBlockWriter* writer, const Sample& sample, uint64_t bound) {
  // A sample's bits (a timestamp's 69 at most, a value's 78) and a count one byte longer.
  constexpr size_t kMaxSampleBytes = 24;
  if (writer->count() >= kMaxSeriesBlockSamples) return false;
  if (writer->size() + kMaxSampleBytes <= bound) {
    writer->Add(sample.ts, sample.value);
    return true;
  }
  SampleBlockWriter trial = *writer;
  trial.Add(sample.ts, sample.value);
  if (trial.size() > bound) return false;
  *writer = std::move(trial);
  return true;
}

}  // namespace

Status Series::FoldTail(std::string_view key, const SeriesMeta& meta, const Sample& sample,
                        storage::WriteBatch* batch) {
  std::vector<Sample> tail;
  Status s = Samples(key, meta).ReadTail(&tail);
  if (!s.ok()) return s;
  const std::string prefix = SamplePrefix(key, meta.version);
  const storage::WriteOptions options = keyspace_.WriteOptions();
  const int64_t now = keyspace_.NowMs();
  // The stored tail rows go by point deletions: an engine range deletion syncs the WAL and
  // writes the manifest (storage/db/db_write.cc), too dear once per kMaxSeriesBlockSamples adds.
  for (const Sample& stored : tail) batch->Delete(options, prefix + SeriesTailElement(stored.ts));
  auto at = std::lower_bound(tail.begin(), tail.end(), sample.ts,
                             [](const Sample& stored, int64_t t) { return stored.ts < t; });
  if (at != tail.end() && at->ts == sample.ts) {
    at->value = sample.value;
  } else {
    tail.insert(at, sample);
  }
  // The last block goes on (unless full), sample by sample, then new blocks as they fill:
  // the blocks a fold leaves are those in-order adds into blocks would have left.
  std::unique_ptr<storage::Iterator> it = BlockIterator(keyspace_, prefix);
  it->SeekForPrev(prefix + SeriesElement(kMaxSeriesTimestamp));
  if (!it->status().ok()) return it->status();
  SampleBlockWriter writer;
  int64_t first_ts = 0;
  if (it->Valid()) {
    Sample last;
    if (!DecodeSeriesElement(it->key().substr(prefix.size()), &first_ts) ||
        !ContinueSeriesBlock(first_ts, it->value(), &writer, &last) || last.ts >= tail.front().ts) {
      return Status::Corruption("bad SERIES sample block");
    }
  }
  const uint64_t bound = SeriesBlockBound(meta.settings.chunk_size);
  bool dirty = false;  // the writer holds samples not stored yet
  for (const Sample& next : tail) {
    if (writer.count() > 0 && AddWithin(&writer, next, bound)) {
      dirty = true;
      continue;
    }
    if (dirty) batch->Put(options, prefix + SeriesElement(first_ts), writer.Finish(), now);
    writer = SampleBlockWriter();
    writer.Add(next.ts, next.value);
    first_ts = next.ts;
    dirty = true;
  }
  if (dirty) batch->Put(options, prefix + SeriesElement(first_ts), writer.Finish(), now);
  return Status::OK();
}

OpResult<Series::AddOutcome> Series::StoreInTail(std::string_view key, const Found& found,
                                                 Sample sample, DuplicatePolicy policy) {
  SeriesMeta meta = found.meta;
  std::optional<Sample> old;
  if (meta.newest && sample.ts <= meta.newest->ts) {  // inside the tail: maybe a duplicate
    Status s = Samples(key, meta).Scan(sample.ts, sample.ts, false, [&](const Sample& at) {
      old = at;
      return false;
    });
    if (!s.ok()) return s;
  }
  storage::WriteBatch batch;
  const std::string row_key = SamplePrefix(key, meta.version) + SeriesTailElement(sample.ts);
  if (old || meta.tail_count + 1 < kMaxSeriesBlockSamples) {
    if (old) {
      const std::optional<double> resolved = ResolveDuplicate(policy, old->value, sample.value);
      if (!resolved) return AddOutcome::kBlocked;
      sample.value = *resolved;
    } else if (meta.tail_count++ == 0) {
      meta.tail_from = sample.ts;  // a new tail: every block sample is below it
    }
    batch.Put(keyspace_.WriteOptions(), row_key, EncodeSampleValue(sample.value),
              keyspace_.NowMs());
  } else {  // the tail is full with this sample: folded into blocks
    Status s = FoldTail(key, meta, sample, &batch);
    if (!s.ok()) return s;
    meta.tail_count = 0;
  }
  if (!meta.newest || sample.ts >= meta.newest->ts) meta.newest = sample;
  Status s = WriteMeta(key, meta, found, &batch);
  if (!s.ok()) return s;
  return AddOutcome::kAdded;
}

OpResult<Series::AddOutcome> Series::StoreInBlock(std::string_view key, const Found& found,
                                                  int64_t ts, double value,
                                                  DuplicatePolicy policy) {
  SeriesMeta meta = found.meta;
  std::optional<StoredBlock> block;
  if (found.held()) {  // a new incarnation has no block yet
    Status s = ReadBlockAtOrBefore(key, meta, ts, true, &block);
    if (!s.ok()) return s;
  }
  std::vector<Sample> samples;
  if (block) samples = std::move(block->samples);
  auto at = std::lower_bound(samples.begin(), samples.end(), ts,
                             [](const Sample& sample, int64_t t) { return sample.ts < t; });
  double stored = value;
  if (at != samples.end() && at->ts == ts) {
    const std::optional<double> resolved = ResolveDuplicate(policy, at->value, value);
    if (!resolved) return AddOutcome::kBlocked;
    stored = *resolved;
    at->value = stored;
  } else {
    samples.insert(at, Sample{ts, stored});
  }
  if (!meta.newest || ts >= meta.newest->ts) meta.newest = Sample{ts, stored};
  storage::WriteBatch batch;
  PutBlocks(SamplePrefix(key, meta.version), meta, block, samples, &batch);
  Status s = WriteMeta(key, meta, found, &batch);
  if (!s.ok()) return s;
  return AddOutcome::kAdded;
}

OpResult<Series::AddOutcome> Series::Store(std::string_view key, const Found& found, int64_t ts,
                                           double value, DuplicatePolicy policy) {
  const SeriesMeta& meta = found.meta;
  const uint64_t retention = meta.settings.retention_ms;
  if (!keep_every_sample_ && retention > 0 && meta.newest &&
      ts<meta.newest->ts&& static_cast<uint64_t>(meta.newest->ts - ts)> retention) {
    return AddOutcome::kTooOld;
  }
  // After every stored sample, or at or above the tail's floor: the tail takes it.
  const bool in_tail =
      !meta.newest || ts > meta.newest->ts || (meta.tail_count > 0 && ts >= meta.tail_from);
  if (in_tail) return StoreInTail(key, found, Sample{ts, value}, policy);
  return StoreInBlock(key, found, ts, value, policy);
}

OpResult<Series::AddOutcome> Series::Add(std::string_view key, int64_t ts, double value,
                                         DuplicatePolicy on_duplicate,
                                         const SeriesSettings* create) {
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  Found found = std::move(*read);
  if (!found.held()) {
    if (create == nullptr) return OpStatus::kNotFound;
    Status s = NewIncarnation(key, *create, &found.meta);
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
  if (!found.held()) {
    Status s = NewIncarnation(key, create, &found.meta);
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
  if (!Readable(*read)) return OpStatus::kNotFound;
  return read->meta;
}

OpResult<std::optional<Sample>> Series::Latest(std::string_view key) {
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  if (!read->live) return OpStatus::kNotFound;
  // An expiry register may hide every sample of a series a later settings register keeps.
  const std::optional<Sample>& newest = read->meta.newest;
  if (newest && newest->ts < SeriesRegisterFloor(read->meta, keyspace_.db().ExpiryNowMs())) {
    return std::optional<Sample>();
  }
  return newest;
}

Status Series::ReadBlockAtOrBefore(std::string_view key, const SeriesMeta& meta, int64_t ts,
                                   bool or_first, std::optional<StoredBlock>* block) {
  block->reset();
  const std::string prefix = SamplePrefix(key, meta.version);
  std::unique_ptr<storage::Iterator> it = BlockIterator(keyspace_, prefix);
  SeekBlock(it.get(), prefix, ts, or_first);
  if (!it->Valid()) return it->status();
  StoredBlock& found = block->emplace();
  Status s = DecodeBlockAt(*it, prefix.size(), &found.first_ts, &found.samples);
  if (!s.ok()) return s;
  found.bytes = std::string(it->value());
  return Status::OK();
}

void Series::PutBlocks(const std::string& prefix, const SeriesMeta& meta,
                       const std::optional<StoredBlock>& old, const std::vector<Sample>& samples,
                       storage::WriteBatch* batch) {
  const std::vector<SeriesBlock> blocks =
      PackSeriesBlocks(samples, SeriesBlockBound(meta.settings.chunk_size));
  const storage::WriteOptions options = keyspace_.WriteOptions();
  const int64_t now = keyspace_.NowMs();
  if (old && std::none_of(blocks.begin(), blocks.end(),
                          [&](const SeriesBlock& b) { return b.first_ts == old->first_ts; })) {
    batch->Delete(options, prefix + SeriesElement(old->first_ts));
  }
  for (const SeriesBlock& b : blocks) {
    if (old && b.first_ts == old->first_ts && b.bytes == old->bytes) continue;  // unchanged
    batch->Put(options, prefix + SeriesElement(b.first_ts), b.bytes, now);
  }
}

OpResult<void> Series::Scan(std::string_view key, int64_t from, int64_t to, bool reverse,
                            const std::function<bool(const Sample&)>& visit) {
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  if (!Readable(*read)) return OpStatus::kNotFound;
  const int64_t low =
      read_stored_ ? from
                   : std::max(from, SeriesReadFloor(read->meta, keyspace_.db().ExpiryNowMs()));
  Status s = Samples(key, read->meta).Scan(low, to, reverse, visit);
  if (!s.ok()) return s;
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

OpResult<SeriesInfo> Series::Info(std::string_view key, bool list_blocks) {
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  if (!read->live) return OpStatus::kNotFound;
  SeriesInfo info;
  info.meta = read->meta;
  info.stored_bytes = MetaKey(keyspace_.layout(), db_, key).size() +
                      EncodeMetaValue(KeyType::kSeries, EncodeSeriesMeta(read->meta)).size();
  const int64_t now = keyspace_.db().ExpiryNowMs();
  const int64_t floor = SeriesReadFloor(read->meta, now);
  // A newest sample an expiry register hides (a series a later settings register keeps).
  if (info.meta.newest && info.meta.newest->ts < SeriesRegisterFloor(info.meta, now)) {
    info.meta.newest.reset();
  }
  SeriesInfo::Block tail;  // the tail rows, reported as one chunk
  tail.tail = true;
  Status s = Samples(key, read->meta).ForEachRow(0, false, [&](const SeriesRow& row) {
    const std::vector<Sample>& samples = *row.samples;
    info.stored_bytes += row.key_bytes + row.value_bytes;
    if (row.tail) {
      if (tail.samples++ == 0) tail.first_ts = samples.front().ts;
      tail.last_ts = samples.back().ts;
      tail.bytes += row.value_bytes;
    } else {
      ++info.block_count;
      if (list_blocks) {
        info.blocks.push_back(
            {samples.front().ts, samples.back().ts, samples.size(), row.value_bytes, false});
      }
    }
    for (const Sample& sample : samples) {
      if (sample.ts < floor) continue;
      if (info.total_samples++ == 0) info.first_timestamp = sample.ts;
    }
    return true;
  });
  if (!s.ok()) return s;
  if (tail.samples > 0) {
    ++info.block_count;
    if (list_blocks) info.blocks.push_back(tail);
  }
  return info;
}

Status Series::ReadNewestBelow(std::string_view key, const SeriesMeta& meta, int64_t below,
                               std::optional<Sample>* newest) {
  newest->reset();
  if (below <= 0) return Status::OK();
  return Samples(key, meta).Scan(0, below - 1, true, [&](const Sample& sample) {
    *newest = sample;
    return false;
  });
}

OpResult<uint64_t> Series::DeleteRange(std::string_view key, int64_t from, int64_t to) {
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  if (!read->held()) return OpStatus::kNotFound;
  SeriesMeta meta = read->meta;
  const int64_t floor = SeriesReadFloor(meta, keyspace_.db().ExpiryNowMs());
  uint64_t count = 0;      // visible samples in the range
  uint64_t stored = 0;     // samples in the range, visible or not
  uint64_t tail_rows = 0;  // tail rows in the range, visible or not
  Status s = Samples(key, meta).ForEachRow(from, false, [&](const SeriesRow& row) {
    for (const Sample& sample : *row.samples) {
      if (sample.ts < from) continue;
      if (sample.ts > to) return false;
      if (sample.ts >= floor) ++count;
      ++stored;
      if (row.tail) ++tail_rows;
    }
    return true;
  });
  if (!s.ok()) return s;
  if (stored == 0) return count;
  // The newest sample went: the new newest is the last one below the range (none above it).
  if (meta.newest && meta.newest->ts >= from && meta.newest->ts <= to) {
    s = ReadNewestBelow(key, meta, from, &meta.newest);
    if (!s.ok()) return s;
  }
  const std::string prefix = SamplePrefix(key, meta.version);
  const bool to_end = to == kMaxSeriesTimestamp;
  storage::WriteBatch batch;
  // The tail rows in the range go by one range deletion.
  if (tail_rows > 0) {
    batch.DeleteRange(
        storage::KeyRange{prefix + SeriesTailElement(from),
                          to_end ? PrefixUpperBound(prefix) : prefix + SeriesTailElement(to + 1)});
    meta.tail_count -= std::min(tail_rows, meta.tail_count);
  }
  // Every block starting in the range goes whole; the block starting before it (`from` > 0) and
  // the last one starting in it keep their samples outside the range, rewritten under keys
  // outside it.
  batch.DeleteRange(
      storage::KeyRange{prefix + SeriesElement(from),
                        to_end ? prefix + kSeriesTailTag : prefix + SeriesElement(to + 1)});
  for (const bool left : {true, false}) {
    if (left && from == 0) continue;
    std::optional<StoredBlock> block;
    s = ReadBlockAtOrBefore(key, meta, left ? from - 1 : to, false, &block);
    if (!s.ok()) return s;
    if (!block || (!left && block->first_ts < from)) continue;  // the left block, done
    std::vector<Sample> kept;
    for (const Sample& sample : block->samples) {
      if (sample.ts < from || sample.ts > to) kept.push_back(sample);
    }
    if (kept.size() == block->samples.size()) continue;
    block->samples.clear();
    if (!left) block.reset();  // its row is inside the range deletion
    PutBlocks(prefix, meta, block, kept, &batch);
  }
  s = WriteMeta(key, meta, *read, &batch);
  if (!s.ok()) return s;
  return count;
}

}  // namespace ebb::types
