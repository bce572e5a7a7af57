#include <algorithm>
#include <limits>

#include "storage/db/compaction.h"
#include "storage/db/db_impl.h"
#include "storage/db/merging_iterator.h"
#include "storage/db/table_cache.h"
#include "storage/db/table_writer.h"

namespace ebb::storage {

bool DBImpl::MemtablesOverlap(std::string_view smallest_user, std::string_view largest_user) {
  std::vector<std::shared_ptr<MemTable>> mems{mem_};
  for (const auto& imm : imms_) mems.push_back(imm.mem);
  for (const auto& mem : mems) {
    auto it = MemTable::NewIterator(mem);
    it->Seek(LookupKey(smallest_user, kMaxSequence));
    if (it->Valid() && CompareUserKeys(ExtractUserKey(it->key()), largest_user) <= 0) return true;
  }
  return false;
}

bool DBImpl::NewerDataOverlaps(const Version& version, const CompactionJob& job) {
  std::string smallest, largest;
  bool first = true;
  for (const auto& [level, f] : job.inputs) {
    const std::string_view s = ExtractUserKey(f->smallest), l = ExtractUserKey(f->largest);
    if (first) {
      smallest.assign(s);
      largest.assign(l);
      first = false;
    }
    if (CompareUserKeys(s, smallest) < 0) smallest.assign(s);
    if (CompareUserKeys(l, largest) > 0) largest.assign(l);
  }
  if (MemtablesOverlap(smallest, largest)) return true;
  for (int level = 0; level <= job.output_level; level++) {
    for (const auto& f : version.Overlapping(level, smallest, largest)) {
      const bool is_input = std::any_of(job.inputs.begin(), job.inputs.end(), [&](const auto& in) {
        return in.second->number == f->number;
      });
      if (!is_input) return true;
    }
  }
  return false;
}

bool DBImpl::ApplyWholeFileExpiry(std::unique_lock<std::mutex>&) {
  if (!whole_file_expiry_.load() || !expiration_enabled_.load() || !bg_error_.ok()) return false;
  const int64_t now = clock_->NowMs();
  auto v = versions_.current();
  VersionEdit edit;
  uint64_t dropped = 0;
  for (int level = 0; level < kNumLevels; level++) {
    for (const auto& f : v->files[level]) {
      const TableProperties& p = f->props;
      if (p.entries == 0 || p.has_non_expiring || p.max_expire_at > now ||
          p.max_expire_at == std::numeric_limits<int64_t>::min()) {
        continue;
      }
      // Nothing else may hold versions of these keys: older ones would resurface, newer ones
      // would change what a grace read returns.
      const std::string_view smallest = ExtractUserKey(f->smallest);
      const std::string_view largest = ExtractUserKey(f->largest);
      bool overlapped = MemtablesOverlap(smallest, largest);
      for (int other = 0; !overlapped && other < kNumLevels; other++) {
        for (const auto& g : v->Overlapping(other, smallest, largest)) {
          if (g->number != f->number) overlapped = true;
        }
      }
      if (overlapped) continue;
      edit.RemoveFile(level, f->number);
      dropped++;
    }
  }
  if (dropped == 0) return false;
  Status s = ApplyEdit(&edit);
  if (!s.ok()) {
    SetBgError(s);
    return false;
  }
  v.reset();  // so the dropped files are deletable now
  stats_.files_expired_whole += dropped;
  DeleteObsoleteFiles();
  return true;
}

bool DBImpl::RunOneCompaction(std::unique_lock<std::mutex>& lock, bool manual_all) {
  if (!bg_error_.ok()) return false;
  PickParams params;
  params.manual_all = manual_all;
  params.purge_enabled = expiration_enabled_.load() && snapshots_.empty();
  params.now_ms = clock_->NowMs();
  params.purge_deadline_ms = std::max<int64_t>(0, purge_deadline_ms_.load());
  params.l0_compaction_trigger = options_.l0_compaction_trigger;
  params.level1_max_bytes = options_.level1_max_bytes;
  params.level_size_multiplier = options_.level_size_multiplier;
  std::unique_ptr<CompactionJob> job;
  {
    // Not held across the compaction: the inputs' files must be deletable when it ends.
    const auto version = versions_.current();
    job = PickCompaction(*version, params, next_compaction_file_);
    if (!job) return false;
    job->drop_dead = job->bottommost && !NewerDataOverlaps(*version, *job);
  }
  Status s = DoCompaction(lock, job.get());
  if (!s.ok()) SetBgError(s);
  return s.ok();
}

Status DBImpl::DoCompaction(std::unique_lock<std::mutex>& lock, CompactionJob* job) {
  const std::vector<uint64_t> snapshots(snapshots_.begin(), snapshots_.end());
  const int64_t now = clock_->NowMs();
  const bool expiration = expiration_enabled_.load();
  const CompactionFilter* filter = options_.compaction_filter.get();
  const TableOptions table_options = MakeTableOptions(now);
  uint64_t bytes_read = 0;
  for (const auto& in : job->inputs) bytes_read += in.second->file_size;
  std::vector<uint64_t> numbers;  // output file numbers, reserved under the lock
  lock.unlock();

  // Everything below runs without mu_: the filter may call back into the DB.
  const std::unique_ptr<CompactionFilter> filter_run =
      filter != nullptr ? filter->StartCompaction() : nullptr;
  if (filter_run != nullptr) filter = filter_run.get();
  std::vector<std::unique_ptr<InternalIterator>> children;
  Status s;
  for (const auto& in : job->inputs) {
    std::unique_ptr<InternalIterator> it;
    s = table_cache_->NewIterator(*in.second, false, &it);
    if (!s.ok()) break;
    children.push_back(std::move(it));
  }
  std::vector<FileMetaData> outputs;
  ReduceStats reduce_stats;
  std::unique_ptr<TableWriter> writer;
  auto finish_output = [&]() -> Status {
    if (!writer) return Status::OK();
    FileMetaData meta;
    Status fs = writer->Finish(&meta);
    writer.reset();
    if (fs.ok()) outputs.push_back(std::move(meta));
    return fs;
  };
  auto emit = [&](std::string_view internal_key, std::string_view row) -> Status {
    if (!writer) {
      uint64_t number;
      {
        std::lock_guard guard(mu_);
        number = versions_.NewFileNumber();
        pending_outputs_.insert(number);
      }
      numbers.push_back(number);
      writer = std::make_unique<TableWriter>(fs_, dir_, table_options);
      Status os = writer->Open(number);
      if (!os.ok()) return os;
    }
    return writer->Add(internal_key, row);
  };
  if (s.ok()) {
    auto input = NewMergingIterator(std::move(children));
    input->SeekToFirst();
    auto reduce = [&](std::string_view user_key, std::vector<KeyVersion> versions) {
      return ReduceVersions(user_key, std::move(versions), snapshots, job->drop_dead, expiration,
                            now, filter, &reduce_stats);
    };
    s = ReduceInput(input.get(), reduce, emit, [&]() -> Status {
      // Files split only between user keys.
      if (writer && writer->FileSize() >= options_.target_file_size) return finish_output();
      return Status::OK();
    });
    if (s.ok()) s = finish_output();
  }
  writer.reset();
  // The outputs' directory entries are made durable before the manifest names them.
  if (s.ok() && !outputs.empty()) s = fs_->SyncDir(dir_);

  lock.lock();
  if (s.ok()) {
    VersionEdit edit;
    for (const auto& in : job->inputs) edit.RemoveFile(in.first, in.second->number);
    uint64_t bytes_written = 0;
    for (const auto& out : outputs) {
      edit.AddFile(job->output_level, out);
      bytes_written += out.file_size;
    }
    s = ApplyEdit(&edit);
    if (s.ok()) {
      stats_.compactions++;
      stats_.compaction_bytes_read += bytes_read;
      stats_.compaction_bytes_written += bytes_written;
      stats_.expired_rows_dropped += reduce_stats.expired;
      stats_.filter_rows_dropped += reduce_stats.filtered;
    }
  }
  for (uint64_t number : numbers) pending_outputs_.erase(number);
  DeleteObsoleteFiles();
  return s;
}

}  // namespace ebb::storage
