// DBImpl's life: Open (DB::Open), recovery from the manifest and the WALs, and shutdown.
// The write path is in db_write.cc, reads in db_read.cc, statistics in db_properties.cc, the
// flush and compaction threads in db_background.cc (contract: storage/db.h, db_impl.h).
#include "storage/db/db_impl.h"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "storage/db/filename.h"
#include "storage/db/table_cache.h"
#include "storage/env/posix_file_system.h"
#include "storage/format/internal_key.h"
#include "storage/table/block_cache.h"
#include "storage/util/coding.h"
#include "storage/wal/log_reader.h"
#include "storage/wal/log_writer.h"

namespace ebb::storage {

Status DB::Open(const Options& options, const std::string& dir, std::unique_ptr<DB>* db) {
  auto impl = std::make_unique<DBImpl>(options, dir);
  Status s = impl->OpenImpl();
  if (!s.ok()) return s;
  *db = std::move(impl);
  return Status::OK();
}

DBImpl::DBImpl(const Options& options, std::string dir)
    : options_(options),
      regions_(options.separate_file_prefixes),
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
  // Tables a reader still pinned at the last cleanup are free now: a closed directory names no
  // file its manifest does not (ebb-check reads such a table as a lost edit).
  if (obsolete_files_pinned_) DeleteObsoleteFiles();
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
  NoteSynced(max_sequence);
  memtable_full_ = ActiveMemtableFull();
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
  NotePrefetchPays();
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

}  // namespace ebb::storage
