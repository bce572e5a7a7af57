#include "server/net/wal_turn_commit.h"

#include <gtest/gtest.h>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ebb::server {
namespace {

// A waiter that runs a function (a connection is the server's waiter).
class FunctionWaiter final : public WalTurnCommit::Waiter {
 public:
  explicit FunctionWaiter(std::function<void(const storage::Status&)> fn) : fn_(std::move(fn)) {}
  void OnCommitted(const storage::Status& status) override { fn_(status); }

 private:
  std::function<void(const storage::Status&)> fn_;
};

std::shared_ptr<WalTurnCommit::Waiter> Waiting(std::function<void(const storage::Status&)> fn) {
  return std::make_shared<FunctionWaiter>(std::move(fn));
}

// Requests made in one turn of the loop share one commit, which runs after the handlers already
// queued in that turn (the other connections' reads).
TEST(WalTurnCommitTest, RequestsOfOneTurnShareOneCommit) {
  boost::asio::io_context io;
  std::vector<std::string> events;
  WalTurnCommit commit(io, [&] {
    events.push_back("commit");
    return storage::Status::OK();
  });
  for (int i = 0; i < 3; ++i) {
    boost::asio::post(io, [&, i] {
      events.push_back("read " + std::to_string(i));
      commit.Request(Waiting([&, i](const storage::Status& s) {
        EXPECT_TRUE(s.ok());
        events.push_back("reply " + std::to_string(i));
      }));
    });
  }
  io.run();
  EXPECT_EQ(events, (std::vector<std::string>{"read 0", "read 1", "read 2", "commit", "reply 0",
                                              "reply 1", "reply 2"}));
  EXPECT_EQ(commit.commits(), 1u);
}

// A request made by a callback (a connection that read more after its reply) waits for a commit
// that begins after it.
TEST(WalTurnCommitTest, RequestFromACallbackWaitsForTheNextCommit) {
  boost::asio::io_context io;
  int commits = 0;
  WalTurnCommit commit(io, [&] {
    ++commits;
    return storage::Status::OK();
  });
  int seen_by_second = 0;
  commit.Request(Waiting([&](const storage::Status&) {
    commit.Request(Waiting([&](const storage::Status&) { seen_by_second = commits; }));
  }));
  io.run();
  EXPECT_EQ(seen_by_second, 2);
  EXPECT_EQ(commit.commits(), 2u);
}

TEST(WalTurnCommitTest, EveryCallbackSeesTheCommitsFailure) {
  boost::asio::io_context io;
  WalTurnCommit commit(io, [] { return storage::Status::IOError("disk gone"); });
  int failures = 0;
  for (int i = 0; i < 2; ++i) {
    commit.Request(Waiting([&](const storage::Status& s) {
      EXPECT_TRUE(s.IsIOError());
      EXPECT_NE(s.ToString().find("disk gone"), std::string::npos);
      ++failures;
    }));
  }
  io.run();
  EXPECT_EQ(failures, 2);
}

// With a delay, once a commit was shared, the next one waits for requests that arrive after its
// turn (other connections answering their replies); a lone writer's commit never waits.
TEST(WalTurnCommitTest, ASharedCommitWaitsTheDelayForCompanyALoneOneDoesNot) {
  boost::asio::io_context io;
  std::vector<std::string> events;
  WalTurnCommit commit(
      io,
      [&] {
        events.push_back("commit");
        return storage::Status::OK();
      },
      [] { return std::chrono::microseconds(200000); });
  auto request = [&](const std::string& name) {
    events.push_back("read " + name);
    commit.Request(
        Waiting([&, name](const storage::Status&) { events.push_back("reply " + name); }));
  };
  // Turn 1: a lone writer (no commit yet shared): commits right after its turn.
  boost::asio::post(io, [&] { request("a"); });
  boost::asio::steady_timer later(io);
  // Turn 2, after the first commit: two writers share it, still without waiting.
  later.expires_after(std::chrono::milliseconds(10));
  later.async_wait([&](const boost::system::error_code&) {
    request("b");
    request("c");
    // Turn 3: the previous commit was shared, so this one waits; "e" arrives 50 ms later, well
    // within the 200 ms delay, and joins it.
    boost::asio::post(io, [&] {
      request("d");
      later.expires_after(std::chrono::milliseconds(50));
      later.async_wait([&](const boost::system::error_code&) { request("e"); });
    });
  });
  io.run();
  EXPECT_EQ(events, (std::vector<std::string>{"read a", "commit", "reply a", "read b", "read c",
                                              "commit", "reply b", "reply c", "read d", "read e",
                                              "commit", "reply d", "reply e"}));
  EXPECT_EQ(commit.commits(), 3u);
}

}  // namespace
}  // namespace ebb::server
