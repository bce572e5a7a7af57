// WritePlanner: a mode that decides how a client's write runs, asked by the dispatcher after
// every check passed and before the handler runs (active-active: a write runs in its canonical
// form inside a keyspace batch that also logs it for the peers, or is refused;
// server/active_active/active_active.h, PlanLocalWrite).
//
// The dispatcher owns this interface and the run of each plan (Dispatcher::RoutePlannedWrite);
// the mode implements it from the layer above, and the server installs it on the ServerContext
// (set_write_planner) where it makes the mode. One plan is in flight at a time: Plan makes it,
// RunHere and Finish complete it, the next Plan replaces it (a plan whose run came back
// incomplete is dropped so).
// Thread-safety: none; the command (io) thread only.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "storage/status.h"

namespace ebb::protocol {
class ReplyWriter;
}

namespace ebb::server {

class Client;
struct CommandSpec;

class WritePlanner {
 public:
  // What to do with one client request.
  enum class Kind {
    kPass,      // none of the mode's concern: run it as usual
    kRefuse,    // reply `error`
    kReplyOk,   // nothing to write: +OK
    kRun,       // run `args` (the canonical form) in a keyspace batch, then Finish
    kValidate,  // run the original request only to get its error; any success is refused
    kRunHere,   // RunHere runs it in a keyspace batch, then Finish
  };
  struct Plan {
    Kind kind = Kind::kPass;
    std::string_view error;                  // kRefuse; valid until the next Plan
    std::span<const std::string_view> args;  // kRun; valid until the next Plan
  };

  virtual ~WritePlanner() = default;

  // True while the mode is on; the dispatcher asks nothing else of a planner that is off.
  virtual bool enabled() const = 0;
  // Plans `args` (checked by the dispatcher) on `spec` for `client`; `first_arg` is the index of
  // the first argument after the name(s), as a handler sees it.
  virtual Plan PlanWrite(const CommandSpec& spec, size_t first_arg,
                         std::span<const std::string_view> args, const Client& client) = 0;
  // Runs a kRunHere plan inside the open keyspace batch, answering `client` into `reply`. False:
  // nothing to log.
  virtual bool RunHere(Client& client, protocol::ReplyWriter& reply) = 0;
  // After the run of a kRun or kRunHere plan inside the open keyspace batch: logs it when
  // `succeeded` and commits the batch either way. Not OK: nothing was written. *dropped (false
  // on entry) set: the planner dropped what the run changed, as a write that changes nothing
  // (the client keeps the run's reply). The run's keyspace events are published only when the
  // status is OK and nothing was dropped.
  virtual storage::Status Finish(bool succeeded, bool* dropped) = 0;
};

}  // namespace ebb::server
