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
//
// Active-active mode (Series::KeepEverySample; docs/active-active.md, "Time series"): a later
// settings register may widen the window again, so, as an expired row stays whole for half the
// deadline h = d/2 there ("Dead versions"), a hidden sample stays whole for h after it was
// hidden, then goes. Instead of PlanPurge, every write records in meta.hidden when the floor
// reached what (NoteSeriesHidden: one entry per bucket of h/4, its time the bucket's latest
// hiding; entries settled h ago collapse into one; a wider retention lowers every recorded
// floor to the visible one), and writes purge markers — for the sample prefix and for the
// mode's merge-state rows — expiring h/4 later when none is pending. Compaction's clock runs h
// behind there, so the hook drops below SeriesPurgeFloor(meta, now): the greatest floor recorded
// at or before that clock. A sample hidden at t has an entry at t' in [t, t + h/4) and a marker
// expiring at E in [t', t' + h/4]; the marker's compaction runs at E + h at the earliest, its
// purge hint at once: the sample stays whole h and is gone by about t + h + h/2 = t + 3d/4 plus
// two compactions. The floor never falls because rows went: the newest sample is never below it.
// Thread-safety: the hook runs on engine threads and reads only its arguments; PlanPurge and
// PlanHiddenPurge are the Series' (command thread).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "storage/compaction_filter.h"
#include "types/series_codec.h"

namespace ebb::types {

class TypesCompactionFilter;

// The oldest visible timestamp: newest - retention (0 without retention or samples).
int64_t SeriesVisibleFloor(const SeriesMeta& meta);

// Active-active mode: the floor the key's expiry register puts under the samples at `now_ms` —
// its T + 1 once its expire_at has passed, else 0 (docs/active-active.md, "Expiry changes").
int64_t SeriesRegisterFloor(const SeriesMeta& meta, int64_t now_ms);
// The oldest timestamp a read shows at `now_ms`: the greater of SeriesVisibleFloor and
// SeriesRegisterFloor.
int64_t SeriesReadFloor(const SeriesMeta& meta, int64_t now_ms);
// The metadata row's expiry under the expiry register: expire_at while nothing keeps the key — no
// sample after T and no settings register after the expiry (ExpiryRegister::settings_after) —
// else none. nullopt without a register.
std::optional<int64_t> SeriesKeyExpiry(const SeriesMeta& meta);

// The fate of one sample row (`element` after the incarnation's prefix, `value` its bytes) of a
// live series whose metadata is `meta`: kDrop for a tail row below the floor or a block wholly
// below it, kChangeValue (the block re-encoded into *new_value) for a block straddling it, else
// kKeep — also for a row that does not decode (never drop what cannot be read).
storage::CompactionFilter::Decision FilterSeriesSampleRow(const SeriesMeta& meta,
                                                          std::string_view element,
                                                          std::string_view value,
                                                          std::string* new_value);

// FilterSeriesSampleRow below `floor` (0: keep everything).
storage::CompactionFilter::Decision FilterSeriesSampleRowBelow(int64_t floor,
                                                               std::string_view element,
                                                               std::string_view value,
                                                               std::string* new_value);

// Active-active mode: the floor below which the samples of `meta` have been hidden since at or
// before `now_ms` (the greatest such floor of meta.hidden, never above SeriesVisibleFloor, or
// SeriesRegisterFloor at now_ms when greater); 0 for a series that feeds compaction rules (its
// samples stay stored).
int64_t SeriesPurgeFloor(const SeriesMeta& meta, int64_t now_ms);
// Active-active mode: updates meta->hidden for the floor `meta` now has, at the clock `now_ms`
// with the half deadline `half_ms` (header); true when the write raised the floor.
bool NoteSeriesHidden(SeriesMeta* meta, int64_t now_ms, int64_t half_ms);

// Installs the filter's hook for KeyType::kSeries sub-rows: FilterSeriesSampleRow, or in
// active-active mode (filter.KeepsDeadVersions()) FilterSeriesSampleRowBelow the
// SeriesPurgeFloor at the compaction's clock. REQUIRES: `filter` outlives the hook.
void RegisterSeriesCompactionHook(TypesCompactionFilter& filter);

}  // namespace ebb::types
