// The integration-test harness: a real ebb-server process per test, and small client helpers.
//
// TestServer picks a free loopback port and a fresh temporary directory, spawns EBB_SERVER_PATH
// (`--port P --dir <tmp>/data --enable-debug-command yes` + extra args) with its stdout/stderr in
// <tmp>/server.log, and waits (bounded) until PING answers. The destructor stops the server and
// removes the directory. Connect() gives a hiredis connection (RESP2: the installed hiredis has no
// RESP3 reader; use RawConnection for RESP3 and for byte-exact protocol tests).
//
// Thread-safety: none; use from the test's thread.
#pragma once

#include <hiredis/hiredis.h>
#include <sys/types.h>

#include <chrono>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ebb::test {

struct RedisContextDeleter {
  void operator()(redisContext* c) const { redisFree(c); }
};
using RedisConnection = std::unique_ptr<redisContext, RedisContextDeleter>;

// One reply (or a sub-reply of an array). Cheap to copy: copies share the parsed tree.
// A failed request (I/O error, connection closed) is a Reply with is_io_error() true.
class Reply {
 public:
  Reply() = default;
  Reply(std::shared_ptr<redisReply> root, redisReply* node, std::string io_error = {})
      : root_(std::move(root)), node_(node), io_error_(std::move(io_error)) {}

  bool is_io_error() const { return node_ == nullptr; }
  bool is_error() const { return node_ && node_->type == REDIS_REPLY_ERROR; }
  bool is_status() const { return node_ && node_->type == REDIS_REPLY_STATUS; }
  bool is_string() const { return node_ && node_->type == REDIS_REPLY_STRING; }
  bool is_integer() const { return node_ && node_->type == REDIS_REPLY_INTEGER; }
  bool is_array() const { return node_ && node_->type == REDIS_REPLY_ARRAY; }
  bool is_nil() const { return node_ && node_->type == REDIS_REPLY_NIL; }
  // The text of a status, error or bulk string reply ("" otherwise).
  std::string str() const;
  long long integer() const { return node_ ? node_->integer : 0; }
  std::vector<Reply> elements() const;
  size_t size() const { return is_array() ? node_->elements : 0; }
  Reply operator[](size_t i) const;
  // redis-cli style: "OK", "(integer) 5", "\"bulk\"", "(nil)", "(error) ERR ...", arrays as
  // "1) ...\n2) ...", "(empty array)".
  std::string ToString() const;

 private:
  std::string ToString(int indent) const;

  std::shared_ptr<redisReply> root_;
  redisReply* node_ = nullptr;
  std::string io_error_;
};

// Sends one command (binary safe, redisCommandArgv) and reads its reply.
Reply Cmd(redisContext* c, std::initializer_list<std::string_view> args);
Reply Cmd(redisContext* c, const std::vector<std::string>& args);
// Reads the next reply of a pipeline whose commands were queued with redisAppendCommandArgv.
Reply ReadReply(redisContext* c);
void Append(redisContext* c, const std::vector<std::string>& args);

// The integer value of `field` in `INFO section`, or -1 if absent.
long long InfoField(redisContext* c, const std::string& section, const std::string& field);
// Polls INFO every 20 ms until `field` reaches `want` or `timeout` passes. Returns the last value.
long long WaitInfoField(redisContext* c, const std::string& section, const std::string& field,
                        long long want,
                        std::chrono::milliseconds timeout = std::chrono::seconds(10));

// A plain TCP connection for raw bytes (inline commands, RESP3, protocol errors).
class RawConnection {
 public:
  explicit RawConnection(int port);
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
  // Reads once (waiting up to timeout_ms); false on EOF/error/timeout.
  bool ReadSome(int timeout_ms);

  int fd_ = -1;
  bool eof_ = false;
  std::string buffer_;
};

class TestServer {
 public:
  TestServer();
  ~TestServer();
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;

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
  // Waits up to timeout_ms for the process to exit on its own (e.g. after SHUTDOWN). Returns its
  // exit code, -1 if killed by a signal or not running, -2 if still running.
  int WaitExit(int timeout_ms);

  RedisConnection Connect() const;
  int port() const { return port_; }
  const std::string& dir() const { return root_; }
  const std::string& data_dir() const { return data_dir_; }
  std::string log_path() const { return root_ + "/server.log"; }
  std::string ReadLog() const;
  const std::string& error() const { return error_; }

  // A free TCP port on 127.0.0.1 (bound then released).
  static int FreePort();

 private:
  int port_ = 0;
  std::string root_;
  std::string data_dir_;
  std::vector<std::string> args_;
  pid_t pid_ = -1;
  std::string error_;
};

}  // namespace ebb::test
