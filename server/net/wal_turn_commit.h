// WalTurnCommit: commits the WAL once per turn of the event loop, for every connection whose read
// batch wrote something. The server keeps two: one that hands the WAL's buffered bytes to the OS
// (DB::FlushWal; wal-fsync everysec and no) and one that makes them durable (DB::SyncWal;
// wal-fsync always).
//
// A reply to a write must not leave before its WAL bytes reach the OS (or, under always, the
// disk). Rather than one write(2) or fdatasync per connection batch, connections Request() a
// commit; the first request of a turn posts one handler to the io_context, which runs after the
// read handlers already queued in that turn, calls `commit` once and then every callback with its
// Status. Under load dozens of connections share one write(2) or fdatasync — Redis's structure:
// it writes its AOF buffer, and under `appendfsync always` fsyncs it, once per event loop
// iteration before sending replies.
//
// Under always the event loop waits for the fdatasync, as Redis's does. A separate sync thread
// was measured slower on a 2-core machine (docs/durability.md, "Group commit"): the loop kept
// the CPUs busy while the disk flushed, which delayed the flush's completion, and connections
// answered just after a sync went out missed the next one.
// Thread-safety: the io thread only.
#pragma once

#include <boost/asio/io_context.hpp>
#include <functional>
#include <vector>

#include "storage/status.h"

namespace ebb::server {

class WalTurnCommit {
 public:
  using Callback = std::function<void(const storage::Status&)>;

  // REQUIRES: io outlives this object.
  WalTurnCommit(boost::asio::io_context& io, std::function<storage::Status()> commit)
      : io_(io), commit_(std::move(commit)) {}

  // `done` runs on the io thread, after a commit that began after this call.
  void Request(Callback done);
  uint64_t commits() const { return commits_; }

 private:
  void Run();

  boost::asio::io_context& io_;
  std::function<storage::Status()> commit_;
  std::vector<Callback> pending_;
  bool posted_ = false;
  uint64_t commits_ = 0;
};

}  // namespace ebb::server
