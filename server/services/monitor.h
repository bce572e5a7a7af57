// Monitors: the clients that ran MONITOR, and the line every command becomes for them, as
// Redis 7 feeds its monitors (replicationFeedMonitors):
//
//   +1700000000.123456 [0 127.0.0.1:51234] "SET" "k" "v"
//
// the unix time in microseconds, the database and the client's address ("lua" for a command a
// script called), then each argument quoted and escaped as Redis's sdscatrepr (\n \r \t \a \b
// \\ \" and \xHH for other bytes outside printable ASCII), secrets "(redacted)"
// (server/core/secret_args.h). The dispatcher feeds each command a client ran, each command EXEC
// ran and each command a script called, once it has run; admin commands are not shown, as in
// Redis. With no monitor the cost is one test of empty().
// A monitor stays one until it disconnects or sends RESET; it is sent the lines as pushes
// (Client::Push) after its own replies.
// Thread-safety: none; the command (io) thread only.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ebb::server {

class Client;
class ClientRegistry;
struct CommandSpec;

// The line for `args` (without the leading '+' and the line end). `origin`: the client's
// address, or "lua".
std::string MonitorLine(int64_t unix_us, int db, std::string_view origin,
                        std::span<const std::string_view> args, const std::vector<bool>& secret);

class Monitors {
 public:
  bool empty() const { return ids_.empty(); }
  bool Contains(uint64_t client_id) const;
  void Add(uint64_t client_id);
  void Remove(uint64_t client_id);

  // Sends every monitor the line of a command `client` ran (or a script of `client`, when
  // `from_script`). Monitors that have disconnected are dropped here.
  void Feed(ClientRegistry& clients, const CommandSpec& spec,
            std::span<const std::string_view> args, const Client& client, bool from_script);

 private:
  std::vector<uint64_t> ids_;
};

}  // namespace ebb::server
