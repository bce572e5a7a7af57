#include "server/net/wal_turn_commit.h"

#include <gtest/gtest.h>

#include <boost/asio/post.hpp>
#include <vector>

namespace ebb::server {
namespace {

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
      commit.Request([&, i](const storage::Status& s) {
        EXPECT_TRUE(s.ok());
        events.push_back("reply " + std::to_string(i));
      });
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
  commit.Request([&](const storage::Status&) {
    commit.Request([&](const storage::Status&) { seen_by_second = commits; });
  });
  io.run();
  EXPECT_EQ(seen_by_second, 2);
  EXPECT_EQ(commit.commits(), 2u);
}

TEST(WalTurnCommitTest, EveryCallbackSeesTheCommitsFailure) {
  boost::asio::io_context io;
  WalTurnCommit commit(io, [] { return storage::Status::IOError("disk gone"); });
  int failures = 0;
  for (int i = 0; i < 2; ++i) {
    commit.Request([&](const storage::Status& s) {
      EXPECT_TRUE(s.IsIOError());
      EXPECT_NE(s.ToString().find("disk gone"), std::string::npos);
      ++failures;
    });
  }
  io.run();
  EXPECT_EQ(failures, 2);
}

}  // namespace
}  // namespace ebb::server
