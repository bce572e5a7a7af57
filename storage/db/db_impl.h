// DBImpl: the engine behind storage/db.h — WAL + memtables + versions of table files, with a
// background thread for flushes, one for compactions and expiry (so a long compaction never
// holds a flush back), and one for `everysec` WAL syncs.
//
// Locking: mu_ guards every member below it (memtable switches, the version set, the WAL writer,
// snapshots, counters). Memtable inserts happen under mu_. A point read takes no mutex: it loads
// the published read state (read_state_, a SharedSlot) and the published sequence
// (read_sequence_), and takes them again if a publication (read_state_epoch_) fell between the
// two loads, so the pair is one that held together at some instant; it then reads the
// memtables and versions the state pins. A read given a hold (HoldReadState) whose epoch is
// still the published one uses the held state in place of the slot's: no lock, no count. Flush and
// compaction do their I/O without mu_. sync_mu_ serializes WAL fdatasyncs (SyncWal) so writers are
// not blocked by the disk. Invariant: mem_ holds every write since the last switch and is covered
// by the WAL files numbered >= its log number; imms_ (oldest first) are frozen and waiting for
// flush.
//
// Error state (db.h, "Disk faults"): bg_error_ is set by the first failed WAL write/flush/sync,
// flush table write, manifest write or directory fsync, and cleared only by Resume (a failed
// compaction is recorded apart: compaction_error_, damaged_tables_). While it is set no
// write reaches the memtable or the WAL, the background threads do no flush or compaction, and
// no file is deleted (the manifest on disk may hold an edit the memory does not know about).
// Resume (db_resume.cc) writes a new manifest if one failed, moves to a new WAL if the current
// one failed or holds writes, and flushes every memtable, so the WALs written before the fault
// become obsolete.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "storage/clock.h"
#include "storage/db.h"
#include "storage/db/db_iter.h"
#include "storage/db/file_regions.h"
#include "storage/db/memtable.h"
#include "storage/db/shared_slot.h"
#include "storage/db/version_set.h"
#include "storage/disk_read_latency.h"
#include "storage/engine_latency.h"
#include "storage/env/file.h"
#include "storage/table/table_builder.h"

namespace ebb::storage {

class LogWriter;
class TableCache;
class TableWriter;
class BlockCache;
class VersionChooser;
struct CompactionJob;
struct ReduceContext;

class DBImpl final : public DB, private DBIterTreeRecycler {
 public:
  DBImpl(const Options& options, std::string dir);
  ~DBImpl() override;

  // Locks the directory, recovers the manifest and the WAL, starts background threads.
  Status OpenImpl();

  Status Put(const WriteOptions& options, std::string_view key, std::string_view value) override;
  Status Delete(const WriteOptions& options, std::string_view key) override;
  Status Write(const WriteOptions& options, const WriteBatch& batch) override;
  Status DeleteRange(const std::vector<KeyRange>& ranges) override;
  Status Get(const ReadOptions& options, std::string_view key, Row* row) override;
  Status GetPinned(const ReadOptions& options, std::string_view key, PinnedRow* row) override;
  void Prefetch(std::span<const std::string_view> keys) override;
  bool PrefetchPays() const override { return prefetch_pays_.load(std::memory_order_relaxed); }
  ReadStateHold HoldReadState() override;
  std::unique_ptr<Iterator> NewIterator(const ReadOptions& options) override;
  Status GetVersions(const ReadOptions& options, std::string_view key,
                     std::vector<VersionRow>* versions) override;
  const Snapshot* GetSnapshot() override;
  void ReleaseSnapshot(const Snapshot* snapshot) override;
  Status SyncWal() override;
  Status FlushWal() override;
  Status FlushMemtable() override;
  Status CompactAll() override;
  Status BackgroundError() override;
  Status Resume() override;
  Status CheckWriteStall() override;
  void SetWriteStallListener(std::function<void()> listener) override;
  Stats GetStats() override;
  std::shared_ptr<DiskReadLatency> disk_read_latency() const override { return disk_read_latency_; }
  uint64_t LastSequence() override;
  uint64_t SyncedSequence() override { return synced_sequence_.load(); }
  void SetReplicationTap(ReplicationTap tap) override;
  Status Checkpoint(const std::string& dir, uint64_t* sequence,
                    std::vector<std::string>* files) override;
  uint64_t EstimateKeys(std::string_view lower, std::string_view upper) override;
  const Clock& clock() const override { return *clock_; }
  int64_t ExpiryNowMs() const override { return ExpiryNow(); }
  Status SetExpirationEnabled(bool enabled) override;
  void SetWholeFileExpiry(bool enabled) override { whole_file_expiry_ = enabled; }
  void SetPurgeDeadline(int64_t ms) override;
  void SetWalFsync(WalFsync mode) override;

  // Runs, on the calling thread, what the background thread does on a wake-up once flushes are
  // done: whole-file drops, then one compaction if one is due (range jobs and purge deadline
  // first). Lets tests drive expiry with a ManualClock. Returns true if it changed the tree.
  bool RunBackgroundCycle();

 private:
  struct ReadState;
  // A read view that pins the read state it was taken on and judges expiry at a fixed time:
  // what compaction hands its filter (CompactionFilter::StartCompaction). Never registered in
  // snapshots_, so it keeps no version from being merged; the state it pins holds every
  // version a read at its sequence needs.
  class View final : public Snapshot {
   public:
    View(uint64_t sequence, std::shared_ptr<const ReadState> pinned, int64_t expiry_now)
        : sequence_(sequence), state(std::move(pinned)), expiry_now_ms(expiry_now) {}
    ~View() override = default;
    uint64_t sequence() const override { return sequence_; }

    const uint64_t sequence_;
    const std::shared_ptr<const ReadState> state;
    const int64_t expiry_now_ms;
  };
  static const View* AsView(const Snapshot* snapshot) {
    return snapshot == nullptr ? nullptr : dynamic_cast<const View*>(snapshot);
  }

  struct Frozen {
    std::shared_ptr<MemTable> mem;
    uint64_t next_log_number;  // the WAL that holds writes made after this memtable froze
  };
  // What a read looks at besides the sequence: published whole (read_state_), never changed.
  struct ReadState final {
    std::shared_ptr<MemTable> mem;
    std::vector<std::shared_ptr<MemTable>> imms;  // newest first
    std::shared_ptr<const Version> version;
  };

  // --- db_impl.cc: open, writes, reads
  Status Recover();
  // Corruption naming the first table the recovered version needs that is missing from
  // `names` (the directory listing) or whose size differs from the manifest's record.
  Status CheckLiveTables(const std::vector<std::string>& names);
  // Adds the log's batches to mem_ and its range deletions to *deletions.
  Status ReplayLog(uint64_t number, uint64_t* max_sequence, std::vector<RangeDeletion>* deletions);
  // Starts a new WAL file (and fsyncs the directory). With sync_old, the old WAL is synced first
  // and a failure aborts the switch. REQUIRES: mu_.
  Status NewLog(bool sync_old);
  // Waits while a write must stall; switches to a new memtable and WAL when the active one is
  // full (or, with force, not empty). Returns the error that refuses the write instead.
  Status MakeRoomForWrite(std::unique_lock<std::mutex>& lock, bool force);
  // Sets prefetch_pays_ from the active memtable. REQUIRES: mu_ (or the single-threaded open).
  void NotePrefetchPays();
  // Whether the active memtable reached options_.memtable_size: the next write switches it.
  // REQUIRES: mu_ (or the single-threaded open).
  bool ActiveMemtableFull() const {
    return mem_->ApproximateMemoryUsage() >= options_.memtable_size;
  }
  // OK, Busy (a write would wait: the reason) or the refusing error; see DB::CheckWriteStall.
  // `force`: for a flush of a non-empty memtable. REQUIRES: mu_.
  Status WriteStallLocked(bool force);
  // Calls the write-stall listener if a CheckWriteStall said Busy since the last call, and
  // wakes the writers waiting in MakeRoomForWrite. Every step that can end a stall (a flush or
  // compaction installed, the error state changed) calls it. REQUIRES: mu_.
  void WakeStalledWriters();
  // The sequence a read sees: the snapshot's, or the last written. REQUIRES: mu_.
  uint64_t ReadSequence(const Snapshot* snapshot) const {
    return snapshot ? snapshot->sequence() : versions_.last_sequence();
  }
  // Publishes versions_.last_sequence() to lock-free readers (read_sequence_), once the
  // memtable holds every row up to it. REQUIRES: mu_.
  void PublishSequence() {
    read_sequence_.store(versions_.last_sequence(), std::memory_order_release);
  }
  // The state a read looks at and the sequence to read at: a view's own, else the published
  // read state at the snapshot's sequence or the published one, taken without mu_ (Locking,
  // above). *expiry_now is set for a view (its fixed expiry time).
  std::shared_ptr<const ReadState> GetReadState(const Snapshot* snapshot, uint64_t* sequence,
                                                std::optional<int64_t>* expiry_now);
  // The published read state and the sequence to read at (the snapshot's, or the published one)
  // as a pair that held together, and the publication epoch they held at (Locking, above).
  std::shared_ptr<const ReadState> LoadPublishedState(const Snapshot* snapshot, uint64_t* sequence,
                                                      uint64_t* epoch);
  // GetReadState for a point read that may hold the state (options.held_state): the held state
  // while it is the published one, taking no lock or reference; else the state GetReadState
  // takes, kept alive by *owned. The result stays valid while the hold or *owned lives.
  const ReadState* PointReadState(const ReadOptions& options, uint64_t* sequence,
                                  std::optional<int64_t>* expiry_now,
                                  std::shared_ptr<const ReadState>* owned);
  // The walk of Get and GetPinned: offers `key`'s versions to *chooser (memtable rows pinned:
  // *state, the read state read, keeps them alive, or the caller's hold, *state then empty) and
  // returns OK with a live version chosen, NotFound (filling options.dead_version as Get says) or
  // the error.
  Status ChooseVersion(const ReadOptions& options, std::string_view key, VersionChooser* chooser,
                       std::shared_ptr<const ReadState>* state);
  // The expiry clock: now while expiration is on, else the time it was switched off.
  int64_t ExpiryNow() const {
    return expiration_enabled_.load() ? clock_->NowMs() : expiry_frozen_at_.load();
  }
  // The expiry clock compaction drops rows by: ExpiryNow(), less ExpiredRetentionMs().
  int64_t CompactionExpiryNow() const;
  // How long after its expiry a row stays whole in the tables: half the purge deadline (12 h when
  // there is none) while the compaction filter keeps dead versions (active-active mode, where a
  // later expiry change from a peer may bring the row back: docs/active-active.md, "Dead
  // versions"), else 0. The purge deadline still holds: the purge scheduler picks a file at
  // min_expire_at + deadline/2, when its first expired rows may go.
  int64_t ExpiredRetentionMs() const;
  // Makes every write made so far durable (as SyncWal) and returns a view of the DB as of that
  // point, expiry judged at `expiry_now`. nullptr if the sync failed (the DB is then in the error
  // state). REQUIRES: mu_ not held.
  std::unique_ptr<View> NewDurableView(int64_t expiry_now);
  // Facts about the memtables for compaction planning. REQUIRES: mu_.
  uint64_t MemtableMinSequence() const;
  // Publishes mem_, imms_ and the current version as read_state_ (and the sequence), and drops
  // the spare iterator tree (it reads the old state). Every change of the three calls it.
  // REQUIRES: mu_.
  void PublishReadState();
  // A merged iterator over `state`'s memtables and files, for NewIterator.
  std::unique_ptr<DBIterTree> NewIterTree(std::shared_ptr<const ReadState> state, bool fill_cache);
  // DBIterTreeRecycler: a dying iterator's tree becomes spare_iterator_ if it still reads
  // read_state_.
  void Recycle(std::unique_ptr<DBIterTree> tree) override;
  // Moves mem_ to imms_ and starts an empty memtable. REQUIRES: mu_.
  void FreezeMemtable();
  // Syncs the WAL and starts a new one, then freezes the memtable (the old WAL is obsolete once
  // the frozen memtable is flushed). A failure puts the DB in the error state: what the old WAL
  // holds is not known durable. REQUIRES: mu_.
  Status SwitchMemtable();
  // An empty memtable sized and indexed as the options say.
  std::shared_ptr<MemTable> NewMemTable() const {
    return std::make_shared<MemTable>(options_.memtable_size, options_.seek_prefix_length,
                                      memtable_blocks_, options_.separate_file_prefixes);
  }
  void SyncLoop();
  // Enters the error state with `s` unless already in it (logs once). REQUIRES: mu_.
  void SetBgError(const Status& s);
  // versions_.LogAndApply; a failure marks the manifest as needing replacement. REQUIRES: mu_.
  Status ApplyEdit(VersionEdit* edit);

  // --- db_resume.cc: leaving the error state. REQUIRE mu_ held through `lock`.
  Status ResumeLocked(std::unique_lock<std::mutex>& lock);
  Status TryResume(std::unique_lock<std::mutex>& lock);
  // The background thread's share: calls ResumeLocked about once a second while the error is an
  // IOError. Returns how long the thread may sleep before the next try.
  std::chrono::milliseconds MaybeAutoResume(std::unique_lock<std::mutex>& lock);

  // --- db_background.cc: the background loops, flush, obsolete files
  // All REQUIRE mu_ held through `lock`; they may release it while doing I/O.
  void BackgroundLoop();  // compactions, whole-file expiry, automatic resume
  void FlushLoop();       // flushes frozen memtables, oldest first
  // Writes imms_.front() to an L0 file and installs it; on failure enters the error state.
  Status FlushOldestImm(std::unique_lock<std::mutex>& lock);
  void DeleteObsoleteFiles();  // REQUIRES: mu_
  // Opens every table of the current version that is not open (up to the table cache's
  // capacity), so reads find its index and filter in memory and never open a table themselves.
  // Runs when warm_tables_ is set: after open and after every edit that adds files.
  void WarmTables(std::unique_lock<std::mutex>& lock);
  TableOptions MakeTableOptions(int64_t expiry_now_ms) const;

  // --- db_compaction.cc: compactions and expiry. Return true if they changed the tree.
  // With `result`, it receives why nothing changed: the compaction's error, or Corruption when
  // the only jobs left would read a damaged table.
  bool RunOneCompaction(std::unique_lock<std::mutex>& lock, bool manual_all,
                        Status* result = nullptr);
  // Drops, by one manifest edit, every table file whose rows are all dead and hide nothing
  // (docs/expiry.md, "Whole-file expiry") or that lies inside a range deletion, and retires the
  // range deletions and purge hints that no file needs any more.
  bool ApplyWholeFileDrops(std::unique_lock<std::mutex>& lock);
  // Moves the level-0 files PickFileMoves names down in one manifest edit, without reading them.
  // Returns true if it moved any. REQUIRES: mu_, on the compaction thread's turn (compacting_
  // set by the caller): a move decided beside a running compaction could meet its outputs.
  bool ApplyFileMoves(std::unique_lock<std::mutex>& lock);
  // Opens a new table for a flush's or compaction's output of keys in `region` (regions_): its
  // number reserved in pending_outputs_ (the caller erases it once its edit names the file, or
  // fails) and appended to *numbers. A prefix region's table has no bloom filter
  // (file_regions.h). REQUIRES: mu_ not held.
  Status OpenOutputTable(const TableOptions& options, size_t region, std::vector<uint64_t>* numbers,
                         std::unique_ptr<TableWriter>* writer);
  Status DoCompaction(std::unique_lock<std::mutex>& lock, CompactionJob* job,
                      ReduceContext* context);
  // The least timestamp any version newer than `range`'s data at `level` may have: over the
  // memtables and the files of levels < level (L0: newer than `number`) that overlap the range
  // and are not in `exclude`. INT64_MAX when none overlaps. REQUIRES: mu_.
  int64_t NewerMinTimestamp(const Version& version, std::string_view smallest,
                            std::string_view largest, int level, uint64_t number,
                            const std::vector<uint64_t>& exclude);
  // A failed compaction (not its manifest edit, which is the error state): an I/O error pauses
  // compactions, a damaged input is left out of them from now on; writes go on. `damaged`:
  // the input tables whose reads found the damage, with what they found.
  void RecordCompactionFailure(const Status& s,
                               const std::vector<std::pair<uint64_t, Status>>& damaged);
  void RecordCompactionSuccess();
  // OK, or why level 0 cannot be compacted now: the I/O error compactions pause after, or a
  // damaged table the level-0 compaction would read (a write stall there would never end).
  Status Level0CompactionBlocked() const;
  Status DamagedTablesError() const;
  // True if memtables or files outside `job` at levels <= its output hold keys in its range.
  bool NewerDataOverlaps(const Version& version, const CompactionJob& job);
  // Freezes the memtable when it holds versions that are due for a purge (their expiry, or a
  // purge hint over them) or that a range deletion waits on, so the flush takes them out of
  // the WAL and on to compaction. Returns true if it froze it. REQUIRES: mu_.
  bool MaybeFreezeForPurge();

  const Options options_;
  const FileRegions regions_;  // options_.separate_file_prefixes
  const std::string dir_;
  std::shared_ptr<FileSystem> fs_;
  std::shared_ptr<Clock> clock_;
  std::unique_ptr<BlockCache> block_cache_;
  // Options::disk_read_latency or the DB's own; the tables of table_cache_ record into it.
  const std::shared_ptr<DiskReadLatency> disk_read_latency_;
  // The huge blocks of flushed memtables, kept for the next ones: one memtable's worth at most.
  const std::shared_ptr<HugeBlockPool> memtable_blocks_;
  std::unique_ptr<TableCache> table_cache_;
  std::unique_ptr<FileLock> lock_;

  std::atomic<bool> expiration_enabled_;
  std::atomic<int64_t> expiry_frozen_at_{0};  // the expiry clock while expiration is off
  std::atomic<bool> whole_file_expiry_;
  std::atomic<int64_t> purge_deadline_ms_;
  std::atomic<WalFsync> wal_fsync_;

  std::mutex sync_mu_;       // serializes WAL syncs; taken without mu_ held
  uint64_t synced_log_ = 0;  // guarded by sync_mu_: (log number, size) known durable
  uint64_t synced_size_ = 0;
  // See SyncedSequence(); raised by NoteSynced.
  std::atomic<uint64_t> synced_sequence_ = 0;
  // Every write up to `sequence` is durable: raises synced_sequence_ to it (never lowers it).
  void NoteSynced(uint64_t sequence);

  std::mutex mu_;
  std::condition_variable bg_cv_;     // wakes the compaction thread
  std::condition_variable flush_cv_;  // wakes the flush thread
  std::condition_variable done_cv_;   // signalled when background work finishes a step
  std::condition_variable sync_cv_;   // wakes the everysec syncer
  bool shutting_down_ = false;
  bool compacting_ = false;  // one compaction at a time (background or CompactAll)
  bool flushing_ = false;
  bool obsolete_files_pinned_ = false;  // some dead file is kept only because a reader holds it
  bool warm_tables_ = false;            // the current version may have tables not yet open
  Status bg_error_;
  std::atomic<bool> has_bg_error_{false};  // mirrors !bg_error_.ok() for lock-free checks
  // The active memtable has reached memtable_size: the next write switches to a new one (and
  // may stall). Lets CheckWriteStall answer without mu_ otherwise.
  std::atomic<bool> memtable_full_{false};
  // PrefetchPays: the active memtable's key index is large enough for its lookups to miss the
  // CPU's cache (NotePrefetchPays, after each write, memtable switch and the WAL's replay).
  std::atomic<bool> prefetch_pays_{false};
  bool log_broken_ = false;       // a write or sync of the live WAL failed: Resume replaces it
  bool manifest_broken_ = false;  // a manifest write failed: Resume writes a new one
  bool resuming_ = false;         // a Resume is running (it may release mu_ while flushing)
  std::chrono::steady_clock::time_point next_auto_resume_;
  std::chrono::steady_clock::time_point last_purge_freeze_;  // MaybeFreezeForPurge's last
  std::function<void()> write_stall_listener_;
  ReplicationTap replication_tap_;  // SetReplicationTap's; called with mu_ held
  bool write_stall_heard_ = false;  // a CheckWriteStall said Busy; the listener is owed a call
  std::shared_ptr<MemTable> mem_;
  std::deque<Frozen> imms_;
  // mem_, imms_ and the current version as reads see them; one reference pins all three.
  // Stored under mu_, loaded with or without it (GetReadState).
  SharedSlot<ReadState> read_state_;
  // Counts the stores of read_state_: a lock-free read whose loads straddle one takes them again.
  std::atomic<uint64_t> read_state_epoch_{0};
  // versions_.last_sequence() as lock-free reads see it: stored (release) once the memtable
  // holds every row up to it.
  std::atomic<uint64_t> read_sequence_{0};
  // The tree of the last iterator destroyed, kept for the next NewIterator while the read state
  // it was built over is current (dropped when a new one is published, so it pins nothing old
  // for long). It saves building and tearing down a tree of iterators for every short scan.
  std::unique_ptr<DBIterTree> spare_iterator_;
  std::unique_ptr<LogWriter> log_;
  std::shared_ptr<WritableFile> log_sync_handle_;  // a second handle on the live WAL, for fsync
  uint64_t log_file_number_ = 0;
  std::string wal_record_;  // Write's record (first sequence | batch), reused under mu_
  VersionSet versions_;
  std::multiset<uint64_t> snapshots_;
  std::set<uint64_t> pending_outputs_;  // table files being written
  // Compaction failures (RecordCompactionFailure). While compaction_error_ (an I/O error) is
  // set, compactions wait until compaction_retry_at_; the pause doubles from 1 s to 30 s with
  // each failure, and Resume ends it. damaged_tables_: number -> what compaction found.
  Status compaction_error_;
  std::chrono::milliseconds compaction_backoff_{0};
  std::chrono::steady_clock::time_point compaction_retry_at_;
  std::map<uint64_t, std::string> damaged_tables_;
  size_t next_compaction_file_[kNumLevels] = {};  // rotates size-triggered picks per level
  Stats stats_;
  std::thread bg_thread_;
  std::thread flush_thread_;
  std::thread sync_thread_;
};

}  // namespace ebb::storage
