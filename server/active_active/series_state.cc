#include "server/active_active/series_state.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <limits>

#include "common/strings.h"
#include "server/active_active/series_purge.h"
#include "server/active_active/series_range.h"
#include "server/active_active/series_rules_state.h"
#include "server/active_active/whole_key.h"
#include "storage/util/coding.h"
#include "types/keyspace.h"
#include "types/series.h"

namespace ebb::server {
namespace {

constexpr size_t kSamplesPerPiece = 256;

// `aa-tss:<db>:<key length>:<key>`: the prefix of the key's sample rows (the length keeps one
// key's rows apart from a longer key's).
std::string SampleRowPrefix(int db, std::string_view key) {
  return types::Keyspace::SystemRowKey(std::string(kSeriesSampleRowPrefix) + std::to_string(db) +
                                       ":" + std::to_string(key.size()) + ":" + std::string(key));
}

std::string SampleRowKey(int db, std::string_view key, int64_t ts) {
  std::string row = SampleRowPrefix(db, key);
  const uint64_t be = __builtin_bswap64(static_cast<uint64_t>(ts));
  row.append(reinterpret_cast<const char*>(&be), 8);
  return row;
}

std::string RegisterRowKey(int db, std::string_view key) {
  return types::Keyspace::SystemRowKey(PerKeyRowName(kSeriesRegisterRowPrefix, db, key));
}

// The register order, made total: equal stamps (two nodes' settings adopted from before the
// mode) by their bytes.
bool RegisterBelow(const types::SeriesRegister& a, const types::SeriesRegister& b) {
  if (a.Precedes(b)) return true;
  if (b.Precedes(a)) return false;
  return types::EncodeSeriesRegister(a) < types::EncodeSeriesRegister(b);
}

// Every sample's state of `key`: its rows, then the visible samples that have none (adopted).
storage::Status ForEachSampleState(
    types::Keyspace& keyspace, int db, std::string_view key,
    const std::function<void(int64_t, const types::SampleState&)>& fn) {
  storage::Status s = ForEachSampleRowIn(
      keyspace, db, key, 0, INT64_MAX, [&](int64_t ts, std::string_view, std::string_view value) {
        types::SampleState state;
        if (!types::DecodeSampleState(value, &state)) {
          return storage::Status::Corruption("active-active sample state");
        }
        fn(ts, state);
        return storage::Status::OK();
      });
  if (!s.ok()) return s;
  // A computed series' samples are each node's own computation, not records (adopted or not).
  bool computed = false;
  if (s = IsComputedSeries(keyspace, db, key, &computed); !s.ok() || computed) return s;
  std::vector<types::Sample> adopted;
  auto scanned =
      types::Series(keyspace, db)
          .Scan(key, 0, types::kMaxSeriesTimestamp, false, [&](const types::Sample& sample) {
            adopted.push_back(sample);
            return true;
          });
  // A series its expiry register expired whole shows none (only rows carry its samples).
  if (!scanned.ok() && scanned.status() != types::OpStatus::kNotFound) {
    return types::EngineStatusOf(scanned, "series");
  }
  storage::Row row;
  for (const types::Sample& sample : adopted) {
    s = keyspace.db().Get(keyspace.ReadOptions(), SampleRowKey(db, key, sample.ts), &row);
    if (s.ok()) continue;
    if (!s.IsNotFound()) return s;
    fn(sample.ts, types::SampleState{{types::AdoptedRecord(sample.value)}});
  }
  return storage::Status::OK();
}

std::string DoubleBits(double v) { return std::to_string(std::bit_cast<uint64_t>(v)); }

}  // namespace

types::Series KeepingSeries(types::Keyspace& keyspace, int db) {
  types::Series series(keyspace, db);
  // Its purge markers name the key's merge-state rows too (series_purge.h).
  series.KeepEverySample([db](std::string_view key) { return SampleRowPrefix(db, key); });
  return series;
}

storage::Status HeldSeriesMeta(types::Keyspace& keyspace, int db, std::string_view key,
                               std::optional<types::SeriesMeta>* meta) {
  auto held = types::Series(keyspace, db).HeldMeta(key);
  if (held.ok()) {
    *meta = std::move(*held);
    return storage::Status::OK();
  }
  meta->reset();
  return held.status() == types::OpStatus::kEngineError ? held.engine_status()
                                                        : storage::Status::OK();
}

storage::Status ForEachSampleRowIn(
    types::Keyspace& keyspace, int db, std::string_view key, int64_t first, int64_t last,
    const std::function<storage::Status(int64_t, std::string_view, std::string_view)>& fn) {
  const std::string prefix = SampleRowPrefix(db, key);
  auto it = keyspace.db().NewIterator(keyspace.ReadOptions());
  for (it->Seek(first > 0 ? SampleRowKey(db, key, first) : prefix);
       it->Valid() && it->key().starts_with(prefix); it->Next()) {
    const std::string_view suffix = it->key().substr(prefix.size());
    if (suffix.size() != 8) continue;
    const int64_t ts =
        static_cast<int64_t>(__builtin_bswap64(storage::DecodeFixed64(suffix.data())));
    if (ts > last) break;
    storage::Status s = fn(ts, it->key(), it->value());
    if (!s.ok()) return s;
  }
  return it->status();
}

std::vector<std::string> SeriesDeltaArgs(std::span<const SeriesGroup> groups) {
  std::vector<std::string> args{std::string(kSeriesDelta)};
  for (const SeriesGroup& group : groups) {
    args.push_back(group.key);
    args.push_back(types::EncodeSeriesRegister(group.reg));
    args.push_back(std::to_string(group.samples.size()));
    for (const auto& [ts, state] : group.samples) {
      args.push_back(std::to_string(ts));
      args.push_back(types::EncodeSampleState(state));
    }
  }
  return args;
}

bool ParseSeriesDelta(std::span<const std::string> args, std::vector<SeriesGroup>* groups) {
  groups->clear();
  size_t i = 1;
  if (args.size() < 4) return false;
  while (i < args.size()) {
    if (args.size() - i < 3) return false;
    SeriesGroup group;
    group.key = args[i];
    uint64_t n = 0;
    if (!types::DecodeSeriesRegister(args[i + 1], &group.reg) || !ParseUint64(args[i + 2], &n) ||
        n > (args.size() - i - 3) / 2) {
      return false;
    }
    i += 3;
    for (uint64_t k = 0; k < n; k++, i += 2) {
      int64_t ts = 0;
      types::SampleState state;
      if (!ParseInt64(args[i], &ts) || ts < 0 || !types::DecodeSampleState(args[i + 1], &state) ||
          state.records.empty()) {
        return false;
      }
      group.samples.emplace_back(ts, std::move(state));
    }
    groups->push_back(std::move(group));
  }
  return true;
}

storage::Status ReadSeriesRegister(types::Keyspace& keyspace, int db, std::string_view key,
                                   std::optional<types::SeriesRegister>* reg) {
  reg->reset();
  storage::Row row;
  storage::Status s = keyspace.db().Get(keyspace.ReadOptions(), RegisterRowKey(db, key), &row);
  if (s.ok()) {
    types::SeriesRegister decoded;
    if (!types::DecodeSeriesRegister(row.value, &decoded)) {
      return storage::Status::Corruption("active-active series register");
    }
    *reg = std::move(decoded);
    return s;
  }
  if (!s.IsNotFound()) return s;
  std::optional<types::SeriesMeta> meta;
  s = HeldSeriesMeta(keyspace, db, key, &meta);
  if (s.ok() && meta)
    *reg = types::SeriesRegister{.ms = 0, .origin = "", .settings = meta->settings};
  return s;
}

storage::Status ReadSampleState(types::Keyspace& keyspace, int db, std::string_view key, int64_t ts,
                                types::SampleState* state) {
  *state = types::SampleState();
  storage::Row row;
  storage::Status s = keyspace.db().Get(keyspace.ReadOptions(), SampleRowKey(db, key, ts), &row);
  if (s.ok()) {
    return types::DecodeSampleState(row.value, state)
               ? s
               : storage::Status::Corruption("active-active sample state");
  }
  if (!s.IsNotFound()) return s;
  // No row: a sample stored before the mode, if any. An add after the newest sample (the common
  // one) finds none without a seek into the samples.
  types::Series series(keyspace, db);
  auto meta = series.Meta(key);
  if (meta.status() == types::OpStatus::kEngineError) return meta.engine_status();
  if (!meta.ok() || !meta->newest || meta->newest->ts < ts) return storage::Status::OK();
  std::optional<types::Sample> held;
  auto scanned = series.Scan(key, ts, ts, false, [&](const types::Sample& x) {
    held = x;
    return false;
  });
  if (!scanned.ok() && scanned.status() != types::OpStatus::kNotFound &&
      scanned.status() != types::OpStatus::kWrongType) {
    return types::EngineStatusOf(scanned, "series");
  }
  if (held) state->records.push_back(types::AdoptedRecord(held->value));
  return storage::Status::OK();
}

storage::Status ReadSampleStateRows(types::Keyspace& keyspace, int db, std::string_view key,
                                    std::vector<std::pair<int64_t, types::SampleState>>* rows) {
  return ForEachSampleRowIn(keyspace, db, key, INT64_MIN, INT64_MAX,
                            [&](int64_t ts, std::string_view, std::string_view value) {
                              types::SampleState state;
                              if (!types::DecodeSampleState(value, &state)) {
                                return storage::Status::Corruption("active-active sample state");
                              }
                              rows->emplace_back(ts, std::move(state));
                              return storage::Status::OK();
                            });
}

storage::Status MergeSeriesGroup(types::Keyspace& keyspace, int db, const SeriesGroup& group,
                                 int64_t deleted_up_to, int64_t every_delete_up_to, bool* covered) {
  const std::string& key = group.key;
  std::optional<types::SeriesRegister> held;
  storage::Status s = ReadSeriesRegister(keyspace, db, key, &held);
  if (!s.ok()) return s;
  types::SeriesRegister reg = group.reg;
  if (held && !RegisterBelow(*held, group.reg)) {
    reg = *held;
  } else {
    s = keyspace.db().Put(keyspace.WriteOptions(), RegisterRowKey(db, key),
                          types::EncodeSeriesRegister(reg));
    if (!s.ok()) return s;
  }
  std::vector<types::SeriesRangeMarker> markers;  // the key's range deletes (series_range.h)
  if (s = ReadRangeMarkers(keyspace, db, key, &markers); !s.ok()) return s;
  types::Series series = KeepingSeries(keyspace, db);
  std::optional<types::SeriesMeta> meta;  // a series expired whole by its register continues
  if (s = HeldSeriesMeta(keyspace, db, key, &meta); !s.ok()) return s;
  const bool absent = !meta;
  bool computed = false;
  if (s = IsComputedSeries(keyspace, db, key, meta, &computed); !s.ok()) return s;
  // A sample below the purge floor is hidden everywhere and purged where it was held: dropped.
  int64_t purge_floor = 0;
  if (!absent) s = SeriesPurgeFloorNow(keyspace, db, key, &purge_floor);
  if (!s.ok()) return s;
  std::vector<types::Sample> writes;
  for (const auto& [ts, incoming] : group.samples) {
    if (ts <= deleted_up_to) {
      *covered = true;
      continue;
    }
    if (ts < purge_floor) continue;
    types::SampleState state;
    s = ReadSampleState(keyspace, db, key, ts, &state);
    if (!s.ok()) return s;
    bool changed = false;
    for (const types::SampleRecord& record : incoming.records) {
      const int64_t at = ts;  // a structured binding no lambda may capture (Clang 14)
      const bool dropped =
          std::any_of(markers.begin(), markers.end(), [&](const types::SeriesRangeMarker& m) {
            return types::RangeMarkerCovers(m, at, record);
          });
      if (!dropped) changed = types::MergeRecord(&state, record) || changed;
    }
    if (state.records.empty()) continue;  // every record a range delete covers
    if (changed) {
      s = keyspace.db().Put(keyspace.WriteOptions(), SampleRowKey(db, key, ts),
                            types::EncodeSampleState(state));
      if (!s.ok()) return s;
    }
    if (changed || absent) writes.push_back({ts, types::ResolveSample(state)});
  }
  if (absent) {
    // An empty series the key's delete covers stays deleted, and still raises the key's floor
    // (*covered), as it did where it arrived before the delete.
    if (writes.empty() && reg.ms <= every_delete_up_to) {
      *covered = true;
      return storage::Status::OK();
    }
    auto created = series.Create(key, reg.settings);
    if (!created.ok()) return types::EngineStatusOf(created, "series");
  } else if (!types::SameSeriesSettings(meta->settings, reg.settings)) {
    types::SeriesAlter alter{.retention_ms = reg.settings.retention_ms,
                             .duplicate_policy = reg.settings.duplicate_policy,
                             .chunk_size = reg.settings.chunk_size,
                             .labels = reg.settings.labels,
                             .encoding = reg.settings.encoding};
    auto altered = series.Alter(key, alter);
    if (!altered.ok()) return types::EngineStatusOf(altered, "series");
  }
  for (const types::Sample& sample : computed ? std::vector<types::Sample>() : writes) {
    auto added =
        series.Add(key, sample.ts, sample.value, types::DuplicatePolicy::kLast, &reg.settings);
    if (!added.ok()) return types::EngineStatusOf(added, "series");
  }
  return storage::Status::OK();
}

// The greatest timestamp of `key`'s sample rows (its records) after `after`; nullopt when none.
storage::Status NewestSampleRowAfter(types::Keyspace& keyspace, int db, std::string_view key,
                                     int64_t after, std::optional<int64_t>* newest) {
  newest->reset();
  if (after == std::numeric_limits<int64_t>::max()) return storage::Status::OK();
  return ForEachSampleRowIn(keyspace, db, key, after + 1, std::numeric_limits<int64_t>::max(),
                            [&](int64_t ts, std::string_view, std::string_view) {
                              *newest = ts;  // the rows come in timestamp order
                              return storage::Status::OK();
                            });
}

storage::Status RaiseToSeriesNewest(types::Keyspace& keyspace, int db, std::string_view key,
                                    int64_t* ts, bool* existed) {
  std::optional<types::SeriesMeta> meta;  // live, or expired whole by its register
  storage::Status s = HeldSeriesMeta(keyspace, db, key, &meta);
  if (!s.ok() || !meta) return s;
  *existed = true;
  if (meta->newest) *ts = std::max(*ts, meta->newest->ts);
  std::optional<types::SeriesRegister> reg;
  s = ReadSeriesRegister(keyspace, db, key, &reg);
  if (s.ok() && reg) *ts = std::max(*ts, reg->ms);
  // A computed series' samples are the rule's, not its records: a record written to it before
  // its rule (newer than every bucket) is covered too, as every node's delete then covers it.
  bool computed = false;
  if (s.ok()) s = IsComputedSeries(keyspace, db, key, meta, &computed);
  std::optional<int64_t> record;
  if (s.ok() && computed) s = NewestSampleRowAfter(keyspace, db, key, *ts, &record);
  if (record) *ts = *record;
  return s;
}

storage::Status DeleteSeriesUpTo(types::Keyspace& keyspace, int db, std::string_view key,
                                 int64_t ts) {
  if (storage::Status s = DropRangeMarkersUpTo(keyspace, db, key, ts); !s.ok()) return s;
  types::Series series = KeepingSeries(keyspace, db);
  std::optional<types::SeriesMeta> meta;  // live, or expired whole by its register
  storage::Status s = HeldSeriesMeta(keyspace, db, key, &meta);
  if (!s.ok() || !meta) return s;
  std::optional<types::SeriesRegister> reg;
  s = ReadSeriesRegister(keyspace, db, key, &reg);
  if (!s.ok()) return s;
  std::vector<std::string> rows;
  s = ForEachSampleRowIn(keyspace, db, key, INT64_MIN, ts,
                         [&](int64_t, std::string_view row, std::string_view) {
                           rows.emplace_back(row);
                           return storage::Status::OK();
                         });
  for (size_t i = 0; s.ok() && i < rows.size(); i++) {
    s = keyspace.db().Delete(keyspace.WriteOptions(), rows[i]);
  }
  if (!s.ok()) return s;
  // A computed series' samples say nothing of what was written after the delete; its records
  // after it do (a link that stops being live leaves the samples they resolve to).
  bool computed = false;
  if (s = IsComputedSeries(keyspace, db, key, meta, &computed); !s.ok()) return s;
  std::optional<int64_t> record_after;
  if (computed) {
    if (s = NewestSampleRowAfter(keyspace, db, key, ts, &record_after); !s.ok()) return s;
  }
  const bool keep = (!computed && meta->newest && meta->newest->ts > ts) ||
                    record_after.has_value() || (reg && reg->ms > ts);
  if (!keep) {
    auto wiped = keyspace.Delete(db, key);
    return wiped.ok() ? storage::Status::OK() : wiped.engine_status();
  }
  if (ts < 0) return storage::Status::OK();
  auto deleted = series.DeleteRange(key, 0, ts);
  return deleted.ok() ? storage::Status::OK() : types::EngineStatusOf(deleted, "series");
}

storage::Status SeriesSnapshotPieces(types::Keyspace& keyspace, int db, std::string_view key,
                                     std::vector<std::vector<std::string>>* pieces) {
  std::optional<types::SeriesRegister> reg;
  storage::Status s = ReadSeriesRegister(keyspace, db, key, &reg);
  if (!s.ok() || !reg) return s;
  SeriesGroup group{.key = std::string(key), .reg = *reg, .samples = {}};
  bool emitted = false;
  s = ForEachSampleState(keyspace, db, key, [&](int64_t ts, const types::SampleState& state) {
    group.samples.emplace_back(ts, state);
    if (group.samples.size() < kSamplesPerPiece) return;
    pieces->push_back(SeriesDeltaArgs(std::span(&group, 1)));
    group.samples.clear();
    emitted = true;
  });
  if (!s.ok()) return s;
  if (!group.samples.empty() || !emitted) pieces->push_back(SeriesDeltaArgs(std::span(&group, 1)));
  return storage::Status::OK();
}

storage::Status SeriesDigestText(types::Keyspace& keyspace, int db, std::string_view key,
                                 std::string* text) {
  auto meta = types::Series(keyspace, db).Meta(key);
  if (!meta.ok()) return types::EngineStatusOf(meta, "series");
  const types::SeriesSettings& settings = meta->settings;
  *text += "r" + std::to_string(settings.retention_ms) + "p" +
           std::to_string(static_cast<int>(settings.duplicate_policy)) + "e" +
           std::to_string(static_cast<int>(settings.encoding)) + "c" +
           std::to_string(settings.chunk_size) + ";";
  for (const auto& [name, value] : settings.labels) {
    *text += "l" + std::to_string(name.size()) + ":" + name + "=" + std::to_string(value.size()) +
             ":" + value + ";";
  }
  auto scanned =
      types::Series(keyspace, db)
          .Scan(key, 0, types::kMaxSeriesTimestamp, false, [&](const types::Sample& sample) {
            *text += "s" + std::to_string(sample.ts) + "=" + DoubleBits(sample.value) + ";";
            return true;
          });
  if (!scanned.ok()) return types::EngineStatusOf(scanned, "series");
  if (storage::Status s = SeriesRuleDigestText(keyspace, db, key, text); !s.ok()) return s;
  return ForEachSampleState(keyspace, db, key, [&](int64_t ts, const types::SampleState& state) {
    *text += "st" + std::to_string(ts) + ":" + std::to_string(state.records.size()) + ":" +
             types::EncodeSampleState(state) + ";";
  });
}

}  // namespace ebb::server
