// DBImpl's write path: batches into the WAL and the memtable, write stalls, WAL syncs and
// rotation, the memtable switch, and the error state a failed write leaves (db_impl.h).
#include <algorithm>
#include <cstdio>
#include <limits>

#include "storage/db/compaction.h"
#include "storage/db/db_impl.h"
#include "storage/db/filename.h"
#include "storage/env/posix_file_system.h"
#include "storage/expired_retention.h"
#include "storage/format/internal_key.h"
#include "storage/table/block_fetch.h"
#include "storage/util/coding.h"
#include "storage/wal/log_writer.h"

namespace ebb::storage {
namespace {

// Under kAlways every write waits for an fdatasync of the WAL; with zeros written ahead the
// fdatasync only writes data (WritableFile::ZeroFillAhead). The other modes sync once a second
// at most, where the zeros would cost more bandwidth than they save.
uint64_t WalZeroFillChunk(WalFsync mode) { return mode == WalFsync::kAlways ? 1 << 20 : 0; }

}  // namespace

Status DBImpl::NewLog(bool sync_old) {
  const uint64_t number = versions_.NewFileNumber();
  const std::string name = LogFileName(dir_, number);
  std::unique_ptr<WritableFile> file;
  Status s = fs_->NewWritableFile(name, &file);
  std::unique_ptr<WritableFile> handle;
  if (s.ok()) s = fs_->NewAppendableFile(name, &handle);
  // The new file's directory entry must survive a power cut before any write relies on it.
  if (s.ok()) s = fs_->SyncDir(dir_);
  // The old WAL is made durable before it stops receiving writes.
  if (s.ok() && log_ && sync_old) {
    EngineLatencyTimer timer(options_.engine_latency.get(), EngineEvent::kWalFsync);
    s = log_->Sync();
    if (s.ok()) NoteSynced(versions_.last_sequence());
  }
  if (!s.ok()) {
    handle.reset();
    file.reset();
    fs_->RemoveFile(name);
    return s;
  }
  if (log_) log_->Close();
  log_ = std::make_unique<LogWriter>(std::move(file));
  log_->ZeroFillAhead(WalZeroFillChunk(wal_fsync_));
  log_sync_handle_ = std::move(handle);
  log_file_number_ = number;
  return Status::OK();
}

namespace {

// A single write's batch (Put, Delete), kept per thread: the thread's next one reuses its buffer
// rather than allocating one. Write never starts another write on its thread, so one batch is
// never in use twice. A batch that grew past kScratchBatchBytes (a large value) is let go.
constexpr size_t kScratchBatchBytes = 64 << 10;
WriteBatch& ScratchBatch() {
  thread_local WriteBatch batch;
  batch.Clear();
  return batch;
}
void ReleaseLargeScratch(WriteBatch& batch) {
  if (batch.ByteSize() > kScratchBatchBytes) batch = WriteBatch();
}

}  // namespace

Status DBImpl::Put(const WriteOptions& options, std::string_view key, std::string_view value) {
  WriteBatch& batch = ScratchBatch();
  batch.Put(options, key, value, WriteBatch::PutReadsNow(options) ? clock_->NowMs() : 0);
  Status s = Write(options, batch);
  ReleaseLargeScratch(batch);
  return s;
}

Status DBImpl::Delete(const WriteOptions& options, std::string_view key) {
  WriteBatch& batch = ScratchBatch();
  batch.Delete(options, key);
  Status s = Write(options, batch);
  ReleaseLargeScratch(batch);
  return s;
}

Status DBImpl::Write(const WriteOptions& options, const WriteBatch& batch) {
  if (batch.Empty()) return Status::OK();
  if (options.block_fetch != nullptr && !options.block_fetch->AdmitWrite()) {
    return Status::Incomplete("write refused: a read before it waits for blocks");
  }
  {
    std::unique_lock lock(mu_);
    Status s = MakeRoomForWrite(lock, false);
    if (!s.ok()) return s;
    const bool deletes_ranges = batch.HasRangeDeletions();
    // What the memtable holds is older than the range deletions: freeze it, so its flush (which
    // leaves out what they hide) clears the way for applying them to the files.
    if (deletes_ranges && !mem_->empty()) {
      s = SwitchMemtable();
      if (!s.ok()) return s;
    }
    const uint64_t first = versions_.last_sequence() + 1;
    std::string& record = wal_record_;
    record.clear();
    PutFixed64(&record, first);
    record.append(batch.rep());
    s = log_->AddRecord(record);
    // A batch that deletes ranges is durable before the manifest names its deletions: then a
    // crash leaves the whole batch (replay applies the deletions the manifest lacks) or none.
    if (s.ok() && deletes_ranges) {
      EngineLatencyTimer timer(options_.engine_latency.get(), EngineEvent::kWalFsync);
      s = log_->Sync();
    }
    if (!s.ok()) {
      // A partial record may be in the WAL: refuse further writes until Resume replaces it.
      log_broken_ = true;
      SetBgError(s);
      return s;
    }
    stats_.wal_bytes += record.size();
    if (record.capacity() > (1 << 20)) std::string().swap(record);  // after a huge batch
    if (deletes_ranges) {
      std::vector<RangeDeletion> deletions;
      RangeDeletionsOf(batch, first, &deletions);
      VersionEdit edit;
      for (const RangeDeletion& d : deletions) edit.AddRangeDeletion(d);
      s = ApplyEdit(&edit);
      if (!s.ok()) {
        // Nothing of the batch is visible; its WAL record applies it whole if a restart
        // replays it (Resume moves to a new WAL without it).
        SetBgError(s);
        return s;
      }
      stats_.range_deletions += deletions.size();
      bg_cv_.notify_one();
    }
    s = AddBatch(mem_.get(), first, batch);
    if (!s.ok()) return s;
    NotePrefetchPays();
    versions_.SetLastSequence(first + batch.Count() - 1);
    if (deletes_ranges) NoteSynced(first + batch.Count() - 1);  // its WAL record was synced
    PublishSequence();
    if (replication_tap_) {
      replication_tap_(ReplicationRecord{ReplicationRecord::Kind::kBatch, first, batch.rep()});
    }
    if (ActiveMemtableFull()) memtable_full_ = true;
  }
  if (wal_fsync_.load() == WalFsync::kAlways && !options.defer_sync) return SyncWal();
  return Status::OK();
}

Status DBImpl::DeleteRange(const std::vector<KeyRange>& ranges) {
  WriteBatch batch;
  for (const KeyRange& range : ranges) batch.DeleteRange(range);
  return Write(WriteOptions(), batch);
}

Status DBImpl::SetExpirationEnabled(bool enabled) {
  std::lock_guard lock(mu_);
  if (enabled == expiration_enabled_.load()) return Status::OK();
  if (!bg_error_.ok()) return bg_error_;
  const int64_t frozen_at = enabled ? VersionEdit::kExpiryRunning : clock_->NowMs();
  VersionEdit edit;
  edit.SetExpiryFrozenAt(frozen_at);
  Status s = ApplyEdit(&edit);
  if (!s.ok()) {
    SetBgError(s);
    return s;
  }
  if (!enabled) expiry_frozen_at_ = frozen_at;
  expiration_enabled_ = enabled;
  bg_cv_.notify_one();
  return Status::OK();
}

int64_t DBImpl::ExpiredRetentionMs() const {
  const CompactionFilter* filter = options_.compaction_filter.get();
  if (filter == nullptr || !filter->KeepsDeadVersions()) return 0;
  return KeptExpiredRetentionMs(purge_deadline_ms_.load());
}

int64_t DBImpl::CompactionExpiryNow() const {
  const int64_t now = ExpiryNow();
  const int64_t retention = ExpiredRetentionMs();
  return now < std::numeric_limits<int64_t>::min() + retention ? std::numeric_limits<int64_t>::min()
                                                               : now - retention;
}

std::unique_ptr<DBImpl::View> DBImpl::NewDurableView(int64_t expiry_now) {
  uint64_t sequence;
  std::shared_ptr<const ReadState> state;
  {
    std::lock_guard lock(mu_);
    sequence = versions_.last_sequence();
    state = read_state_.Load();
  }
  // Every write up to `sequence` reached the WAL writer before it was counted; this sync covers
  // them all.
  if (!SyncWal().ok()) return nullptr;
  return std::make_unique<View>(sequence, std::move(state), expiry_now);
}

uint64_t DBImpl::MemtableMinSequence() const {
  uint64_t least = mem_->min_sequence();
  for (const auto& imm : imms_) least = std::min(least, imm.mem->min_sequence());
  return least;
}

Status DBImpl::MakeRoomForWrite(std::unique_lock<std::mutex>& lock, bool force) {
  // The common case, as WriteStallLocked and the loop below would find it: room, no error.
  if (!force && bg_error_.ok() && !ActiveMemtableFull()) {
    return Status::OK();
  }
  bool counted = false;
  for (;;) {
    Status s = WriteStallLocked(force);
    if (s.IsBusy()) {
      // No timeout: proceeding would let the memtables or level 0 grow without bound.
      if (!counted) stats_.write_stalls++;
      counted = true;
      flush_cv_.notify_one();
      bg_cv_.notify_one();
      done_cv_.wait(lock);
      continue;
    }
    if (!s.ok()) return s;
    if (!force && !ActiveMemtableFull()) return Status::OK();
    if (force && mem_->empty()) return Status::OK();
    return SwitchMemtable();
  }
}

Status DBImpl::WriteStallLocked(bool force) {
  if (!bg_error_.ok()) return bg_error_;
  // As in LevelDB, writes go on into the active memtable until it is full; only then must a
  // flush and, for the next level-0 file, compaction keep up.
  const bool switches = force ? !mem_->empty() : ActiveMemtableFull();
  if (!switches) return Status::OK();
  if (static_cast<int>(imms_.size()) >= std::max(options_.max_frozen_memtables, 1)) {
    return Status::Busy("the memtables are full; writes wait for a flush");
  }
  const int l0_files = Level0Files(*versions_.current(), regions_);
  if (l0_files >= options_.l0_stop_writes_trigger) {
    // A wait the failing compaction would never end is refused with its cause.
    Status blocked = Level0CompactionBlocked();
    if (!blocked.ok()) return blocked;
    return Status::Busy("level 0 has " + std::to_string(l0_files) +
                        " files; writes wait for compaction");
  }
  return Status::OK();
}

Status DBImpl::CheckWriteStall() {
  // Every write command asks: while the active memtable has room and there is no error, a
  // write cannot wait, and no lock is needed to say so.
  if (!has_bg_error_.load(std::memory_order_relaxed) &&
      !memtable_full_.load(std::memory_order_relaxed)) {
    return Status::OK();
  }
  std::lock_guard lock(mu_);
  Status s = WriteStallLocked(/*force=*/false);
  if (s.IsBusy()) {
    if (!write_stall_heard_) stats_.write_stalls++;
    write_stall_heard_ = true;
    flush_cv_.notify_one();
    bg_cv_.notify_one();
  }
  return s;
}

void DBImpl::SetWriteStallListener(std::function<void()> listener) {
  std::lock_guard lock(mu_);
  write_stall_listener_ = std::move(listener);
}

uint64_t DBImpl::LastSequence() {
  std::lock_guard lock(mu_);
  return versions_.last_sequence();
}

void DBImpl::SetReplicationTap(ReplicationTap tap) {
  std::lock_guard lock(mu_);
  replication_tap_ = std::move(tap);
}

void DBImpl::WakeStalledWriters() {
  done_cv_.notify_all();
  if (!write_stall_heard_) return;
  write_stall_heard_ = false;
  if (write_stall_listener_) write_stall_listener_();
}

Status DBImpl::SyncWal() {
  uint64_t log_number, size, sequence;
  std::shared_ptr<WritableFile> handle;
  {
    std::lock_guard lock(mu_);
    if (!bg_error_.ok()) return bg_error_;  // what is buffered may never reach the disk
    if (!log_) return Status::OK();
    Status s = log_->Flush();
    if (!s.ok()) {
      log_broken_ = true;
      SetBgError(s);
      return s;
    }
    log_number = log_file_number_;
    size = log_->Size();
    sequence = versions_.last_sequence();  // every write up to it is in those bytes
    handle = log_sync_handle_;
  }
  std::lock_guard sync_lock(sync_mu_);
  // A sync that failed while this one waited may have dropped these bytes' dirty pages; a later
  // fdatasync can then succeed without writing them. So no sync counts once the error is set.
  if (has_bg_error_.load()) return BackgroundError();
  if (synced_log_ > log_number || (synced_log_ == log_number && synced_size_ >= size)) {
    NoteSynced(sequence);
    return Status::OK();  // someone else's fdatasync already covered these bytes
  }
  Status s;
  {
    EngineLatencyTimer timer(options_.engine_latency.get(), EngineEvent::kWalFsync);
    s = handle->Sync();
  }
  std::lock_guard lock(mu_);
  if (!s.ok()) {
    // After a failed fdatasync the kernel may have dropped the dirty pages: the bytes written
    // since the last good sync are not known durable, and retrying the sync proves nothing.
    log_broken_ = true;
    SetBgError(s);
    return s;
  }
  if (!bg_error_.ok()) return bg_error_;
  synced_log_ = log_number;
  synced_size_ = size;
  stats_.wal_syncs++;
  NoteSynced(sequence);
  return Status::OK();
}

void DBImpl::NoteSynced(uint64_t sequence) {
  uint64_t known = synced_sequence_.load();
  while (known < sequence && !synced_sequence_.compare_exchange_weak(known, sequence)) {
  }
}

Status DBImpl::FlushWal() {
  std::lock_guard lock(mu_);
  if (!log_) return Status::OK();
  if (!bg_error_.ok()) return bg_error_;
  Status s = log_->Flush();
  if (!s.ok()) {
    log_broken_ = true;  // what was buffered may be lost: refuse further writes
    SetBgError(s);
  }
  return s;
}

void DBImpl::SetBgError(const Status& s) {
  if (!bg_error_.ok()) return;
  bg_error_ = s;
  has_bg_error_ = true;
  next_auto_resume_ = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  std::fprintf(stderr,
               "ebb storage: error: %s; writes are refused until it clears (retried every "
               "second)\n",
               s.ToString().c_str());
  bg_cv_.notify_all();
  WakeStalledWriters();  // they are refused now, not stalled
}

Status DBImpl::ApplyEdit(VersionEdit* edit) {
  Status s = versions_.LogAndApply(edit);
  if (!s.ok()) manifest_broken_ = true;
  if (s.ok()) PublishReadState();
  if (s.ok() && !edit->new_files().empty()) {
    warm_tables_ = true;
    bg_cv_.notify_one();
  }
  return s;
}

Status DBImpl::BackgroundError() {
  if (!has_bg_error_.load()) return Status::OK();
  std::lock_guard lock(mu_);
  return bg_error_;
}

void DBImpl::SyncLoop() {
  std::unique_lock lock(mu_);
  while (!shutting_down_) {
    sync_cv_.wait_for(lock, std::chrono::seconds(1));
    if (shutting_down_ || wal_fsync_.load() != WalFsync::kEverySec) continue;
    lock.unlock();
    SyncWal();
    lock.lock();
  }
}

void DBImpl::SetWalFsync(WalFsync mode) {
  wal_fsync_ = mode;
  std::lock_guard lock(mu_);
  if (log_) log_->ZeroFillAhead(WalZeroFillChunk(mode));
}

void DBImpl::SetPurgeDeadline(int64_t ms) {
  purge_deadline_ms_ = ms;
  std::lock_guard lock(mu_);
  bg_cv_.notify_one();
}

void DBImpl::FreezeMemtable() {
  imms_.push_back(Frozen{mem_, log_file_number_});
  mem_ = NewMemTable();
  memtable_full_ = false;
  NotePrefetchPays();
  PublishReadState();
}

Status DBImpl::SwitchMemtable() {
  Status s = NewLog(/*sync_old=*/true);
  if (!s.ok()) {
    log_broken_ = true;
    SetBgError(s);
    return s;
  }
  FreezeMemtable();
  flush_cv_.notify_one();
  return Status::OK();
}

}  // namespace ebb::storage
