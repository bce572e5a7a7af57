// Tlog: the TLOG data type (Jylis's timestamped log) over the engine.
//
// Data model (docs/key-encoding.md, "TLOG"; encodings in types/tlog_codec.h): the key's metadata
// row holds {version, cutoff, size}; each entry is its own sub-row of that version, keyed so a
// forward scan meets entries newest first. Every operation answers exactly as the reference
// model TlogState does (types/tlog_state.h), with these costs:
//   Insert   one metadata read + one sub-row point read (duplicates keep SIZE exact) + one
//            atomic WriteBatch (sub-row + metadata);
//   Get      one metadata read + a scan of min(count, size) sub-rows — or, with a head cache
//            holding the log's newest entries at this metadata, no scan (types/tlog_head_cache.h);
//   Size, Cutoff   one metadata read;
//   TrimAt/Trim    raise the cutoff and count the entries that fall below it by scanning only
//            the cut tail (Trim also reads its first `count` entries); surviving rows are never
//            rewritten. Cut rows are invisible at once (scans stop at the cutoff) and the
//            compaction hook (RegisterTlogCompactionHook) drops them later;
//   Clear    one metadata read + one sub-row read; it starts a new incarnation (new version,
//            size 0, raised cutoff), so every old sub-row is an orphan at once — this also
//            covers entries at ts 2^64-1, which no cutoff can cut.
// A TLOG key exists while size > 0 or cutoff > 0; nothing here ever leaves size == cutoff == 0.
// Writes keep the key's whole-key expiry and stamp the metadata row with a timestamp >= every
// version of the key (Keyspace::TypeWriteTimestamp), so a write wins under every grace.
//
// Retention window (docs/expiry.md, "TLOG retention"): a log created while a ttl-rule (or
// default-ttl) gives its key a TTL W keeps each entry until ts + W (the entry's own timestamp,
// read as ms since the epoch): each entry's sub-row carries that expiry, so the engine hides
// and purges it by itself, the log's cutoff follows the clock (CUTOFF answers max(cutoff,
// now - W + 1)), an insert below it is ignored, and every accepted write sets the metadata
// row's expiry to when the window passes the newest entry and the cutoff — the key then
// disappears. SIZE and TRIM's count then count the live entries (a scan), and GET reads no
// head cache.
//
// Expiry register (active-active mode only; docs/active-active.md, "Expiry changes"): a log may
// carry its key's expiry register (T, expire_at or none) in its metadata. Once expire_at has
// passed, the entries with ts <= T are hidden from Get, Size, Trim and Clear (they stay stored:
// a later register may bring them back); CUTOFF and inserts are unaffected. The metadata row
// expires at expire_at when the log holds nothing after T (newest entry and cutoff - 1 <= T), as
// a log expired whole; such a log stays this log for writes (Insert, TrimAt continue it, with
// its cutoff and entries) and for SetExpiryRegister, and reads see no key.
//
// With a TlogHeadCache, Get fills and uses it and Insert keeps it current; other writes change
// the metadata, which retires the cached head (its stamp no longer matches).
// Every operation returns kWrongType when the key holds another type (nothing is written), and
// kEngineError when the engine failed.
// Thread-safety: like Keyspace — used from the server's command thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "storage/status.h"
#include "types/keyspace.h"
#include "types/op_result.h"
#include "types/tlog_codec.h"
#include "types/tlog_head_cache.h"
#include "types/tlog_state.h"

namespace ebb::types {

// What a log holds, as a whole-key delete judges it (Tlog::Extent).
struct TlogExtent {
  uint64_t cutoff = 0;             // CUTOFF's answer
  std::optional<uint64_t> newest;  // the newest entry at or above it, hidden or not
  uint64_t window_ms = 0;          // its retention window (0: none)
};

class Tlog {
 public:
  // A log handle over the keyspace's TLOG head cache (Keyspace::tlog_heads()).
  // REQUIRES: 0 <= db < kMaxDatabases.
  Tlog(Keyspace& keyspace, int db) : Tlog(keyspace, db, &keyspace.tlog_heads()) {}
  // A log handle over `heads` (nullptr: none). REQUIRES: `heads` outlives the Tlog.
  Tlog(Keyspace& keyspace, int db, TlogHeadCache* heads)
      : keyspace_(keyspace), db_(db), heads_(heads) {}

  // What Insert did with an entry. Every outcome answers OK; the last two are entries that
  // arrived dead (INFO stats counts them, docs/commands.md "TLOG INS").
  enum class InsertOutcome {
    kAdded,
    kDuplicate,       // the entry (value, ts) is already in the log
    kBelowCutoff,     // ts < the stored cutoff (TRIM, TRIMAT, CLR raised it)
    kBelowRetention,  // ts is past the log's retention window (docs/expiry.md)
  };
  // TLOG INS: adds (value, ts) unless ts is below the cutoff in force or the entry is already
  // present.
  OpResult<InsertOutcome> Insert(std::string_view key, std::string_view value, uint64_t ts);
  // TLOG GET: the newest min(count, size) entries, newest first (empty for a missing key).
  OpResult<std::vector<TlogEntry>> Get(std::string_view key, uint64_t count);
  // TLOG RANGE: the entries with from <= ts <= to that a read shows, at most `count`; newest
  // first, or oldest first when `oldest_first`. Reads only the entries it returns (a seek to
  // either end of the range), so a range of a log far larger than memory costs what it returns.
  OpResult<std::vector<TlogEntry>> Range(std::string_view key, uint64_t from, uint64_t to,
                                         uint64_t count, bool oldest_first);
  // Range's walk without collecting: calls `visit` with each entry Range would return, in its
  // order, until `visit` returns false.
  OpResult<void> ScanRange(std::string_view key, uint64_t from, uint64_t to, bool oldest_first,
                           const std::function<bool(const TlogEntry&)>& visit);
  // TLOG SIZE / CUTOFF: 0 for a missing key.
  OpResult<uint64_t> Size(std::string_view key);
  OpResult<uint64_t> Cutoff(std::string_view key);
  // TLOG TRIMAT: cutoff = max(cutoff, ts). On a missing key with ts > 0 this creates an empty
  // log with that cutoff (the cutoff is state: it refuses older inserts later).
  OpResult<void> TrimAt(std::string_view key, uint64_t ts);
  // TLOG TRIM: count 0 -> Clear; fewer than count entries -> no change; else TrimAt(ts of
  // entry count-1).
  OpResult<void> Trim(std::string_view key, uint64_t count);
  // TLOG CLR: empty log (or missing key) -> no change; else cutoff = max(cutoff, newest ts + 1,
  // saturating at 2^64-1) and the log is emptied (TlogState::Clear).
  OpResult<void> Clear(std::string_view key);

  // The log under `key`, live or expired by its expiry register; nullopt when there is none.
  OpResult<std::optional<TlogExtent>> Extent(std::string_view key);
  // Every entry at or above the cutoff, newest first, including those an expiry register hides,
  // of a live log or one its register expired (empty for neither); *cutoff: CUTOFF's answer.
  OpResult<std::vector<TlogEntry>> HeldEntries(std::string_view key, uint64_t* cutoff);
  // When the log's expiry register hides entries now: the cutoff that cuts them (its T + 1).
  OpResult<std::optional<uint64_t>> HiddenCutoff(std::string_view key);
  // Gives the log (live, or expired by an earlier register) the key's expiry register `reg`,
  // and its metadata row the expiry that follows. Nothing for a key that holds neither.
  OpResult<void> SetExpiryRegister(std::string_view key, const TlogMeta::Register& reg);

 private:
  // What ReadMeta found: whether the key is a live log, its metadata and engine row meta
  // (expiry, timestamp), and (when absent) the version that made it absent, for the next
  // write's timestamp.
  struct Found {
    bool live = false;
    // Not live, but a log its expiry register expired: writes continue it (`meta`, `row_meta`).
    bool expired_by_register = false;
    TlogMeta meta;
    storage::RowMeta row_meta;
    std::optional<storage::DeadVersion> dead;
  };
  // Reads the key's TLOG metadata. kWrongType when it holds another type.
  OpResult<Found> ReadMeta(std::string_view key);
  // A new incarnation of `key` (with the retention window its TTL policy gives, if any).
  storage::Status NewIncarnation(std::string_view key, TlogMeta* meta);
  // Writes the metadata row (and the batch's other rows) atomically: timestamp >= every version,
  // expiry kept (or, with a window, set to when the window passes the log).
  storage::Status WriteMeta(std::string_view key, const TlogMeta& meta, const Found& previous,
                            storage::WriteBatch* batch);
  // The cutoff in force: the stored one, raised by the retention window.
  uint64_t EffectiveCutoff(const TlogMeta& meta) const;
  // Whether the log's expiry register hides its entries at or before the register's T now.
  bool RegisterHides(const TlogMeta& meta) const;
  // The oldest timestamp a read shows: the cutoff in force, raised past a hiding register's T.
  uint64_t VisibleFloor(const TlogMeta& meta) const;
  // Counts the live entries of `meta`'s incarnation at or above `floor`.
  storage::Status CountLive(std::string_view key, const TlogMeta& meta, uint64_t floor,
                            uint64_t* count);
  // The timestamp of the newest sub-row of `meta`'s incarnation (*any false: none).
  storage::Status HeldNewest(std::string_view key, const TlogMeta& meta, uint64_t* newest,
                             bool* any);
  // Raises the cutoff of an existing log to `cutoff` (> meta->cutoff), counting the entries
  // cut. REQUIRES: cutoff > meta->cutoff.
  storage::Status RaiseCutoff(std::string_view key, uint64_t cutoff, TlogMeta* meta);
  // Counts entries of `meta`'s incarnation with ts in [meta.cutoff, cutoff), starting the scan
  // at the first entry with ts < cutoff.
  storage::Status CountBelow(std::string_view key, const TlogMeta& meta, uint64_t cutoff,
                             uint64_t* count);

  Keyspace& keyspace_;
  int db_;
  TlogHeadCache* heads_;
};

// Installs TLOG's sub-row hook in the types' compaction filter: entries below their log's cutoff
// are dropped. Keyspace::Open calls it.
void RegisterTlogCompactionHook(TypesCompactionFilter& filter);

}  // namespace ebb::types
