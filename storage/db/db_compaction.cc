// DBImpl's compactions, whole-file drops and the facts they decide by (db_impl.h).
#include <algorithm>
#include <cstdio>
#include <limits>

#include "storage/db/compaction.h"
#include "storage/db/db_impl.h"
#include "storage/db/filename.h"
#include "storage/db/merging_iterator.h"
#include "storage/db/table_cache.h"
#include "storage/db/table_writer.h"

namespace ebb::storage {
namespace {

constexpr int64_t kNoTimestamp = std::numeric_limits<int64_t>::max();

bool MemtableOverlaps(const std::shared_ptr<MemTable>& mem, std::string_view smallest,
                      std::string_view largest) {
  if (mem->empty()) return false;
  auto it = MemTable::NewIterator(mem);
  it->Seek(LookupKey(smallest, kMaxSequence));
  return it->Valid() && CompareUserKeys(ExtractUserKey(it->key()), largest) <= 0;
}

// The user-key hull of a job's inputs.
void JobRange(const CompactionJob& job, std::string* smallest, std::string* largest) {
  bool first = true;
  for (const auto& [level, f] : job.inputs) {
    const std::string_view s = ExtractUserKey(f->smallest), l = ExtractUserKey(f->largest);
    if (first || CompareUserKeys(s, *smallest) < 0) smallest->assign(s);
    if (first || CompareUserKeys(l, *largest) > 0) largest->assign(l);
    first = false;
  }
}

// How close together the expiry times in one compaction output may lie: an output whose rows
// expire within this window is dropped whole before the purge deadline would rewrite it.
int64_t ExpiryWindow(int64_t purge_deadline_ms) {
  constexpr int64_t kDay = 24ll * 3600 * 1000;
  return purge_deadline_ms < 0 ? kDay : std::max<int64_t>(purge_deadline_ms / 4, 1000);
}

// When a key's value rows expire, as compaction output cutting groups them.
struct ExpiryClass {
  bool known = false;     // false: the key has no value row (only deletions)
  bool expires = false;   // every value row carries an expiry
  int64_t expire_at = 0;  // the latest of them
};

ExpiryClass ClassOf(const std::vector<KeyVersion>& survivors) {
  ExpiryClass c;
  for (const KeyVersion& v : survivors) {
    if (v.kind != RowKind::kValue) continue;
    if (!c.known) {
      c = {true, true, std::numeric_limits<int64_t>::min()};
    }
    if (!v.meta.expire_at_ms) {
      c.expires = false;
    } else {
      c.expire_at = std::max(c.expire_at, *v.meta.expire_at_ms);
    }
  }
  return c;
}

// The expiry facts of the output being written, for cutting it where they change sharply.
struct OutputExpiry {
  bool any = false;           // a classified key was added
  bool non_expiring = false;  // some value row never expires
  bool expiring = false;      // some value row expires
  int64_t min_expire_at = std::numeric_limits<int64_t>::max();
  int64_t max_expire_at = std::numeric_limits<int64_t>::min();

  // True when `c` does not belong with what the output holds.
  bool Differs(const ExpiryClass& c, int64_t window) const {
    if (!any || !c.known) return false;
    if (!c.expires) return expiring;
    if (non_expiring) return true;
    const int64_t lo = std::min(min_expire_at, c.expire_at);
    const int64_t hi = std::max(max_expire_at, c.expire_at);
    return static_cast<__int128>(hi) - lo > window;
  }
  void Add(const ExpiryClass& c) {
    if (!c.known) return;
    any = true;
    if (!c.expires) {
      non_expiring = true;
      return;
    }
    expiring = true;
    min_expire_at = std::min(min_expire_at, c.expire_at);
    max_expire_at = std::max(max_expire_at, c.expire_at);
  }
};

}  // namespace

int64_t DBImpl::NewerMinTimestamp(const Version& version, std::string_view smallest,
                                  std::string_view largest, int level, uint64_t number,
                                  const std::vector<uint64_t>& exclude) {
  int64_t least = kNoTimestamp;
  if (MemtableOverlaps(mem_, smallest, largest)) least = std::min(least, mem_->min_timestamp());
  for (const auto& imm : imms_) {
    if (MemtableOverlaps(imm.mem, smallest, largest)) {
      least = std::min(least, imm.mem->min_timestamp());
    }
  }
  for (int l = 0; l < level || (l == level && level == 0); l++) {
    for (const auto& f : version.Overlapping(l, smallest, largest)) {
      if (l == level && f->number <= number) continue;  // L0: only the newer files
      if (std::find(exclude.begin(), exclude.end(), f->number) != exclude.end()) continue;
      least = std::min(least, f->props.EffectiveMinTimestamp());
    }
  }
  return least;
}

bool DBImpl::NewerDataOverlaps(const Version& version, const CompactionJob& job) {
  std::string smallest, largest;
  JobRange(job, &smallest, &largest);
  if (MemtableOverlaps(mem_, smallest, largest)) return true;
  for (const auto& imm : imms_) {
    if (MemtableOverlaps(imm.mem, smallest, largest)) return true;
  }
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

bool DBImpl::ApplyWholeFileDrops(std::unique_lock<std::mutex>&) {
  if (!bg_error_.ok()) return false;
  const int64_t expiry_now = ExpiryNow();
  const bool whole_file = whole_file_expiry_.load();
  // A filter that keeps keys' newest dead versions (active-active mode) forbids expired drops:
  // a table's expired rows may be such versions.
  const bool expired_drops =
      options_.compaction_filter == nullptr || !options_.compaction_filter->KeepsDeadVersions();
  EngineLatencyTimer timer(options_.engine_latency.get(), EngineEvent::kFileDrop);
  auto v = versions_.current();
  VersionEdit edit;
  uint64_t expired = 0, expired_bytes = 0, deleted = 0, deleted_bytes = 0;
  for (int level = 0; level < kNumLevels; level++) {
    for (size_t i = 0; i < v->files[level].size(); i++) {
      const FileMetaData& f = *v->files[level][i];
      const TableProperties& p = f.props;
      const std::string_view smallest = ExtractUserKey(f.smallest);
      const std::string_view largest = ExtractUserKey(f.largest);
      // Inside a range deletion: every version here is deleted and hides nothing.
      const bool covered =
          snapshots_.empty() && std::any_of(v->range_deletions.begin(), v->range_deletions.end(),
                                            [&](const RangeDeletion& d) {
                                              return p.max_sequence < d.sequence &&
                                                     d.range.Covers(smallest, largest);
                                            });
      if (covered) {
        edit.RemoveFile(level, f.number);
        deleted++;
        deleted_bytes += f.file_size;
        continue;
      }
      // Fully expired: every row dead at the expiry clock, under the expiry mode of its rows.
      const uint64_t values = p.entries - p.tombstones;
      const bool mode_allows = p.per_item_rows == 0 && p.owner_rows == 0 &&
                               (whole_file || (values > 0 && p.whole_file_rows == values));
      if (!expired_drops || p.entries == 0 || p.has_non_expiring || !mode_allows ||
          (values > 0 && p.max_expire_at > expiry_now)) {
        continue;
      }
      // No older version of these keys may surface: only files below it (and older L0 files)
      // can hold one.
      bool older = false;
      for (size_t j = i + 1; level == 0 && j < v->files[0].size() && !older; j++) {
        const FileMetaData& g = *v->files[0][j];
        older = CompareUserKeys(ExtractUserKey(g.largest), smallest) >= 0 &&
                CompareUserKeys(ExtractUserKey(g.smallest), largest) <= 0;
      }
      for (int deeper = level + 1; deeper < kNumLevels && !older; deeper++) {
        older = !v->Overlapping(deeper, smallest, largest).empty();
      }
      if (older) continue;
      // And no read may take one of its versions: a newer version of a key with a smaller
      // timestamp would surface where this file's dead one hid it from a full-grace read.
      if (NewerMinTimestamp(*v, smallest, largest, level, f.number, {}) <
          p.EffectiveMaxTimestamp()) {
        continue;
      }
      edit.RemoveFile(level, f.number);
      expired++;
      expired_bytes += f.file_size;
    }
  }
  // Range facts that no file or memtable needs any more.
  PickParams params;
  params.now_ms = clock_->NowMs();
  params.memtable_min_sequence = MemtableMinSequence();
  std::vector<RangeDeletion> retired_deletions;
  std::vector<PurgeHint> retired_hints;
  {
    // Decided on the version after this edit: files it drops need nothing.
    Version after = *v;
    for (const auto& [level, number] : edit.deleted_files()) {
      std::erase_if(after.files[level], [n = number](const auto& f) { return f->number == n; });
    }
    RetirableRangeFacts(after, params, &retired_deletions, &retired_hints);
  }
  for (const RangeDeletion& d : retired_deletions) edit.RetireRangeDeletion(d);
  for (const PurgeHint& h : retired_hints) edit.RetirePurgeHint(h);
  if (expired == 0 && deleted == 0) timer.Cancel();  // no file dropped: no event
  if (expired == 0 && deleted == 0 && retired_deletions.empty() && retired_hints.empty()) {
    return false;
  }
  Status s = ApplyEdit(&edit);
  if (!s.ok()) {
    SetBgError(s);
    return false;
  }
  v.reset();  // so the dropped files are deletable now
  stats_.files_expired_whole += expired;
  stats_.bytes_expired_whole += expired_bytes;
  stats_.files_deleted_by_range += deleted;
  stats_.bytes_deleted_by_range += deleted_bytes;
  DeleteObsoleteFiles();
  return expired > 0 || deleted > 0;
}

Status DBImpl::OpenOutputTable(const TableOptions& options, size_t region,
                               std::vector<uint64_t>* numbers,
                               std::unique_ptr<TableWriter>* writer) {
  uint64_t number;
  {
    std::lock_guard guard(mu_);
    number = versions_.NewFileNumber();
    pending_outputs_.insert(number);
  }
  numbers->push_back(number);
  TableOptions table_options = options;
  if (FileRegions::IsPrefixRegion(region)) table_options.bloom_bits_per_key = 0;
  *writer = std::make_unique<TableWriter>(fs_, dir_, table_options);
  return (*writer)->Open(number);
}

bool DBImpl::ApplyFileMoves(std::unique_lock<std::mutex>&) {
  if (!bg_error_.ok() || regions_.empty()) return false;
  std::set<uint64_t> excluded;
  for (const auto& [number, what] : damaged_tables_) excluded.insert(number);
  const std::vector<FileMove> moves = PickFileMoves(*versions_.current(), regions_, &excluded);
  if (moves.empty()) return false;
  VersionEdit edit;
  for (const FileMove& move : moves) {
    edit.RemoveFile(0, move.file->number);
    edit.AddFile(move.to_level, *move.file);
  }
  Status s = ApplyEdit(&edit);
  if (!s.ok()) {
    SetBgError(s);
    return false;
  }
  stats_.files_moved += moves.size();
  return true;
}

bool DBImpl::RunOneCompaction(std::unique_lock<std::mutex>& lock, bool manual_all, Status* result) {
  if (!bg_error_.ok()) return false;
  if (!manual_all && !compaction_error_.ok() &&
      std::chrono::steady_clock::now() < compaction_retry_at_) {
    return false;  // paused after an I/O error
  }
  PickParams params;
  params.manual_all = manual_all;
  params.purge_enabled = snapshots_.empty();
  params.now_ms = clock_->NowMs();
  params.expiry_now_ms = ExpiryNow();
  params.purge_deadline_ms = purge_deadline_ms_.load();
  params.memtable_min_sequence = MemtableMinSequence();
  params.snapshots = !snapshots_.empty();
  // Level 0 is compacted at the stop trigger at the latest: writes wait for it there.
  params.l0_compaction_trigger =
      std::min(options_.l0_compaction_trigger, options_.l0_stop_writes_trigger);
  params.level1_max_bytes = options_.level1_max_bytes;
  params.level_size_multiplier = options_.level_size_multiplier;
  params.regions = &regions_;
  std::set<uint64_t> excluded;
  std::unique_ptr<CompactionJob> job;
  ReduceContext context;
  {
    // Not held across the compaction: the inputs' files must be deletable when it ends.
    const auto version = versions_.current();
    // Damaged tables that left the tree (whole-file expiry) are forgotten.
    std::set<uint64_t> live;
    for (const auto& level : version->files) {
      for (const auto& f : level) live.insert(f->number);
    }
    std::erase_if(damaged_tables_, [&](const auto& entry) { return !live.count(entry.first); });
    for (const auto& [number, what] : damaged_tables_) excluded.insert(number);
    params.excluded = &excluded;
    job = PickCompaction(*version, params, next_compaction_file_);
    if (!job) {
      if (result != nullptr && manual_all && !damaged_tables_.empty()) {
        *result = DamagedTablesError();
      }
      return false;
    }
    std::string smallest, largest;
    JobRange(*job, &smallest, &largest);
    std::vector<uint64_t> inputs;
    for (const auto& in : job->inputs) inputs.push_back(in.second->number);
    context.snapshots.assign(snapshots_.begin(), snapshots_.end());
    context.nothing_below = job->bottommost;
    context.newer_min_timestamp =
        NewerMinTimestamp(*version, smallest, largest, job->output_level + 1, 0, inputs);
    // A range job runs when a FLUSHDB allows, not when the data says: it forgets nothing a
    // later write could depend on.
    context.forget_newest_dead = job->may_collapse;
    context.whole_history = job->may_collapse && job->bottommost && context.snapshots.empty() &&
                            !NewerDataOverlaps(*version, *job);
    // Rows expired less than the retention ago stay whole (ExpiredRetentionMs).
    context.expiry_now_ms = CompactionExpiryNow();
  }
  const std::string_view reason = job->reason;
  EngineLatencyTimer timer(options_.engine_latency.get(),
                           reason == "purge-deadline" || reason == "purge-hint"
                               ? EngineEvent::kPurgeCompaction
                               : EngineEvent::kCompaction);
  const Status s = DoCompaction(lock, job.get(), &context);
  if (result != nullptr) *result = s;
  return s.ok();
}

void DBImpl::RecordCompactionFailure(const Status& s,
                                     const std::vector<std::pair<uint64_t, Status>>& damaged) {
  stats_.compaction_errors++;
  if (!damaged.empty()) {
    std::string names;
    for (const auto& [number, what] : damaged) {
      damaged_tables_[number] = what.ToString();
      names += (names.empty() ? "" : ", ") + TableFileName(dir_, number);
      std::fprintf(stderr, "ebb storage: error: compaction found a damaged table: %s\n",
                   what.ToString().c_str());
    }
    std::fprintf(stderr,
                 "ebb storage: no compaction reads %s again, and reads of its damaged blocks "
                 "fail; writes go on (while level 0 has room, if it is there). Stop the server "
                 "and run `ebb-check --repair %s` to keep what is readable\n",
                 names.c_str(), dir_.c_str());
  } else {
    // An I/O error (a full disk, EIO): the inputs are as they were, nothing is lost. Writes go
    // on; retrying at once would fail the same way, so compactions pause, longer each time.
    constexpr std::chrono::milliseconds kFirst(1000), kLongest(30000);
    compaction_backoff_ =
        compaction_error_.ok() ? kFirst : std::min(compaction_backoff_ * 2, kLongest);
    compaction_retry_at_ = std::chrono::steady_clock::now() + compaction_backoff_;
    compaction_error_ = s;
    std::fprintf(stderr,
                 "ebb storage: warning: compaction failed: %s; its tables stay as they were and "
                 "writes go on; next try in %lld s\n",
                 s.ToString().c_str(), static_cast<long long>(compaction_backoff_.count() / 1000));
  }
  WakeStalledWriters();  // a level-0 stall may now be refused rather than waited out
}

void DBImpl::RecordCompactionSuccess() {
  if (compaction_error_.ok()) return;
  std::fprintf(stderr, "ebb storage: compactions work again (after: %s)\n",
               compaction_error_.ToString().c_str());
  compaction_error_ = Status::OK();
  compaction_backoff_ = std::chrono::milliseconds(0);
}

Status DBImpl::DamagedTablesError() const {
  std::string what;
  for (const auto& [number, found] : damaged_tables_) {
    what += (what.empty() ? "" : "; ") + found;
  }
  return Status::Corruption(what + "; stop the server and run `ebb-check --repair " + dir_ +
                            "` to keep what is readable");
}

Status DBImpl::Level0CompactionBlocked() const {
  if (!compaction_error_.ok()) return compaction_error_;
  if (damaged_tables_.empty()) return Status::OK();
  const Version& v = *versions_.current();
  if (v.files[0].empty()) return Status::OK();
  std::string smallest(ExtractUserKey(v.files[0][0]->smallest));
  std::string largest(ExtractUserKey(v.files[0][0]->largest));
  for (const auto& f : v.files[0]) {
    if (CompareUserKeys(ExtractUserKey(f->smallest), smallest) < 0) {
      smallest.assign(ExtractUserKey(f->smallest));
    }
    if (CompareUserKeys(ExtractUserKey(f->largest), largest) > 0) {
      largest.assign(ExtractUserKey(f->largest));
    }
  }
  std::vector<std::shared_ptr<const FileMetaData>> needed = v.files[0];
  for (const auto& f : v.Overlapping(1, smallest, largest)) needed.push_back(f);
  for (const auto& f : needed) {
    if (damaged_tables_.count(f->number)) {
      return Status::Corruption("level 0 cannot be compacted: " + damaged_tables_.at(f->number) +
                                "; stop the server and run `ebb-check --repair " + dir_ +
                                "` to keep what is readable");
    }
  }
  return Status::OK();
}

Status DBImpl::DoCompaction(std::unique_lock<std::mutex>& lock, CompactionJob* job,
                            ReduceContext* context) {
  const CompactionFilter* filter = options_.compaction_filter.get();
  const TableOptions table_options = MakeTableOptions(ExpiryNow());
  const int64_t window = ExpiryWindow(purge_deadline_ms_.load());
  // Outputs shorter than this are not cut for expiry: no file of a few blocks.
  const uint64_t min_cut_size =
      std::max<uint64_t>(options_.target_file_size / 128, 16 * options_.block_size);
  // A copy: holding the version would keep the inputs on disk after the compaction.
  const std::vector<RangeDeletion> range_deletions = versions_.current()->range_deletions;
  context->range_deletions = &range_deletions;
  uint64_t bytes_read = 0;
  for (const auto& in : job->inputs) bytes_read += in.second->file_size;
  std::vector<uint64_t> numbers;  // output file numbers, reserved under the lock
  lock.unlock();

  // Everything below runs without mu_: the filter may call back into the DB. Its run reads
  // through a view of what the WAL has synced, so what it drops stays dropped after a crash.
  std::unique_ptr<View> view;
  std::unique_ptr<CompactionFilter> filter_run;
  if (filter != nullptr) {
    view = NewDurableView(context->expiry_now_ms);
    if (view == nullptr) {
      lock.lock();
      return bg_error_.ok() ? Status::IOError("compaction: WAL sync failed") : bg_error_;
    }
    filter_run = filter->StartCompaction(view.get());
    if (filter_run != nullptr) filter = filter_run.get();
    context->filter = filter;
    context->filter_now_ms = view->expiry_now_ms;
  }
  std::vector<KeyRange> expired_ranges;
  context->expired_ranges = &expired_ranges;
  std::vector<std::unique_ptr<InternalIterator>> children;
  // Each input's iterator, to tell which table a read error came from (the merging iterator
  // owns them).
  std::vector<std::pair<uint64_t, const InternalIterator*>> input_iters;
  std::vector<std::pair<uint64_t, Status>> damaged;
  Status s;
  for (const auto& in : job->inputs) {
    std::unique_ptr<InternalIterator> it;
    s = table_cache_->NewIterator(*in.second, false, &it);
    if (!s.ok()) {
      if (s.IsCorruption()) damaged.emplace_back(in.second->number, s);
      break;
    }
    input_iters.emplace_back(in.second->number, it.get());
    children.push_back(std::move(it));
  }
  std::vector<FileMetaData> outputs;
  ReduceStats reduce_stats;
  std::unique_ptr<TableWriter> writer;
  OutputExpiry output_expiry;
  size_t region = 0;  // of the open output's keys
  auto finish_output = [&]() -> Status {
    if (!writer) return Status::OK();
    FileMetaData meta;
    Status fs = writer->Finish(&meta);
    writer.reset();
    output_expiry = OutputExpiry();
    if (fs.ok()) outputs.push_back(std::move(meta));
    return fs;
  };
  std::string internal_key, row;
  auto add = [&](std::string_view key, std::string_view encoded) -> Status {
    if (!writer) {
      Status os = OpenOutputTable(table_options, region, &numbers, &writer);
      if (!os.ok()) return os;
    }
    return writer->Add(key, encoded);
  };
  auto emit = [&](std::string_view user_key, const std::vector<KeyVersion>& survivors) -> Status {
    if (survivors.empty()) return Status::OK();
    // Files split only between user keys: at the target size, where the keys' region changes
    // (file_regions.h), and where the keys' expiry changes sharply, so that outputs expire
    // whole (Cassandra's time windows, Riak's whole_file mode).
    const ExpiryClass cls = ClassOf(survivors);
    const size_t key_region = regions_.RegionOf(user_key);
    if (writer && (writer->FileSize() >= options_.target_file_size || key_region != region ||
                   (writer->FileSize() >= min_cut_size && output_expiry.Differs(cls, window)))) {
      Status fs = finish_output();
      if (!fs.ok()) return fs;
    }
    region = key_region;
    output_expiry.Add(cls);
    return EmitEntries(user_key, survivors, add, &internal_key, &row);
  };
  if (s.ok()) {
    auto input = NewMergingIterator(std::move(children));
    input->SeekToFirst();
    auto reduce = [&](std::string_view user_key, std::vector<KeyVersion>* versions) {
      *versions = ReduceVersions(user_key, std::move(*versions), *context, &reduce_stats);
    };
    s = ReduceInput(input.get(), reduce, emit);
    if (s.ok()) s = finish_output();
    if (s.IsCorruption()) {
      for (const auto& [number, it] : input_iters) {
        if (it->status().IsCorruption()) damaged.emplace_back(number, it->status());
      }
      // A malformed entry behind valid checksums: which input held it is not known.
      if (damaged.empty()) {
        for (const auto& in : job->inputs) damaged.emplace_back(in.second->number, s);
      }
    }
  }
  writer.reset();
  filter_run.reset();
  view.reset();
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
    for (const RangeDeletion& d : job->retires_deletions) edit.RetireRangeDeletion(d);
    for (const PurgeHint& h : job->retires_hints) edit.RetirePurgeHint(h);
    // What lived only through the expired rows removed here is due for purge now.
    const int64_t now = clock_->NowMs();
    for (KeyRange& range : expired_ranges) edit.AddPurgeHint(PurgeHint{std::move(range), now});
    s = ApplyEdit(&edit);
    // The edit may have reached the manifest although its write or fdatasync failed: the error
    // state (set before any cleanup, as a flush does) keeps the outputs on disk until Resume
    // has written a manifest that does not name them.
    if (!s.ok()) SetBgError(s);
    if (s.ok()) {
      RecordCompactionSuccess();
      stats_.compactions++;
      stats_.compaction_bytes_read += bytes_read;
      stats_.compaction_bytes_written += bytes_written;
      stats_.expired_rows_dropped += reduce_stats.expired;
      stats_.expired_rewritten_bytes += reduce_stats.expired_bytes;
      stats_.filter_rows_dropped += reduce_stats.filtered;
      stats_.dead_versions_collected += reduce_stats.collected;
      stats_.versions_deleted += reduce_stats.deleted;
    }
  } else {
    // Writing the outputs or reading the inputs failed: nothing was changed, and the partial
    // outputs are deleted below.
    RecordCompactionFailure(s, damaged);
    if (!damaged.empty()) s = DamagedTablesError();  // names them and the way out
  }
  for (uint64_t number : numbers) pending_outputs_.erase(number);
  DeleteObsoleteFiles();
  return s;
}

}  // namespace ebb::storage
