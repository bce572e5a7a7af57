#include "server/net/wal_turn_commit.h"

#include <boost/asio/post.hpp>

namespace ebb::server {

void WalTurnCommit::Request(std::shared_ptr<Waiter> waiter) {
  // A Run is posted or timed exactly while requests are pending: only the first one posts it.
  const bool first = pending_.empty();
  pending_.push_back(std::move(waiter));
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
  // Requests made by the waiters answered here go to pending_ (running_'s emptied buffer from
  // the previous Run) and wait for the next commit.
  running_.swap(pending_);
  last_shared_by_ = running_.size();
  const storage::Status status = commit_();
  commits_++;
  for (const std::shared_ptr<Waiter>& waiter : running_) waiter->OnCommitted(status);
  running_.clear();
}

}  // namespace ebb::server
