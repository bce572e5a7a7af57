// Dispatcher: runs one parsed request against the command table.
//
// It checks, once and in Redis 7's order (server.c processCommand), everything a handler may
// then take for granted: the command exists (else "unknown command" with Redis's truncation),
// a container's subcommand exists ("unknown subcommand ... Try CMD HELP."), the arity in Redis's
// sign convention ("wrong number of arguments for 'cmd' command", subcommands as "cmd|sub"),
// the DEBUG switch (enable-debug-command), and authentication (NOAUTH when requirepass is set,
// the client has not authenticated and the command lacks kCmdNoAuth), and disk errors: while
// the engine is in its error state (storage/db.h, "Disk faults") write commands and PING get
// "MISCONF Errors writing to the data directory: <os error>" (Redis 7's writeCommandsDenied-
// ByDiskError check); reads are served. A write command that would have to wait for the
// engine (a write stall: storage/db.h, CheckWriteStall) is not run: Dispatch returns `deferred`
// with no reply, and the connection runs it again once the engine's stall listener fires (the
// event loop never waits); one whose wait could not end (a compaction that keeps failing) is
// refused with the cause. Then it runs the handler.
// Thread-safety: none; the command (io) thread only.
#pragma once

#include <span>
#include <string_view>

namespace ebb::protocol {
class ReplyWriter;
}

namespace ebb::server {

class Client;
class ServerContext;
struct CommandSpec;

class Dispatcher {
 public:
  // REQUIRES: server outlives the dispatcher.
  explicit Dispatcher(ServerContext* server) : server_(server) {}

  struct Result {
    const CommandSpec* command = nullptr;  // the row that ran; nullptr if the request was refused
    bool is_write = false;                 // the row has kCmdWrite
    // A write stall: nothing ran and nothing was replied; run the request again later.
    bool deferred = false;
  };

  // Runs `args` (args[0] is the command name) for `client`, appending exactly one reply (or none
  // for commands that reply nothing, e.g. after QUIT closes) to `reply`.
  // REQUIRES: !args.empty().
  Result Dispatch(std::span<const std::string_view> args, Client& client,
                  protocol::ReplyWriter& reply);

 private:
  // True if the request must be refused with MISCONF (replied to `reply`); logs the first
  // refusal and the first write accepted again.
  bool RefusedForDiskError(protocol::ReplyWriter& reply);
  // For a write command: true (and *deferred, with no reply) while the engine's write stall
  // lasts; true with an error reply if the write is refused; false to run it.
  bool HeldByWriteStall(protocol::ReplyWriter& reply, bool* deferred);

  ServerContext* server_;
  bool refusing_writes_ = false;  // the last check saw the engine's error state
};

}  // namespace ebb::server
