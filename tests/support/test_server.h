// The spawned-server harness: a real ebb-server process per test, and small client helpers.
//
// TestServer picks a free loopback port and a fresh temporary directory, spawns EBB_SERVER_PATH
// (a leading config file among the extra args first, as redis-server reads it, then `--port P
// --dir <tmp>/data --enable-debug-command yes` and the other extra args) with its stdout/stderr in
// <tmp>/server.log, and waits (bounded) until PING answers. The destructor stops the server and
// removes the directory. Connect() gives a hiredis connection (RESP2: the installed hiredis has no
// RESP3 reader; use RawConnection for RESP3 and for byte-exact protocol tests).
//
// Thread-safety: none; use from the test's thread.
#pragma once

#include <gtest/gtest.h>
#include <hiredis/hiredis.h>
#include <sys/types.h>

#include <chrono>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tests/support/reply.h"

namespace ebb::test {

// Sends one command (binary safe, redisCommandArgv) and reads its reply.
Reply Cmd(redisContext* c, std::initializer_list<std::string_view> args);
Reply Cmd(redisContext* c, const std::vector<std::string>& args);
// Reads the next reply of a pipeline whose commands were queued with redisAppendCommandArgv.
Reply ReadReply(redisContext* c);
void Append(redisContext* c, const std::vector<std::string>& args);

// Makes room for `fds` descriptors in this process (and in the servers it spawns, which inherit
// the limit): raises the soft limit up to the hard one. False if the hard limit is too low.
bool EnsureFileLimit(uint64_t fds);

// Runs `command` with sh (stderr joined to stdout); returns its output, *status as pclose's.
std::string Shell(const std::string& command, int* status);
// The non-empty lines of `text` (a command's output or a CLUSTER NODES reply), without their
// line ends.
std::vector<std::string> Lines(const std::string& text);

// The integer value of `field` in `INFO section`, or -1 if absent.
long long InfoField(redisContext* c, const std::string& section, const std::string& field);
// The text of `field` in `INFO section` ("" if absent).
std::string InfoText(redisContext* c, const std::string& section, const std::string& field);
// Polls (every 10 ms, for up to 10 s) until `replica`'s link is up and it has applied every
// replication stream byte `master` had produced when called (INFO's slave_repl_offset against
// master_repl_offset; the master's pings may add bytes meanwhile). "" once it has, else what it
// saw last.
std::string WaitCaughtUp(redisContext* replica, redisContext* master);
// A digest command's reply ("" on an error): DEBUG DIGEST (Digest) or any other that reads the
// whole keyspace (DEBUG DIGEST-LOGICAL). Such a command can take longer than Connect()'s 5 s
// reply timeout under a sanitizer on a busy machine (DEBUG DIGEST compacts the engine first; a
// node applying a snapshot answers after it), and a reply that times out leaves the connection
// unusable: the call waits up to 120 s, and the connection's timeout is 5 s again after it.
std::string DigestReply(redisContext* c, const std::vector<std::string>& command);
std::string Digest(redisContext* c);
// Whether a regular file directly in `dir` holds `needle` byte for byte (a purged value's bytes
// must be in none of a data directory's files).
bool DirContains(const std::string& dir, const std::string& needle);
// Polls INFO every 20 ms until `field` reaches `want` or `timeout` passes. Returns the last value.
long long WaitInfoField(redisContext* c, const std::string& section, const std::string& field,
                        long long want,
                        std::chrono::milliseconds timeout = std::chrono::seconds(10));

// A plain TCP connection for raw bytes (inline commands, RESP3, protocol errors).
class RawConnection {
 public:
  explicit RawConnection(int port);
  // The next connection `listen_fd` accepts within `timeout_ms` (null when none came): the test
  // as the server side, e.g. a peer the server under test connects to.
  static std::unique_ptr<RawConnection> Accept(int listen_fd, int timeout_ms = 10000);
  ~RawConnection();
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool connected() const { return fd_ >= 0; }
  bool Send(std::string_view bytes);
  // Reads until `n` bytes are buffered, the peer closes, or `timeout_ms` passes; returns and
  // removes up to `n` buffered bytes.
  std::string ReadExactly(size_t n, int timeout_ms = 5000);
  // Reads until the buffered bytes contain `needle` (returns through its end), or the peer
  // closes / time runs out (returns everything buffered).
  std::string ReadUntil(std::string_view needle, int timeout_ms = 5000);
  // True when the peer has closed the connection (reads EOF or reset) within `timeout_ms`;
  // bytes read meanwhile are discarded.
  bool WaitClosed(int timeout_ms = 5000);
  int fd() const { return fd_; }

 private:
  RawConnection() = default;
  // Reads once (waiting up to timeout_ms); false on EOF/error/timeout.
  bool ReadSome(int timeout_ms);

  int fd_ = -1;
  bool eof_ = false;
  std::string buffer_;
};

// A TCP socket bound to a free port on 127.0.0.1 and not listening, so a connection to it is
// refused: its descriptor (-1 on failure; the caller closes it), the port in *port (0 on
// failure). No test process on the machine, this one or another, was handed the port in the last
// ten minutes (a file they share under flock: <tmp>/ebb-test-ports).
int BindFreeLoopbackPort(int* port);

// A socket listening on a free loopback port (BindFreeLoopbackPort), closed with it: the test as
// a server the server under test connects to (a peer, a cluster bus node).
class LoopbackListener {
 public:
  LoopbackListener();
  ~LoopbackListener();
  LoopbackListener(const LoopbackListener&) = delete;
  LoopbackListener& operator=(const LoopbackListener&) = delete;

  int port() const { return port_; }
  bool listening() const { return listening_; }
  // The next connection within `timeout_ms` (null when none came: RawConnection::Accept).
  std::unique_ptr<RawConnection> Accept(int timeout_ms = 10000) const;

 private:
  int port_ = 0;
  int fd_ = -1;
  bool listening_ = false;
};

class TestServer {
 public:
  TestServer();
  ~TestServer();
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;

  // Starts the server (from the next Start on) with RLIMIT_NOFILE's soft and hard limits at `n`
  // and without the privilege to raise them (CAP_SYS_RESOURCE dropped), as `ulimit -n n` does for
  // an unprivileged service. 0: inherit this process's limits.
  void set_open_files_limit(uint64_t n) { open_files_limit_ = n; }

  // Spawns the server and waits up to ~10 s for PING. Returns false (with the log tail in
  // error()) if it exits or never answers.
  bool Start(std::vector<std::string> extra_args = {});
  // SIGTERM, wait up to ~10 s, then SIGKILL. Returns the exit code (or -1 if killed/not running).
  int Stop();
  // SIGKILL, then reap.
  void Kill();
  // Stop() then Start() with the same port, directory and arguments.
  bool Restart();
  // True while the child process has not exited.
  bool Running();
  // The exit code of a process Running() found exited (a Start that failed because the server
  // exited during startup): -1 if killed by a signal, or when Running() has not found one.
  int exit_code() const { return exit_code_; }
  // Waits up to timeout_ms for the process to exit on its own (e.g. after SHUTDOWN). Returns its
  // exit code, -1 if killed by a signal or not running, -2 if still running.
  int WaitExit(int timeout_ms);

  RedisConnection Connect() const;
  // The server's client port: held bound (not listening, so a connection to it is refused)
  // whenever the server is not running, that no other socket takes it meanwhile — a prober's
  // bind, or an outgoing connection where the port lies in the kernel's ephemeral range.
  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  const std::string& dir() const { return root_; }
  const std::string& data_dir() const { return data_dir_; }
  std::string log_path() const { return root_ + "/server.log"; }
  std::string ReadLog() const;
  const std::string& error() const { return error_; }

  // A free TCP port on 127.0.0.1 (bound then released: BindFreeLoopbackPort).
  static int FreePort();

 private:
  // The server's process is gone (reaped, or never to be waited for again): no pid, and
  // reserved_fd_ bound to port_ again (best effort).
  void Reaped();
  void ReleasePort();

  int port_ = 0;
  int reserved_fd_ = -1;
  std::string root_;
  std::string data_dir_;
  std::vector<std::string> args_;
  pid_t pid_ = -1;
  int exit_code_ = -1;
  uint64_t open_files_limit_ = 0;
  std::string error_;
};

// The end of each server's log (its last 3000 bytes), headed by its index in `servers`: what a
// failing test of several servers prints.
std::string LogTails(const std::vector<std::unique_ptr<TestServer>>& servers);

// How many times `what` occurs in `text` (a nemesis counts the actions of its schedule).
size_t CountOccurrences(std::string_view text, std::string_view what);

// The base of integration tests: one spawned server per test (arguments from ServerArgs()), a
// hiredis connection, and Do() (one line, Canon) and R() (as redis-cli prints it).
// A suite whose tests each need other arguments overrides SetUp to do nothing and calls Start.
class ServerTest : public ::testing::Test {
 protected:
  virtual std::vector<std::string> ServerArgs() const { return {}; }
  void SetUp() override { Start(ServerArgs()); }
  void Start(std::vector<std::string> args) {
    ASSERT_TRUE(server_.Start(std::move(args))) << server_.error();
    Reconnect();
  }
  void Reconnect() {
    conn_ = server_.Connect();
    ASSERT_TRUE(conn_ != nullptr);
  }
  // Stops the server, starts it again on its data and reconnects.
  void Restart() {
    ASSERT_TRUE(server_.Restart()) << server_.error();
    Reconnect();
  }
  std::string Do(const std::vector<std::string>& args) { return Canon(Cmd(conn_.get(), args)); }
  std::string R(const std::vector<std::string>& args) { return Cmd(conn_.get(), args).ToString(); }

  TestServer server_;
  RedisConnection conn_;
};

}  // namespace ebb::test
