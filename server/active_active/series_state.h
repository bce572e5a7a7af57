// Time series between active-active peers: the rows that keep each series' merge state beside
// its samples, its delta, and how deletes, snapshots and the logical digest meet it
// (docs/active-active.md, "Time series"; the merge itself: types/series_merge.h).
//
// Storage (docs/key-encoding.md, "Active-active series"), system rows:
//   - `aa-tsr:<db>:<key>` = the series' settings register (types::EncodeSeriesRegister);
//   - `aa-tss:<db>:<key length>:<key><fixed64-BE ts>` = the SampleState of the sample at ts
//     (types::EncodeSampleState), one row per sample written in the mode.
// The series itself (its metadata row, blocks and tail) holds what the state reads as: the
// register's settings and each sample's resolved value, rewritten in the engine write of every
// change of the state, so every read path (TS.GET, TS.RANGE, TS.INFO, ...) is the type's own. In
// the mode a series stores every sample it is given (types::Series::KeepEverySample): retention
// hides, it never refuses, so what it hides is a function of the merged content; what it hid is
// purged, merge-state rows included, half the purge deadline later (series_purge.h).
//
// The delta, `ts-merge (<key> <register> <n> (<ts> <sample state>){n})+`: per series the
// origin's register (so a sample always carries the settings that make its series) and, per
// sample, the origin's new record (a snapshot: every record). Applying is a join.
//
// Whole-key deletes: a series' T is the greatest of its newest sample's timestamp and its
// register's stamp (ms); a delete at T removes every sample at or before T with its state row,
// and the series itself when it is left with no sample after T and a register at or before T.
// The register row stays (a later series on the key merges with it, as every node does); a
// sample at or before a key's delete is dropped wherever it arrives. Range deletes (TS.DEL):
// series_range.h; MergeSeriesGroup drops the records the key's range markers cover.
// Thread-safety: the command (io) thread, inside the keyspace batch the caller opened.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/status.h"
#include "types/series_merge.h"

namespace ebb::types {
class Keyspace;
class Series;
}  // namespace ebb::types

namespace ebb::server {

inline constexpr std::string_view kSeriesDelta = "ts-merge";
inline constexpr std::string_view kSeriesRegisterRowPrefix = "aa-tsr:";
inline constexpr std::string_view kSeriesSampleRowPrefix = "aa-tss:";

// One series' part of a `ts-merge` delta.
struct SeriesGroup {
  std::string key;
  types::SeriesRegister reg;
  std::vector<std::pair<int64_t, types::SampleState>> samples;  // (ts, records)
};
std::vector<std::string> SeriesDeltaArgs(std::span<const SeriesGroup> groups);
// `args` (args[0] lower-case) as groups; false if out of shape (also a negative timestamp, an
// undecodable register or state, a state without records).
bool ParseSeriesDelta(std::span<const std::string> args, std::vector<SeriesGroup>* groups);

// A Series handle that keeps every sample, its purge markers naming the key's merge-state rows
// (types::Series::KeepEverySample): every series write in the mode goes through one.
types::Series KeepingSeries(types::Keyspace& keyspace, int db);
// The metadata of the series `key` holds, live or expired whole by its expiry register
// (series_expiry.h); nullopt when it holds none.
storage::Status HeldSeriesMeta(types::Keyspace& keyspace, int db, std::string_view key,
                               std::optional<types::SeriesMeta>* meta);

// The key's register: its row; without one, the settings of the series the key holds (stamp 0,
// origin ""), as every node that holds that series adopts them; nullopt when neither.
storage::Status ReadSeriesRegister(types::Keyspace& keyspace, int db, std::string_view key,
                                   std::optional<types::SeriesRegister>* reg);
// The sample's state: its row; without one, the sample the series stores at ts (a sample from
// before the mode) as an adopted record; empty when neither.
storage::Status ReadSampleState(types::Keyspace& keyspace, int db, std::string_view key, int64_t ts,
                                types::SampleState* state);

// Calls `fn(ts, row key, row value)` with every sample row of `key` at first <= ts <= last, ts
// ascending, until it fails.
storage::Status ForEachSampleRowIn(
    types::Keyspace& keyspace, int db, std::string_view key, int64_t first, int64_t last,
    const std::function<storage::Status(int64_t, std::string_view, std::string_view)>& fn);

// Every sample state row of `key`, ts ascending.
storage::Status ReadSampleStateRows(types::Keyspace& keyspace, int db, std::string_view key,
                                    std::vector<std::pair<int64_t, types::SampleState>>* rows);

// Merges `group` into database `db`: the register (the greater wins), each sample after
// `deleted_up_to` (the deletes that judge the group: those its view does not cover; *covered
// when some sample was at or before it), and the series they read as — created when absent
// unless it would be an empty series whose register `every_delete_up_to` (the key's every
// delete) covers. Every register is stamped after every delete its origin knew, so only a
// delete its origin had not seen covers one; a register row a snapshot carries for a series a
// delete removed makes no series, whatever view judges the snapshot. A series a compaction rule
// computes (series_rules_state.h) keeps the records but not their samples. REQUIRES: the key
// holds a series or nothing (the caller wiped a lower type).
storage::Status MergeSeriesGroup(types::Keyspace& keyspace, int db, const SeriesGroup& group,
                                 int64_t deleted_up_to, int64_t every_delete_up_to, bool* covered);

// A series' T for a whole-key delete (header), raised into *ts; *existed when the key holds a
// series.
storage::Status RaiseToSeriesNewest(types::Keyspace& keyspace, int db, std::string_view key,
                                    int64_t* ts, bool* existed);
// A delete at `ts` of the series `key` holds (header). Nothing when it holds none.
storage::Status DeleteSeriesUpTo(types::Keyspace& keyspace, int db, std::string_view key,
                                 int64_t ts);

// The snapshot's pieces of the series `key` (`ts-merge` deltas carrying its register and every
// sample's state, 256 samples a piece).
storage::Status SeriesSnapshotPieces(types::Keyspace& keyspace, int db, std::string_view key,
                                     std::vector<std::vector<std::string>>* pieces);
// What DEBUG DIGEST-LOGICAL hashes of a series: its settings, its visible samples and every
// sample's state.
storage::Status SeriesDigestText(types::Keyspace& keyspace, int db, std::string_view key,
                                 std::string* text);

}  // namespace ebb::server
