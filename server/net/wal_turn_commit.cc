#include "server/net/wal_turn_commit.h"

#include <boost/asio/post.hpp>

namespace ebb::server {

void WalTurnCommit::Request(Callback done) {
  // A Run is posted or timed exactly while requests are pending: only the first one posts it.
  const bool first = pending_.empty();
  pending_.push_back(std::move(done));
  if (!first) return;
  const std::chrono::microseconds wait =
      delay_ != nullptr && last_shared_by_ >= 2 ? delay_() : std::chrono::microseconds(0);
  if (wait.count() > 0) {
    timer_.expires_after(wait);
    timer_.async_wait([this](const boost::system::error_code& ec) {
      if (ec != boost::asio::error::operation_aborted) Run();  // aborted: this is being destroyed
    });
    return;
  }
  boost::asio::post(io_, [this] { Run(); });
}

void WalTurnCommit::Run() {
  std::vector<Callback> batch;
  batch.swap(pending_);
  last_shared_by_ = batch.size();
  const storage::Status status = commit_();
  commits_++;
  for (Callback& cb : batch) cb(status);
}

}  // namespace ebb::server
