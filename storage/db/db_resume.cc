// DBImpl's way out of the error state (db.h, "Disk faults"; db_impl.h, "Error state").
//
// Why Resume flushes instead of re-syncing: after a failed write(2) the WAL may end in a partial
// record, and after a failed fdatasync the kernel may have dropped the dirty pages and reports
// success on the next try. So Resume never trusts the old WAL again: new writes go to a new WAL,
// and every memtable is written to a table file (fsynced, directory fsynced, named by a manifest
// edit that is fsynced too). Once the edit moves the log number past the old WALs they are
// obsolete; a crash before that replays them, tolerating a torn tail in any of them.
#include <cstdio>

#include "storage/db/db_impl.h"

namespace ebb::storage {

Status DBImpl::Resume() {
  std::unique_lock lock(mu_);
  return ResumeLocked(lock);
}

Status DBImpl::ResumeLocked(std::unique_lock<std::mutex>& lock) {
  while (resuming_) done_cv_.wait(lock);
  // A compaction paused after an I/O error is tried again at once.
  if (!compaction_error_.ok()) {
    compaction_retry_at_ = std::chrono::steady_clock::now();
    bg_cv_.notify_all();
  }
  if (bg_error_.ok()) return Status::OK();
  resuming_ = true;
  const Status s = TryResume(lock);
  resuming_ = false;
  if (s.ok()) {
    std::fprintf(stderr, "ebb storage: recovered from %s; writes are accepted again\n",
                 bg_error_.ToString().c_str());
    bg_error_ = Status::OK();
    has_bg_error_ = false;
    // Every memtable went to a table file: every write so far is durable.
    NoteSynced(versions_.last_sequence());
    DeleteObsoleteFiles();  // the old WALs, unused manifests and unnamed tables
    bg_cv_.notify_all();
    flush_cv_.notify_all();
    WakeStalledWriters();
  } else {
    bg_error_ = s;  // the current cause (still an error: writes stay refused)
  }
  done_cv_.notify_all();
  return s;
}

Status DBImpl::TryResume(std::unique_lock<std::mutex>& lock) {
  Status s;
  if (manifest_broken_) {
    // The old manifest may end in a torn edit, or in one the memory does not know about.
    s = versions_.CreateNewManifest();
    if (!s.ok()) return s;
    manifest_broken_ = false;
  }
  if (log_broken_ || !mem_->empty()) {
    // The current memtable freezes with its WAL; new writes go to a fresh WAL.
    s = NewLog(/*sync_old=*/false);
    if (!s.ok()) return s;
    log_broken_ = false;
    FreezeMemtable();
  }
  // Every frozen memtable goes to a table file; the last edit moves the log number to the new
  // WAL, which makes every WAL written before the fault obsolete.
  while (!imms_.empty() && !shutting_down_) {
    if (flushing_) {
      done_cv_.wait(lock);
      continue;
    }
    s = FlushOldestImm(lock);
    if (!s.ok()) return s;
  }
  if (!imms_.empty()) return Status::IOError("resume: the DB is shutting down");
  return Status::OK();
}

std::chrono::milliseconds DBImpl::MaybeAutoResume(std::unique_lock<std::mutex>& lock) {
  constexpr std::chrono::milliseconds kRetryInterval(1000);
  if (!bg_error_.IsIOError()) return kRetryInterval;  // corruption is not a passing fault
  const auto now = std::chrono::steady_clock::now();
  if (now < next_auto_resume_) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(next_auto_resume_ - now) +
           std::chrono::milliseconds(1);
  }
  ResumeLocked(lock);
  next_auto_resume_ = std::chrono::steady_clock::now() + kRetryInterval;
  return kRetryInterval;
}

}  // namespace ebb::storage
