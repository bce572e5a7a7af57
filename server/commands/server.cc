// Server commands: TIME and SHUTDOWN.
#include <chrono>
#include <string>

#include "protocol/reply_writer.h"
#include "server/command.h"
#include "server/commands/arg_parser.h"
#include "server/commands/command_rows.h"
#include "server/commands/register.h"
#include "server/errors.h"
#include "server/server_context.h"

namespace ebb::server {
namespace {

// TIME: [unix seconds, microseconds]. A pinned test clock (DEBUG CLOCK) is what the server
// believes the time is, so TIME reports it too.
void TimeCommand(CommandContext& ctx) {
  int64_t us;
  if (ctx.server.clock().pinned()) {
    us = ctx.server.clock().NowMs() * 1000;
  } else {
    us = std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
             .count();
  }
  ctx.reply.ArrayHeader(2);
  ctx.reply.Bulk(std::to_string(us / 1000000));
  ctx.reply.Bulk(std::to_string(us % 1000000));
}

// SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]. ebb persists every write through its WAL, so
// SAVE/NOSAVE change nothing; on success the client gets no reply (the connection closes).
void ShutdownCommand(CommandContext& ctx) {
  bool abort = false, save = false, nosave = false;
  ArgParser p(ctx.args, 1);
  while (p.HasMore()) {
    if (p.Token("NOSAVE")) {
      nosave = true;
    } else if (p.Token("SAVE")) {
      save = true;
    } else if (p.Token("NOW") || p.Token("FORCE")) {
    } else if (p.Token("ABORT")) {
      abort = true;
    } else {
      p.SyntaxError();
    }
  }
  if (p.Failed() || (save && nosave) || (abort && ctx.args.size() > 2)) {
    return ctx.reply.Error(kSyntaxError);
  }
  if (abort) return ctx.reply.Error("ERR No shutdown in progress.");
  ctx.client.RequestClose();
  ctx.server.RequestShutdown();
}

}  // namespace

void RegisterServerCommands(CommandTable& table) {
  CommandSpec time = Row("time", 1, kCmdFast | kCmdLoading | kCmdStale, "server",
                         "Returns the server time.", TimeCommand);
  time.since = "2.6.0";
  table.Add(time);

  CommandSpec shutdown =
      Row("shutdown", -1, kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale, "server",
          "Synchronously saves the database(s) to disk and shuts down the Redis server.",
          ShutdownCommand,
          {Optional(OneOf("save-selector", {TokenArg("NOSAVE"), TokenArg("SAVE")})),
           Optional(TokenArg("NOW")), Optional(TokenArg("FORCE")), Optional(TokenArg("ABORT"))});
  shutdown.summary = "Shuts down the server after flushing pending replies.";
  table.Add(shutdown);
}

}  // namespace ebb::server
