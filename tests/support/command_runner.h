// CommandRunner: ebb's command layer in the test's own process — a keyspace in a fresh temporary
// directory, the command table, the dispatcher and one client — so a command-behaviour test runs
// in microseconds and needs no port, no process and no network.
//
//   CommandRunner ebb;                              // or CommandRunner ebb({"--default-ttl",
//   "1s"}) EXPECT_EQ(ebb.Do({"SET", "k", "v"}), "+OK"); EXPECT_EQ(ebb.Do({"GET", "k"}), "$v");
//   EXPECT_EQ(ebb.Cmd({"TLOG", "GET", "log"}).size(), 0u);
//
// Requests go through Dispatcher::Dispatch exactly as a connection hands them over (arity, auth,
// the DEBUG policy, the engine's error state included), with the options given as ebb-server's
// command line (enable-debug-command is yes unless given). What needs a real process stays with
// the spawned server (tests/support/test_server.h): sockets, pipelining, limits, the WAL
// write-out and group commit before replies (so MISCONF after a failed write-out), restarts of
// the process, crashes.
// Thread-safety: none; one test thread.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tests/support/reply.h"

namespace ebb::server {
class ServerContext;
}

namespace ebb::test {

class CommandRunner {
 public:
  // REQUIRES: `options` parse as ebb-server's command line (flags, no file); a failure fails
  // the test.
  explicit CommandRunner(std::vector<std::string> options = {});
  ~CommandRunner();
  CommandRunner(const CommandRunner&) = delete;
  CommandRunner& operator=(const CommandRunner&) = delete;

  // Runs one request and returns its reply's bytes (RESP2, or RESP3 after HELLO 3).
  std::string Raw(std::span<const std::string_view> args);
  std::string Raw(std::initializer_list<std::string_view> args) { return Raw(Span(args)); }
  std::string Raw(const std::vector<std::string>& args);
  // The reply as a hiredis reply (RESP2 only).
  template <typename Args>
  Reply Cmd(const Args& args) {
    return ParseResp(Raw(args));
  }
  Reply Cmd(std::initializer_list<std::string_view> args) { return ParseResp(Raw(args)); }
  // The reply on one line (tests/support/reply.h Canon).
  template <typename Args>
  std::string Do(const Args& args) {
    return Canon(Cmd(args));
  }
  std::string Do(std::initializer_list<std::string_view> args) { return Canon(Cmd(args)); }

  // Closes the keyspace and opens it again from its files (what a restart keeps), with new
  // clients; the clock stays where it is. A node hosting active-active opens it again too.
  void Reopen();

  // Hosts active-active as ebb-server does (an ActiveActive and its write planner on the
  // context), from now on and across Reopen, and enters the mode if the data is not in it yet:
  // PEER ADD of a port nothing listens on, then PEER REMOVE, so no link stays and nothing
  // connects. Deltas of other nodes come in by DEBUG PEER-APPLY; this node's own stream goes
  // to any client that sends PEER SYNC, pushed at the end of the request that logged it, each
  // request being a turn of the io loop (TakePushed). Nothing runs the io loop: ticks, snapshots
  // and links are left out.
  void HostActiveActive();

  // More clients of the same server (WATCH from one, writes from another; Pub/Sub). Client 0 is
  // the one Raw/Cmd/Do use. AddClient returns the new client's index.
  size_t AddClient();
  std::string RawAs(size_t client, std::span<const std::string_view> args);
  std::string RawAs(size_t client, std::initializer_list<std::string_view> args) {
    return RawAs(client, Span(args));
  }
  std::string DoAs(size_t client, std::initializer_list<std::string_view> args) {
    return Canon(ParseResp(RawAs(client, Span(args))));
  }
  std::string DoAs(size_t client, const std::vector<std::string>& args) {
    const std::vector<std::string_view> views(args.begin(), args.end());
    return Canon(ParseResp(RawAs(client, views)));
  }
  // The bytes pushed to a client out of band (Pub/Sub messages) since the last call.
  std::string TakePushed(size_t client);

  const std::string& data_dir() const { return data_dir_; }
  // Runs of requests that came back incomplete and were run again after reading their blocks.
  uint64_t reruns() const { return reruns_; }
  // The server state the commands run against (for tests that tune it).
  server::ServerContext& context();

 private:
  struct State;
  void Open();
  static std::span<const std::string_view> Span(std::initializer_list<std::string_view> args) {
    return {args.begin(), args.size()};
  }

  std::string root_;
  std::string data_dir_;
  std::unique_ptr<State> state_;
  uint64_t reruns_ = 0;
};

// The base of command-behaviour tests: a fresh runner per test (options from RunnerOptions()),
// and Do() (one line, Canon) and R() (as redis-cli prints it).
class CommandTest : public ::testing::Test {
 protected:
  virtual std::vector<std::string> RunnerOptions() const { return {}; }
  void SetUp() override { ebb_ = std::make_unique<CommandRunner>(RunnerOptions()); }

  std::string Do(std::initializer_list<std::string_view> args) { return ebb_->Do(args); }
  std::string Do(const std::vector<std::string>& args) { return ebb_->Do(args); }
  std::string DoAs(size_t client, std::initializer_list<std::string_view> args) {
    return ebb_->DoAs(client, args);
  }
  std::string DoAs(size_t client, const std::vector<std::string>& args) {
    return ebb_->DoAs(client, args);
  }
  std::string R(std::initializer_list<std::string_view> args) { return ebb_->Cmd(args).ToString(); }
  std::string R(const std::vector<std::string>& args) { return ebb_->Cmd(args).ToString(); }
  Reply Cmd(std::initializer_list<std::string_view> args) { return ebb_->Cmd(args); }
  Reply Cmd(const std::vector<std::string>& args) { return ebb_->Cmd(args); }
  // The messages pushed to `client` since the last call (TakePushed), one Canon each,
  // separated by spaces.
  std::string Pushed(size_t client) {
    std::string out;
    for (const Reply& r : ParseAll(ebb_->TakePushed(client))) {
      out += (out.empty() ? "" : " ") + Canon(r);
    }
    return out;
  }
  // Pins the server clock (DEBUG CLOCK SET) / moves it (DEBUG CLOCK ADVANCE).
  void PinClock(int64_t ms);
  void Advance(int64_t ms);

  std::unique_ptr<CommandRunner> ebb_;
};

}  // namespace ebb::test
