// ReplicaLink's full resynchronisation (replica.h): the snapshot bulk written into `<dir>.sync`
// as it arrives, then swapped in for the engine once no read is in flight; and the data
// directory's exchange and its recovery at start.
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <stdio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "common/wall_clock.h"
#include "server/replication/master.h"
#include "server/replication/replica.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"

namespace ebb::server {

namespace {

namespace fs = std::filesystem;

// Syncs the directory `dir` (a rename in it is then durable).
bool SyncDirectory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

std::string ParentOf(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

}  // namespace

storage::Status ExchangeDirectories(const std::string& a, const std::string& b) {
  if (::renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE) != 0) {
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) {
      return storage::Status::IOError("exchanging " + a + " and " + b + ": " + strerror(errno));
    }
    // No atomic exchange here: two renames, the first undone at start if the second never came.
    const std::string old = a + ".old";
    std::error_code ec;
    fs::remove_all(old, ec);
    if (::rename(a.c_str(), old.c_str()) != 0 || ::rename(b.c_str(), a.c_str()) != 0 ||
        ::rename(old.c_str(), b.c_str()) != 0) {
      return storage::Status::IOError("renaming " + b + " to " + a + ": " + strerror(errno));
    }
  }
  if (!SyncDirectory(ParentOf(a))) {
    return storage::Status::IOError("syncing the directory of " + a + ": " + strerror(errno));
  }
  return storage::Status::OK();
}

void RecoverDataDirectory(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  std::error_code ec;
  const std::string old = dir + ".old";
  if (!fs::exists(dir, ec) && fs::exists(old, ec)) {
    spdlog::warn("Putting back {} (a full resynchronisation was cut short)", old);
    fs::rename(old, dir, ec);
    SyncDirectory(ParentOf(dir));
  }
  for (const std::string& leftover : {dir + ".sync", old}) {
    if (fs::exists(leftover, ec)) fs::remove_all(leftover, ec);
  }
}

bool ReplicaLink::ReadSnapshot() {
  const std::string sync_dir = DataDir() + ".sync";
  if (bulk_total_ < 0) {
    while (!in_.empty() && in_.front() == '\n') in_.erase(0, 1);  // a master's keepalive
    const size_t end = in_.find("\r\n");
    if (end == std::string::npos) return true;
    const std::string line = in_.substr(0, end);
    in_.erase(0, end + 2);
    if (line.empty() || line[0] != '$') {
      Fail("Bad protocol from MASTER, the first byte is not '$': " + line);
      return false;
    }
    try {
      bulk_total_ = std::stoll(line.substr(1));
    } catch (...) {
      bulk_total_ = -1;
    }
    if (bulk_total_ < 0) {
      Fail("Bad snapshot length from MASTER: " + line);
      return false;
    }
    spdlog::info("MASTER <-> REPLICA sync: receiving {} bytes from master to disk", bulk_total_);
    std::error_code ec;
    fs::remove_all(sync_dir, ec);
    sink_ = std::make_unique<storage::SnapshotSink>(storage::DefaultFileSystem(), sync_dir);
  }
  const size_t n = std::min<uint64_t>(in_.size(), bulk_total_ - bulk_read_);
  if (n > 0) {
    storage::Status s = sink_->Feed(std::string_view(in_).substr(0, n));
    in_.erase(0, n);
    bulk_read_ += static_cast<int64_t>(n);
    if (!s.ok()) {
      Fail("Writing the snapshot to " + sync_dir + ": " + s.ToString());
      return false;
    }
  }
  if (bulk_read_ < bulk_total_) return true;
  if (!sink_->done()) {
    Fail("The snapshot ended before its last file");
    return false;
  }
  state_ = State::kLoading;
  TrySwap();
  return false;
}

void ReplicaLink::TrySwap() {
  if (state_ != State::kLoading) return;
  if (hooks_.engine_idle && !hooks_.engine_idle()) {
    // Reads in flight still hold the engine's tables: wait for them (no bytes are read
    // meanwhile; clients keep being served from the old data).
    swap_timer_.expires_after(std::chrono::milliseconds(1));
    swap_timer_.async_wait([this](const boost::system::error_code& ec) {
      if (!ec) TrySwap();
    });
    return;
  }
  Swap();
}

void ReplicaLink::Swap() {
  types::Keyspace& keyspace = context_->keyspace();
  const std::string dir = DataDir();
  const std::string sync_dir = dir + ".sync";
  spdlog::info("MASTER <-> REPLICA sync: loading the snapshot (sequence {})", sink_->sequence());
  // This server's replicas and snapshot workers go first: they read the engine.
  master_->AdoptMasterHistory(sync_replid_, sync_offset_);
  const Position position{sync_replid_, sync_offset_, sink_->sequence()};
  sink_.reset();
  // The position travels with the snapshot (and the master's function libraries in it: the
  // engine_reopened hook loads them).
  SavePosition(sync_dir, position);
  std::error_code ec;
  storage::Status swapped;
  storage::Status s = keyspace.ReopenEngine([&] { swapped = ExchangeDirectories(dir, sync_dir); });
  if (!s.ok()) {
    // The data directory is startable (whichever side of the exchange it is on), but this
    // process has no engine left to serve from.
    spdlog::critical("Failed opening the engine after a full resynchronisation: {}. Exiting.",
                     s.ToString());
    spdlog::default_logger()->flush();
    std::_Exit(1);
  }
  fs::remove_all(sync_dir, ec);  // the old data, or an unused snapshot
  if (hooks_.engine_reopened) hooks_.engine_reopened();
  // Every watched key may have changed.
  for (const auto& [key_db, key] : context_->watches().WatchedIn(-1)) {
    context_->watches().Touch(key_db, key);
  }
  if (!swapped.ok()) {
    have_history_ = false;
    Fail("Swapping in the snapshot: " + swapped.ToString());
    return;
  }
  replid_ = sync_replid_;
  offset_ = sync_offset_;
  read_offset_ = offset_ + in_.size();
  applied_sequence_ = keyspace.db().LastSequence();
  have_history_ = true;
  saved_ = position;
  state_ = State::kConnected;
  retry_delay_ = kFirstRetry;
  last_io_ms_ = WallMs();  // loading read nothing from the master
  AttachClient();
  spdlog::info("MASTER <-> REPLICA sync: Finished with success");
  if (Process()) ReadMore();
}

std::string ReplicaLink::DataDir() const {
  std::string dir = context_->keyspace().dir();
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();  // "data/" and "data" alike
  return dir;
}

}  // namespace ebb::server
