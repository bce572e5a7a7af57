// Server commands: TIME and SHUTDOWN.
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "common/wall_clock.h"
#include "protocol/reply_writer.h"
#include "server/commands/register.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/services/server_context.h"

namespace ebb::server {
namespace {

// TIME: [unix seconds, microseconds]. A pinned test clock (DEBUG CLOCK) is what the server
// believes the time is, so TIME reports it too.
void ExecuteTime(CommandContext& ctx, const NoOptions&) {
  const int64_t us = ctx.server.clock().pinned() ? ctx.server.clock().NowMs() * 1000 : WallUs();
  ctx.reply.ArrayHeader(2);
  ctx.reply.Bulk(std::to_string(us / 1000000));
  ctx.reply.Bulk(std::to_string(us % 1000000));
}

struct ShutdownOptions {
  bool abort = false;
  bool nosave = false;
};

// SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]; ABORT goes alone.
ShutdownOptions ParseShutdown(ArgParser& args) {
  ShutdownOptions o;
  OptionGroup save;
  const size_t given = args.remaining();
  while (args.HasMore()) {
    if (const int choice = args.Choice({"NOSAVE", "SAVE"}, &save); choice >= 0) {
      o.nosave = choice == 0;
    } else if (args.Choice({"NOW", "FORCE"}) < 0) {
      if (args.Token("ABORT")) {
        o.abort = true;
      } else {
        args.SyntaxError();
      }
    }
  }
  if (o.abort && given > 1) args.SyntaxError();
  return o;
}

// ebb persists every write through its WAL, so SAVE/NOSAVE change nothing; on success the client
// gets no reply (the connection closes).
//
// While a script is busy only SHUTDOWN NOSAVE runs, and it ends the process at once, as Redis's
// does: the script's writes, still in its uncommitted batch, are dropped with it; everything
// acknowledged before is in the WAL (the restart replays it).
void ExecuteShutdown(CommandContext& ctx, const ShutdownOptions& o) {
  if (o.abort) return ctx.reply.Error(kNoShutdownInProgress);
  if (!ctx.server.busy_error().empty()) {
    if (!o.nosave) return ctx.reply.Error(ctx.server.busy_error());
    spdlog::warn("SHUTDOWN NOSAVE during a busy script: exiting now, without the script's writes");
    spdlog::shutdown();
    std::_Exit(0);
  }
  ctx.client.RequestClose();
  ctx.server.RequestShutdown();
}

// MONITOR: from now on the client is sent every command the server runs
// (server/services/monitor.h). A client that already monitors, or is a replica, gets no reply, as
// in Redis.
void ExecuteMonitor(CommandContext& ctx, const NoOptions&) {
  Monitors& monitors = ctx.server.monitors();
  if (ctx.client.is_replica() || monitors.Contains(ctx.client.id())) return;
  monitors.Add(ctx.client.id());
  ctx.client.set_monitor(true);
  ctx.reply.Ok();
}

const ArgSpec PureToken(std::string_view name, std::string_view token) {
  return {.name = name, .type = ArgType::kPureToken, .token = token, .optional = true};
}

}  // namespace

std::vector<CommandSpec> ServerCommands() {
  return {
      {.name = "time",
       .arity = 1,
       .flags = kCmdFast | kCmdLoading | kCmdStale,
       .group = "server",
       .since = "2.6.0",
       .summary = "Returns the server time.",
       .handler = Handler<ParseNothing, ExecuteTime>},
      {.name = "monitor",
       .arity = 1,
       .flags = kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale,
       .group = "server",
       .since = "1.0.0",
       .summary = "Listens for all requests received by the server in real-time.",
       .handler = Handler<ParseNothing, ExecuteMonitor>},
      {.name = "shutdown",
       .arity = -1,
       .flags = kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale | kCmdNoMulti | kCmdAllowBusy,
       .group = "server",
       .summary = "Shuts down the server after flushing pending replies.",
       .arguments =
           {{.name = "save-selector",
             .type = ArgType::kOneOf,
             .optional = true,
             .children = {{.name = "nosave", .type = ArgType::kPureToken, .token = "NOSAVE"},
                          {.name = "save", .type = ArgType::kPureToken, .token = "SAVE"}}},
            PureToken("now", "NOW"),
            PureToken("force", "FORCE"),
            PureToken("abort", "ABORT")},
       .handler = Handler<ParseShutdown, ExecuteShutdown>},
  };
}

}  // namespace ebb::server
