#include "common/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

namespace ebb {
namespace {

std::string Failed(std::string what) { return what + ": " + std::strerror(errno); }

// The file a write to `path` lands in: symbolic links resolved; `path` itself if it does not
// exist yet.
std::string TargetOf(const std::string& path) {
  char resolved[PATH_MAX];
  return ::realpath(path.c_str(), resolved) != nullptr ? std::string(resolved) : path;
}

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// The target's permission bits, or 0600 for a new file.
mode_t ModeFor(const std::string& target) {
  struct stat st;
  return ::stat(target.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0600;
}

// Creates a fresh temporary file beside `target`, "<target>.tmp-<16 random hex digits>", 0600,
// with O_EXCL|O_NOFOLLOW: a file or symbolic link planted under that name is never opened, let
// alone followed; a name taken is retried with other digits. Returns the descriptor (the name
// in *name) or -1 with errno set.
int CreateTemporary(const std::string& target, std::string* name) {
  std::random_device random;
  for (int attempt = 0; attempt < 100; attempt++) {
    const uint64_t suffix = (uint64_t{random()} << 32) | random();
    char hex[17];
    std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(suffix));
    *name = target + ".tmp-" + hex;
    const int fd =
        ::open(name->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

bool WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

std::string ReplaceFileAtomically(const std::string& path, std::string_view contents) {
  const std::string target = TargetOf(path);
  const mode_t mode = ModeFor(target);
  std::string temporary;
  const int fd = CreateTemporary(target, &temporary);
  if (fd < 0) return Failed("can't create '" + temporary + "'");
  std::string error;
  if (!WriteAll(fd, contents)) {
    error = Failed("can't write '" + temporary + "'");
  } else if (::fsync(fd) != 0) {
    error = Failed("can't fsync '" + temporary + "'");
  } else if (::fchmod(fd, mode) != 0) {
    error = Failed("can't chmod '" + temporary + "'");
  }
  if (::close(fd) != 0 && error.empty()) error = Failed("can't close '" + temporary + "'");
  if (error.empty() && ::rename(temporary.c_str(), target.c_str()) != 0) {
    error = Failed("can't rename '" + temporary + "' to '" + target + "'");
  }
  if (!error.empty()) {
    ::unlink(temporary.c_str());
    return error;
  }
  const int dir = ::open(DirectoryOf(target).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return Failed("can't open the directory of '" + target + "'");
  if (::fsync(dir) != 0) error = Failed("can't fsync the directory of '" + target + "'");
  ::close(dir);
  return error;
}

}  // namespace ebb
