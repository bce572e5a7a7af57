// FaultInjectionFileSystem: a FileSystem wrapper for tests that makes writes and syncs fail on
// demand and can simulate losing everything not yet synced (a power cut).
//
// Switches (may be flipped at any time, from any thread):
//   SetFailWrites(true): WritableFile::Append/Flush/Sync/Close return IOError("write <path>:
//     injected fault") and write nothing.
//   SetFailSyncs(true): WritableFile::Sync and FileSystem::SyncDir return
//     IOError("fdatasync <path>: injected fault") / ("fsync <dir>: injected fault").
//   SetFailFlushes(true): WritableFile::Flush/Sync/Close fail ("write <path>: ...") while Append
//     still hands bytes to the file's buffer — like a full disk, where write(2) fails only when
//     the buffer is written out.
//   SetFailDirSyncs(true): FileSystem::SyncDir alone fails ("fsync <dir>: ...").
//   SetFailNewFiles(true): NewWritableFile/NewAppendableFile return IOError("open <path>: ...")
//     and create nothing.
//   FailWritesAfterAppends(n): the next n Append calls (on any file the filter matches) succeed,
//     then SetFailWrites(true) takes effect — a fault in the middle of a record.
//   SetFaultErrno(err): the text after "<call> <path>: " is strerror(err) (e.g. ENOSPC's "No
//     space left on device") instead of "injected fault"; 0 restores "injected fault".
//   SetPathFilter(s): faults hit only paths containing s (e.g. ".log", "MANIFEST"); "" = all.
// Reads are never faulted: random-access files (direct ones too) are the base's own.
// Counters count attempted operations and injected failures.
// DropUnsyncedData() truncates every file written through this object to the size it had at its
// last successful Sync through any of its handles (0 if never synced). REQUIRES: no WritableFile of
// this object is still in use (destroy or close them first). Directory entries are not simulated:
// created files stay. Thread-safety: all methods are safe to call concurrently; file objects follow
// file.h.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "storage/env/file.h"

namespace ebb::storage {

class FaultInjectionFileSystem final : public FileSystem {
 public:
  explicit FaultInjectionFileSystem(std::shared_ptr<FileSystem> base);

  void SetFailWrites(bool fail) { fail_writes_.store(fail); }
  void SetFailSyncs(bool fail) { fail_syncs_.store(fail); }
  void SetFailFlushes(bool fail) { fail_flushes_.store(fail); }
  void SetFailDirSyncs(bool fail) { fail_dir_syncs_.store(fail); }
  void SetFailNewFiles(bool fail) { fail_new_files_.store(fail); }
  void FailWritesAfterAppends(uint64_t n) { append_budget_.store(static_cast<int64_t>(n)); }
  void SetFaultErrno(int err) { fault_errno_.store(err); }
  void SetPathFilter(std::string substring);
  bool fail_writes() const { return fail_writes_.load(); }
  bool fail_syncs() const { return fail_syncs_.load(); }

  uint64_t appends() const { return appends_.load(); }  // Append calls seen
  uint64_t syncs() const { return syncs_.load(); }      // Sync + SyncDir calls seen
  uint64_t writes_failed() const { return writes_failed_.load(); }
  uint64_t syncs_failed() const { return syncs_failed_.load(); }

  // See the header comment. Returns the first error from the base file system.
  Status DropUnsyncedData();

  Status NewWritableFile(const std::string& path, std::unique_ptr<WritableFile>* file) override;
  Status NewAppendableFile(const std::string& path, std::unique_ptr<WritableFile>* file) override;
  Status NewSequentialFile(const std::string& path, std::unique_ptr<SequentialFile>* file) override;
  Status NewRandomAccessFile(const std::string& path,
                             std::unique_ptr<RandomAccessFile>* file) override;
  Status NewDirectRandomAccessFile(const std::string& path,
                                   std::unique_ptr<RandomAccessFile>* file) override;
  bool FileExists(const std::string& path) override;
  Status GetChildren(const std::string& dir, std::vector<std::string>* names) override;
  Status GetFileSize(const std::string& path, uint64_t* size) override;
  Status RemoveFile(const std::string& path) override;
  Status RenameFile(const std::string& from, const std::string& to) override;
  Status TruncateFile(const std::string& path, uint64_t size) override;
  Status CreateDirIfMissing(const std::string& dir) override;
  Status SyncDir(const std::string& dir) override;
  Status LockFile(const std::string& path, std::unique_ptr<FileLock>* lock) override;

 private:
  friend class FaultInjectionWritableFile;

  // Hooks for the wrapped files.
  Status CheckWrite(const std::string& path);
  Status CheckAppend(const std::string& path);  // CheckWrite after the append budget
  Status CheckFlush(const std::string& path);   // CheckWrite, then the flush switch
  Status CheckSync(const std::string& path);
  Status CheckNewFile(const std::string& path);
  bool Matches(const std::string& path);
  Status Fault(std::string_view call, const std::string& path) const;
  void RecordSynced(const std::string& path, uint64_t size);
  void RecordSyncedFileSize(const std::string& path);  // after a successful sync of `path`
  void CountAppend() { appends_.fetch_add(1); }

  const std::shared_ptr<FileSystem> base_;
  std::atomic<bool> fail_writes_{false};
  std::atomic<bool> fail_syncs_{false};
  std::atomic<bool> fail_flushes_{false};
  std::atomic<bool> fail_dir_syncs_{false};
  std::atomic<bool> fail_new_files_{false};
  std::atomic<int64_t> append_budget_{-1};  // < 0: no countdown
  std::atomic<int> fault_errno_{0};
  std::atomic<uint64_t> appends_{0};
  std::atomic<uint64_t> syncs_{0};
  std::atomic<uint64_t> writes_failed_{0};
  std::atomic<uint64_t> syncs_failed_{0};

  std::mutex mu_;
  std::map<std::string, uint64_t> synced_size_;  // files written through us -> durable size
  std::string path_filter_;                      // guarded by mu_
};

}  // namespace ebb::storage
