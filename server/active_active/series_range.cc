#include "server/active_active/series_range.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "common/strings.h"
#include "server/active_active/series_state.h"
#include "server/active_active/whole_key.h"
#include "types/keyspace.h"
#include "types/series.h"

namespace ebb::server {
namespace {

std::string RangeRowKey(int db, std::string_view key) {
  return types::Keyspace::SystemRowKey(PerKeyRowName(kSeriesRangeRowPrefix, db, key));
}

// Applies `marker` to the series `key` holds (MergeRangeMarkers): the state rows in its range
// lose the records it covers, the series' samples there are removed and the survivors written
// back as what their records resolve to.
storage::Status ApplyMarker(types::Keyspace& keyspace, types::Series& series, int db,
                            std::string_view key, const types::SeriesRangeMarker& marker,
                            uint64_t* removed) {
  std::vector<std::pair<std::string, std::string>> rewrites;  // (row, state; "" to delete)
  std::vector<types::Sample> survivors;
  storage::Status s = ForEachSampleRowIn(
      keyspace, db, key, marker.from, marker.to,
      [&](int64_t ts, std::string_view row, std::string_view value) {
        types::SampleState state;
        if (!types::DecodeSampleState(value, &state)) {
          return storage::Status::Corruption("active-active sample state");
        }
        if (types::DropCoveredRecords(std::span(&marker, 1), ts, &state)) {
          rewrites.emplace_back(row, state.records.empty() ? "" : types::EncodeSampleState(state));
        }
        if (!state.records.empty()) survivors.push_back({ts, types::ResolveSample(state)});
        return storage::Status::OK();
      });
  for (size_t i = 0; s.ok() && i < rewrites.size(); i++) {
    const auto& [row, state] = rewrites[i];
    s = state.empty() ? keyspace.db().Delete(keyspace.WriteOptions(), row)
                      : keyspace.db().Put(keyspace.WriteOptions(), row, state);
  }
  if (!s.ok()) return s;
  // The samples from before the mode (no state row: one record of ms 0) are always covered.
  auto deleted = series.DeleteRange(key, marker.from, marker.to);
  if (!deleted.ok()) return types::EngineStatusOf(deleted, "series");
  *removed += *deleted;
  for (const types::Sample& sample : survivors) {
    auto added = series.Add(key, sample.ts, sample.value, types::DuplicatePolicy::kLast, nullptr);
    if (!added.ok()) return types::EngineStatusOf(added, "series");
  }
  return storage::Status::OK();
}

storage::Status WriteRangeMarkers(types::Keyspace& keyspace, int db, std::string_view key,
                                  const std::vector<types::SeriesRangeMarker>& markers) {
  return markers.empty() ? keyspace.db().Delete(keyspace.WriteOptions(), RangeRowKey(db, key))
                         : keyspace.db().Put(keyspace.WriteOptions(), RangeRowKey(db, key),
                                             types::EncodeRangeMarkers(markers));
}

}  // namespace

std::vector<std::string> SeriesRangeDeltaArgs(std::string_view key,
                                              std::span<const types::SeriesRangeMarker> markers) {
  std::vector<std::string> args{std::string(kSeriesRangeDelta), std::string(key)};
  for (const types::SeriesRangeMarker& m : markers) {
    args.push_back(std::to_string(m.from));
    args.push_back(std::to_string(m.to));
    args.push_back(std::to_string(m.ms));
    args.push_back(m.origin);
  }
  return args;
}

bool ParseSeriesRangeDelta(std::span<const std::string> args, SeriesRangeDelete* out) {
  *out = SeriesRangeDelete();
  if (args.size() < 6 || (args.size() - 2) % 4 != 0) return false;
  out->key = args[1];
  for (size_t i = 2; i < args.size(); i += 4) {
    types::SeriesRangeMarker m;
    if (!ParseInt64(args[i], &m.from) || !ParseInt64(args[i + 1], &m.to) ||
        !ParseInt64(args[i + 2], &m.ms) || m.from < 0 || m.from > m.to || m.ms < 0) {
      return false;
    }
    m.origin = args[i + 3];
    out->markers.push_back(std::move(m));
  }
  return true;
}

storage::Status ReadRangeMarkers(types::Keyspace& keyspace, int db, std::string_view key,
                                 std::vector<types::SeriesRangeMarker>* markers) {
  markers->clear();
  storage::Row row;
  storage::Status s = keyspace.db().Get(keyspace.ReadOptions(), RangeRowKey(db, key), &row);
  if (s.IsNotFound()) return storage::Status::OK();
  if (!s.ok()) return s;
  return types::DecodeRangeMarkers(row.value, markers)
             ? s
             : storage::Status::Corruption("active-active range markers");
}

storage::Status GreatestStampInRange(types::Keyspace& keyspace, int db, std::string_view key,
                                     int64_t from, int64_t to, int64_t* greatest_stamp) {
  *greatest_stamp = std::numeric_limits<int64_t>::min();
  return ForEachSampleRowIn(
      keyspace, db, key, from, to, [&](int64_t, std::string_view, std::string_view value) {
        types::SampleState state;
        if (!types::DecodeSampleState(value, &state)) {
          return storage::Status::Corruption("active-active sample state");
        }
        *greatest_stamp = std::max(*greatest_stamp, types::GreatestStampMs(state));
        return storage::Status::OK();
      });
}

storage::Status MergeRangeMarkers(types::Keyspace& keyspace, int db, std::string_view key,
                                  std::span<const types::SeriesRangeMarker> markers,
                                  uint64_t* removed_visible) {
  std::vector<types::SeriesRangeMarker> held;
  storage::Status s = ReadRangeMarkers(keyspace, db, key, &held);
  if (!s.ok()) return s;
  std::vector<types::SeriesRangeMarker> fresh;
  for (const types::SeriesRangeMarker& m : markers) {
    if (types::MergeRangeMarker(&held, m)) fresh.push_back(m);
  }
  if (fresh.empty()) return storage::Status::OK();
  if (s = WriteRangeMarkers(keyspace, db, key, held); !s.ok()) return s;
  types::Series series(keyspace, db);
  series.KeepEverySample();
  // Also a series its expiry register expired whole: a later register may bring its samples
  // back, so the records the markers cover go there as on a node whose clock is behind.
  auto meta = series.HeldMeta(key);
  if (!meta.ok() || !*meta) {
    // No series (or another type): the set alone meets the series' later deltas.
    return meta.status() == types::OpStatus::kEngineError ? meta.engine_status()
                                                          : storage::Status::OK();
  }
  for (const types::SeriesRangeMarker& m : fresh) {
    if (s = ApplyMarker(keyspace, series, db, key, m, removed_visible); !s.ok()) return s;
  }
  return storage::Status::OK();
}

storage::Status SeriesRangeSnapshotPieces(std::string_view key, std::string_view value,
                                          std::vector<std::vector<std::string>>* pieces) {
  constexpr size_t kMarkersPerPiece = 256;
  std::vector<types::SeriesRangeMarker> markers;
  if (!types::DecodeRangeMarkers(value, &markers)) {
    return storage::Status::Corruption("active-active range markers");
  }
  for (size_t i = 0; i < markers.size(); i += kMarkersPerPiece) {
    const size_t n = std::min(kMarkersPerPiece, markers.size() - i);
    pieces->push_back(SeriesRangeDeltaArgs(key, std::span(markers).subspan(i, n)));
  }
  return storage::Status::OK();
}

storage::Status DropRangeMarkersUpTo(types::Keyspace& keyspace, int db, std::string_view key,
                                     int64_t ts) {
  std::vector<types::SeriesRangeMarker> markers;
  storage::Status s = ReadRangeMarkers(keyspace, db, key, &markers);
  if (!s.ok() || markers.empty()) return s;
  if (std::erase_if(markers, [&](const types::SeriesRangeMarker& m) { return m.to <= ts; }) == 0) {
    return s;
  }
  return WriteRangeMarkers(keyspace, db, key, markers);
}

}  // namespace ebb::server
