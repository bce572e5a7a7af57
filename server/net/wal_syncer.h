// WalSyncer: the group-commit thread for `wal-fsync always`.
//
// Connections whose read batch wrote something call Request() with a callback; the syncer's one
// thread calls `sync` (DB::SyncWal) once for every request queued before that call started, then
// posts each callback to the io_context with the Status. Requests arriving during a sync wait for
// the next one, so a callback runs only after a sync that began after its writes returned —
// many connections' writes share one fdatasync and the event loop never waits for the disk.
// Thread-safety: Request() from the io thread (or any thread); Stop() once, from the owner.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "storage/status.h"

namespace ebb::server {

class WalSyncer {
 public:
  using Callback = std::function<void(const storage::Status&)>;

  // REQUIRES: io outlives the syncer; sync is thread-safe.
  WalSyncer(boost::asio::io_context& io, std::function<storage::Status()> sync);
  ~WalSyncer();  // Stop()s

  // Queues `done` to run on the io_context after the next sync completes.
  void Request(Callback done);
  // Runs the syncs already requested, then ends the thread. Idempotent.
  void Stop();
  uint64_t syncs() const { return syncs_; }

 private:
  void Run();

  boost::asio::io_context& io_;
  std::function<storage::Status()> sync_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Callback> pending_;  // guarded by mu_
  bool stopping_ = false;          // guarded by mu_
  std::atomic<uint64_t> syncs_{0};
  std::thread thread_;
};

}  // namespace ebb::server
