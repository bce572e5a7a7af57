#include "storage/env/posix_file_system.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "storage/env/aligned_buffer.h"

namespace ebb::storage {
namespace {

constexpr size_t kWritableBufferSize = 64 << 10;

Status PosixError(std::string_view call, const std::string& path, int err) {
  std::string msg(call);
  msg += ' ';
  msg += path;
  msg += ": ";
  msg += std::strerror(err);
  return Status::IOError(msg);
}

class PosixWritableFile final : public WritableFile {
 public:
  PosixWritableFile(std::string path, int fd, uint64_t initial_size)
      : path_(std::move(path)),
        fd_(fd),
        size_(initial_size),
        written_(initial_size),
        zeroed_end_(initial_size) {
    buffer_.reserve(kWritableBufferSize);
  }
  ~PosixWritableFile() override {
    if (fd_ >= 0) Close();
  }

  Status Append(std::string_view data) override {
    if (fd_ < 0) return Status::IOError("append " + path_ + ": file is closed");
    size_ += data.size();
    if (buffer_.size() + data.size() <= kWritableBufferSize) {
      buffer_.append(data.data(), data.size());
      return Status::OK();
    }
    Status s = FlushBuffer();
    if (!s.ok()) return s;
    if (data.size() <= kWritableBufferSize) {
      buffer_.append(data.data(), data.size());
      return Status::OK();
    }
    return WriteUnbuffered(data);
  }

  Status Flush() override {
    if (fd_ < 0) return Status::IOError("flush " + path_ + ": file is closed");
    return FlushBuffer();
  }

  Status Sync() override {
    if (fd_ < 0) return Status::IOError("sync " + path_ + ": file is closed");
    Status s = FlushBuffer();
    if (!s.ok()) return s;
    if (::fdatasync(fd_) != 0) return PosixError("fdatasync", path_, errno);
    return Status::OK();
  }

  Status Close() override {
    if (fd_ < 0) return Status::OK();
    Status s = FlushBuffer();
    if (s.ok() && zeroed_end_ > written_ && ::ftruncate(fd_, static_cast<off_t>(written_)) != 0) {
      s = PosixError("ftruncate", path_, errno);
    }
    if (::close(fd_) != 0 && s.ok()) s = PosixError("close", path_, errno);
    fd_ = -1;
    return s;
  }

  uint64_t Size() const override { return size_; }

  void ZeroFillAhead(uint64_t chunk_bytes) override { zero_fill_chunk_ = chunk_bytes; }

 private:
  // Writes zeros over [end, end + zero_fill_chunk_) unless they are there already. The data
  // about to be written covers [written_, end); the zeros go past it with pwrite, so the file
  // offset stays where the data goes.
  void ZeroFillTo(uint64_t end) {
    static const std::string kZeros(64 << 10, '\0');
    const uint64_t from = std::max(end, zeroed_end_);
    const uint64_t to = end + zero_fill_chunk_;
    for (uint64_t at = from; at < to;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(kZeros.size(), to - at));
      const ssize_t w = ::pwrite(fd_, kZeros.data(), n, static_cast<off_t>(at));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        zero_fill_chunk_ = 0;  // plain appends from here; the zeros written so far are harmless
        return;
      }
      at += static_cast<uint64_t>(w);
      zeroed_end_ = std::max(zeroed_end_, at);
    }
  }

  Status FlushBuffer() {
    Status s = WriteUnbuffered(buffer_);
    buffer_.clear();
    return s;
  }

  Status WriteUnbuffered(std::string_view data) {
    if (zero_fill_chunk_ > 0 && written_ + data.size() > zeroed_end_) {
      ZeroFillTo(written_ + data.size());
    }
    while (!data.empty()) {
      const ssize_t n = ::write(fd_, data.data(), data.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        return PosixError("write", path_, errno);
      }
      data.remove_prefix(static_cast<size_t>(n));
      written_ += static_cast<uint64_t>(n);
    }
    return Status::OK();
  }

  const std::string path_;
  int fd_;
  uint64_t size_;        // bytes appended, buffered ones included
  uint64_t written_;     // bytes handed to the OS: the file offset
  uint64_t zeroed_end_;  // end of the zeros written ahead (ZeroFillAhead), or written_
  uint64_t zero_fill_chunk_ = 0;
  std::string buffer_;
};

class PosixSequentialFile final : public SequentialFile {
 public:
  PosixSequentialFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~PosixSequentialFile() override { ::close(fd_); }

  Status Read(size_t n, std::string_view* result, char* scratch) override {
    size_t got = 0;
    while (got < n) {
      const ssize_t r = ::read(fd_, scratch + got, n - got);
      if (r < 0) {
        if (errno == EINTR) continue;
        *result = {};
        return PosixError("read", path_, errno);
      }
      if (r == 0) break;
      got += static_cast<size_t>(r);
    }
    *result = std::string_view(scratch, got);
    return Status::OK();
  }

  Status Skip(uint64_t n) override {
    if (::lseek(fd_, static_cast<off_t>(n), SEEK_CUR) == static_cast<off_t>(-1)) {
      return PosixError("lseek", path_, errno);
    }
    return Status::OK();
  }

 private:
  const std::string path_;
  int fd_;
};

class PosixRandomAccessFile final : public RandomAccessFile {
 public:
  // `alignment` > 1: fd was opened with O_DIRECT and reads must be aligned to it.
  PosixRandomAccessFile(std::string path, int fd, size_t alignment)
      : path_(std::move(path)), fd_(fd), alignment_(alignment) {}
  ~PosixRandomAccessFile() override { ::close(fd_); }

  Status Read(uint64_t offset, size_t n, std::string_view* result, char* scratch) const override {
    const bool aligned = offset % alignment_ == 0 && n % alignment_ == 0 &&
                         reinterpret_cast<uintptr_t>(scratch) % alignment_ == 0;
    if (aligned) return ReadInto(offset, n, result, scratch);
    // O_DIRECT: read the aligned range around [offset, offset + n) into an aligned buffer.
    const uint64_t start = AlignDown(offset, alignment_);
    AlignedBuffer buffer(alignment_, static_cast<size_t>(offset - start) + n);
    std::string_view got;
    Status s = ReadInto(start, buffer.size(), &got, buffer.data());
    if (!s.ok()) {
      *result = {};
      return s;
    }
    const size_t skip = static_cast<size_t>(offset - start);
    const size_t copied = got.size() > skip ? std::min(n, got.size() - skip) : 0;
    std::memcpy(scratch, buffer.data() + skip, copied);
    *result = std::string_view(scratch, copied);
    return Status::OK();
  }

  int fd() const override { return fd_; }
  size_t alignment() const override { return alignment_; }

 private:
  // pread until n bytes or the end of the file.
  Status ReadInto(uint64_t offset, size_t n, std::string_view* result, char* scratch) const {
    size_t got = 0;
    while (got < n) {
      const ssize_t r = ::pread(fd_, scratch + got, n - got, static_cast<off_t>(offset + got));
      if (r < 0) {
        if (errno == EINTR) continue;
        *result = {};
        return PosixError("pread", path_, errno);
      }
      if (r == 0) break;
      got += static_cast<size_t>(r);
      // A direct read ends short only at the end of the file (its tail is not a whole block).
      if (alignment_ > 1 && got % alignment_ != 0) break;
    }
    *result = std::string_view(scratch, got);
    return Status::OK();
  }

  const std::string path_;
  const int fd_;
  const size_t alignment_;
};

class PosixFileLock final : public FileLock {
 public:
  explicit PosixFileLock(int fd) : fd_(fd) {}
  ~PosixFileLock() override {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }

 private:
  int fd_;
};

int OpenRetry(const std::string& path, int flags, mode_t mode = 0644) {
  int fd;
  do {
    fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

}  // namespace

Status PosixFileSystem::NewWritableFile(const std::string& path,
                                        std::unique_ptr<WritableFile>* file) {
  const int fd = OpenRetry(path, O_WRONLY | O_CREAT | O_TRUNC);
  if (fd < 0) return PosixError("open", path, errno);
  *file = std::make_unique<PosixWritableFile>(path, fd, 0);
  return Status::OK();
}

Status PosixFileSystem::NewAppendableFile(const std::string& path,
                                          std::unique_ptr<WritableFile>* file) {
  const int fd = OpenRetry(path, O_WRONLY | O_CREAT | O_APPEND);
  if (fd < 0) return PosixError("open", path, errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    Status s = PosixError("fstat", path, errno);
    ::close(fd);
    return s;
  }
  *file = std::make_unique<PosixWritableFile>(path, fd, static_cast<uint64_t>(st.st_size));
  return Status::OK();
}

Status PosixFileSystem::NewSequentialFile(const std::string& path,
                                          std::unique_ptr<SequentialFile>* file) {
  const int fd = OpenRetry(path, O_RDONLY);
  if (fd < 0) return PosixError("open", path, errno);
  *file = std::make_unique<PosixSequentialFile>(path, fd);
  return Status::OK();
}

Status PosixFileSystem::NewRandomAccessFile(const std::string& path,
                                            std::unique_ptr<RandomAccessFile>* file) {
  const int fd = OpenRetry(path, O_RDONLY);
  if (fd < 0) return PosixError("open", path, errno);
  *file = std::make_unique<PosixRandomAccessFile>(path, fd, 1);
  return Status::OK();
}

Status PosixFileSystem::NewDirectRandomAccessFile(const std::string& path,
                                                  std::unique_ptr<RandomAccessFile>* file) {
  const int fd = OpenRetry(path, O_RDONLY | O_DIRECT);
  // EINVAL: the file system does not do direct I/O (tmpfs); read through the page cache.
  if (fd < 0 && errno == EINVAL) return NewRandomAccessFile(path, file);
  if (fd < 0) return PosixError("open", path, errno);
  *file = std::make_unique<PosixRandomAccessFile>(path, fd, kDirectIoAlignment);
  return Status::OK();
}

bool PosixFileSystem::FileExists(const std::string& path) {
  return ::access(path.c_str(), F_OK) == 0;
}

Status PosixFileSystem::GetChildren(const std::string& dir, std::vector<std::string>* names) {
  names->clear();
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return PosixError("opendir", dir, errno);
  while (struct dirent* entry = ::readdir(d)) {
    const std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    names->emplace_back(name);
  }
  ::closedir(d);
  return Status::OK();
}

Status PosixFileSystem::GetFileSize(const std::string& path, uint64_t* size) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    *size = 0;
    return PosixError("stat", path, errno);
  }
  *size = static_cast<uint64_t>(st.st_size);
  return Status::OK();
}

Status PosixFileSystem::RemoveFile(const std::string& path) {
  if (::unlink(path.c_str()) != 0) return PosixError("unlink", path, errno);
  return Status::OK();
}

Status PosixFileSystem::RenameFile(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0)
    return PosixError("rename", from + " -> " + to, errno);
  return Status::OK();
}

Status PosixFileSystem::LinkFile(const std::string& from, const std::string& to) {
  if (::link(from.c_str(), to.c_str()) != 0) {
    return PosixError("link", from + " -> " + to, errno);
  }
  return Status::OK();
}

Status PosixFileSystem::TruncateFile(const std::string& path, uint64_t size) {
  if (::truncate(path.c_str(), static_cast<off_t>(size)) != 0) {
    return PosixError("truncate", path, errno);
  }
  return Status::OK();
}

Status PosixFileSystem::CreateDirIfMissing(const std::string& dir) {
  if (dir.empty()) return Status::InvalidArgument("mkdir: empty path");
  // Create each missing component, parents first.
  for (size_t pos = dir.find('/', 1);; pos = dir.find('/', pos + 1)) {
    const std::string prefix = pos == std::string::npos ? dir : dir.substr(0, pos);
    if (!prefix.empty() && ::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
      return PosixError("mkdir", prefix, errno);
    }
    if (pos == std::string::npos) break;
  }
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) return PosixError("stat", dir, errno);
  if (!S_ISDIR(st.st_mode)) return PosixError("mkdir", dir, ENOTDIR);
  return Status::OK();
}

Status PosixFileSystem::SyncDir(const std::string& dir) {
  const int fd = OpenRetry(dir, O_RDONLY | O_DIRECTORY);
  if (fd < 0) return PosixError("open", dir, errno);
  Status s;
  if (::fsync(fd) != 0) s = PosixError("fsync", dir, errno);
  ::close(fd);
  return s;
}

Status PosixFileSystem::LockFile(const std::string& path, std::unique_ptr<FileLock>* lock) {
  const int fd = OpenRetry(path, O_RDWR | O_CREAT);
  if (fd < 0) return PosixError("open", path, errno);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK) {
      return Status::Busy("flock " + path + ": locked by another process or handle");
    }
    return PosixError("flock", path, err);
  }
  *lock = std::make_unique<PosixFileLock>(fd);
  return Status::OK();
}

std::shared_ptr<FileSystem> DefaultFileSystem() {
  static const std::shared_ptr<FileSystem> fs = std::make_shared<PosixFileSystem>();
  return fs;
}

}  // namespace ebb::storage
