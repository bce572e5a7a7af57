#include "server/net/wal_turn_commit.h"

#include <boost/asio/post.hpp>

namespace ebb::server {

void WalTurnCommit::Request(Callback done) {
  pending_.push_back(std::move(done));
  if (posted_) return;
  posted_ = true;
  boost::asio::post(io_, [this] { Run(); });
}

void WalTurnCommit::Run() {
  posted_ = false;
  std::vector<Callback> batch;
  batch.swap(pending_);
  const storage::Status status = commit_();
  commits_++;
  for (Callback& cb : batch) cb(status);
}

}  // namespace ebb::server
