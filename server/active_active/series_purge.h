// The purge deadline for time series in active-active mode (docs/active-active.md, "Time series",
// "Dead versions"): a sample retention hides stays whole for half `expiry-purge-deadline` after
// it was hidden — a later settings register may widen the window again — then leaves every data
// file, with its merge-state row and the sample deltas of the origin log, by the deadline.
//
// The floor each node purges below is types::SeriesPurgeFloor (types/series_purge.h): the
// series' metadata records when its floor reached what, and the purge markers written with it
// name the sample rows and the merge-state rows (`aa-tss:`), so compaction drops:
//   - the series' sample rows below that floor (the types' hook);
//   - its merge-state rows below it (InstallSeriesPurge's hook, reading the series' metadata
//     through the compaction's durable view);
// and the origin log rewrites a `ts-merge` delta without its samples below the floor of their
// series (ReducedSeriesDelta; ActiveActive::ReduceExpiredLogRows), keeping every group's
// register. A sample below the floor that arrives later (a peer's delta or snapshot) is dropped
// on arrival (MergeSeriesGroup): it is hidden on every node, and every node that held it drops it.
// A register that widens the window later brings back only what a node still holds.
// Thread-safety: the hook runs on engine threads and reads only its arguments; the rest runs on
// the command thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "server/active_active/peer_delta.h"
#include "storage/status.h"

namespace ebb::types {
class Keyspace;
}

namespace ebb::server {

// Installs the compaction hook that drops a merge-state row below its series' purge floor. Call
// once, on entering the mode.
void InstallSeriesPurge(types::Keyspace& keyspace);

// The purge floor of the series `key` of database `db` now (the engine's expiry clock less the
// half deadline, as compaction judges): 0 when the key holds no series.
storage::Status SeriesPurgeFloorNow(types::Keyspace& keyspace, int db, std::string_view key,
                                    int64_t* floor);

// For a logged `ts-merge` delta: *reduced = the delta without the samples below the purge floor
// of their series (each group kept with its register, even with no sample left) when it drops
// any; nullopt when it drops none. *more: whether samples remain that a later pass may drop.
// False when `delta` is no `ts-merge` (or is malformed). An engine error keeps the delta whole.
bool ReducedSeriesDelta(types::Keyspace& keyspace, const PeerDelta& delta,
                        std::optional<PeerDelta>* reduced, bool* more);

}  // namespace ebb::server
