// The file layer: every byte the engine reads or writes goes through FileSystem.
//
// PosixFileSystem (posix_file_system.h) is the production implementation; tests wrap it to
// inject failing writes and fsyncs (issue: disk faults). Errors are Status::IOError naming the
// path and the failing call.
// Thread-safety: a FileSystem is shared by all threads; each file object is used by one thread
// at a time, except RandomAccessFile::Read, which is safe concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "storage/status.h"

namespace ebb::storage {

class WritableFile {
 public:
  virtual ~WritableFile() = default;
  virtual Status Append(std::string_view data) = 0;
  virtual Status Flush() = 0;  // hands buffered bytes to the OS
  virtual Status Sync() = 0;   // Flush, then fdatasync
  virtual Status Close() = 0;
  virtual uint64_t Size() const = 0;  // bytes appended so far

  // Keeps zeros written ahead of the appended bytes, `chunk_bytes` more each time the appends
  // reach their end, so appends overwrite blocks the file already has and an fdatasync need not
  // also commit a new file size (on ext4 that journal commit is about a third of a small
  // fdatasync). Close() cuts the unused zeros off; after a crash they remain, and LogReader reads
  // a zero-filled rest of a file as its end. 0 turns it off. If writing zeros fails, the file
  // goes back to plain appends. The default implementation ignores the hint.
  virtual void ZeroFillAhead(uint64_t chunk_bytes) { (void)chunk_bytes; }
};

class SequentialFile {
 public:
  virtual ~SequentialFile() = default;
  // Reads up to n bytes into scratch; *result views what was read (empty at end of file).
  virtual Status Read(size_t n, std::string_view* result, char* scratch) = 0;
  virtual Status Skip(uint64_t n) = 0;
};

class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;
  // Reads up to n bytes at offset; *result may point into scratch or into a mapping. Any range
  // may be asked for, whatever alignment() is.
  virtual Status Read(uint64_t offset, size_t n, std::string_view* result, char* scratch) const = 0;

  // A descriptor others may read the file through (io_uring), or -1 when every read must go
  // through Read (a file that is not one plain descriptor). Valid while the object lives.
  virtual int fd() const { return -1; }
  // 1 for a file read through the OS page cache. For a file opened for direct I/O
  // (FileSystem::NewDirectRandomAccessFile), reads through fd() must start at an offset, have a
  // length and land in a buffer that are all multiples of it (Read handles this itself).
  virtual size_t alignment() const { return 1; }
};

class FileLock {
 public:
  virtual ~FileLock() = default;
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;
  virtual Status NewWritableFile(const std::string& path, std::unique_ptr<WritableFile>* file) = 0;
  // Opens for appending at the current end (creates if missing).
  virtual Status NewAppendableFile(const std::string& path,
                                   std::unique_ptr<WritableFile>* file) = 0;
  virtual Status NewSequentialFile(const std::string& path,
                                   std::unique_ptr<SequentialFile>* file) = 0;
  virtual Status NewRandomAccessFile(const std::string& path,
                                     std::unique_ptr<RandomAccessFile>* file) = 0;
  // Like NewRandomAccessFile, but the file's reads bypass the OS page cache (O_DIRECT) where the
  // file system allows it; alignment() > 1 tells that they do. Where it does not (tmpfs), and
  // for file systems that do not implement direct I/O, the file is opened as
  // NewRandomAccessFile opens it.
  virtual Status NewDirectRandomAccessFile(const std::string& path,
                                           std::unique_ptr<RandomAccessFile>* file) {
    return NewRandomAccessFile(path, file);
  }
  virtual bool FileExists(const std::string& path) = 0;
  virtual Status GetChildren(const std::string& dir, std::vector<std::string>* names) = 0;
  virtual Status GetFileSize(const std::string& path, uint64_t* size) = 0;
  virtual Status RemoveFile(const std::string& path) = 0;
  virtual Status RenameFile(const std::string& from, const std::string& to) = 0;
  // A second name `to` for the existing file `from` (link(2)): the same bytes, no copy.
  virtual Status LinkFile(const std::string& from, const std::string& to) = 0;
  virtual Status TruncateFile(const std::string& path, uint64_t size) = 0;
  virtual Status CreateDirIfMissing(const std::string& dir) = 0;
  // fsync of the directory itself, so renames and creations in it are durable.
  virtual Status SyncDir(const std::string& dir) = 0;
  // An exclusive lock on `path` (flock); Busy if another process holds it.
  virtual Status LockFile(const std::string& path, std::unique_ptr<FileLock>* lock) = 0;
};

// The process-wide POSIX file system.
std::shared_ptr<FileSystem> DefaultFileSystem();

}  // namespace ebb::storage
