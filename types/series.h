// Series: the time-series type (RedisTimeSeries' TS.* data model) over the engine.
//
// Data model (docs/key-encoding.md, "SERIES"; docs/time-series.md): the key's metadata row holds
// {version, settings, newest sample, purged_below, tail_count, purge_marked_until}; the samples
// are sub-rows of that version: blocks, keyed by their first timestamp (element =
// fixed64-BE(ts); below it once a retention purge dropped the samples before the floor) whose
// value is a SampleBlock (Gorilla-compressed, types/sample_block.h) of at most
// SeriesBlockBound(chunk_size) bytes and kMaxSeriesBlockSamples samples, every sample of a block
// below the next block's first timestamp; then the tail, one row a sample (element = 0xFF |
// fixed64-BE(ts), value the double's 8 bytes), which sorts after every block. Invariant, with a
// tail (tail_count > 0): every block sample < meta.tail_from <= every tail sample (tail_from: the
// first tail sample's timestamp when the tail began); tail rows are in timestamp order;
// tail_count < kMaxSeriesBlockSamples rows (at least the tail rows stored: compaction may drop
// those below the retention floor).
// The rows earlier folds deleted all lie below tail_from: readers start the tail there.
//   - An add after the newest sample (or into an empty series) writes one tail row. The add that
//     would make the tail kMaxSeriesBlockSamples samples folds it instead: the tail and the new
//     sample are encoded into blocks (the last block continued while it has room, then new ones
//     as they fill: the blocks in-order adds into blocks would leave, each within the bound),
//     put, and the tail rows deleted (a point deletion each: an engine range deletion syncs the
//     WAL and writes the manifest), in the same engine write as the metadata row.
//   - An add at or before the newest sample at or above tail_from is the tail's: a duplicate is
//     resolved in its row (rewritten), another sample is a new tail row. An add below tail_from
//     (or with no tail) goes to the block that takes it, as before tails existed: the tail is
//     never folded early, and the blocks only ever take samples below tail_from.
// So a forward scan of the prefix meets samples oldest first, the block that holds (or would take)
// a timestamp is one seek away, and a slowly changing reading costs a byte or two a sample once
// folded. Every read of samples goes through SeriesSamples (types/series_samples.h), blocks and
// tail as one. A series written before tails existed has no tail rows and reads as it is. The
// engine holds the samples: a Series keeps nothing in memory between calls, and the metadata row
// is bounded by the settings (labels included) alone. A malformed block or tail row is
// kEngineError (Corruption).
//
// Timestamps are ms in [0, 2^63-1]. Retention (settings.retention_ms, 0: keep everything): with
// the newest timestamp N, every sample with ts < N - retention is invisible at once (Range,
// Latest, Info never show it; Add refuses one with kTooOld), and is in no data file once the
// purge deadline (`expiry-purge-deadline`) has passed since it was hidden, whether writes follow
// or not (types/series_purge.h): the write that hides samples range-deletes the blocks wholly
// below the window each time its floor moves a whole window past the last range deletion, and
// writes a purge marker when none is pending; compaction drops the blocks and tail rows below
// the floor and rewrites the block that straddles it. A block's key is then at or below its
// first sample's timestamp.
//
// Costs (a block: at most chunk_size bytes and kMaxSeriesBlockSamples samples): Add after the
// newest = one metadata read + one WriteBatch of the tail row and the metadata row (no sample
// read); every kMaxSeriesBlockSamples-th such add also reads the tail and the last block and
// writes the fold. Add at or before the newest = one metadata read + the tail row read (a seek)
// and rewritten, or a seek to the block that takes the sample, decoded and re-encoded (a block
// that outgrows its bound is split); IncrBy likewise.
// Each write also carries a range deletion when the window moves by a whole window, and a purge
// marker row at most once every quarter purge deadline. Latest = one
// metadata read; Range = a seek into the blocks, the tail or both, and the rows it visits;
// DeleteRange = a scan of the samples it deletes (to count them and the tail rows), the two
// boundary blocks rewritten, a seek for the new newest sample and one WriteBatch (range deletions
// of the whole blocks and of the tail rows + metadata); Info = a scan of the stored rows (the tail
// counted as one chunk).
//
// Expiry register (active-active mode only; docs/active-active.md, "Expiry changes"): a series may
// carry its key's expiry register (T, expire_at or none, settings_after) in its metadata. Once
// expire_at has passed, the samples with ts <= T are hidden from Latest, Scan, Neighbor, Info and
// DeleteRange's count (SeriesReadFloor; they stay stored: a later register may bring them back).
// The metadata row expires at expire_at while nothing keeps the key (SeriesKeyExpiry); such a
// series stays this series for writes (Add, IncrBy, Alter, SetRules, DeleteRange continue it) and
// for SetExpiryRegister and HeldMeta, and reads see no key.
//
// Every operation returns kWrongType when the key holds another type (nothing is written),
// kNotFound when a key that must exist does not (Add and IncrBy create it), and kEngineError
// when the engine failed. Writes keep the key's whole-key expiry and stamp the metadata row with
// a timestamp >= every version of the key (Keyspace::TypeWriteTimestamp).
// Thread-safety: like Keyspace — used from the server's command thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/status.h"
#include "types/keyspace.h"
#include "types/op_result.h"
#include "types/sample_block.h"
#include "types/series_codec.h"
#include "types/series_samples.h"

namespace ebb::types {

// What TS.ALTER changes (nullopt: kept).
struct SeriesAlter {
  std::optional<uint64_t> retention_ms;
  std::optional<DuplicatePolicy> duplicate_policy;
  std::optional<uint64_t> chunk_size;
  std::optional<std::vector<std::pair<std::string, std::string>>> labels;
  std::optional<SeriesEncoding> encoding;  // active-active's settings register only
};

// TS.INFO's figures.
struct SeriesInfo {
  SeriesMeta meta;
  uint64_t total_samples = 0;   // visible samples
  int64_t first_timestamp = 0;  // the oldest visible sample's (0 when empty)
  uint64_t block_count = 0;     // stored blocks, the tail counted as one (TS.INFO chunkCount)
  uint64_t stored_bytes = 0;    // key and value bytes of the metadata row and the blocks
  // Each stored block, oldest first (TS.INFO DEBUG's Chunks), when Info is asked for them.
  struct Block {
    int64_t first_ts = 0;
    int64_t last_ts = 0;
    uint64_t samples = 0;  // stored, retention's invisible ones included
    uint64_t bytes = 0;    // the encoded block (the tail: its rows' values, 8 bytes a sample)
    bool tail = false;     // the tail rows, listed last as one chunk (header comment)
  };
  std::vector<Block> blocks;
};

class Series {
 public:
  // REQUIRES: 0 <= db < kMaxDatabases.
  Series(Keyspace& keyspace, int db) : keyspace_(keyspace), db_(db) {}

  // Active-active mode (types/series_merge.h): every sample is stored, none refused as kTooOld,
  // so what retention hides is a function of the merged newest sample and the merged retention on
  // every node, whatever order they arrived in; a hidden sample is purged only once it has been
  // hidden for half the purge deadline (PlanHiddenPurge, types/series_purge.h). The purge
  // markers also name `merge_state_prefix(key)` (a system-row prefix holding the key's per-sample
  // merge state, which the mode's compaction hook drops below the same floor; empty: none).
  using MergeStatePrefix = std::function<std::string(std::string_view key)>;
  void KeepEverySample(MergeStatePrefix merge_state_prefix = {}) {
    keep_every_sample_ = true;
    merge_state_prefix_ = std::move(merge_state_prefix);
  }
  // Active-active compaction rules (server/active_active/series_rules_state.h): Scan and Neighbor
  // visit every stored sample, those retention hides included, and Meta, Scan and Neighbor find a
  // series its expiry register expired whole as a live one, so that a destination's bucket is a
  // function of the samples the merge stored, whatever the newest sample was and whatever the
  // clock read when it was computed.
  void ReadStoredSamples() { read_stored_ = true; }

  // TS.CREATE: a new empty series; false (nothing written) when the key exists as a series.
  OpResult<bool> Create(std::string_view key, const SeriesSettings& settings);
  // TS.ALTER. kNotFound.
  OpResult<void> Alter(std::string_view key, const SeriesAlter& alter);

  enum class AddOutcome {
    kAdded,    // stored (a new sample, or a duplicate the policy resolved)
    kBlocked,  // a duplicate the policy BLOCK refuses: nothing written
    kTooOld,   // ts < newest - retention: nothing written
  };
  // TS.ADD: adds (ts, value); a sample already at ts is resolved by `on_duplicate`, else by the
  // series' policy (kUnset: BLOCK). `create` (nullptr: kNotFound) makes a missing key.
  // REQUIRES: 0 <= ts.
  OpResult<AddOutcome> Add(std::string_view key, int64_t ts, double value,
                           DuplicatePolicy on_duplicate, const SeriesSettings* create);

  struct IncrResult {
    bool below_newest = false;   // ts < the newest timestamp: nothing written
    bool newest_is_nan = false;  // the newest value is NaN: nothing written
    AddOutcome outcome = AddOutcome::kAdded;
  };
  // TS.INCRBY / TS.DECRBY: writes newest value (0 when empty) + delta at ts, replacing a sample
  // at ts (policy LAST). A missing key is created with `create`. REQUIRES: 0 <= ts.
  OpResult<IncrResult> IncrBy(std::string_view key, int64_t ts, double delta,
                              const SeriesSettings& create);

  // TS.GET: the newest sample (nullopt when the series is empty). kNotFound.
  OpResult<std::optional<Sample>> Latest(std::string_view key);
  // The series' metadata. kNotFound.
  OpResult<SeriesMeta> Meta(std::string_view key);
  // The metadata of the series the key holds live or expired whole by its expiry register
  // (active-active mode); nullopt when it holds neither.
  OpResult<std::optional<SeriesMeta>> HeldMeta(std::string_view key);
  // Active-active mode: gives the series (live, or expired by an earlier register) the key's
  // expiry register `reg` (nullopt: none), and its metadata row the expiry that follows
  // (SeriesKeyExpiry; types/series_purge.h). With KeepEverySample, also purge markers expiring at
  // the register's expire_at, so that what it hides is purged half a deadline later. Nothing for
  // a key that holds neither.
  OpResult<void> SetExpiryRegister(std::string_view key,
                                   const std::optional<SeriesMeta::ExpiryRegister>& reg);
  // TS.INFO; with `list_blocks`, SeriesInfo::blocks too (TS.INFO DEBUG). kNotFound.
  OpResult<SeriesInfo> Info(std::string_view key, bool list_blocks = false);

  // Calls `visit` with every visible sample with from <= ts <= to, oldest first (newest first
  // when `reverse`), until it returns false. kNotFound.
  OpResult<void> Scan(std::string_view key, int64_t from, int64_t to, bool reverse,
                      const std::function<bool(const Sample&)>& visit);
  // The visible sample nearest before `ts` (ts' < ts), or after it (ts' > ts); nullopt if none.
  // kNotFound.
  OpResult<std::optional<Sample>> Neighbor(std::string_view key, int64_t ts, bool after);

  // TS.CREATERULE / TS.DELETERULE: replaces the series' source and rules, samples untouched.
  // kNotFound.
  OpResult<void> SetRules(std::string_view key, const std::optional<std::string>& source,
                          const std::vector<SeriesRule>& rules);

  // TS.DEL: removes the samples with from <= ts <= to (visible or not); how many visible ones
  // it removed. kNotFound.
  OpResult<uint64_t> DeleteRange(std::string_view key, int64_t from, int64_t to);

 private:
  struct Found {
    bool live = false;
    // Not live, but a series its expiry register expired whole: writes continue it (`meta`,
    // `row_meta`), reads see no key.
    bool expired_by_register = false;
    SeriesMeta meta;
    storage::RowMeta row_meta;
    std::optional<storage::DeadVersion> dead;
    bool held() const { return live || expired_by_register; }
  };
  // Whether reads find the series `found` describes (ReadStoredSamples: also one expired whole).
  bool Readable(const Found& found) const { return read_stored_ ? found.held() : found.live; }
  OpResult<Found> ReadMeta(std::string_view key);
  std::string SamplePrefix(std::string_view key, uint64_t version) const;
  // Writes the metadata row with the batch's other rows as one engine write, with the retention
  // purge of what the write hides (PlanPurge).
  storage::Status WriteMeta(std::string_view key, SeriesMeta meta, const Found& previous,
                            storage::WriteBatch* batch);
  // Retention's purge (types/series_purge.h): adds to `batch` the range deletion of the blocks
  // wholly below the floor when it moved a whole window past meta->purged_below, and a purge
  // marker when `meta` hides samples `previous` showed and none is pending; updates the marks.
  storage::Status PlanPurge(std::string_view key, const Found& previous, SeriesMeta* meta,
                            storage::WriteBatch* batch);
  // The mode's retention purge (KeepEverySample; types/series_purge.h): notes in meta->hidden
  // when the write raised the floor, and adds purge markers to `batch` when none pending covers
  // now; lowers the recorded floors to a floor a wider retention lowered.
  storage::Status PlanHiddenPurge(std::string_view key, SeriesMeta* meta,
                                  storage::WriteBatch* batch);
  // Adds to `batch` the purge markers of `key`'s samples — and of its merge-state rows when
  // KeepEverySample named them — expiring `lifetime_ms` after `now`, and records that expiry in
  // meta->purge_marked_until; nothing when it lies past the clock's range.
  void AddPurgeMarkers(std::string_view key, int64_t now, int64_t lifetime_ms, SeriesMeta* meta,
                       storage::WriteBatch* batch);
  // Adds to `batch` the range deletion of the blocks of `meta`'s incarnation that hold only
  // samples below `floor`.
  storage::Status PurgeBelow(std::string_view key, const SeriesMeta& meta, int64_t floor,
                             storage::WriteBatch* batch);
  // A new empty incarnation of `key` with `settings` — with settings.retention_from_policy, the
  // window the TTL policy gives `key` (ttl-rule, default-ttl) as its retention, as a new TLOG's.
  storage::Status NewIncarnation(std::string_view key, const SeriesSettings& settings,
                                 SeriesMeta* meta);
  // A stored block: its first timestamp (its key), bytes and samples.
  struct StoredBlock {
    int64_t first_ts = 0;
    std::string bytes;
    std::vector<Sample> samples;
  };
  // The block with the greatest first timestamp <= ts, if any (`or_first`: else the first block).
  storage::Status ReadBlockAtOrBefore(std::string_view key, const SeriesMeta& meta, int64_t ts,
                                      bool or_first, std::optional<StoredBlock>* block);
  // Adds to `batch` the rows of `samples` (ascending) packed into blocks, where `old` (if any)
  // was the block they came from: its row is deleted unless a new block keeps its key, and a
  // block identical to it is not written again.
  void PutBlocks(const std::string& prefix, const SeriesMeta& meta,
                 const std::optional<StoredBlock>& old, const std::vector<Sample>& samples,
                 storage::WriteBatch* batch);
  // The newest stored sample of `meta`'s incarnation with ts < below (a seek), if any.
  storage::Status ReadNewestBelow(std::string_view key, const SeriesMeta& meta, int64_t below,
                                  std::optional<Sample>* newest);
  // The reader of `meta`'s incarnation's samples, blocks and tail rows.
  SeriesSamples Samples(std::string_view key, const SeriesMeta& meta);
  // Adds to `batch` the fold of the tail with `sample` (not yet stored) into blocks: the last block
  // continued unless full, then new blocks as they fill, and the deletion of each tail row.
  storage::Status FoldTail(std::string_view key, const SeriesMeta& meta, const Sample& sample,
                           storage::WriteBatch* batch);
  // Stores `sample` as a tail row (a duplicate resolved in its row), folding the tail when this
  // sample fills it. REQUIRES: sample.ts > every block sample's.
  OpResult<AddOutcome> StoreInTail(std::string_view key, const Found& found, Sample sample,
                                   DuplicatePolicy policy);
  // Stores (ts, value) into the block that takes it. REQUIRES: ts < every tail sample's.
  OpResult<AddOutcome> StoreInBlock(std::string_view key, const Found& found, int64_t ts,
                                    double value, DuplicatePolicy policy);
  // Stores (ts, value) into an existing or new series `found`: into the tail when ts is after the
  // newest sample or at or above meta.tail_from (with a tail), else into a block.
  OpResult<AddOutcome> Store(std::string_view key, const Found& found, int64_t ts, double value,
                             DuplicatePolicy policy);

  Keyspace& keyspace_;
  int db_;
  bool keep_every_sample_ = false;
  bool read_stored_ = false;
  MergeStatePrefix merge_state_prefix_;  // KeepEverySample
};

}  // namespace ebb::types
