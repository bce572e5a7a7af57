// PosixFileSystem: the production FileSystem (storage/env/file.h) over POSIX calls.
//
// WritableFile buffers appends in memory (64 KiB) and hands them to write(2) on Flush or when the
// buffer fills; Sync is Flush + fdatasync. RandomAccessFile uses pread(2), SequentialFile read(2).
// NewDirectRandomAccessFile opens with O_DIRECT (alignment kDirectIoAlignment; its Read reads
// the aligned range around what is asked into an aligned buffer and copies the part asked for),
// or, where the file system refuses O_DIRECT (EINVAL: tmpfs), as NewRandomAccessFile does.
// LockFile takes flock(LOCK_EX | LOCK_NB): Busy when another holder (process or open file in this
// process) has it; the lock is released when the FileLock is destroyed. SyncDir fsyncs the
// directory so creations and renames in it survive a crash.
// Every error is Status::IOError("<call> <path>: <strerror>"), e.g.
// "write /x/000012.log: No space left on device".
// Thread-safety: as FileSystem — the file system object is shared; each file object is used by
// one thread at a time, except RandomAccessFile::Read, which may be called concurrently.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "storage/env/file.h"

namespace ebb::storage {

// The alignment of direct reads: the page size, a multiple of every common device's logical
// block size (512 or 4096 bytes).
inline constexpr size_t kDirectIoAlignment = 4096;

class PosixFileSystem final : public FileSystem {
 public:
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
  Status LinkFile(const std::string& from, const std::string& to) override;
  Status TruncateFile(const std::string& path, uint64_t size) override;
  // Creates missing parents too (like mkdir -p).
  Status CreateDirIfMissing(const std::string& dir) override;
  Status SyncDir(const std::string& dir) override;
  Status LockFile(const std::string& path, std::unique_ptr<FileLock>* lock) override;
};

}  // namespace ebb::storage
