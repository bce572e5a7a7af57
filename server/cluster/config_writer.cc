#include "server/cluster/config_writer.h"

#include <spdlog/spdlog.h>

#include <utility>

#include "common/atomic_file.h"

namespace ebb::server::cluster {

ConfigWriter::ConfigWriter(std::string path) : path_(std::move(path)), thread_([this] { Run(); }) {}

ConfigWriter::~ConfigWriter() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

uint64_t ConfigWriter::Queue(std::string text) {
  pending_ = std::move(text);
  return ++queued_;
}

void ConfigWriter::Submit(std::string text) {
  {
    std::lock_guard lock(mu_);
    Queue(std::move(text));
  }
  changed_.notify_all();
}

Result<ClusterCode> ConfigWriter::Write(std::string text) {
  uint64_t number;
  {
    std::lock_guard lock(mu_);
    number = Queue(std::move(text));
  }
  changed_.notify_all();
  return WaitWritten(number);
}

Result<ClusterCode> ConfigWriter::Flush() {
  uint64_t number;
  {
    std::lock_guard lock(mu_);
    number = queued_;
  }
  return WaitWritten(number);
}

Result<ClusterCode> ConfigWriter::WaitWritten(uint64_t number) {
  std::unique_lock lock(mu_);
  changed_.wait(lock, [&] { return written_ >= number; });
  if (!last_error_.empty()) return {ClusterCode::kSaveFailed, last_error_};
  return {};
}

void ConfigWriter::Run() {
  std::unique_lock lock(mu_);
  for (;;) {
    changed_.wait(lock, [&] { return queued_ > written_ || stopping_; });
    if (queued_ == written_) return;  // stopping, and everything is written
    const uint64_t number = queued_;
    const std::string text = std::exchange(pending_, {});
    lock.unlock();
    std::string error = ReplaceFileAtomically(path_, text);
    if (!error.empty()) spdlog::warn("Could not save the cluster config file: {}", error);
    lock.lock();
    written_ = number;
    last_error_ = std::move(error);
    changed_.notify_all();
  }
}

}  // namespace ebb::server::cluster
