// DB: ebb's LSM storage engine — keys with versioned rows that carry a timestamp and an expiry.
//
// Model. Each write adds a version of a key: a value row (with optional timestamp and expiry), a
// tombstone (with optional timestamp) or a wipe (a whole-key delete). Versions are ordered by
// when they were written (the sequence number); their timestamps may arrive in any order. A
// value has expired when its expire_at <= the expiry clock: the clock while
// Options::expiration_enabled, else the time expiration was switched off (frozen, and kept
// across restarts: what has expired stays expired). Expired rows are invisible on every read path
// at once, whatever background work has done.
//
// Reading one key (Get, and each key an iterator shows): walk the key's versions from the most
// recently written to the oldest. With retrieval_grace_ms <= 0 take the first. With grace g > 0
// keep walking while the next version's timestamp > best.ts - g, taking the greatest timestamp
// seen (ties: the more recently written). A wipe ends the walk (taken only when it comes first),
// and so does a version written before a range deletion covering the key (DeleteRange). If the
// version taken is a tombstone, a wipe or has expired, the key is absent — an expired version
// hides older ones exactly like a tombstone. The RFC's example: versions @100, @50, @150 in walk
// order (@100 written last): g <= 50 -> @100; g > 50 -> @150.
//
// Compaction merges versions without changing any read's answer, except when it holds a key's
// whole history: then the versions collapse to the one a full-grace read returns (bounded-grace
// reads converge to it). It turns expired/filtered value rows into tombstones (or drops them
// when nothing can lie under them and no read would take them), drops what wipes and range
// deletions hide, deletes whole files whose rows are all dead and hide nothing, and schedules
// itself so expired bytes are gone within Options::purge_deadline_ms of their expiry
// (docs/expiry.md).
//
// Durability. Every write goes to the WAL before it is visible. WalFsync::kAlways: fdatasync'ed
// before Write returns (or before SyncWal returns, with WriteOptions::defer_sync). kEverySec: a
// background thread syncs once a second. kNo: the OS decides. Write(batch) is atomic across
// crashes.
//
// Thread-safety: every method is safe to call concurrently from any thread.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "storage/iterator.h"
#include "storage/key_range.h"
#include "storage/options.h"
#include "storage/replication_record.h"
#include "storage/row.h"
#include "storage/stats.h"
#include "storage/status.h"
#include "storage/write_batch.h"

namespace ebb::storage {

// A consistent point-in-time view; obtained from DB::GetSnapshot, released with
// DB::ReleaseSnapshot.
class Snapshot {
 public:
  virtual uint64_t sequence() const = 0;

 protected:
  virtual ~Snapshot() = default;
};

// A read state held by DB::HoldReadState: opaque to the caller, who passes it to reads
// (ReadOptions::held_state) and drops it. Empty: holds nothing.
struct ReadStateHold {
  const void* owner = nullptr;  // the DB that made it
  uint64_t epoch = 0;           // the publication it was taken at
  std::shared_ptr<const void> state;
};

class DB {
 public:
  // Opens (creating if allowed) the database in `dir`, replaying the WAL. Recovery truncates a
  // torn WAL tail with a warning; damage anywhere else is a Corruption naming file and offset.
  static Status Open(const Options& options, const std::string& dir, std::unique_ptr<DB>* db);

  // Closes: stops background work, syncs the WAL. Destroy iterators and release snapshots first.
  virtual ~DB() = default;

  virtual Status Put(const WriteOptions& options, std::string_view key, std::string_view value) = 0;
  // Writes a tombstone version (with options.timestamp_ms if given).
  virtual Status Delete(const WriteOptions& options, std::string_view key) = 0;
  // A batch holding range deletions (WriteBatch::DeleteRange) is still one WAL record, all or
  // nothing across a crash; it is made durable (fdatasync) before its deletions are recorded in
  // the manifest, whatever the wal-fsync mode, so it is durable when Write returns.
  virtual Status Write(const WriteOptions& options, const WriteBatch& batch) = 0;
  // Deletes every version of every key in `ranges` written before this call, whatever its
  // timestamp: a Write of a batch holding only these range deletions. Versions written after it
  // are untouched. The space comes back as compaction applies it (whole files at once where a
  // file lies inside a range).
  virtual Status DeleteRange(const std::vector<KeyRange>& ranges) = 0;

  // The live row for `key` per the read rule above; NotFound if absent, tombstoned or expired.
  virtual Status Get(const ReadOptions& options, std::string_view key, Row* row) = 0;
  // Get into a PinnedRow: the same answer, with the value left where the engine holds it when
  // it can (a memtable's), so a reader that only looks at it copies nothing. On a status other
  // than OK *row is unspecified. The default copies Get's value.
  virtual Status GetPinned(const ReadOptions& options, std::string_view key, PinnedRow* row) {
    Row copy;
    Status s = Get(options, key, &copy);
    if (!s.ok()) return s;
    row->meta = copy.meta;
    row->Own(std::move(copy.value));
    return s;
  }

  // A hint that `keys` are about to be read or written, each by a point lookup (Get, GetPinned,
  // a Write's put): the engine may bring what those lookups touch in memory into the CPU cache,
  // for all the keys at once, so that a pipeline's cache misses overlap rather than follow one
  // another. Changes no result and no state; thread-safe as Get.
  virtual void Prefetch(std::span<const std::string_view> keys) = 0;
  // The read state published now (the memtables and table files a point read walks), held for a
  // run of point reads on one thread (ReadOptions::held_state): each of them then takes no lock
  // and no reference count. What the hold pins stays in memory and on disk until it is dropped,
  // so a caller holds it for a short run (the server: one pass over a connection's pipelined
  // requests) and drops it before the DB goes. Thread-safe as Get. The default holds nothing
  // (reads given it take the state themselves).
  virtual ReadStateHold HoldReadState() { return {}; }
  // True when a Prefetch would likely save more than it costs: the keys written lately no longer
  // fit in the CPU's cache, so their lookups miss it. While false a caller may skip gathering keys
  // for a hint (a Prefetch still changes no result). Thread-safe as Get.
  virtual bool PrefetchPays() const = 0;

  // Every version of `key` that some read of it could reach, most recently written first: the
  // read rule's walk under full grace — values (expired ones too) and timestamped tombstones, up
  // to the first wipe or range deletion, which is not included (a key whose newest version is a
  // wipe has none). Writing a wipe and then these versions, oldest first with their metas, under
  // another key gives that key the same answer to every read at every grace (RENAME, COPY).
  // options.retrieval_grace_ms and dead_version are ignored.
  virtual Status GetVersions(const ReadOptions& options, std::string_view key,
                             std::vector<VersionRow>* versions) = 0;

  // An iterator over a consistent snapshot (options.snapshot, or now); it shows each key as Get
  // with the same options would return it.
  virtual std::unique_ptr<Iterator> NewIterator(const ReadOptions& options) = 0;

  virtual const Snapshot* GetSnapshot() = 0;
  virtual void ReleaseSnapshot(const Snapshot* snapshot) = 0;

  // Makes every write that has returned so far durable (one fdatasync shared by all of them).
  virtual Status SyncWal() = 0;
  // Hands every WAL byte buffered in the process to the OS (write(2), no fsync): after it
  // returns, the writes that have returned so far survive a crash of the process, though not of
  // the machine. Under kEverySec and kNo, writes otherwise wait in the process's WAL buffer
  // until it fills, the next SyncWal, or the once-a-second sync; the server calls this once per
  // batch of requests before it replies (Redis's AOF write before replies).
  virtual Status FlushWal() = 0;
  // Freezes the memtable and writes it to an L0 file; returns when that file is installed.
  virtual Status FlushMemtable() = 0;
  // Flushes, then compacts every level down to the last, applying expiry and the filter.
  // Returns when done.
  virtual Status CompactAll() = 0;

  // Disk faults. A failed WAL write, flush or fdatasync (including the once-a-second sync under
  // kEverySec), a failed flush's table write, a failed manifest write, or a failed directory
  // fsync puts the DB in an error state: every write (Put, Delete, Write, FlushMemtable,
  // CompactAll) returns the error at once and changes nothing, SyncWal returns it, reads (Get,
  // iterators) keep working. BackgroundError returns that error, or OK. It is cheap (no lock
  // while there is no error). A compaction that fails before its manifest edit changes nothing
  // and is not this state: after an I/O error compactions pause and retry (1 s, doubling to
  // 30 s; Resume retries at once), and a table it found damaged is left out of compactions and
  // listed in Stats::damaged_tables; writes go on unless they need the compaction it blocks
  // (CheckWriteStall).
  virtual Status BackgroundError() = 0;
  // Tries to leave the error state: switches to a new WAL (and a new manifest if the old one
  // failed), then writes every memtable to a table file, so nothing accepted before the fault
  // depends on a file whose last bytes or fsync failed. Postcondition on OK: writes are
  // accepted again and everything readable before is durable. On failure the DB stays in the
  // error state (the returned status is the new cause). While the error is an IOError the
  // background thread calls this about once a second by itself.
  virtual Status Resume() = 0;

  // Write stalls. A write must wait while the memtables are full and the flush of a frozen one
  // is behind, or while level 0 holds Options::l0_stop_writes_trigger files and compaction is
  // behind; Write then blocks until that ends (the memtables' memory stays bounded). This says,
  // without blocking, whether a write now would proceed at once: OK; Busy (naming the reason)
  // while it would wait; or the error that refuses writes — BackgroundError(), or the failure of
  // the compaction a level-0 stall waits for (db_compaction.cc), which would otherwise never end.
  // A caller that must not block (the server's event loop) checks first and, on Busy, waits for
  // the listener.
  virtual Status CheckWriteStall() = 0;
  // `listener` is called (on a background thread, with the DB's lock held: it must return at
  // once and not call into the DB) after a CheckWriteStall that said Busy, once a flush or a
  // compaction finished or the error state changed — the stall may be over; check again.
  // nullptr: none.
  virtual void SetWriteStallListener(std::function<void()> listener) = 0;

  // Replication (docs/replication.md). The sequence number of the last write committed (0 on
  // a fresh DB): a batch's last entry's, or a range deletion's.
  virtual uint64_t LastSequence() = 0;
  // The sequence number of the last write known durable: every write at or below it survives a
  // power cut (its WAL bytes were fdatasync'ed — by SyncWal, the once-a-second sync, a WAL
  // switch that syncs the old one, a range deletion's sync — or Open replayed and synced them,
  // or Resume wrote them to a table file). Never decreases; at most LastSequence(). Under
  // kAlways it reaches a write's sequence before Write returns (before SyncWal returns, with
  // defer_sync); under kEverySec within about a second; under kNo only at those points. Cheap
  // (no lock).
  virtual uint64_t SyncedSequence() = 0;
  // `tap` is called for every write batch (after its WAL append, before Write returns, and
  // before its fdatasync under kAlways) and every range deletion (once its manifest edit is
  // durable), in sequence order, with the record as a replica must apply it. It runs on the
  // writer's thread with the DB's lock held: it must return at once and not call into the DB;
  // the payload is valid only during the call. nullptr: none.
  using ReplicationTap = std::function<void(const ReplicationRecord& record)>;
  virtual void SetReplicationTap(ReplicationTap tap) = 0;
  // Writes into `dir` (created; REQUIRES: it holds no files) a copy of this DB as of one
  // sequence number: hard links to the live table files (no second copy on disk; a table file
  // never changes) and a manifest naming exactly them, with a CURRENT. DB::Open on `dir` then
  // reads the DB as it was at *sequence, every write up to it and none after. Flushes the
  // memtable and waits for the flush (it blocks; call it off the event loop). `files` gets the
  // bare names written, manifest and CURRENT last. On failure `dir` may hold some of the files.
  virtual Status Checkpoint(const std::string& dir, uint64_t* sequence,
                            std::vector<std::string>* files) = 0;

  virtual Stats GetStats() = 0;
  // Where reads of table blocks from disk record their durations (Options::disk_read_latency,
  // or the DB's own); never null. Stats::disk_read_latency is its snapshot.
  virtual std::shared_ptr<DiskReadLatency> disk_read_latency() const = 0;

  // An estimate of the live keys in [lower, upper) (empty `upper`: no bound) that reads no
  // row — RocksDB's estimate-num-keys for a range: the memtables' keys counted as they were
  // added (MemTable::EstimateKeys), and for each table, its rows less twice its tombstones,
  // scaled by the share of its data in the range (from its index). A key with versions in
  // several places counts once per place, expired rows count until compaction drops them, and
  // each tombstone is taken to cancel one older row; what a range deletion covering the whole
  // range hides counts nothing. Never negative. Reads table indexes only
  // (the table cache usually holds them); safe to call concurrently with everything.
  virtual uint64_t EstimateKeys(std::string_view lower, std::string_view upper) = 0;
  // The clock this DB uses for "now".
  virtual const Clock& clock() const = 0;
  // The time expiry is judged at: the clock's now while expiration is on, else the time it was
  // switched off (see the model above).
  virtual int64_t ExpiryNowMs() const = 0;

  // Runtime-changeable options (CONFIG SET). Switching expiration off freezes the expiry clock
  // at the current time, durably (the manifest records it); switching it on lets it follow the
  // clock again. Returns the manifest write's status.
  virtual Status SetExpirationEnabled(bool enabled) = 0;
  virtual void SetWholeFileExpiry(bool enabled) = 0;
  virtual void SetPurgeDeadline(int64_t ms) = 0;
  virtual void SetWalFsync(WalFsync mode) = 0;
};

}  // namespace ebb::storage
