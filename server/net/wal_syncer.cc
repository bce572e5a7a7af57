#include "server/net/wal_syncer.h"

#include <boost/asio/post.hpp>

namespace ebb::server {

WalSyncer::WalSyncer(boost::asio::io_context& io, std::function<storage::Status()> sync)
    : io_(io), sync_(std::move(sync)), thread_([this] { Run(); }) {}

WalSyncer::~WalSyncer() { Stop(); }

void WalSyncer::Request(Callback done) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.push_back(std::move(done));
  }
  cv_.notify_one();
}

void WalSyncer::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void WalSyncer::Run() {
  while (true) {
    std::vector<Callback> batch;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !pending_.empty(); });
      if (pending_.empty()) return;  // stopping and nothing left
      batch.swap(pending_);
    }
    storage::Status status = sync_();
    syncs_++;
    // One handler for the whole batch: one queue operation (and at most one wake-up of the io
    // thread) per sync, however many connections it covers.
    boost::asio::post(io_, [batch = std::move(batch), status]() mutable {
      for (Callback& cb : batch) cb(status);
    });
  }
}

}  // namespace ebb::server
