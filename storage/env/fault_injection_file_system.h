// FaultInjectionFileSystem: a FileSystem wrapper for tests (and for a server started with
// enable-debug-command, behind DEBUG DISK-FAULT and DEBUG POWER-CUT) that makes writes and syncs
// fail on demand and can simulate a power cut: losing everything not yet made durable.
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
//   SetMaxFileBytes(n): an Append that would take a file past n bytes (on a path the filter
//     matches) fails with the fault ("write <path>: ..."): a disk with room for small files
//     only. 0 = no limit.
//   SetHoldNewFiles(s): creating a file whose path contains s (e.g. ".sst") waits until the
//     hold is lifted (SetHoldNewFiles("")) or the file system freezes — a disk too slow to keep
//     up, which holds flushes and compactions. Independent of the path filter.
// Reads are never faulted: random-access files (direct ones too) are the base's own.
// Counters count attempted operations and injected failures.
//
// What is durable. For each file written through this object it tracks the bytes handed to the
// OS (a writing handle's size at its last successful Flush, Sync or Close) and the bytes made
// durable (those handed to the OS when any handle of the file last synced successfully: an
// fdatasync covers every byte the OS has, whichever handle wrote it). What a file held before
// this object first opened it counts as durable. For each directory it tracks the files created
// and the renames made since its last successful SyncDir.
//
// Power cuts.
//   Freeze(): from its return on, every call that would change a file or a directory (appends,
//     flushes, syncs, closes, creations, renames, removals, truncations, directory fsyncs) fails
//     with IOError("<call> <path>: power cut") — nothing more reaches the disk. It waits for
//     such calls already under way. Thaw() ends it.
//   DropUnsyncedData(options) makes the files what the disk would hold after the power failed:
//     every file is cut back to its durable bytes — or, with torn_pages, each 4 KiB page written
//     since then survives with probability 1/2 (seeded) and the lost ones read as zeros, as when
//     a disk persists a write's pages out of order; with directory_entries, the renames and file
//     creations not covered by a directory fsync are undone. Then everything on disk counts as
//     durable again. DropUnsyncedData() is the plain cut (no torn pages, directory entries kept).
//     REQUIRES: no WritableFile of this object is written meanwhile (Freeze first, or destroy
//     them); a destroyed PosixWritableFile writes its buffer out on the way (below this layer),
//     which the drop then removes like any other unsynced byte. Removed files stay removed.
// Thread-safety: all methods are safe to call concurrently; file objects follow file.h.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
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
  void SetMaxFileBytes(uint64_t n) { max_file_bytes_.store(n); }
  void SetFaultErrno(int err) { fault_errno_.store(err); }
  void SetPathFilter(std::string substring);
  void SetHoldNewFiles(std::string substring);
  // Creations waiting in a hold now.
  int held_creations() const;
  bool fail_writes() const { return fail_writes_.load(); }
  bool fail_syncs() const { return fail_syncs_.load(); }

  uint64_t appends() const { return appends_.load(); }  // Append calls seen
  uint64_t syncs() const { return syncs_.load(); }      // Sync + SyncDir calls seen
  uint64_t writes_failed() const { return writes_failed_.load(); }
  uint64_t syncs_failed() const { return syncs_failed_.load(); }

  void Freeze();
  void Thaw();
  bool frozen() const { return frozen_.load(); }

  struct DropOptions {
    bool torn_pages = false;  // keep a seeded half of the unsynced pages, zero the rest
    uint64_t seed = 0;
    bool directory_entries = false;  // undo creations and renames no SyncDir covered
  };
  // See the header comment. Returns the first error from the base file system.
  Status DropUnsyncedData(const DropOptions& options);
  Status DropUnsyncedData() { return DropUnsyncedData(DropOptions()); }
  // What the last drop did: bytes cut or zeroed, files removed, renames undone.
  struct DropReport {
    uint64_t bytes_lost = 0;
    uint64_t files_removed = 0;
    uint64_t renames_undone = 0;
  };
  DropReport last_drop() const;

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
  // Faults as the others; a power cut does not undo links (only checkpoints make them, and a
  // checkpoint is never read after a crash).
  Status LinkFile(const std::string& from, const std::string& to) override;
  Status TruncateFile(const std::string& path, uint64_t size) override;
  Status CreateDirIfMissing(const std::string& dir) override;
  Status SyncDir(const std::string& dir) override;
  Status LockFile(const std::string& path, std::unique_ptr<FileLock>* lock) override;

 private:
  friend class FaultInjectionWritableFile;

  // Durability of one file written through this object.
  struct FileState {
    uint64_t handed_to_os = 0;  // bytes written out by a writing handle
    uint64_t durable = 0;
  };
  // A change to a directory not yet covered by its fsync.
  struct DirEntryChange {
    std::string created;                   // a new file, or
    std::string renamed_from, renamed_to;  // a rename...
    std::optional<std::string> replaced;   // ...over a file that held this
  };

  // Hooks for the wrapped files. Check* return the injected fault, if any.
  Status CheckWrite(const std::string& path);
  // CheckWrite after the append budget and the file size limit (`size_after`: the file's
  // size once the append is done).
  Status CheckAppend(const std::string& path, uint64_t size_after);
  Status CheckFlush(const std::string& path);  // CheckWrite, then the flush switch
  Status CheckSync(const std::string& path);
  Status CheckNewFile(const std::string& path);
  void WaitWhileHeld(const std::string& path);
  // NewWritableFile (truncating) or NewAppendableFile, with the checks and the bookkeeping.
  Status OpenForWriting(const std::string& path, bool append, std::unique_ptr<WritableFile>* file);
  // A shared hold that keeps Freeze from returning while a change is under way, or nullopt
  // (with *s set to the power-cut error) when frozen.
  std::optional<std::shared_lock<std::shared_mutex>> HoldUnfrozen(std::string_view call,
                                                                  const std::string& path,
                                                                  Status* s);
  bool Matches(const std::string& path);
  Status Fault(std::string_view call, const std::string& path) const;
  void RecordHandedToOs(const std::string& path, uint64_t size);
  void RecordDurable(const std::string& path);  // after a successful sync of `path`
  void CountAppend() { appends_.fetch_add(1); }
  static std::string DirOf(const std::string& path);
  // One file's unsynced bytes: cut, or (torn_pages) a seeded half of its pages kept.
  Status DropFileData(const std::string& path, uint64_t durable, const DropOptions& options,
                      DropReport* report);
  Status UndoDirectoryEntries(DropReport* report);

  const std::shared_ptr<FileSystem> base_;
  std::atomic<bool> fail_writes_{false};
  std::atomic<bool> fail_syncs_{false};
  std::atomic<bool> fail_flushes_{false};
  std::atomic<bool> fail_dir_syncs_{false};
  std::atomic<bool> fail_new_files_{false};
  std::atomic<int64_t> append_budget_{-1};   // < 0: no countdown
  std::atomic<uint64_t> max_file_bytes_{0};  // 0: no limit
  std::atomic<int> fault_errno_{0};
  std::atomic<uint64_t> appends_{0};
  std::atomic<uint64_t> syncs_{0};
  std::atomic<uint64_t> writes_failed_{0};
  std::atomic<uint64_t> syncs_failed_{0};
  std::atomic<bool> frozen_{false};
  std::shared_mutex freeze_mu_;  // shared by changes under way; Freeze takes it exclusively

  mutable std::mutex mu_;
  std::map<std::string, FileState> files_;                      // by path
  std::map<std::string, std::vector<DirEntryChange>> dir_log_;  // by directory
  std::string path_filter_;
  std::string hold_new_files_;       // "" : no hold
  std::condition_variable hold_cv_;  // signalled when the hold is lifted or on Freeze
  int held_creations_ = 0;
  DropReport last_drop_;
};

}  // namespace ebb::storage
