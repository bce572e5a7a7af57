#include "server/net/wal_write_out.h"

#include <boost/asio/post.hpp>

namespace ebb::server {

void WalWriteOut::Request(Callback done) {
  pending_.push_back(std::move(done));
  if (posted_) return;
  posted_ = true;
  boost::asio::post(io_, [this] { Run(); });
}

void WalWriteOut::Run() {
  posted_ = false;
  std::vector<Callback> batch;
  batch.swap(pending_);
  const storage::Status status = write_out_();
  write_outs_++;
  for (Callback& cb : batch) cb(status);
}

}  // namespace ebb::server
