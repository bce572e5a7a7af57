// WalWriteOut: hands the WAL's buffered bytes to the OS once per turn of the event loop, for
// every connection whose read batch wrote something (wal-fsync everysec and no).
//
// A reply to a write must not leave before the write's WAL bytes reach the OS, or a crash of
// the process could lose an acknowledged write. Rather than one write(2) per connection batch,
// connections Request() a write-out; the first request of a turn posts one handler to the
// io_context, which runs after the read handlers already queued in that turn, calls `write_out`
// (DB::FlushWal) once and then every callback with its Status. Under load this turns dozens of
// write(2) calls into one, the way Redis writes its AOF buffer once per event loop iteration.
// Thread-safety: the io thread only.
#pragma once

#include <boost/asio/io_context.hpp>
#include <functional>
#include <vector>

#include "storage/status.h"

namespace ebb::server {

class WalWriteOut {
 public:
  using Callback = std::function<void(const storage::Status&)>;

  // REQUIRES: io outlives this object.
  WalWriteOut(boost::asio::io_context& io, std::function<storage::Status()> write_out)
      : io_(io), write_out_(std::move(write_out)) {}

  // `done` runs on the io thread, after a write-out that began after this call.
  void Request(Callback done);
  uint64_t write_outs() const { return write_outs_; }

 private:
  void Run();

  boost::asio::io_context& io_;
  std::function<storage::Status()> write_out_;
  std::vector<Callback> pending_;
  bool posted_ = false;
  uint64_t write_outs_ = 0;
};

}  // namespace ebb::server
