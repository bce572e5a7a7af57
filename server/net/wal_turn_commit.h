// WalTurnCommit: commits the WAL once per turn of the event loop, for every connection whose read
// batch wrote something. The server keeps two: one that hands the WAL's buffered bytes to the OS
// (DB::FlushWal; wal-fsync everysec and no) and one that makes them durable (DB::SyncWal;
// wal-fsync always).
//
// A reply to a write must not leave before its WAL bytes reach the OS (or, under always, the
// disk). Rather than one write(2) or fdatasync per connection batch, connections Request() a
// commit; the turn's commit runs once the loop has run the handlers queued in that turn (the
// read handlers of every connection ready), right before its next epoll_wait (BeforeWait), and
// calls `commit` once and then every callback with its Status. Under load dozens of connections
// share one write(2) or fdatasync — Redis's structure: it writes its AOF buffer, and under
// `appendfsync always` fsyncs it, once per event loop iteration before sending replies and
// before its one wait for events (a commit posted as a handler would run after that wait, and
// cost a second, non-blocking one each turn).
//
// A commit may wait a little for company (wal-sync-delay-us, PostgreSQL's commit_delay with
// commit_siblings 2): when the previous commit served two or more requests, the turn's commit
// runs that long after its first request instead of right after the turn; a lone writer never
// waits. Why the loop waits for the fdatasync rather than syncing on a thread of its own, and
// what each choice measured: docs/durability.md, "always — group commit".
// A request is a Waiter held by shared_ptr (a connection is one): queueing it allocates nothing
// once the queue has grown to the loop's usual number of writers, where a callback holding its
// connection would take a heap block per request. While a commit is due the io_context has work
// (its run does not return for want of it). Thread-safety: the io thread only.
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "server/net/before_wait.h"
#include "storage/status.h"

namespace ebb::server {

class WalTurnCommit final : private BeforeWait::Task {
 public:
  // What waits for a commit. The commit holds it (and so what owns it) until OnCommitted ran.
  class Waiter {
   public:
    // Runs once, on the io thread, with the commit's Status.
    virtual void OnCommitted(const storage::Status& status) = 0;

   protected:
    ~Waiter() = default;
  };

  using Delay = std::function<std::chrono::microseconds()>;

  // `delay`, when given, is asked at each turn's first request how long a commit may wait for
  // company (0: not at all). REQUIRES: io outlives this object; BeforeWait::Of(io) can be
  // installed or was (nothing made io's reactor before it).
  WalTurnCommit(boost::asio::io_context& io, std::function<storage::Status()> commit,
                Delay delay = nullptr);
  ~WalTurnCommit();
  WalTurnCommit(const WalTurnCommit&) = delete;
  WalTurnCommit& operator=(const WalTurnCommit&) = delete;

  // `waiter`'s OnCommitted runs on the io thread, after a commit that began after this call.
  // REQUIRES: waiter != nullptr.
  void Request(std::shared_ptr<Waiter> waiter);
  uint64_t commits() const { return commits_; }

 private:
  bool RunBeforeWait() override;
  void Run();

  boost::asio::io_context& io_;
  BeforeWait& before_wait_;  // before timer_: installed before anything makes io_'s reactor
  std::function<storage::Status()> commit_;
  Delay delay_;
  boost::asio::steady_timer timer_;
  // Set exactly while the pending requests wait for the loop's next BeforeWait (not the timer).
  bool due_ = false;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_;
  std::vector<std::shared_ptr<Waiter>>
      pending_;  // non-empty exactly while a Run is posted or timed
  // The waiters a Run is answering; kept, emptied, for its capacity (pending_ takes it next).
  std::vector<std::shared_ptr<Waiter>> running_;
  size_t last_shared_by_ = 0;  // requests the previous commit served
  uint64_t commits_ = 0;
};

}  // namespace ebb::server
