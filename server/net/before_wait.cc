#include "server/net/before_wait.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "server/net/asio_epoll_reactor.h"

namespace ebb::server {
namespace {

namespace detail = boost::asio::detail;

// Asio's epoll reactor, registered as the io_context's reactor (the scheduler's task), with the
// tasks run at the start of each of its turns. The scheduler passes `ops`, its thread's private
// queue, which also receives what a handler posts on the io thread (a one-thread io_context):
// what the tasks queued there is in it when the wait starts.
class BeforeWaitReactor final : public detail::epoll_reactor {
 public:
  explicit BeforeWaitReactor(boost::asio::execution_context& context)
      : detail::epoll_reactor(context) {}

  void run(long usec, detail::op_queue<detail::operation>& ops) override {
    const bool work_left = hooks_.RunTasks();
    if (work_left || !ops.empty()) usec = 0;
    detail::epoll_reactor::run(usec, ops);
  }

  BeforeWait& hooks() { return hooks_; }

 private:
  BeforeWait hooks_;
};

}  // namespace

BeforeWait& BeforeWait::Of(boost::asio::io_context& io) {
  if (boost::asio::has_service<detail::epoll_reactor>(io)) {
    auto* reactor =
        dynamic_cast<BeforeWaitReactor*>(&boost::asio::use_service<detail::epoll_reactor>(io));
    if (reactor == nullptr) {
      throw std::logic_error("BeforeWait::Of: the io_context's reactor was made before it");
    }
    return reactor->hooks();
  }
  auto reactor = std::make_unique<BeforeWaitReactor>(io);
  BeforeWait& hooks = reactor->hooks();
  boost::asio::add_service<detail::epoll_reactor>(io, reactor.get());
  // The scheduler runs its reactor from now on, also when nothing but posted handlers uses it.
  reactor.release()->init_task();  // the io_context owns it now
  return hooks;
}

void BeforeWait::Remove(Task* task) {
  tasks_.erase(std::remove(tasks_.begin(), tasks_.end(), task), tasks_.end());
}

bool BeforeWait::RunTasks() {
  bool work_left = false;
  // By index: a task may add another (none removes one while running).
  for (size_t i = 0; i < tasks_.size(); ++i) work_left |= tasks_[i]->RunBeforeWait();
  return work_left;
}

}  // namespace ebb::server
