// Starting a server or a tool the test runs beside it (ebb-server, redis-server, redis-sentinel,
// prometheus) in a child process.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace ebb::test {

struct SpawnOptions {
  // Where the child's stdout and stderr go ("": the test's own).
  std::string log_path;
  bool append_log = true;  // false: the log starts empty
  // Looks argv[0] up in PATH when it holds no '/'.
  bool search_path = false;
  // Runs in the child just before exec (a resource limit); the child exits 126 when it fails.
  std::function<bool()> before_exec;
};

// Forks and execs `argv` (argv[0] the program); returns the child's pid, -1 when fork failed.
// The child closes every descriptor above stderr first: a socket the test holds (a FaultProxy's
// relay, a client connection) must end when the test closes it, not live on in a server started
// meanwhile — a peer's link would otherwise stay connected to a killed node until it timed out.
pid_t SpawnProcess(const std::vector<std::string>& argv, const SpawnOptions& options);

}  // namespace ebb::test
