// Retention's purge (docs/time-series.md, "Retention"): the samples a series' RETENTION hides
// leave every data file within `expiry-purge-deadline` d of being hidden — also when no write
// follows, also across a restart — and whole table files of old samples still go by a manifest
// edit.
//
// A sample is hidden when the window's floor (newest - retention, SeriesVisibleFloor) passes it:
// by an add that moves the newest sample, or a TS.ALTER that shrinks the retention. The write
// that raises the floor does, in the same engine write as the metadata row (Series::PlanPurge):
//   1. when the floor moved a whole window past meta.purged_below, a range deletion of the
//      blocks wholly below it (DB::DeleteRange: the engine drops table files inside the range
//      whole and compacts the files at its edges), and purged_below = floor;
//   2. when no purge marker of the incarnation is pending (meta.purge_marked_until <= now), a
//      purge marker (types/compaction_filter.h: a system row naming the incarnation's sample
//      prefix) expiring at E = now + max(1, d/4), and purge_marked_until = E. So a series written
//      without pause writes one marker every quarter deadline: TS.ADD after the newest sample
//      stays one metadata read and one engine write.
// Compaction, meeting a live series' sample rows (RegisterSeriesCompactionHook; the metadata row
// read through the compaction's durable view by the types' filter): a tail row below the floor
// and a block whose samples are all below it are dropped; the block that straddles the floor is
// rewritten without its samples below it, under its old key (a block's key is then below its
// first sample: DecodeSeriesBlock allows it).
//
// Why the deadline holds: a sample hidden at t is covered by the marker pending at t, written at
// m <= t with E > t. The marker cannot leave before E (nothing removes an unexpired row); the
// engine makes the memtable or table file holding it due at E + d/2 and compacts it down; the
// compaction that removes it expired asks the filter for its ExpiredRowRanges and records a
// purge hint over the incarnation's sample rows, due at once (persisted in the manifest); the
// compaction that applies the hint starts after E > t, so the metadata row it reads has a floor
// above the sample, and the sample's rows, written before the marker's memtable was flushed, are
// all in its input. The sample is gone by about E + d/2 <= t + 3d/4 plus two compactions. The
// marker lives in the WAL and the tables, the hint in the manifest: a restart keeps the promise.
// Limits: with `expiry-purge-deadline unlimited` no marker is written (hidden samples leave with
// ordinary compaction); with `expiration off` markers do not expire, so the purge waits until
// expiry runs again. Samples a later write shows again (a TS.ALTER that widens the window, a
// TS.DEL of the newest samples) are visible until a compaction purges them, and gone after.
// Thread-safety: the hook runs on engine threads and reads only its arguments; PlanPurge is the
// Series' (command thread).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "storage/compaction_filter.h"
#include "types/series_codec.h"

namespace ebb::types {

class TypesCompactionFilter;

// The oldest visible timestamp: newest - retention (0 without retention or samples).
int64_t SeriesVisibleFloor(const SeriesMeta& meta);

// The fate of one sample row (`element` after the incarnation's prefix, `value` its bytes) of a
// live series whose metadata is `meta`: kDrop for a tail row below the floor or a block wholly
// below it, kChangeValue (the block re-encoded into *new_value) for a block straddling it, else
// kKeep — also for a row that does not decode (never drop what cannot be read).
storage::CompactionFilter::Decision FilterSeriesSampleRow(const SeriesMeta& meta,
                                                          std::string_view element,
                                                          std::string_view value,
                                                          std::string* new_value);

// Installs FilterSeriesSampleRow as the filter's hook for KeyType::kSeries sub-rows.
void RegisterSeriesCompactionHook(TypesCompactionFilter& filter);

}  // namespace ebb::types
