// DBImpl::Checkpoint: the DB as of one sequence number, as hard links and a manifest in another
// directory — what a replication master sends a replica for a full resynchronisation
// (docs/replication.md, "Full resynchronisation: the snapshot").
#include "storage/db/db_impl.h"
#include "storage/db/filename.h"
#include "storage/wal/log_writer.h"

namespace ebb::storage {

Status DBImpl::Checkpoint(const std::string& dir, uint64_t* sequence,
                          std::vector<std::string>* files) {
  files->clear();
  // Everything written so far goes to table files; writes made meanwhile land in the new
  // memtable and are left out below.
  Status s = FlushMemtable();
  if (!s.ok()) return s;
  std::shared_ptr<const Version> version;
  VersionEdit snapshot;
  uint64_t manifest_number = 0;
  {
    std::unique_lock lock(mu_);
    // A frozen memtable may have come since (the active one filled up): the tables must hold
    // every write below the active memtable's, and every range deletion in the version must be
    // at or below the cut, which holds once no frozen memtable is left (a range deletion
    // freezes the memtable before it takes its sequence).
    while (!imms_.empty() && bg_error_.ok() && !shutting_down_) {
      flush_cv_.notify_one();
      done_cv_.wait(lock);
    }
    if (!bg_error_.ok()) return bg_error_;
    if (shutting_down_) return Status::Busy("checkpoint: the DB is closing");
    *sequence = mem_->empty() ? versions_.last_sequence() : mem_->min_sequence() - 1;
    version = versions_.current();
    for (int level = 0; level < kNumLevels; level++) {
      for (const auto& f : version->files[level]) snapshot.AddFile(level, *f);
    }
    for (const RangeDeletion& d : version->range_deletions) snapshot.AddRangeDeletion(d);
    for (const PurgeHint& h : version->purge_hints) snapshot.AddPurgeHint(h);
    if (auto frozen_at = versions_.expiry_frozen_at()) snapshot.SetExpiryFrozenAt(*frozen_at);
    manifest_number = versions_.NewFileNumber();
    // No WAL belongs to the checkpoint: every log number below this one is obsolete there.
    snapshot.SetLogNumber(manifest_number + 1);
    snapshot.SetNextFileNumber(manifest_number + 2);
    snapshot.SetLastSequence(*sequence);
  }
  // `version` keeps its files on disk until each is linked; a link keeps it from then on.
  s = fs_->CreateDirIfMissing(dir);
  for (int level = 0; level < kNumLevels && s.ok(); level++) {
    for (const auto& f : version->files[level]) {
      const std::string name = BaseName(TableFileName(dir_, f->number));
      s = fs_->LinkFile(TableFileName(dir_, f->number), dir + "/" + name);
      if (!s.ok()) break;
      files->push_back(name);
    }
  }
  if (!s.ok()) return s;
  std::unique_ptr<LogWriter> manifest;
  s = WriteManifest(*fs_, dir, manifest_number, snapshot, &manifest);
  if (!s.ok()) return s;
  manifest->Close();
  files->push_back(BaseName(ManifestFileName(dir, manifest_number)));
  files->push_back(BaseName(CurrentFileName(dir)));
  return Status::OK();
}

}  // namespace ebb::storage
