// DBImpl: the engine behind storage/db.h — WAL + memtables + versions of table files, with one
// background thread for flushes, compactions and expiry, and one for `everysec` WAL syncs.
//
// Locking: mu_ guards every member below it (memtable switches, the version set, the WAL writer,
// snapshots, counters). Memtable inserts happen under mu_; reads of memtables and versions take
// references under mu_ and then read without it. Flush and compaction do their I/O without mu_.
// sync_mu_ serializes WAL fdatasyncs (SyncWal) so writers are not blocked by the disk.
// Invariant: mem_ holds every write since the last switch and is covered by the WAL files
// numbered >= its log number; imms_ (oldest first) are frozen and waiting for flush.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "storage/clock.h"
#include "storage/db.h"
#include "storage/db/memtable.h"
#include "storage/db/version_set.h"
#include "storage/env/file.h"
#include "storage/table/table_builder.h"

namespace ebb::storage {

class LogWriter;
class TableCache;
class BlockCache;
struct CompactionJob;

class DBImpl final : public DB {
 public:
  DBImpl(const Options& options, std::string dir);
  ~DBImpl() override;

  // Locks the directory, recovers the manifest and the WAL, starts background threads.
  Status OpenImpl();

  Status Put(const WriteOptions& options, std::string_view key, std::string_view value) override;
  Status Delete(const WriteOptions& options, std::string_view key) override;
  Status Write(const WriteOptions& options, const WriteBatch& batch) override;
  Status Get(const ReadOptions& options, std::string_view key, Row* row) override;
  std::unique_ptr<Iterator> NewIterator(const ReadOptions& options) override;
  const Snapshot* GetSnapshot() override;
  void ReleaseSnapshot(const Snapshot* snapshot) override;
  Status SyncWal() override;
  Status FlushWal() override;
  Status FlushMemtable() override;
  Status CompactAll() override;
  Stats GetStats() override;
  const Clock& clock() const override { return *clock_; }
  void SetExpirationEnabled(bool enabled) override { expiration_enabled_ = enabled; }
  void SetWholeFileExpiry(bool enabled) override { whole_file_expiry_ = enabled; }
  void SetPurgeDeadline(int64_t ms) override;
  void SetWalFsync(WalFsync mode) override;

  // Runs, on the calling thread, what the background thread does on a wake-up once flushes are
  // done: whole-file expiry, then one compaction if one is due (purge deadline first). Lets
  // tests drive expiry with a ManualClock. Returns true if it changed the tree.
  bool RunBackgroundCycle();

 private:
  struct Frozen {
    std::shared_ptr<MemTable> mem;
    uint64_t next_log_number;  // the WAL that holds writes made after this memtable froze
  };
  struct ReadState {
    uint64_t sequence;
    std::shared_ptr<MemTable> mem;
    std::vector<std::shared_ptr<MemTable>> imms;  // newest first
    std::shared_ptr<const Version> version;
  };

  // --- db_impl.cc: open, writes, reads
  Status Recover();
  Status ReplayLog(uint64_t number, uint64_t* max_sequence);
  Status NewLog();  // REQUIRES: mu_
  Status MakeRoomForWrite(std::unique_lock<std::mutex>& lock, bool force);
  ReadState GetReadState(const Snapshot* snapshot);
  void SyncLoop();

  // --- db_background.cc: the background loop, flush, obsolete files
  // All REQUIRE mu_ held through `lock`; they may release it while doing I/O.
  void BackgroundLoop();
  void FlushOldestImm(std::unique_lock<std::mutex>& lock);
  void DeleteObsoleteFiles();  // REQUIRES: mu_
  TableOptions MakeTableOptions(int64_t now_ms) const;

  // --- db_compaction.cc: compactions and expiry. Return true if they changed the tree.
  bool RunOneCompaction(std::unique_lock<std::mutex>& lock, bool manual_all);
  bool ApplyWholeFileExpiry(std::unique_lock<std::mutex>& lock);
  Status DoCompaction(std::unique_lock<std::mutex>& lock, CompactionJob* job);
  bool MemtablesOverlap(std::string_view smallest_user, std::string_view largest_user);
  // True if memtables or files outside `job` at levels <= its output hold keys in its range.
  bool NewerDataOverlaps(const Version& version, const CompactionJob& job);

  const Options options_;
  const std::string dir_;
  std::shared_ptr<FileSystem> fs_;
  std::shared_ptr<Clock> clock_;
  std::unique_ptr<BlockCache> block_cache_;
  std::unique_ptr<TableCache> table_cache_;
  std::unique_ptr<FileLock> lock_;

  std::atomic<bool> expiration_enabled_;
  std::atomic<bool> whole_file_expiry_;
  std::atomic<int64_t> purge_deadline_ms_;
  std::atomic<WalFsync> wal_fsync_;

  std::mutex sync_mu_;       // serializes WAL syncs; taken without mu_ held
  uint64_t synced_log_ = 0;  // guarded by sync_mu_: (log number, size) known durable
  uint64_t synced_size_ = 0;

  std::mutex mu_;
  std::condition_variable bg_cv_;    // wakes the background thread
  std::condition_variable done_cv_;  // signalled when background work finishes a step
  std::condition_variable sync_cv_;  // wakes the everysec syncer
  bool shutting_down_ = false;
  bool compacting_ = false;  // one compaction at a time (background or CompactAll)
  bool flushing_ = false;
  bool obsolete_files_pinned_ = false;  // some dead file is kept only because a reader holds it
  Status bg_error_;
  std::shared_ptr<MemTable> mem_;
  std::deque<Frozen> imms_;
  std::unique_ptr<LogWriter> log_;
  std::shared_ptr<WritableFile> log_sync_handle_;  // a second handle on the live WAL, for fsync
  uint64_t log_file_number_ = 0;
  VersionSet versions_;
  std::multiset<uint64_t> snapshots_;
  std::set<uint64_t> pending_outputs_;            // table files being written
  size_t next_compaction_file_[kNumLevels] = {};  // rotates size-triggered picks per level
  Stats stats_;
  std::thread bg_thread_;
  std::thread sync_thread_;
};

}  // namespace ebb::storage
