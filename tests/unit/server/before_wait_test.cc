#include "server/net/before_wait.h"

#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ebb::server {
namespace {

class FunctionTask final : public BeforeWait::Task {
 public:
  explicit FunctionTask(std::function<bool()> fn) : fn_(std::move(fn)) {}
  bool RunBeforeWait() override { return fn_(); }

 private:
  std::function<bool()> fn_;
};

// A task runs once per turn of the loop, after the handlers queued before the turn's wait and
// before the handlers those queued (they run after the next wait).
TEST(BeforeWaitTest, ATaskRunsAfterTheTurnsHandlersBeforeTheWait) {
  boost::asio::io_context io;
  BeforeWait& before_wait = BeforeWait::Of(io);
  std::vector<std::string> events;
  FunctionTask task([&] {
    events.push_back("task");
    return false;
  });
  before_wait.Add(&task);
  boost::asio::post(io, [&] { events.push_back("h0"); });
  boost::asio::post(io, [&] {
    events.push_back("h1");
    boost::asio::post(io, [&] { events.push_back("h2"); });
  });
  io.run();
  before_wait.Remove(&task);
  EXPECT_EQ(events, (std::vector<std::string>{"task", "h0", "h1", "task", "h2"}));
}

// What a task queues runs before the loop blocks: with the io_context held busy, the loop would
// otherwise wait for an event that never comes.
TEST(BeforeWaitTest, WorkATaskLeavesRunsBeforeTheLoopBlocks) {
  boost::asio::io_context io;
  BeforeWait& before_wait = BeforeWait::Of(io);
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> busy;
  busy.emplace(io.get_executor());
  int calls = 0;
  bool handler_ran = false;
  bool third_call_saw_the_handler = false;
  FunctionTask task([&] {
    ++calls;
    if (calls == 1) {
      boost::asio::post(io, [&] { handler_ran = true; });
      return false;
    }
    if (calls == 2) return true;  // work of its own: the next wait must not block either
    third_call_saw_the_handler = handler_ran;
    busy.reset();
    return false;
  });
  before_wait.Add(&task);
  io.run();
  before_wait.Remove(&task);
  EXPECT_TRUE(handler_ran);
  EXPECT_TRUE(third_call_saw_the_handler);
  EXPECT_EQ(calls, 3);
}

TEST(BeforeWaitTest, TheSameIoContextGivesTheSameHooks) {
  boost::asio::io_context io;
  EXPECT_EQ(&BeforeWait::Of(io), &BeforeWait::Of(io));
}

TEST(BeforeWaitTest, RefusedOnceTheReactorWasMadeWithoutIt) {
  boost::asio::io_context io;
  boost::asio::steady_timer timer(io);  // makes the io_context's reactor
  EXPECT_THROW(BeforeWait::Of(io), std::logic_error);
}

}  // namespace
}  // namespace ebb::server
