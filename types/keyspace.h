// Keyspace: the data types (strings with timestamps and TTL, TREG, TLOG) over one engine.
//
// This is the entry point the server holds: it opens the engine with the types' compaction
// filter installed and offers typed operations (no RESP here). The key layout is
// docs/key-encoding.md. Databases (SELECT n) are separate keyspaces inside one engine; every
// `db` argument REQUIRES 0 <= db < kMaxDatabases (256).
//
// Generic operations work on any type and read only metadata rows, with the retrieval grace of
// settings().default_retrieval_grace_ms (`default-retrieval-grace`): a key exists exactly when
// such a read returns it, for every operation here and every type's commands. Expired keys are
// absent for all of them at once (the engine hides expired rows). Whole-key deletes (Delete,
// FlushDb, FlushAll) are wipes and range deletions: they outrank every version of the key
// whatever its timestamp (docs/expiry.md). Writes use WriteOptions() below, whose defer_sync
// follows settings().defer_sync (the server sets it under wal-fsync always and then calls
// DB::SyncWal before acknowledging — group commit).
//
// Timestamps of type writes: every metadata row a TLOG or TREG command writes carries a
// timestamp >= that of every version of the key (TypeWriteTimestamp), so the write wins under
// every retrieval grace at once and compaction keeps it — a command's effect never depends on
// where versions sit. (String rows keep the SlateDB RFC's rule: their timestamp is the write's.)
//
// Reads use ReadOptions() below. Both carry the BlockFetch the server sets around each command
// (set_block_fetch; storage/table/block_fetch.h): reads then do not wait for the disk but come
// back Incomplete (an engine error) when a block they need is not in memory, and a write after
// such a read is refused, so the command changes nothing and can run again once its blocks are
// read (server/dispatch/dispatcher.h, "Restartable commands").
//
// The keyspace owns what the types share: their settings (the TTL policy, the default retrieval
// grace, group commit), which the server keeps in step with its options, and the TLOG head
// cache. Operations return OpResult (types/op_result.h).
//
// Thread-safety: operations run on the server's single command thread (not thread-safe among
// themselves); the engine's background threads only call the compaction filter, which is.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "storage/clock.h"
#include "storage/db.h"
#include "storage/options.h"
#include "storage/status.h"
#include "types/batch_db.h"
#include "types/compaction_filter.h"
#include "types/dump_codec.h"
#include "types/key_encoding.h"
#include "types/key_meta.h"
#include "types/op_result.h"
#include "types/row_cursor.h"
#include "types/scan_cursor.h"
#include "types/series_codec.h"
#include "types/tlog_head_cache.h"
#include "types/ttl_policy.h"

namespace ebb::types {

// Decides whether a user key matches (KEYS / SCAN MATCH); the server passes its glob matcher.
using KeyMatcher = std::function<bool(std::string_view user_key)>;

// EXPIRE's NX|XX|GT|LT, combinable as Redis 7 allows (XX|GT, XX|LT). A persistent key counts
// as an infinite TTL for GT/LT.
enum ExpireFlag : uint32_t { kExpireNx = 1, kExpireXx = 2, kExpireGt = 4, kExpireLt = 8 };

// INFO keyspace: dbN:keys=..,expires=..,avg_ttl=..
struct DbStats {
  uint64_t keys = 0;        // live keys
  uint64_t expires = 0;     // live keys with an expiry
  uint64_t avg_ttl_ms = 0;  // mean remaining TTL of those, 0 if none
  // The figures are estimates (a database above Keyspace's exact-count limit): keys is the
  // engine's estimate, expires and avg_ttl_ms come from a sample of keys.
  bool estimated = false;
};

// The types' settings, from the server's options.
struct TypeSettings {
  TtlPolicy ttl_policy;                    // default-ttl and ttl-rule
  int64_t default_retrieval_grace_ms = 0;  // default-retrieval-grace
  // Group commit (wal-fsync always): every write the types make is not fdatasync'ed by the
  // engine; the caller must call db().SyncWal() before replying.
  bool defer_sync = false;
};

struct ScanResult {
  uint64_t cursor = 0;            // 0: the iteration is complete (types/scan_cursor.h)
  std::vector<std::string> keys;  // user keys, in byte order
};

class Keyspace {
 public:
  // Opens the engine in `dir` with `options` (its clock must be set), installing the types'
  // compaction filter (any options.compaction_filter given is replaced).
  // `layout` places the user keys (types/key_encoding.h): kBySlot on a Redis Cluster node.
  // It is fixed for the data directory: one written in the other layout is refused
  // (InvalidArgument, saying which option it needs).
  static storage::Status Open(storage::Options options, const std::string& dir,
                              std::unique_ptr<Keyspace>* keyspace,
                              KeyLayout layout = KeyLayout::kByDatabase);
  KeyLayout layout() const { return layout_; }

  ~Keyspace();
  Keyspace(const Keyspace&) = delete;

  // Closes the engine, runs `while_closed` (which may replace the engine's directory: a
  // replica's full resynchronisation, docs/replication.md), then opens the engine in the same
  // directory with the options it was opened with — the engine settings below as last set — and
  // starts afresh what the keyspace derived from it (the version mark, the TLOG head cache, the
  // counted expiries). Not OK: the engine did not open — then the keyspace has no engine and
  // must not be used again.
  // REQUIRES: !in_batch(); nothing else uses the engine meanwhile (no reads in flight, no
  // thread holding it).
  storage::Status ReopenEngine(const std::function<void()>& while_closed);
  const std::string& dir() const { return dir_; }
  // The engine settings that change at run time (CONFIG SET): each applies to the engine now
  // (storage::DB's setter of the same name) and to every engine ReopenEngine opens later.
  // SetExpirationEnabled not OK: the engine could not record the switch (it runs with the switch
  // set, see storage::DB::SetExpirationEnabled); a reopened engine still gets `enabled`.
  storage::Status SetExpirationEnabled(bool enabled);
  void SetWholeFileExpiry(bool enabled);
  void SetPurgeDeadline(int64_t ms);
  // The purge deadline in force (ms; negative: unlimited).
  int64_t purge_deadline_ms() const { return options_.purge_deadline_ms; }
  void SetWalFsync(storage::WalFsync mode);
  // Reads the version high-water mark again from the engine: after a replica applied its
  // master's writes, before it writes itself (promotion).
  storage::Status ReloadVersionMark();

  // ---- system rows (docs/key-encoding.md, "System rows"): ebb's own state kept in the engine,
  // outside every database, so the WAL, the replication stream and a replica's snapshot carry
  // it like any row. FLUSHDB and FLUSHALL leave them.
  //
  // The function libraries (FUNCTION DUMP's payload; server/scripting/script_engine.h).
  static constexpr std::string_view kFunctionLibrariesRow = "function-libraries";
  // The engine key of system row `name`: kSystemRowKeyPrefix, then the name.
  static std::string SystemRowKey(std::string_view name);
  // For a caller that builds a system row's key in place, with no heap block.
  static constexpr std::string_view kSystemRowKeyPrefix{"\0", 1};
  // The value of system row `name` into *value; NotFound when there is none.
  storage::Status GetSystemRow(std::string_view name, std::string* value);
  // Writes system row `name` straight to the engine (never into an open batch) and syncs the
  // WAL: durable when it returns, whatever wal-fsync says.
  storage::Status PutSystemRow(std::string_view name, std::string_view value);
  // Calls fn(name, value) for each system row whose name starts with `prefix`, in name order,
  // read through the open batch; returns the first status fn returns that is not OK, which
  // stops the walk. fn must not write the rows it walks.
  storage::Status ForEachSystemRow(
      std::string_view prefix,
      const std::function<storage::Status(std::string_view name, std::string_view value)>& fn);
  Keyspace& operator=(const Keyspace&) = delete;

  // ---- cursors: walks kept between turns of the event loop (types/row_cursor.h)
  //
  // A key's position in the walk of database `db`; the first position of `db` (no key's is
  // smaller) and its end (greater than every key's). Opaque; one database's positions compare as
  // its keys' places (byte order of the keys, by slot first in the slot layout).
  std::string KeyPosition(int db, std::string_view key) const;
  std::string FirstKeyPosition(int db) const;
  std::string EndKeyPosition(int db) const;
  // The position right after `position`: no key lies between them.
  static std::string PositionAfter(std::string_view position);
  // The keys of `db` at positions in [from, to), dead ones included (row_cursor.h), read at
  // `snapshot` (this keyspace's engine's; null: through the open batch as it stands now).
  std::unique_ptr<RowCursor> KeyCursor(int db, std::string from, std::string to,
                                       const storage::Snapshot* snapshot = nullptr);
  // The system rows whose names start with `prefix`, read the same way.
  std::unique_ptr<RowCursor> SystemRowCursor(std::string_view prefix,
                                             const storage::Snapshot* snapshot = nullptr);

  // The engine, or while a batch is open the batch over it (every type reads and writes here).
  storage::DB& db() { return *active_; }

  // ---- batches: the writes of several commands as ONE atomic write (types/batch_db.h)
  //
  // Between BeginBatch and CommitBatch/DiscardBatch every write of every operation here is
  // gathered into one pending storage::WriteBatch, and every read sees those pending writes
  // (read-your-writes); the engine sees nothing. MULTI/EXEC runs its queued commands inside one
  // batch; a script runs its calls inside one; a replica would receive the committed batch as
  // one unit. Incarnation versions (NewVersion) stay unique whether the batch commits or not.

  // REQUIRES: !in_batch().
  void BeginBatch();
  bool in_batch() const { return batch_ != nullptr; }
  // Writes the pending writes with one DB::Write (one WAL record; all or nothing across a
  // crash) under WriteOptions() — under defer_sync the caller syncs the WAL before it
  // acknowledges, as for any write; a batch holding FLUSHDB/FLUSHALL is durable on return) — and
  // ends the batch. On failure the engine took none of it, the TLOG head
  // cache is cleared, and the status says why. REQUIRES: in_batch().
  storage::Status CommitBatch();
  // Ends the batch, dropping its writes (the TLOG head cache forgets what it saw of them).
  // REQUIRES: in_batch().
  void DiscardBatch();
  // Writes pending in the open batch (0 without one).
  size_t batch_pending_count() const { return batch_ ? batch_->pending_count() : 0; }
  const storage::Clock& clock() const { return *clock_; }
  int64_t NowMs() const { return clock_->NowMs(); }

  const TypeSettings& settings() const { return settings_; }
  // Also gives the compaction filter the rules' expiry modes.
  void set_ttl_policy(TtlPolicy policy);
  void set_default_retrieval_grace(int64_t ms) { settings_.default_retrieval_grace_ms = ms; }
  void set_defer_sync(bool defer) { settings_.defer_sync = defer; }
  bool defer_sync() const { return settings_.defer_sync; }
  // The expiry the TTL policy gives a write of `key` at `ts_ms` without its own TTL option.
  std::optional<int64_t> PolicyExpireAt(std::string_view key, int64_t ts_ms) const {
    return settings_.ttl_policy.ExpireAt(key, ts_ms);
  }
  // The retention window the TTL policy gives a new TLOG at `key` (docs/expiry.md), or nullopt.
  std::optional<uint64_t> PolicyWindow(std::string_view key) const {
    const std::optional<int64_t> ttl = settings_.ttl_policy.TtlFor(key);
    if (!ttl || *ttl <= 0) return std::nullopt;
    return static_cast<uint64_t>(*ttl);
  }
  // Fresh write options carrying defer_sync and the block fetch (no timestamp, no expiry).
  storage::WriteOptions WriteOptions() const;
  // Fresh read options carrying the block fetch, and within a ReadPass the engine's read state
  // the pass holds (taken at its first read).
  storage::ReadOptions ReadOptions() const;
  // A run of the command thread's point reads that holds the engine's read state
  // (storage::DB::HoldReadState) from its first read to its end, so each read takes no lock and
  // no reference count: the server's pass over one connection's pipelined requests. A value a
  // read leaves pinned (GetMetaPinned) stays valid until the outermost pass ends; passes nest.
  class ReadPass {
   public:
    explicit ReadPass(Keyspace& keyspace) : keyspace_(keyspace) { ++keyspace_.read_passes_; }
    ~ReadPass() {
      if (--keyspace_.read_passes_ == 0) keyspace_.held_state_ = {};
    }
    ReadPass(const ReadPass&) = delete;
    ReadPass& operator=(const ReadPass&) = delete;

   private:
    Keyspace& keyspace_;
  };
  // The pass of reads the types' reads and writes belong to (the server's current command), or
  // nullptr: reads wait for the disk. REQUIRES: `fetch` outlives its use here.
  void set_block_fetch(storage::BlockFetch* fetch) { block_fetch_ = fetch; }
  storage::BlockFetch* block_fetch() const { return block_fetch_; }

  // The newest entries of recently read logs (TLOG GET), capacity 0 (off) until set.
  TlogHeadCache& tlog_heads() { return tlog_heads_; }

  // The types' compaction filter, to register sub-row hooks (TLOG's cutoff rule).
  TypesCompactionFilter& compaction_filter() { return *filter_; }

  // A new incarnation version for a collection key: unique across the engine and restarts
  // (docs/key-encoding.md, "Versions"). May write the high-water-mark row. Status not OK only
  // if that write failed.
  storage::Status NewVersion(uint64_t* version);

  // ---- metadata (every type's WRONGTYPE check)

  // A retrieval grace no two versions of a key are ever apart by: a read with it takes the key's
  // greatest version.
  static constexpr int64_t kFullGrace = int64_t{1} << 60;

  // The live metadata row of `key`, read with the default retrieval grace. NotFound when
  // absent, deleted or expired; Corruption if the row does not decode.
  storage::Status GetMeta(int db, std::string_view key, KeyMetaRow* out) {
    return GetMeta(db, key, out, settings_.default_retrieval_grace_ms);
  }
  // The same with retrieval grace `grace`. When `dead` is given and the key is absent because
  // of the version the read took (a tombstone, wipe or expired row), *dead receives it.
  storage::Status GetMeta(int db, std::string_view key, KeyMetaRow* out, int64_t grace,
                          std::optional<storage::DeadVersion>* dead = nullptr);
  // A hint that the metadata rows of `keys` in `db` are about to be read or written
  // (storage::DB::Prefetch): a pipeline's requests name them before they run. Changes nothing.
  void PrefetchMeta(int db, std::span<const std::string_view> keys);
  // Whether PrefetchMeta would pay (storage::DB::PrefetchPays): callers gather keys for it only
  // then.
  bool PrefetchPays() const { return active_->PrefetchPays(); }
  // GetMeta without a copy of the payload where the engine keeps the row in place
  // (storage::DB::GetPinned). On a status other than OK *out is unspecified.
  storage::Status GetMetaPinned(int db, std::string_view key, KeyMetaView* out, int64_t grace,
                                std::optional<storage::DeadVersion>* dead = nullptr);
  // The timestamp a type write to `key` must carry to win under every grace: >= every version
  // of the key. `found` is what GetMeta (default grace) returned, `dead` its dead version.
  storage::Status TypeWriteTimestamp(int db, std::string_view key, const KeyMetaRow* found,
                                     const std::optional<storage::DeadVersion>& dead, int64_t* ts);

  // Writes one version of `key`'s metadata row as given, through the open batch: `value` (the
  // whole row value, type byte included) for kValue, or a tombstone carrying `value` for
  // kTombstone, at `meta`'s timestamp and expiry. What a caller that restates a version it read
  // writes (an active-active node entering the mode, an expiry register). REQUIRES: kind is not
  // kWipe.
  storage::Status WriteMetaVersion(int db, std::string_view key, storage::RowKind kind,
                                   std::string_view value, const storage::RowMeta& meta);

  // ---- generic key operations (DEL, EXISTS, TYPE, EXPIRE, ...)

  // Whether the key is live.
  OpResult<bool> Exists(int db, std::string_view key);
  // The key's type, nullopt if absent.
  OpResult<std::optional<KeyType>> Type(int db, std::string_view key);
  // Removes the key (whatever its type; sub-rows become orphans) with a wipe, which hides every
  // version written before it, whatever its timestamp; true if it existed (default grace).
  // Writes nothing when no version could be read at any grace.
  OpResult<bool> Delete(int db, std::string_view key);
  // DEL: removes every key that exists, in one atomic write after reading them all (so a
  // command waiting for the disk asks for all their blocks in one round); a key named twice
  // counts once. How many existed; `existed`, when given, receives those keys.
  OpResult<int64_t> Delete(int db, std::span<const std::string_view> keys,
                           std::vector<std::string_view>* existed = nullptr);
  // Sets the whole key's expiry to `expire_at_ms` if the key exists and every condition in
  // `flags` (ExpireFlag bits) holds; a time <= now deletes the key instead (counted in
  // expired_keys). True if it did either (EXPIRE's 1/0).
  OpResult<bool> Expire(int db, std::string_view key, int64_t expire_at_ms, uint32_t flags);
  // Removes the expiry; true if the key existed and had one.
  OpResult<bool> Persist(int db, std::string_view key);
  // The key's expiry (nullopt: persistent). kNotFound if the key is absent.
  OpResult<std::optional<int64_t>> GetExpireAt(int db, std::string_view key);

  // ---- copying a key (RENAME, RENAMENX, COPY, MOVE; types/keyspace_copy.cc)

  enum class CopyOutcome {
    kCopied,
    kNoSource,      // the source is absent (never written, deleted or expired): nothing written
    kTargetExists,  // the target is live and `replace` is false: nothing written
  };
  struct CopyRequest {
    int src_db = 0;
    std::string_view src;
    int dst_db = 0;
    std::string_view dst;
    bool replace = false;        // a live target is overwritten (else kTargetExists)
    bool remove_source = false;  // the source is deleted (RENAME, MOVE)
  };
  // Gives the target (dst_db, dst) the source's value, whatever its type, with its expiry and
  // every timestamp exactly: a string key every version some read of it could take at some
  // grace (DB::GetVersions, tombstones included, in their order), a TREG its register, a TLOG
  // its cutoff, window and every entry at or above the cutoff with the entry's own expiry, under
  // a new incarnation version. It is ONE engine write (one WAL record: all or none of it after a
  // crash): a wipe of the target (its old versions can never mix with the copied ones), the
  // copy, and with remove_source a wipe of the source.
  // Memory: the write is built whole before it is written — about the size of the key's data
  // (for a TLOG, its entries' values plus ~30 bytes each), as one WAL record.
  // Limit: a string key's older versions of another type (a TLOG or TREG written before a SET
  // and not yet compacted away) are left behind.
  // REQUIRES: (src_db, src) != (dst_db, dst).
  OpResult<CopyOutcome> CopyKey(const CopyRequest& request);

  // ---- DUMP and RESTORE (types/keyspace_dump.cc; the payload is types/dump_codec.h)

  // The key's value, timestamps and expiries as a DUMP payload (docs/dump-format.md); nullopt
  // if no grace reads it (live_version.h). A string key's versions are those CopyKey copies,
  // each with its expiry, an expired one written as a tombstone at its timestamp.
  OpResult<std::optional<std::string>> DumpKey(int db, std::string_view key);
  // Writes `dump` as the key (db, key), whatever was there, as ONE engine write: a wipe, then the
  // value with every timestamp and expiry of the dump, each value version and the metadata row
  // expiring no later than `expire_at_ms` (nullopt: at the dump's own expiry, if any); a TLOG
  // under a new incarnation, its entries expiring by its window as its inserts do. The metadata
  // timestamp of a TREG or TLOG is `last_write_ms` when given (RESTORE IDLETIME: OBJECT IDLETIME
  // counts from it), else the dump's, capped at this server's clock so that a DELETE written here
  // afterwards covers the key. A string's timestamps are its versions' own and stay.
  OpResult<void> RestoreKey(int db, std::string_view key, const KeyDump& dump,
                            std::optional<int64_t> expire_at_ms,
                            std::optional<int64_t> last_write_ms);

  // ---- whole-database operations (types/keyspace_db.cc)

  // One SCAN step: examines up to `count` keys (>= 1) from the position `cursor` names
  // (types/scan_cursor.h; 0 starts), returns those matching `match` (null: all) and `type`
  // (nullopt: all), and the cursor of the next key (0: done). A full iteration returns every
  // key that was live throughout it exactly once; any number run side by side, from any
  // connection. kInvalidCursor if `cursor` names no position (ScanCursors::Find).
  OpResult<ScanResult> Scan(int db, uint64_t cursor, const KeyMatcher* match, size_t count,
                            std::optional<KeyType> type);
  // Every live key matching `match` (null: all), in byte order (by slot first in the slot
  // layout).
  OpResult<std::vector<std::string>> Keys(int db, const KeyMatcher* match);
  // Calls `visit` with every live key of `db` holding `type` and its metadata payload (after the
  // type byte), in engine key order (by slot first in the slot layout), until it returns false:
  // one walk of the database's metadata rows, O(keys of every type), no sub-row read.
  OpResult<void> ForEachKeyOfType(
      int db, KeyType type,
      const std::function<bool(std::string_view key, std::string_view payload)>& visit);
  // Every key of `db` whose newest version holds something, live or not: the live keys and the
  // keys whose newest version is a tombstone or an expired value (the engine's include_dead), in
  // key order. What an active-active flush must cover: an expired value is still held there.
  OpResult<std::vector<std::string>> KeysWithDead(int db);
  // A random live key; nullopt if the database is empty. Uniform while the database is
  // counted exactly (DbSize); above that, the first key after a random position.
  OpResult<std::optional<std::string>> RandomKey(int db);
  // The number of live keys: exact for a database the engine estimates at up to 10,000 keys
  // (a walk of at most 20,000 metadata rows), the engine's estimate above that
  // (storage::DB::EstimateKeys: expired keys count until compaction drops them, overwrites
  // that have not met in a compaction count twice). Never walks the whole database.
  OpResult<uint64_t> DbSize(int db);
  // Removes every key of `db` / of every database: one range deletion (storage::DB::DeleteRange)
  // over their metadata and sub-rows, durable when it returns.
  OpResult<void> FlushDb(int db);
  OpResult<void> FlushAll();
  // ---- Redis Cluster's hash slots (common/key_slot.h). A cluster node has one database, 0.
  // In the slot layout each reads or deletes the slot's own engine range; in the database layout
  // (a keyspace that is not a cluster node's) they walk database 0. A key counts when a read at
  // some grace returns it (live_version.h). The number of those of db 0 in `slot`.
  OpResult<uint64_t> CountKeysInSlot(int slot);
  // Up to `count` such keys of database 0 in `slot`, in byte order.
  OpResult<std::vector<std::string>> KeysInSlot(int slot, size_t count);
  // Whether `key` of `db` is such a key: here for a slot move (MIGRATE carries it, and a
  // migrating node answers for it instead of sending the client to the importing node).
  OpResult<bool> HoldsKey(int db, std::string_view key);
  // Removes every key of database 0 in `slot` (a node that no longer serves the slot): in the
  // slot layout one range deletion of all the slot's rows, dead versions included, durable when
  // it returns.
  OpResult<void> DeleteSlot(int slot);
  // Visits every live key of `db` that has an expiry, in key order (the expiry-event index
  // rebuilds itself from it).
  storage::Status ForEachExpiring(
      int db, const std::function<void(std::string_view user_key, int64_t expire_at_ms)>& visit);
  // Keys, keys with expiry, and mean remaining TTL of `db` (INFO keyspace): exact where DbSize
  // is; above that the estimated count, and expiry figures from 1,000 keys after a random
  // position. On an engine error it counts what it could read.
  DbStats GetDbStats(int db);
  // Metadata rows the key counts above have read since open (a test's proof that they do not
  // walk a large database).
  uint64_t count_rows_read() const { return count_rows_read_; }

  // Keys a command found expired (INFO stats expired_keys): EXPIRE with a time <= now, and
  // GetMeta (so every type's read) finding a key absent because its expiry passed — each
  // expiry counted once (the most recent kMaxCountedExpiries are remembered).
  uint64_t expired_keys() const { return expired_keys_; }

 private:
  Keyspace(std::unique_ptr<storage::DB> db, std::shared_ptr<storage::Clock> clock,
           std::shared_ptr<TypesCompactionFilter> filter);

  // Visits every live metadata row of `db` in engine key order, from the position `start`
  // (MetaKeyPosition: the user key, after its slot in the slot layout; inclusive; empty: the
  // first); stops when `visit` returns false.
  // kWithDead: also the keys whose newest version is a tombstone or an expired value (read at
  // grace 0 with the engine's include_dead; such a key's value and meta are not shown).
  enum class MetaRows { kLive, kWithDead };
  storage::Status ForEachMeta(
      int db, std::string_view start,
      const std::function<bool(std::string_view user_key, std::string_view value,
                               const storage::RowMeta& meta)>& visit,
      MetaRows rows = MetaRows::kLive);
  // The same over the metadata rows in the engine range [lower, upper).
  storage::Status ForEachMetaIn(
      std::string lower, std::string upper,
      const std::function<bool(std::string_view user_key, std::string_view value,
                               const storage::RowMeta& meta)>& visit,
      MetaRows rows = MetaRows::kLive);
  // Visits those keys of database 0 in `slot`, in byte order, until `visit` returns false.
  storage::Status ForEachKeyInSlot(int slot,
                                   const std::function<bool(std::string_view key)>& visit);
  // Checks that the engine's user keys are in layout_ (docs/key-encoding.md, "Key layouts"),
  // and marks a slot-layout engine as such; Corruption-free refusal (InvalidArgument) otherwise.
  storage::Status CheckKeyLayout();
  // Visits the live entries of the TLOG incarnation `log` of (db, key) at or above its cutoff,
  // newest first: each sub-row's element (types/tlog_codec.h), its timestamp and its row meta.
  storage::Status ForEachTlogEntry(int db, std::string_view key, const TlogMeta& log,
                                   const std::function<void(std::string_view element, uint64_t ts,
                                                            const storage::RowMeta& meta)>& visit);
  // Appends the samples reads show of the SERIES incarnation `series` of (db, key) to *samples,
  // oldest first (types/series.h: those at or above its newest timestamp - retention).
  storage::Status ForEachSeriesSample(int db, std::string_view key, const SeriesMeta& series,
                                      std::vector<Sample>* samples);
  // The versions of a string key's metadata row (db, key) that a copy or a dump carries: those
  // DB::GetVersions returns that are string values or tombstones, most recently written first.
  storage::Status GetStringVersions(int db, std::string_view key,
                                    std::vector<storage::VersionRow>* versions);
  // Writes a wipe of `key` (a whole-key delete).
  storage::Status WriteWipe(int db, std::string_view key);
  // Delete's reads: whether `key` exists at the default grace (*exists), and whether it needs a
  // wipe (*wipe: it exists, or some version could still be read at another grace).
  storage::Status PlanDelete(int db, std::string_view key, bool* exists, bool* wipe);
  // Delete's work, as a status.
  storage::Status DeleteKey(int db, std::string_view key, bool* deleted);
  // A database's key count: exact (a walk of its rows) up to a limit, the engine's estimate
  // above it (keyspace_db.cc).
  struct KeyCount {
    uint64_t keys = 0;
    bool exact = true;
  };
  storage::Status CountKeys(int db, KeyCount* count);
  // Counts the expiry of (db, key) at expire_at_ms unless already counted.
  void NoteExpired(int db, std::string_view key, int64_t expire_at_ms);

  std::unique_ptr<storage::DB> db_;  // the engine
  // The read state the open ReadPass holds (empty until its first read, and outside passes);
  // declared after db_, which it must not outlive.
  int read_passes_ = 0;
  mutable storage::ReadStateHold held_state_;
  KeyLayout layout_ = KeyLayout::kByDatabase;
  storage::Options options_;        // what it was opened with
  std::string dir_;                 // where
  std::unique_ptr<BatchDB> batch_;  // the open batch, or null
  storage::DB* active_ = nullptr;   // batch_ when open, else db_
  // The last batch ended, emptied, for the next BeginBatch: its pending batch's buffer and its
  // object are reused (an active-active node opens a batch per client write). Not kept after a
  // batch of more than kMaxSpareBatchBytes; dropped when the engine is reopened.
  std::unique_ptr<BatchDB> spare_batch_;
  static constexpr size_t kMaxSpareBatchBytes = 64 * 1024;
  std::shared_ptr<storage::Clock> clock_;
  std::shared_ptr<TypesCompactionFilter> filter_;
  TypeSettings settings_;
  storage::BlockFetch* block_fetch_ = nullptr;
  TlogHeadCache tlog_heads_;
  ScanCursors scan_cursors_;  // the positions SCAN handed out
  uint64_t expired_keys_ = 0;

  // Versions [next_version_, version_limit_) are covered by the persisted high-water mark.
  uint64_t next_version_ = 0;
  uint64_t version_limit_ = 0;

  // Expiries already counted in expired_keys_ (metadata key | expire_at), oldest evicted first.
  static constexpr size_t kMaxCountedExpiries = 4096;
  uint64_t count_rows_read_ = 0;
  std::unordered_set<std::string> counted_expiries_;
  std::deque<std::string> counted_order_;
};

}  // namespace ebb::types
