#include "server/net/wal_turn_commit.h"

namespace ebb::server {

WalTurnCommit::WalTurnCommit(boost::asio::io_context& io, std::function<storage::Status()> commit,
                             Delay delay)
    : io_(io),
      before_wait_(BeforeWait::Of(io)),
      commit_(std::move(commit)),
      delay_(std::move(delay)),
      timer_(io) {
  before_wait_.Add(this);
}

WalTurnCommit::~WalTurnCommit() { before_wait_.Remove(this); }

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
  due_ = true;
  if (!work_) work_.emplace(io_.get_executor());
}

bool WalTurnCommit::RunBeforeWait() {
  if (!due_) return false;
  due_ = false;
  Run();  // a waiter's new request makes the next commit due
  if (!due_) work_.reset();
  return due_;
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
