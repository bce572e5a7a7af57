#include "types/series_purge.h"

#include <algorithm>
#include <vector>

#include "storage/expired_retention.h"
#include "storage/write_batch.h"
#include "types/compaction_filter.h"
#include "types/key_encoding.h"
#include "types/sample_block.h"
#include "types/series.h"

namespace ebb::types {

using storage::CompactionFilter;
using storage::Status;

int64_t SeriesVisibleFloor(const SeriesMeta& meta) {
  if (meta.settings.retention_ms == 0 || !meta.newest) return 0;
  const uint64_t newest = static_cast<uint64_t>(meta.newest->ts);
  if (newest <= meta.settings.retention_ms) return 0;
  return static_cast<int64_t>(newest - meta.settings.retention_ms);
}

int64_t SeriesRegisterFloor(const SeriesMeta& meta, int64_t now_ms) {
  const auto& reg = meta.expiry_register;
  if (!reg || !reg->expire_at || *reg->expire_at > now_ms || reg->ts < 0) return 0;
  return reg->ts == kMaxSeriesTimestamp ? kMaxSeriesTimestamp : reg->ts + 1;
}

int64_t SeriesReadFloor(const SeriesMeta& meta, int64_t now_ms) {
  return std::max(SeriesVisibleFloor(meta), SeriesRegisterFloor(meta, now_ms));
}

std::optional<int64_t> SeriesKeyExpiry(const SeriesMeta& meta) {
  const auto& reg = meta.expiry_register;
  if (!reg || reg->settings_after || (meta.newest && meta.newest->ts > reg->ts)) {
    return std::nullopt;
  }
  return reg->expire_at;
}

int64_t SeriesPurgeFloor(const SeriesMeta& meta, int64_t now_ms) {
  // A rule's source keeps what it stores: its destinations' buckets are computed from every
  // stored sample (docs/active-active.md, "Rules").
  if (!meta.rules.empty()) return 0;
  int64_t floor = 0;
  for (const SeriesHidden& entry : meta.hidden) {
    if (entry.at_ms > now_ms) break;
    floor = entry.floor;
  }
  return std::max(std::min(floor, SeriesVisibleFloor(meta)), SeriesRegisterFloor(meta, now_ms));
}

bool NoteSeriesHidden(SeriesMeta* meta, int64_t now_ms, int64_t half_ms) {
  const int64_t floor = SeriesVisibleFloor(*meta);
  std::vector<SeriesHidden>& hidden = meta->hidden;
  // A wider retention showed samples again: no recorded floor stays above the visible one, and
  // of equal floors the earliest tells when they were hidden.
  for (SeriesHidden& entry : hidden) entry.floor = std::min(entry.floor, floor);
  std::erase_if(hidden, [](const SeriesHidden& entry) { return entry.floor <= 0; });
  hidden.erase(
      std::unique(hidden.begin(), hidden.end(),
                  [](const SeriesHidden& a, const SeriesHidden& b) { return a.floor == b.floor; }),
      hidden.end());
  const bool raised = floor > 0 && (hidden.empty() || floor > hidden.back().floor);
  const int64_t at = std::max<int64_t>({now_ms, 0, hidden.empty() ? 0 : hidden.back().at_ms});
  const int64_t bucket = std::max<int64_t>(1, half_ms / 4);
  if (raised) {
    // One entry per bucket of a quarter of the half deadline: its time moves to the latest hiding
    // in the bucket (later, never earlier, than any sample it covers was hidden).
    if (!hidden.empty() && hidden.back().at_ms / bucket == at / bucket) {
      hidden.back() = SeriesHidden{at, floor};
    } else {
      hidden.push_back(SeriesHidden{at, floor});
    }
  }
  // The entries settled half a deadline ago: the last of them says all they say.
  const auto settled = std::find_if(hidden.begin(), hidden.end(), [&](const SeriesHidden& entry) {
    return entry.at_ms > now_ms - half_ms;
  });
  if (settled - hidden.begin() > 1) hidden.erase(hidden.begin(), settled - 1);
  // A clock moved back may leave more: dropping an entry leaves its samples to the next one,
  // which is later (a later purge, never an earlier one).
  while (hidden.size() > kMaxSeriesHidden) hidden.erase(hidden.begin() + 1);
  return raised;
}

CompactionFilter::Decision FilterSeriesSampleRow(const SeriesMeta& meta, std::string_view element,
                                                 std::string_view value, std::string* new_value) {
  return FilterSeriesSampleRowBelow(SeriesVisibleFloor(meta), element, value, new_value);
}

CompactionFilter::Decision FilterSeriesSampleRowBelow(int64_t floor, std::string_view element,
                                                      std::string_view value,
                                                      std::string* new_value) {
  int64_t ts = 0;
  if (floor == 0) return CompactionFilter::Decision::kKeep;
  if (!element.empty() && element[0] == kSeriesTailTag) {
    if (!DecodeSeriesTailElement(element, &ts)) return CompactionFilter::Decision::kKeep;
    return ts < floor ? CompactionFilter::Decision::kDrop : CompactionFilter::Decision::kKeep;
  }
  // A block keyed at or above the floor holds no sample below it: kept without decoding.
  if (!DecodeSeriesElement(element, &ts) || ts >= floor) return CompactionFilter::Decision::kKeep;
  std::vector<Sample> samples;
  if (!DecodeSeriesBlock(ts, value, &samples)) return CompactionFilter::Decision::kKeep;
  if (samples.back().ts < floor) return CompactionFilter::Decision::kDrop;
  if (samples.front().ts >= floor) return CompactionFilter::Decision::kKeep;
  SampleBlockWriter writer;
  for (const Sample& sample : samples) {
    if (sample.ts >= floor) writer.Add(sample.ts, sample.value);
  }
  *new_value = writer.Finish();
  return CompactionFilter::Decision::kChangeValue;
}

void RegisterSeriesCompactionHook(TypesCompactionFilter& filter) {
  const TypesCompactionFilter* const mode = &filter;  // outlives its hooks
  filter.RegisterSubRowHook(
      KeyType::kSeries,
      [mode](const KeyMetaRow& meta, const SubRowKeyParts& key, const storage::RowMeta&,
             std::string_view value, int64_t now_ms, std::string* new_value) {
        SeriesMeta series;
        if (!DecodeSeriesMeta(meta.payload, &series)) return CompactionFilter::Decision::kKeep;
        // In active-active mode (dead versions kept) only what was hidden half a deadline ago:
        // now_ms is then half the deadline behind the clock.
        const int64_t floor = mode->KeepsDeadVersions() ? SeriesPurgeFloor(series, now_ms)
                                                        : SeriesVisibleFloor(series);
        return FilterSeriesSampleRowBelow(floor, key.element, value, new_value);
      });
}

OpResult<std::optional<SeriesMeta>> Series::HeldMeta(std::string_view key) {
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  if (!read->held()) return std::optional<SeriesMeta>();
  return std::optional<SeriesMeta>(read->meta);
}

OpResult<void> Series::SetExpiryRegister(std::string_view key,
                                         const std::optional<SeriesMeta::ExpiryRegister>& reg) {
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  const Found& found = *read;
  if (!found.held() || found.meta.expiry_register == reg) return {};
  SeriesMeta meta = found.meta;
  meta.expiry_register = reg;
  storage::WriteBatch batch;
  // The samples the register hides are purged half a deadline after its expiry, as those
  // retention hid (SeriesPurgeFloor): markers that expire then make compaction meet them.
  const int64_t now = keyspace_.NowMs();
  if (keep_every_sample_ && keyspace_.purge_deadline_ms() >= 0 && reg && reg->expire_at &&
      *reg->expire_at > now) {
    const int64_t lifetime = *reg->expire_at - now;
    const int64_t marked_until = meta.purge_marked_until;
    AddPurgeMarkers(key, now, lifetime, &meta, &batch);
    meta.purge_marked_until = marked_until;  // retention's own markers keep their pace
  }
  Status s = WriteMeta(key, meta, found, &batch);
  if (!s.ok()) return s;
  return {};
}

Status Series::PlanHiddenPurge(std::string_view key, SeriesMeta* meta, storage::WriteBatch* batch) {
  const int64_t deadline = keyspace_.purge_deadline_ms();
  const int64_t half = storage::KeptExpiredRetentionMs(deadline);
  const int64_t now = keyspace_.NowMs();
  if (!NoteSeriesHidden(meta, now, half) || deadline < 0 || now < meta->purge_marked_until) {
    return Status::OK();
  }
  // The markers expire after the latest time this bucket's entry can take; each compaction that
  // removes one runs at least half a deadline after that (expired rows stay whole that long), so
  // its purge hint meets the samples with that entry's floor in force.
  AddPurgeMarkers(key, now, std::max<int64_t>(1, half / 4), meta, batch);
  return Status::OK();
}

Status Series::PlanPurge(std::string_view key, const Found& previous, SeriesMeta* meta,
                         storage::WriteBatch* batch) {
  const int64_t floor = SeriesVisibleFloor(*meta);
  if (floor == 0) return Status::OK();
  // The window moved by a whole window past what was range-deleted: the blocks below it go by
  // one range deletion (whole table files by a manifest edit).
  const uint64_t retention = meta->settings.retention_ms;
  if (floor > meta->purged_below &&
      static_cast<uint64_t>(floor - meta->purged_below) >= retention) {
    Status s = PurgeBelow(key, *meta, floor, batch);
    if (!s.ok()) return s;
    meta->purged_below = floor;
  }
  // Samples hidden now, with no marker pending to cover them: a new marker.
  const bool same = previous.live && previous.meta.version == meta->version;
  const int64_t hidden_before = same ? SeriesVisibleFloor(previous.meta) : 0;
  const int64_t deadline = keyspace_.purge_deadline_ms();
  const int64_t now = keyspace_.NowMs();
  if (floor <= hidden_before || deadline < 0 || now < meta->purge_marked_until) {
    return Status::OK();
  }
  AddPurgeMarkers(key, now, std::max<int64_t>(1, deadline / 4), meta, batch);
  return Status::OK();
}

void Series::AddPurgeMarkers(std::string_view key, int64_t now, int64_t lifetime_ms,
                             SeriesMeta* meta, storage::WriteBatch* batch) {
  int64_t expire_at = 0;
  if (__builtin_add_overflow(now, lifetime_ms, &expire_at)) {
    return;  // a deadline beyond the clock's range: as good as none
  }
  storage::WriteOptions options = keyspace_.WriteOptions();
  options.timestamp_ms = now;
  options.expire_at_ms = expire_at;
  batch->Put(options, PurgeMarkerKey(SamplePrefix(key, meta->version), expire_at), "", now);
  if (merge_state_prefix_) {
    const std::string prefix = merge_state_prefix_(key);
    if (!prefix.empty()) batch->Put(options, PurgeMarkerKey(prefix, expire_at), "", now);
  }
  meta->purge_marked_until = expire_at;
}

Status Series::PurgeBelow(std::string_view key, const SeriesMeta& meta, int64_t floor,
                          storage::WriteBatch* batch) {
  // The block at or before the floor may hold visible samples (or take the sample this write
  // adds); those before it hold none. The batch's own block rows all sort at or after that block
  // (an add at ts >= floor writes the block at or before ts and blocks after it; a fold, the last
  // block and blocks after it), so the deletion never takes them. Tail rows below the floor are
  // left for compaction (the marker): tail_count stays the rows the adds stored.
  std::optional<StoredBlock> boundary;
  Status s = ReadBlockAtOrBefore(key, meta, floor, false, &boundary);
  if (!s.ok() || !boundary || boundary->first_ts == 0) return s;
  const std::string prefix = SamplePrefix(key, meta.version);
  batch->DeleteRange(storage::KeyRange{prefix, prefix + SeriesElement(boundary->first_ts)});
  return Status::OK();
}

}  // namespace ebb::types
