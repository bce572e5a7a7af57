#include "storage/db/db_impl.h"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "storage/db/compaction.h"
#include "storage/db/db_iter.h"
#include "storage/db/filename.h"
#include "storage/db/level_iterator.h"
#include "storage/db/merging_iterator.h"
#include "storage/db/table_cache.h"
#include "storage/db/version_chooser.h"
#include "storage/env/posix_file_system.h"
#include "storage/expired_retention.h"
#include "storage/format/internal_key.h"
#include "storage/table/block_cache.h"
#include "storage/table/block_fetch.h"
#include "storage/util/coding.h"
#include "storage/wal/log_reader.h"
#include "storage/wal/log_writer.h"

namespace ebb::storage {
namespace {

// Under kAlways every write waits for an fdatasync of the WAL; with zeros written ahead the
// fdatasync only writes data (WritableFile::ZeroFillAhead). The other modes sync once a second
// at most, where the zeros would cost more bandwidth than they save.
uint64_t WalZeroFillChunk(WalFsync mode) { return mode == WalFsync::kAlways ? 1 << 20 : 0; }

class SnapshotImpl final : public Snapshot {
 public:
  explicit SnapshotImpl(uint64_t sequence) : sequence_(sequence) {}
  ~SnapshotImpl() override = default;
  uint64_t sequence() const override { return sequence_; }

 private:
  const uint64_t sequence_;
};

}  // namespace

Status DB::Open(const Options& options, const std::string& dir, std::unique_ptr<DB>* db) {
  auto impl = std::make_unique<DBImpl>(options, dir);
  Status s = impl->OpenImpl();
  if (!s.ok()) return s;
  *db = std::move(impl);
  return Status::OK();
}

DBImpl::DBImpl(const Options& options, std::string dir)
    : options_(options),
      dir_(std::move(dir)),
      fs_(options.file_system ? options.file_system : DefaultFileSystem()),
      clock_(options.clock ? options.clock : std::make_shared<SystemClock>()),
      block_cache_(std::make_unique<BlockCache>(options.block_cache_size)),
      disk_read_latency_(options.disk_read_latency ? options.disk_read_latency
                                                   : std::make_shared<DiskReadLatency>()),
      memtable_blocks_(std::make_shared<HugeBlockPool>(options.memtable_size)),
      expiration_enabled_(options.expiration_enabled),
      whole_file_expiry_(options.whole_file_expiry),
      purge_deadline_ms_(options.purge_deadline_ms),
      wal_fsync_(options.wal_fsync),
      mem_(NewMemTable()),
      versions_(dir_, fs_) {
  table_cache_ = std::make_unique<TableCache>(dir_, fs_, block_cache_.get(),
                                              std::max(options.max_open_files, 16),
                                              options.use_direct_reads, disk_read_latency_.get());
}

DBImpl::~DBImpl() {
  {
    std::unique_lock lock(mu_);
    shutting_down_ = true;
    bg_cv_.notify_all();
    flush_cv_.notify_all();
    sync_cv_.notify_all();
    done_cv_.notify_all();
  }
  if (bg_thread_.joinable()) bg_thread_.join();
  if (flush_thread_.joinable()) flush_thread_.join();
  if (sync_thread_.joinable()) sync_thread_.join();
  std::lock_guard lock(mu_);
  spare_iterator_.reset();  // it holds tables and cache entries
  if (log_) {
    log_->Sync();
    log_->Close();
  }
}

Status DBImpl::OpenImpl() {
  Status s = fs_->CreateDirIfMissing(dir_);
  if (!s.ok()) return s;
  s = fs_->LockFile(LockFileName(dir_), &lock_);
  if (!s.ok()) return s;
  {
    std::lock_guard lock(mu_);
    s = Recover();
    if (!s.ok()) return s;
    PublishReadState();
    DeleteObsoleteFiles();
    warm_tables_ = true;
  }
  bg_thread_ = std::thread([this] { BackgroundLoop(); });
  flush_thread_ = std::thread([this] { FlushLoop(); });
  sync_thread_ = std::thread([this] { SyncLoop(); });
  return Status::OK();
}

Status DBImpl::Recover() {
  bool exists = false;
  Status s = versions_.Recover(&exists);
  if (!s.ok()) return s;
  if (!exists && !options_.create_if_missing) {
    return Status::InvalidArgument(dir_ + ": does not exist (create_if_missing is false)");
  }
  // Replay every WAL the manifest still needs, oldest first.
  std::vector<std::string> names;
  s = fs_->GetChildren(dir_, &names);
  if (!s.ok()) return s;
  s = CheckLiveTables(names);
  if (!s.ok()) return s;
  std::vector<uint64_t> logs;
  for (const auto& name : names) {
    uint64_t number;
    FileType type;
    if (!ParseFileName(name, &number, &type)) continue;
    versions_.MarkFileNumberUsed(number);
    if (type == FileType::kLog && number >= versions_.log_number()) logs.push_back(number);
  }
  std::sort(logs.begin(), logs.end());
  uint64_t max_sequence = versions_.last_sequence();
  std::vector<RangeDeletion> replayed_deletions;
  for (uint64_t number : logs) {
    s = ReplayLog(number, &max_sequence, &replayed_deletions);
    if (!s.ok()) return s;
  }
  versions_.SetLastSequence(max_sequence);
  // What was replayed may sit in the OS's cache only (a crashed process's unsynced writes):
  // make it durable, so that everything in the memtable counts as synced from now on (the
  // compaction filter's durable views rely on it).
  for (uint64_t number : logs) {
    std::unique_ptr<WritableFile> file;
    s = fs_->NewAppendableFile(LogFileName(dir_, number), &file);
    if (s.ok()) s = file->Sync();
    if (s.ok()) s = file->Close();
    if (!s.ok()) return s;
  }
  memtable_full_ = mem_->ApproximateMemoryUsage() >= options_.memtable_size;
  // New writes go to a fresh WAL; the replayed ones stay until their memtable is flushed.
  s = NewLog(/*sync_old=*/false);
  if (!s.ok()) return s;
  // The manifest's log number: the oldest WAL still holding unflushed writes.
  VersionEdit edit;
  edit.SetLogNumber(logs.empty() ? log_file_number_ : logs.front());
  // A replayed batch's range deletions the manifest does not hold (a crash came between the
  // batch's WAL sync and its manifest edit, or compaction has retired them since: applying one
  // again deletes only what it deleted before).
  for (const RangeDeletion& d : replayed_deletions) {
    if (std::find(versions_.current()->range_deletions.begin(),
                  versions_.current()->range_deletions.end(),
                  d) == versions_.current()->range_deletions.end()) {
      edit.AddRangeDeletion(d);
    }
  }
  // The expiry clock: frozen where the last run left it (or now) while expiration is off.
  if (options_.expiration_enabled) {
    edit.SetExpiryFrozenAt(VersionEdit::kExpiryRunning);
  } else {
    expiry_frozen_at_ = versions_.expiry_frozen_at().value_or(clock_->NowMs());
    edit.SetExpiryFrozenAt(expiry_frozen_at_.load());
  }
  s = versions_.CreateNewManifest();
  if (s.ok()) s = ApplyEdit(&edit);
  return s;
}

Status DBImpl::CheckLiveTables(const std::vector<std::string>& names) {
  std::set<uint64_t> present;
  for (const auto& name : names) {
    uint64_t number;
    FileType type;
    if (ParseFileName(name, &number, &type) && type == FileType::kTable) present.insert(number);
  }
  const auto version = versions_.current();
  for (int level = 0; level < kNumLevels; level++) {
    for (const auto& f : version->files[level]) {
      const std::string name = TableFileName(dir_, f->number);
      uint64_t size = 0;
      std::string problem;
      if (present.count(f->number) == 0) {
        problem = "is missing";
      } else if (Status s = fs_->GetFileSize(name, &size); !s.ok()) {
        problem = "cannot be read: " + s.ToString();
      } else if (size != f->file_size) {
        problem = "has " + std::to_string(size) + " bytes";
      }
      if (problem.empty()) continue;
      // Opening would serve reads without those rows and its cleanup would delete tables the
      // damaged state may still need: refuse, and leave every file as it is.
      return Status::Corruption(name + ": the manifest (MANIFEST-" +
                                std::to_string(versions_.manifest_number()) +
                                ") names this table at level " + std::to_string(level) + " with " +
                                std::to_string(f->file_size) + " bytes, but it " + problem +
                                "; nothing was changed. Stop here and run `ebb-check --repair " +
                                dir_ + "` to rebuild the manifest from what is readable");
    }
  }
  return Status::OK();
}

Status DBImpl::ReplayLog(uint64_t number, uint64_t* max_sequence,
                         std::vector<RangeDeletion>* deletions) {
  const std::string name = LogFileName(dir_, number);
  std::unique_ptr<SequentialFile> file;
  Status s = fs_->NewSequentialFile(name, &file);
  if (!s.ok()) return s;
  LogReader reader(std::move(file), name, /*zeros_then_records_are_torn_write=*/true);
  std::string record;
  while (reader.ReadRecord(&record, &s)) {
    std::string_view in(record);
    uint64_t first_sequence;
    WriteBatch batch;
    if (!GetFixed64(&in, &first_sequence)) {
      return Status::Corruption(name + ": WAL record too short at offset " +
                                std::to_string(reader.LastRecordEndOffset()));
    }
    s = WriteBatch::FromRep(in, &batch);
    if (!s.ok()) {
      return Status::Corruption(name + ": bad write batch before offset " +
                                std::to_string(reader.LastRecordEndOffset()) + ": " + s.message());
    }
    s = AddBatch(mem_.get(), first_sequence, batch);
    if (!s.ok()) return s;
    RangeDeletionsOf(batch, first_sequence, deletions);
    if (batch.Count() > 0) {
      *max_sequence = std::max(*max_sequence, first_sequence + batch.Count() - 1);
    }
  }
  if (!s.ok()) return s;
  if (reader.torn_write()) {
    uint64_t size = 0;
    fs_->GetFileSize(name, &size);
    std::fprintf(stderr,
                 "ebb storage: warning: %s: torn write at offset %llu: zeros, then %llu "
                 "record(s) in the %llu bytes from there, written by a write whose fdatasync "
                 "never completed (the disk kept its pages out of order); every record before "
                 "the offset is kept, the rest is cut\n",
                 name.c_str(), static_cast<unsigned long long>(reader.torn_tail_offset()),
                 static_cast<unsigned long long>(reader.torn_write_records()),
                 static_cast<unsigned long long>(size - reader.torn_tail_offset()));
    s = fs_->TruncateFile(name, reader.torn_tail_offset());
  } else if (reader.torn_tail()) {
    std::fprintf(stderr, "ebb storage: warning: %s: torn tail truncated at offset %llu\n",
                 name.c_str(), static_cast<unsigned long long>(reader.torn_tail_offset()));
    s = fs_->TruncateFile(name, reader.torn_tail_offset());
  }
  return s;
}

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

Status DBImpl::Put(const WriteOptions& options, std::string_view key, std::string_view value) {
  WriteBatch batch;
  batch.Put(options, key, value, clock_->NowMs());
  return Write(options, batch);
}

Status DBImpl::Delete(const WriteOptions& options, std::string_view key) {
  WriteBatch batch;
  batch.Delete(options, key);
  return Write(options, batch);
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
    versions_.SetLastSequence(first + batch.Count() - 1);
    if (replication_tap_) {
      replication_tap_(ReplicationRecord{ReplicationRecord::Kind::kBatch, first, batch.rep()});
    }
    if (mem_->ApproximateMemoryUsage() >= options_.memtable_size) memtable_full_ = true;
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
    state = read_state_;
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
    if (!force && mem_->ApproximateMemoryUsage() < options_.memtable_size) return Status::OK();
    if (force && mem_->empty()) return Status::OK();
    return SwitchMemtable();
  }
}

Status DBImpl::WriteStallLocked(bool force) {
  if (!bg_error_.ok()) return bg_error_;
  // As in LevelDB, writes go on into the active memtable until it is full; only then must a
  // flush and, for the next level-0 file, compaction keep up.
  const bool switches =
      force ? !mem_->empty() : mem_->ApproximateMemoryUsage() >= options_.memtable_size;
  if (!switches) return Status::OK();
  if (static_cast<int>(imms_.size()) >= std::max(options_.max_frozen_memtables, 1)) {
    return Status::Busy("the memtables are full; writes wait for a flush");
  }
  const size_t l0_files = versions_.current()->files[0].size();
  if (static_cast<int>(l0_files) >= options_.l0_stop_writes_trigger) {
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
  uint64_t log_number, size;
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
    handle = log_sync_handle_;
  }
  std::lock_guard sync_lock(sync_mu_);
  // A sync that failed while this one waited may have dropped these bytes' dirty pages; a later
  // fdatasync can then succeed without writing them. So no sync counts once the error is set.
  if (has_bg_error_.load()) return BackgroundError();
  if (synced_log_ > log_number || (synced_log_ == log_number && synced_size_ >= size)) {
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
  return Status::OK();
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

std::shared_ptr<const DBImpl::ReadState> DBImpl::GetReadState(const Snapshot* snapshot,
                                                              uint64_t* sequence,
                                                              std::optional<int64_t>* expiry_now) {
  if (const View* view = AsView(snapshot)) {
    *sequence = view->sequence();
    *expiry_now = view->expiry_now_ms;
    return view->state;
  }
  std::lock_guard lock(mu_);
  *sequence = ReadSequence(snapshot);
  return read_state_;
}

void DBImpl::PublishReadState() {
  auto state = std::make_shared<ReadState>();
  state->mem = mem_;
  for (auto it = imms_.rbegin(); it != imms_.rend(); ++it) state->imms.push_back(it->mem);
  state->version = versions_.current();
  read_state_ = std::move(state);
  spare_iterator_.reset();
}

Status DBImpl::Get(const ReadOptions& options, std::string_view key, Row* row) {
  uint64_t sequence;
  std::optional<int64_t> view_expiry_now;
  const std::shared_ptr<const ReadState> read_state =
      GetReadState(options.snapshot, &sequence, &view_expiry_now);
  const ReadState& state = *read_state;
  VersionChooser chooser(options.retrieval_grace_ms, state.version->DeletionFloor(key, sequence));
  // The lookup key, built when a table file is reached: on the stack unless the key is long (a
  // GET of a key on disk builds it in each of its runs; a string cost an allocation each time).
  char lookup_buf[64];
  std::string lookup_long;
  std::string_view lookup;
  Status status;
  // Memtables: the key's own version chain, found through the hash index (no iterator needed).
  auto walk_memtable = [&](const MemTable& mem) {
    for (auto c = mem.FindVersions(key, sequence); c.Valid(); c.Next()) {
      RowMeta meta;
      std::string_view value;
      if (!DecodeRow(c.encoded_row(), &meta, &value)) {
        status = Status::Corruption("get: malformed memtable row");
        return false;
      }
      if (!chooser.Offer(c.kind(), meta, value, c.sequence())) return false;
    }
    return true;
  };
  bool go_on = walk_memtable(*state.mem);
  for (size_t i = 0; go_on && i < state.imms.size(); i++) go_on = walk_memtable(*state.imms[i]);
  // Table files: TableCache::Get offers the key's versions, newest first (no iterators).
  auto offer_entry = [&](std::string_view internal_key, std::string_view encoded_row) {
    ParsedInternalKey ikey;
    RowMeta meta;
    std::string_view value;
    if (!ParseInternalKey(internal_key, &ikey) || !DecodeRow(encoded_row, &meta, &value)) {
      status = Status::Corruption("get: malformed internal entry");
      return go_on = false;
    }
    return go_on = chooser.Offer(ikey.kind, meta, value, ikey.sequence);
  };
  for (int level = 0; go_on && level < kNumLevels; level++) {
    const auto& files = state.version->files[level];
    // Levels >= 1 have sorted, disjoint user-key ranges: start at the first file not below key.
    auto f = files.begin() + static_cast<ptrdiff_t>(level > 0 ? FindFile(files, key) : 0);
    for (; go_on && f != files.end(); ++f) {
      if (CompareUserKeys(key, ExtractUserKey((*f)->smallest)) < 0) {
        if (level > 0) break;  // every later file starts beyond key too
        continue;
      }
      if (CompareUserKeys(key, ExtractUserKey((*f)->largest)) > 0) continue;
      if (lookup.empty()) {
        if (key.size() + kInternalKeyTrailer <= sizeof(lookup_buf)) {
          lookup = EncodeLookupKey(lookup_buf, key, sequence);
        } else {
          lookup = lookup_long = LookupKey(key, sequence);
        }
      }
      Status s =
          table_cache_->Get(**f, lookup, options.fill_cache, offer_entry, options.block_fetch);
      if (!s.ok()) return s;
    }
  }
  if (!status.ok()) return status;
  if (options.dead_version != nullptr) options.dead_version->reset();
  // The clock is read only for a version that can expire: a clock read costs ~3% of a cached
  // point read's CPU in a VM.
  const bool expiring = chooser.has_choice() && chooser.meta().expire_at_ms.has_value();
  const int64_t expiry_now = !expiring ? 0 : view_expiry_now ? *view_expiry_now : ExpiryNow();
  if (!chooser.has_choice()) return Status::NotFound();
  if (chooser.ChosenIsDead(expiry_now)) {
    if (options.dead_version != nullptr) {
      *options.dead_version = DeadVersion{chooser.kind(), chooser.meta(), chooser.TakeValue()};
    }
    return Status::NotFound();
  }
  row->value = chooser.TakeValue();
  row->meta = chooser.meta();
  return Status::OK();
}

// The walk of Get, collecting instead of choosing. (Get keeps its own loop: the hot read path,
// whose inlining a shared template with callbacks made measurably worse.)
Status DBImpl::GetVersions(const ReadOptions& options, std::string_view key,
                           std::vector<VersionRow>* versions) {
  versions->clear();
  uint64_t sequence;
  std::optional<int64_t> view_expiry_now;
  const std::shared_ptr<const ReadState> read_state =
      GetReadState(options.snapshot, &sequence, &view_expiry_now);
  const ReadState& state = *read_state;
  const uint64_t floor = state.version->DeletionFloor(key, sequence);
  Status status;
  // Takes one version; false at the first the walk must not pass.
  auto collect = [&](RowKind kind, std::string_view encoded_row, uint64_t seq) {
    RowMeta meta;
    std::string_view value;
    if (!DecodeRow(encoded_row, &meta, &value)) {
      status = Status::Corruption("get versions: malformed row");
      return false;
    }
    if (kind == RowKind::kWipe || seq < floor) return false;
    versions->push_back(VersionRow{kind, meta, std::string(value)});
    return true;
  };
  bool go_on = true;
  auto walk_memtable = [&](const MemTable& mem) {
    for (auto c = mem.FindVersions(key, sequence); go_on && c.Valid(); c.Next()) {
      go_on = collect(c.kind(), c.encoded_row(), c.sequence());
    }
  };
  walk_memtable(*state.mem);
  for (size_t i = 0; go_on && i < state.imms.size(); i++) walk_memtable(*state.imms[i]);
  const std::string lookup = LookupKey(key, sequence);
  auto offer_entry = [&](std::string_view internal_key, std::string_view encoded_row) {
    ParsedInternalKey ikey;
    if (!ParseInternalKey(internal_key, &ikey)) {
      status = Status::Corruption("get versions: malformed internal key");
      return go_on = false;
    }
    return go_on = collect(ikey.kind, encoded_row, ikey.sequence);
  };
  for (int level = 0; go_on && level < kNumLevels; level++) {
    const auto& files = state.version->files[level];
    auto f = files.begin() + static_cast<ptrdiff_t>(level > 0 ? FindFile(files, key) : 0);
    for (; go_on && f != files.end(); ++f) {
      if (CompareUserKeys(key, ExtractUserKey((*f)->smallest)) < 0) {
        if (level > 0) break;
        continue;
      }
      if (CompareUserKeys(key, ExtractUserKey((*f)->largest)) > 0) continue;
      Status s =
          table_cache_->Get(**f, lookup, options.fill_cache, offer_entry, options.block_fetch);
      if (!s.ok()) return s;
    }
  }
  return status;
}

std::unique_ptr<Iterator> DBImpl::NewIterator(const ReadOptions& options) {
  std::unique_ptr<DBIterTree> tree;
  DBIterParams params;
  std::shared_ptr<const ReadState> state;
  std::optional<int64_t> view_expiry_now;
  const View* view = AsView(options.snapshot);
  {
    std::lock_guard lock(mu_);
    params.sequence = ReadSequence(options.snapshot);
    // A spare tree is dropped whenever a new read state is published: if there is one, it
    // reads read_state_.
    if (view != nullptr) {
      state = view->state;
      view_expiry_now = view->expiry_now_ms;
      stats_.iterator_trees_built++;
    } else if (spare_iterator_ != nullptr && spare_iterator_->fill_cache == options.fill_cache) {
      tree = std::move(spare_iterator_);
      stats_.iterator_trees_reused++;
    } else {
      state = read_state_;
      stats_.iterator_trees_built++;
    }
  }
  if (tree == nullptr) tree = NewIterTree(std::move(state), options.fill_cache);
  tree->lower_bound = options.lower_bound;
  tree->upper_bound = options.upper_bound;
  tree->block_fetch = options.block_fetch;
  params.expiry_now_ms = view_expiry_now ? *view_expiry_now : ExpiryNow();
  params.retrieval_grace_ms = options.retrieval_grace_ms;
  params.include_dead = options.include_dead;
  const auto& deletions = static_cast<const ReadState*>(tree->source)->version->range_deletions;
  if (!deletions.empty()) params.range_deletions = &deletions;
  // A view's tree reads a pinned state that is not read_state_: it is never recycled.
  return NewDBIterator(std::move(tree), params, view != nullptr ? nullptr : this);
}

std::unique_ptr<DBIterTree> DBImpl::NewIterTree(std::shared_ptr<const ReadState> state,
                                                bool fill_cache) {
  auto tree = std::make_unique<DBIterTree>();
  tree->fill_cache = fill_cache;
  tree->source = state.get();
  std::vector<std::unique_ptr<InternalIterator>> children;
  children.push_back(MemTable::NewIterator(state->mem));
  for (const auto& imm : state->imms) children.push_back(MemTable::NewIterator(imm));
  // L0 files may overlap: one child each. Deeper levels are sorted runs: one child per level.
  // Level iterators open a file only when a position reaches it, and skip files outside the
  // bounds of whichever iterator uses the tree.
  const Version& version = *state->version;
  for (const auto& file : version.files[0]) {
    children.push_back(NewLevelIterator(table_cache_.get(), FileList{file}, fill_cache,
                                        &tree->lower_bound, &tree->upper_bound,
                                        &tree->block_fetch));
  }
  for (int level = 1; level < kNumLevels; level++) {
    if (version.files[level].empty()) continue;
    children.push_back(NewLevelIterator(table_cache_.get(), version.files[level], fill_cache,
                                        &tree->lower_bound, &tree->upper_bound,
                                        &tree->block_fetch));
  }
  tree->pins.push_back(std::move(state));
  tree->internal = NewMergingIterator(std::move(children));
  return tree;
}

void DBImpl::Recycle(std::unique_ptr<DBIterTree> tree) {
  std::unique_ptr<DBIterTree> replaced;  // destroyed after the lock is released
  std::lock_guard lock(mu_);
  if (shutting_down_ || tree->source != read_state_.get()) {
    replaced = std::move(tree);
    return;
  }
  replaced = std::move(spare_iterator_);
  spare_iterator_ = std::move(tree);
}

void DBImpl::FreezeMemtable() {
  imms_.push_back(Frozen{mem_, log_file_number_});
  mem_ = NewMemTable();
  memtable_full_ = false;
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

const Snapshot* DBImpl::GetSnapshot() {
  std::lock_guard lock(mu_);
  snapshots_.insert(versions_.last_sequence());
  return new SnapshotImpl(versions_.last_sequence());
}

void DBImpl::ReleaseSnapshot(const Snapshot* snapshot) {
  if (snapshot == nullptr) return;
  {
    std::lock_guard lock(mu_);
    auto it = snapshots_.find(snapshot->sequence());
    if (it != snapshots_.end()) snapshots_.erase(it);
  }
  delete static_cast<const SnapshotImpl*>(snapshot);
}

Stats DBImpl::GetStats() {
  std::lock_guard lock(mu_);
  Stats stats = stats_;
  const auto version = versions_.current();
  stats.levels.resize(kNumLevels);
  for (int level = 0; level < kNumLevels; level++) {
    stats.levels[level].files = static_cast<int>(version->files[level].size());
    stats.levels[level].bytes = version->LevelBytes(level);
    for (const auto& f : version->files[level]) stats.levels[level].entries += f->props.entries;
  }
  stats.memtable_bytes = mem_->ApproximateMemoryUsage();
  for (const auto& imm : imms_) stats.memtable_bytes += imm.mem->ApproximateMemoryUsage();
  stats.block_cache_capacity = block_cache_->capacity();
  stats.block_cache_bytes = block_cache_->usage();
  const TableCache::Usage tables = table_cache_->GetUsage();
  stats.open_tables = tables.tables;
  stats.open_tables_direct = tables.direct_tables;
  stats.table_index_bytes = tables.index_bytes;
  stats.table_filter_bytes = tables.filter_bytes;
  stats.block_cache_hits = block_cache_->hits();
  stats.block_cache_misses = block_cache_->misses();
  stats.last_sequence = versions_.last_sequence();
  stats.range_deletions_pending = version->range_deletions.size();
  stats.purge_hints_pending = version->purge_hints.size();
  stats.compaction_error = compaction_error_.ok() ? "" : compaction_error_.ToString();
  for (const auto& [number, what] : damaged_tables_) stats.damaged_tables.push_back(what);
  // Files holding rows the expiry clock has passed, from the manifest's time facts.
  const int64_t expiry_now = ExpiryNow();
  int64_t oldest_expiry = INT64_MAX;
  for (const auto& level : version->files) {
    for (const auto& f : level) {
      if (f->props.min_expire_at > expiry_now) continue;
      stats.expired_pending_bytes += f->file_size;
      oldest_expiry = std::min(oldest_expiry, f->props.min_expire_at);
    }
  }
  stats.oldest_expired_age_ms = oldest_expiry == INT64_MAX ? 0 : expiry_now - oldest_expiry;
  stats.purge_deadline_ms = purge_deadline_ms_.load();
  PickParams params;  // the targets RunOneCompaction picks by
  params.l0_compaction_trigger =
      std::min(options_.l0_compaction_trigger, options_.l0_stop_writes_trigger);
  params.level1_max_bytes = options_.level1_max_bytes;
  params.level_size_multiplier = options_.level_size_multiplier;
  stats.compaction_pending_bytes = PendingCompactionBytes(*version, params);
  stats.disk_read_latency = disk_read_latency_->Snapshot();
  return stats;
}

uint64_t DBImpl::EstimateKeys(std::string_view lower, std::string_view upper) {
  uint64_t sequence;
  std::optional<int64_t> expiry_now;
  const std::shared_ptr<const ReadState> state = GetReadState(nullptr, &sequence, &expiry_now);
  // The newest range deletion covering all of [lower, upper): what is older counts nothing.
  uint64_t deleted_below = 0;
  for (const RangeDeletion& d : state->version->range_deletions) {
    if (CompareUserKeys(d.range.begin, lower) <= 0 && !upper.empty() &&
        CompareUserKeys(upper, d.range.end) <= 0) {
      deleted_below = std::max(deleted_below, d.sequence);
    }
  }
  // A memtable holds only versions older than a range deletion or only newer ones (DeleteRange
  // freezes it first).
  const auto count_memtable = [&](const MemTable& mem) -> int64_t {
    return mem.min_sequence() < deleted_below ? 0 : mem.EstimateKeys(lower, upper);
  };
  int64_t keys = count_memtable(*state->mem);
  for (const auto& imm : state->imms) keys += count_memtable(*imm);
  double table_keys = 0;
  for (int level = 0; level < kNumLevels; level++) {
    for (const auto& file : state->version->files[level]) {
      if (file->props.max_sequence < deleted_below) continue;
      const std::string_view smallest = ExtractUserKey(file->smallest);
      const std::string_view largest = ExtractUserKey(file->largest);
      if (CompareUserKeys(largest, lower) < 0) continue;
      if (!upper.empty() && CompareUserKeys(smallest, upper) >= 0) continue;
      const double rows = static_cast<double>(file->props.entries) -
                          2.0 * static_cast<double>(file->props.tombstones);
      if (rows <= 0) continue;
      double share = 1.0;
      const bool inside = CompareUserKeys(smallest, lower) >= 0 &&
                          (upper.empty() || CompareUserKeys(largest, upper) < 0);
      if (!inside && !table_cache_->ApproximateShare(*file, lower, upper, &share).ok()) continue;
      table_keys += rows * share;
    }
  }
  keys += static_cast<int64_t>(table_keys + 0.5);
  return keys > 0 ? static_cast<uint64_t>(keys) : 0;
}

}  // namespace ebb::storage
