#include <algorithm>
#include <set>
#include <vector>

#include "storage/db/compaction.h"
#include "storage/db/db_impl.h"
#include "storage/db/filename.h"
#include "storage/db/table_cache.h"
#include "storage/db/table_writer.h"
#include "storage/env/posix_file_system.h"

namespace ebb::storage {

TableOptions DBImpl::MakeTableOptions(int64_t expiry_now_ms) const {
  TableOptions t;
  t.block_size = options_.block_size;
  // Read with O_DIRECT, a data block of 4 KiB or less is then one aligned read, not two.
  if (options_.use_direct_reads && options_.block_size <= kDirectIoAlignment) {
    t.block_align = kDirectIoAlignment;
  }
  t.bloom_bits_per_key = options_.bloom_bits_per_key;
  t.compression = options_.compression;
  t.expiry_now_ms = expiry_now_ms;
  t.classifier = options_.compaction_filter.get();
  return t;
}

void DBImpl::BackgroundLoop() {
  std::unique_lock lock(mu_);
  while (!shutting_down_) {
    if (!bg_error_.ok()) {
      // No compaction while writes are refused; try to leave the state now and then.
      const auto wait = MaybeAutoResume(lock);
      done_cv_.notify_all();
      if (!bg_error_.ok() && !shutting_down_) bg_cv_.wait_for(lock, wait);
      continue;
    }
    bool did_work = false;
    // A purge freeze hands the memtable to the flush thread (SwitchMemtable).
    if (imms_.empty() && !resuming_) MaybeFreezeForPurge();
    if (!compacting_) {
      compacting_ = true;
      did_work = ApplyWholeFileDrops(lock) || ApplyFileMoves(lock) || RunOneCompaction(lock, false);
      compacting_ = false;
    }
    if (warm_tables_) WarmTables(lock);
    if (did_work) {
      WakeStalledWriters();
      continue;
    }
    done_cv_.notify_all();
    // Files that readers (iterators) still pinned at the last cleanup may be free by now.
    if (obsolete_files_pinned_) DeleteObsoleteFiles();
    // Idle: re-check expiry deadlines at least every purge_deadline/4 (and every second).
    const int64_t deadline = purge_deadline_ms_.load();
    const int64_t wait_ms = deadline < 0 ? 1000 : std::clamp<int64_t>(deadline / 4, 1, 1000);
    bg_cv_.wait_for(lock, std::chrono::milliseconds(wait_ms));
  }
}

void DBImpl::FlushLoop() {
  std::unique_lock lock(mu_);
  while (!shutting_down_) {
    // Resume flushes by itself while it leaves the error state.
    if (bg_error_.ok() && !imms_.empty() && !flushing_) {
      FlushOldestImm(lock);
      continue;
    }
    flush_cv_.wait(lock);
  }
}

void DBImpl::WarmTables(std::unique_lock<std::mutex>& lock) {
  warm_tables_ = false;
  // The files, not the version: holding the version would keep its obsolete files on disk.
  std::vector<std::shared_ptr<const FileMetaData>> files;
  for (const auto& level : versions_.current()->files) {
    for (const auto& file : level) {
      if (files.size() == table_cache_->capacity()) break;
      files.push_back(file);
    }
  }
  lock.unlock();
  for (const auto& file : files) table_cache_->Warm(*file);  // a failure is a read's to report
  lock.lock();
  // A file deleted meanwhile must not stay open (its space would stay allocated).
  std::set<uint64_t> live;
  for (const auto& level : versions_.current()->files) {
    for (const auto& file : level) live.insert(file->number);
  }
  for (const auto& file : files) {
    if (live.count(file->number) == 0) table_cache_->Evict(file->number);
  }
}

Status DBImpl::FlushOldestImm(std::unique_lock<std::mutex>& lock) {
  EngineLatencyTimer timer(options_.engine_latency.get(), EngineEvent::kMemtableFlush);
  flushing_ = true;
  const Frozen imm = imms_.front();
  std::vector<uint64_t> numbers;  // output file numbers, reserved under the lock
  const int64_t expiry_now = ExpiryNow();
  // Range deletions already in force hide versions of this memtable: the flush leaves them out.
  const std::shared_ptr<const Version> version = versions_.current();
  // Versions no read can return are left out (ReduceForFlush): a hot key's thousands of
  // in-order overwrites reach the table as two rows, not thousands for compaction to discard,
  // and the flush iterator shows only those two, so the flush does not walk the rest.
  // With a live snapshot every version is written, as reads at it may need any of them.
  const bool reduce = snapshots_.empty();
  std::vector<FileMetaData> outputs;
  lock.unlock();
  Status s;
  {
    // One table per region the memtable's keys fall in (file_regions.h), usually one.
    std::unique_ptr<TableWriter> writer;
    size_t region = 0;
    auto finish_output = [&]() -> Status {
      if (!writer) return Status::OK();
      FileMetaData meta;
      Status fs = writer->Finish(&meta);
      writer.reset();
      if (fs.ok() && meta.props.entries > 0) outputs.push_back(std::move(meta));
      return fs;
    };
    auto iter = reduce ? MemTable::NewFlushIterator(imm.mem) : MemTable::NewIterator(imm.mem);
    iter->SeekToFirst();
    std::string internal_key, row;
    s = ReduceInput(
        iter.get(),
        [&](std::string_view user_key, std::vector<KeyVersion>* versions) {
          if (reduce) ReduceForFlush(versions, version->DeletionFloor(user_key, kMaxSequence));
        },
        [&](std::string_view user_key, const std::vector<KeyVersion>& survivors) {
          if (survivors.empty()) return Status::OK();
          const size_t key_region = regions_.RegionOf(user_key);
          if (writer && key_region != region) {
            Status fs = finish_output();
            if (!fs.ok()) return fs;
          }
          region = key_region;
          if (!writer) {
            Status os = OpenOutputTable(MakeTableOptions(expiry_now), region, &numbers, &writer);
            if (!os.ok()) return os;
          }
          return EmitEntries(
              user_key, survivors,
              [&](std::string_view key, std::string_view encoded) {
                return writer->Add(key, encoded);
              },
              &internal_key, &row);
        });
    if (s.ok()) s = finish_output();
  }
  // The tables' directory entries are made durable before the manifest names them.
  if (s.ok() && !outputs.empty()) s = fs_->SyncDir(dir_);
  lock.lock();
  uint64_t bytes_written = 0;
  if (s.ok()) {
    VersionEdit edit;
    for (const FileMetaData& meta : outputs) {
      edit.AddFile(0, meta);
      bytes_written += meta.file_size;
    }
    edit.SetLogNumber(imm.next_log_number);
    s = ApplyEdit(&edit);
  }
  for (uint64_t number : numbers) pending_outputs_.erase(number);
  if (s.ok()) {
    imms_.pop_front();
    PublishReadState();
    stats_.flushes++;
    stats_.flush_bytes_written += bytes_written;
  } else {
    SetBgError(s);
  }
  DeleteObsoleteFiles();
  flushing_ = false;
  bg_cv_.notify_one();  // a new level-0 file may call for a compaction
  WakeStalledWriters();
  return s;
}

bool DBImpl::MaybeFreezeForPurge() {
  if (mem_->empty() || !snapshots_.empty()) return false;
  // Rows that expire as fast as they are written must not make a flush of every few writes: at
  // most one such freeze per quarter deadline (between 100 ms and 1 s), which the half deadline
  // of slack in PurgeDueAt absorbs.
  const auto clock_now = std::chrono::steady_clock::now();
  const int64_t deadline = purge_deadline_ms_.load();
  const auto interval = std::chrono::milliseconds(std::clamp<int64_t>(deadline / 4, 100, 1000));
  if (clock_now < last_purge_freeze_ + interval) return false;
  const int64_t now = clock_->NowMs();
  const int64_t min_expire_at = mem_->min_expire_at();
  bool due = min_expire_at <= ExpiryNow() && PurgeDueAt(min_expire_at, deadline) <= now;
  for (const PurgeHint& h : versions_.current()->purge_hints) {
    if (due) break;
    if (h.due_ms > now) continue;
    auto it = MemTable::NewIterator(mem_);
    it->Seek(LookupKey(h.range.begin, kMaxSequence));
    due = it->Valid() && h.range.Contains(ExtractUserKey(it->key()));
  }
  if (!due) return false;
  // The WAL that holds these rows becomes obsolete once the frozen memtable is flushed.
  if (!SwitchMemtable().ok()) return false;
  last_purge_freeze_ = clock_now;
  return true;
}

void DBImpl::DeleteObsoleteFiles() {
  // In the error state the manifest on disk may name files the memory thinks dead (an edit
  // whose write or sync failed may still have reached the disk): delete nothing until Resume
  // has written a manifest that matches the memory.
  if (!bg_error_.ok()) return;
  std::set<uint64_t> live = pending_outputs_;
  versions_.AddLiveFiles(&live);
  std::set<uint64_t> current_files;
  for (const auto& level : versions_.current()->files) {
    for (const auto& f : level) current_files.insert(f->number);
  }
  obsolete_files_pinned_ = live.size() > current_files.size() + pending_outputs_.size();
  std::vector<std::string> names;
  if (!fs_->GetChildren(dir_, &names).ok()) return;
  for (const auto& name : names) {
    uint64_t number;
    FileType type;
    if (!ParseFileName(name, &number, &type)) continue;
    bool keep = true;
    switch (type) {
      case FileType::kLog:
        keep = number >= versions_.log_number() || number == log_file_number_;
        break;
      case FileType::kManifest:
        keep = number == versions_.manifest_number();
        break;
      case FileType::kTable:
        keep = live.count(number) > 0;
        break;
      case FileType::kTemp:
        keep = live.count(number) > 0;
        break;
      default:
        break;
    }
    if (keep) continue;
    if (type == FileType::kTable) table_cache_->Evict(number);
    fs_->RemoveFile(dir_ + "/" + name);
  }
}

Status DBImpl::FlushMemtable() {
  std::unique_lock lock(mu_);
  Status s = MakeRoomForWrite(lock, true);
  if (!s.ok()) return s;
  while (!imms_.empty() && bg_error_.ok() && !shutting_down_) {
    flush_cv_.notify_one();
    done_cv_.wait(lock);
  }
  return bg_error_;
}

bool DBImpl::RunBackgroundCycle() {
  std::unique_lock lock(mu_);
  while (compacting_) done_cv_.wait(lock);
  compacting_ = true;
  const bool changed =
      ApplyWholeFileDrops(lock) || ApplyFileMoves(lock) || RunOneCompaction(lock, false);
  compacting_ = false;
  WakeStalledWriters();
  return changed;
}

Status DBImpl::CompactAll() {
  Status s = FlushMemtable();
  if (!s.ok()) return s;
  std::unique_lock lock(mu_);
  while (compacting_) done_cv_.wait(lock);
  compacting_ = true;
  ApplyWholeFileDrops(lock);
  Status result;
  RunOneCompaction(lock, true, &result);
  compacting_ = false;
  WakeStalledWriters();
  return bg_error_.ok() ? result : bg_error_;
}

}  // namespace ebb::storage
