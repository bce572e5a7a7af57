// TurnEndTask: a task that runs once at the end of the current turn of the io thread's event
// loop, however many times the turn asks for it. The streams a node feeds as it writes go out
// this way — the replication master's pending bytes, an active-active origin's queued deltas —
// one push per turn and receiver, not one per write.
// Example: Schedule(); Schedule(); -> the task runs once, after the handler running now.
// Thread-safety: the io thread only. The owner outlives the io loop's last turn (a task posted
// and not run when the loop stops is destroyed unrun).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <functional>
#include <utility>

namespace ebb::server {

class TurnEndTask {
 public:
  TurnEndTask(boost::asio::io_context& io, std::function<void()> task)
      : io_(io), task_(std::move(task)) {}
  TurnEndTask(const TurnEndTask&) = delete;
  TurnEndTask& operator=(const TurnEndTask&) = delete;

  // Posts the task unless it is posted and has not run yet.
  void Schedule() {
    if (posted_) return;
    posted_ = true;
    boost::asio::post(io_, [this] {
      posted_ = false;
      task_();
    });
  }

 private:
  boost::asio::io_context& io_;
  std::function<void()> task_;
  bool posted_ = false;
};

}  // namespace ebb::server
