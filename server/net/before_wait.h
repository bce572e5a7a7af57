// BeforeWait: work the io_context's thread does each time its loop is about to collect events —
// Redis's beforeSleep.
//
// Asio's scheduler runs its reactor (the one epoll_wait of a loop pass) as a queued operation:
// the events it collects are queued ahead of it, so a handler posted while they run lands behind
// the next epoll_wait. Work that must be done once per pass after every handler of the pass —
// the WAL's write-out, whose replies wait for it — would then cost a second, non-blocking
// epoll_wait each pass. A Task added here runs instead inside the reactor's turn, right before
// its epoll_wait; when a task leaves work (a handler it queued, or work of its own it reports),
// that wait does not block.
//
// BeforeWait::Of installs, on first use, a reactor of Asio's own kind whose run calls the tasks
// first; it must come before anything else on the io_context uses its reactor (a socket, a
// timer, a signal set). It uses Asio's reactor interface (boost/asio/detail): checked against
// the Boost version it was written for. Thread-safety: the io thread only.
#pragma once

#include <boost/asio/io_context.hpp>
#include <vector>

namespace ebb::server {

class BeforeWait {
 public:
  class Task {
   public:
    // Runs on the io thread before the loop's next epoll_wait. Returns true when it left work
    // that must run before the loop blocks (the wait then only polls).
    virtual bool RunBeforeWait() = 0;

   protected:
    ~Task() = default;
  };

  // The io_context's BeforeWait, installed on first use. Throws std::logic_error when the
  // io_context's reactor was made before (the tasks would never run).
  static BeforeWait& Of(boost::asio::io_context& io);

  // REQUIRES: `task` is not added yet, and is removed before it is destroyed.
  void Add(Task* task) { tasks_.push_back(task); }
  void Remove(Task* task);

  // Runs every task; true when one left work.
  bool RunTasks();

 private:
  std::vector<Task*> tasks_;
};

}  // namespace ebb::server
