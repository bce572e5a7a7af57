// Keyspace::CopyKey: one key's whole value under another name or database, as one engine write
// (RENAME, RENAMENX, COPY, MOVE). The layout it copies is docs/key-encoding.md's.
#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "storage/write_batch.h"
#include "types/key_encoding.h"
#include "types/key_meta.h"
#include "types/keyspace.h"
#include "types/series_codec.h"
#include "types/series_index.h"
#include "types/series_samples.h"
#include "types/tlog_codec.h"

namespace ebb::types {
namespace {

using storage::Status;

// Write options that give a row exactly `meta` (timestamp and absolute expiry).
storage::WriteOptions WithMeta(storage::WriteOptions options, const storage::RowMeta& meta) {
  options.timestamp_ms = meta.timestamp_ms;
  options.expire_at_ms = meta.expire_at_ms;
  return options;
}

}  // namespace

Status Keyspace::GetStringVersions(int db, std::string_view key,
                                   std::vector<storage::VersionRow>* versions) {
  Status s = active_->GetVersions(ReadOptions(), MetaKey(layout_, db, key), versions);
  if (!s.ok()) return s;
  std::erase_if(*versions, [](const storage::VersionRow& v) {
    KeyType type;
    std::string_view payload;
    // A version of a collection or a register names another type's state: it is left behind.
    return v.kind == storage::RowKind::kValue &&
           (!DecodeMetaValue(v.value, &type, &payload) || type != KeyType::kString);
  });
  return Status::OK();
}

Status Keyspace::ForEachSeriesSample(int db, std::string_view key, const SeriesMeta& series,
                                     std::vector<Sample>* samples) {
  // The samples reads show: those at or above newest - retention (types/series.h).
  int64_t floor = series.purged_below;
  const uint64_t retention = series.settings.retention_ms;
  if (retention > 0 && series.newest && static_cast<uint64_t>(series.newest->ts) > retention) {
    floor = std::max(floor, static_cast<int64_t>(series.newest->ts - retention));
  }
  SeriesSamples reader(*active_, ReadOptions(), SubRowPrefix(layout_, db, key, series.version),
                       series);
  return reader.Scan(floor, kMaxSeriesTimestamp, false, [&](const Sample& sample) {
    samples->push_back(sample);
    return true;
  });
}

Status Keyspace::ForEachTlogEntry(int db, std::string_view key, const TlogMeta& log,
                                  const std::function<void(std::string_view element, uint64_t ts,
                                                           const storage::RowMeta& meta)>& visit) {
  const std::string prefix = SubRowPrefix(layout_, db, key, log.version);
  storage::ReadOptions read = ReadOptions();
  read.lower_bound = prefix;
  read.upper_bound = PrefixUpperBound(prefix);
  std::unique_ptr<storage::Iterator> it = active_->NewIterator(read);
  for (it->Seek(prefix); it->Valid(); it->Next()) {
    const std::string_view element = it->key().substr(prefix.size());
    uint64_t ts = 0;
    if (!DecodeTlogElementTs(element, &ts)) return Status::Corruption("malformed TLOG entry key");
    if (ts < log.cutoff) break;  // every later entry is older still
    visit(element, ts, it->meta());
  }
  return it->status();
}

OpResult<Keyspace::CopyOutcome> Keyspace::CopyKey(const CopyRequest& r) {
  KeyMetaRow source;
  Status s = GetMeta(r.src_db, r.src, &source);
  if (s.IsNotFound()) return CopyOutcome::kNoSource;
  if (!s.ok()) return s;
  if (!r.replace) {
    KeyMetaRow target;
    s = GetMeta(r.dst_db, r.dst, &target);
    if (s.ok()) return CopyOutcome::kTargetExists;
    if (!s.IsNotFound()) return s;
  }

  const storage::WriteOptions options = WriteOptions();
  const int64_t now = NowMs();
  const std::string dst_meta_key = MetaKey(layout_, r.dst_db, r.dst);
  storage::WriteBatch batch;
  storage::WriteOptions wipe_options = options;
  wipe_options.timestamp_ms = now;
  batch.Wipe(wipe_options, dst_meta_key);

  switch (source.type) {
    case KeyType::kString: {
      // Every version a read at some grace could take, rewritten oldest first.
      std::vector<storage::VersionRow> versions;
      s = GetStringVersions(r.src_db, r.src, &versions);
      if (!s.ok()) return s;
      for (auto v = versions.rbegin(); v != versions.rend(); ++v) {
        if (v->kind == storage::RowKind::kTombstone) {
          batch.Delete(WithMeta(options, v->meta), dst_meta_key);
        } else {
          batch.Put(WithMeta(options, v->meta), dst_meta_key, v->value, now);
        }
      }
      break;
    }
    case KeyType::kTreg:
      batch.Put(WithMeta(options, source.meta), dst_meta_key,
                EncodeMetaValue(source.type, source.payload, source.raw_string), now);
      break;
    case KeyType::kTlog: {
      TlogMeta log;
      if (!DecodeTlogMeta(source.payload, &log)) {
        return Status::Corruption("copy: malformed TLOG metadata");
      }
      uint64_t version = 0;
      s = NewVersion(&version);
      if (!s.ok()) return s;
      // Each entry keeps its row meta (a retention window's entries carry their own expiry).
      const std::string dst_prefix = SubRowPrefix(layout_, r.dst_db, r.dst, version);
      std::string dst_key;
      s = ForEachTlogEntry(r.src_db, r.src, log,
                           [&](std::string_view element, uint64_t, const storage::RowMeta& meta) {
                             dst_key.assign(dst_prefix).append(element);
                             batch.Put(WithMeta(options, meta), dst_key, "", now);
                           });
      if (!s.ok()) return s;
      log.version = version;
      batch.Put(WithMeta(options, source.meta), dst_meta_key,
                EncodeMetaValue(KeyType::kTlog, EncodeTlogMeta(log)), now);
      break;
    }
    case KeyType::kSeries: {
      SeriesMeta series;
      if (!DecodeSeriesMeta(source.payload, &series)) {
        return Status::Corruption("copy: malformed SERIES metadata");
      }
      std::vector<Sample> samples;
      s = ForEachSeriesSample(r.src_db, r.src, series, &samples);
      if (!s.ok()) return s;
      s = NewVersion(&series.version);
      if (!s.ok()) return s;
      series.purged_below = 0;
      series.tail_count = 0;          // the samples go into blocks
      series.purge_marked_until = 0;  // the copy has no purge marker of its own yet
      const std::string dst_prefix = SubRowPrefix(layout_, r.dst_db, r.dst, series.version);
      for (const SeriesBlock& block :
           PackSeriesBlocks(samples, SeriesBlockBound(series.settings.chunk_size))) {
        batch.Put(options, dst_prefix + SeriesElement(block.first_ts), block.bytes, now);
      }
      batch.Put(WithMeta(options, source.meta), dst_meta_key,
                EncodeMetaValue(KeyType::kSeries, EncodeSeriesMeta(series)), now);
      // The label index: the target's rows, and the moved source's gone (types/series_index.h).
      WriteSeriesIndexRows(options, r.dst_db, r.dst, nullptr, series.settings.labels, now, &batch);
      if (r.remove_source) {
        DeleteSeriesIndexRows(options, r.src_db, r.src, series.settings.labels, &batch);
      }
      break;
    }
  }

  if (r.remove_source) batch.Wipe(wipe_options, MetaKey(layout_, r.src_db, r.src));
  s = active_->Write(options, batch);
  if (!s.ok()) return s;
  return CopyOutcome::kCopied;
}

}  // namespace ebb::types
