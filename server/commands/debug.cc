// DEBUG SLEEP|CLOCK|FLUSH-MEMTABLE|COMPACT|DISK-FAULT|HELP: test hooks, refused unless
// enable-debug-command allows them (the dispatcher checks kCmdDebug). DEBUG CLOCK moves the
// server's clock so TTL tests never sleep; DEBUG DISK-FAULT makes the data directory's writes
// and fsyncs fail so tests see MISCONF without filling a disk.
#include <cerrno>
#include <chrono>
#include <iterator>
#include <string>
#include <thread>

#include "protocol/reply_writer.h"
#include "server/command.h"
#include "server/commands/arg_parser.h"
#include "server/commands/command_rows.h"
#include "server/commands/register.h"
#include "server/commands/replies.h"
#include "server/errors.h"
#include "server/server_context.h"
#include "storage/env/fault_injection_file_system.h"
#include "types/keyspace.h"

namespace ebb::server {
namespace {

void ReplyStatus(CommandContext& ctx, const storage::Status& s) {
  if (!StorageErrorOrReply(ctx, s)) ctx.reply.Ok();
}

void DebugHelp(CommandContext& ctx) {
  static const char* kLines[] = {
      "DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "SLEEP <seconds>",
      "    Stop the server for <seconds>. Decimals allowed.",
      "CLOCK GET",
      "    Return the server clock in unix milliseconds.",
      "CLOCK SET <unix-ms>",
      "    Pin the server clock at <unix-ms>; it then moves only by DEBUG CLOCK.",
      "CLOCK ADVANCE <ms>",
      "    Move the server clock forward by <ms> (pinning it first).",
      "FLUSH-MEMTABLE",
      "    Write the memtable to a new table file.",
      "COMPACT",
      "    Compact every level down to the last, applying expiry.",
      "DISK-FAULT ON [ENOSPC|EIO]",
      "    Fail every write-out, fsync and file creation in the data directory (default ENOSPC).",
      "DISK-FAULT OFF",
      "    Stop failing them, and resume writes at once.",
      "HELP",
      "    Print this help."};
  ctx.reply.ArrayHeader(std::size(kLines));
  for (const char* line : kLines) ctx.reply.SimpleString(line);
}

// DEBUG DISK-FAULT ON [ENOSPC|EIO] | OFF.
void DebugDiskFault(CommandContext& ctx) {
  storage::FaultInjectionFileSystem* faults = ctx.server.disk_faults();
  if (faults == nullptr) return ctx.reply.Error("ERR disk faults are not available");
  const std::string_view op = ctx.args[2];
  if (EqualsIgnoreCase(op, "on")) {
    int err = ENOSPC;
    if (ctx.args.size() == 4) {
      if (EqualsIgnoreCase(ctx.args[3], "eio")) {
        err = EIO;
      } else if (!EqualsIgnoreCase(ctx.args[3], "enospc")) {
        return ctx.reply.Error(kSyntaxError);
      }
    }
    faults->SetFaultErrno(err);
    faults->SetFailNewFiles(true);
    faults->SetFailSyncs(true);
    faults->SetFailFlushes(true);  // appends still fill the buffers, as on a full disk
    return ctx.reply.Ok();
  }
  if (EqualsIgnoreCase(op, "off") && ctx.args.size() == 3) {
    faults->SetFailFlushes(false);
    faults->SetFailSyncs(false);
    faults->SetFailNewFiles(false);
    // The engine would resume by itself within about a second; do it now.
    return ReplyStatus(ctx, ctx.server.keyspace().db().Resume());
  }
  ctx.reply.Error(SubcommandSyntaxError(ctx.args[0], "disk-fault"));
}

void DebugCommand(CommandContext& ctx) {
  std::string_view sub = ctx.args[1];
  size_t argc = ctx.args.size();
  if (EqualsIgnoreCase(sub, "help") && argc == 2) return DebugHelp(ctx);
  if (EqualsIgnoreCase(sub, "sleep") && argc == 3) {
    double seconds = 0;
    if (!ParseDouble(ctx.args[2], &seconds) || seconds < 0 || seconds > 3600) {
      return ctx.reply.Error(kNotFloat);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int64_t>(seconds * 1e6)));
    return ctx.reply.Ok();
  }
  if (EqualsIgnoreCase(sub, "clock") && argc >= 3) {
    storage::PinnableClock& clock = ctx.server.clock();
    std::string_view op = ctx.args[2];
    if (EqualsIgnoreCase(op, "get") && argc == 3) return ctx.reply.Integer(clock.NowMs());
    int64_t ms = 0;
    if (argc == 4 && (EqualsIgnoreCase(op, "set") || EqualsIgnoreCase(op, "advance"))) {
      if (!ParseInt64(ctx.args[3], &ms)) return ctx.reply.Error(kNotInteger);
      if (EqualsIgnoreCase(op, "set")) {
        clock.Pin(ms);
      } else {
        if (ms < 0) return ctx.reply.Error("ERR the clock only moves forward");
        clock.Advance(ms);
      }
      return ctx.reply.Ok();
    }
    return ctx.reply.Error(SubcommandSyntaxError(ctx.args[0], "clock"));
  }
  if (EqualsIgnoreCase(sub, "flush-memtable") && argc == 2) {
    return ReplyStatus(ctx, ctx.server.keyspace().db().FlushMemtable());
  }
  if (EqualsIgnoreCase(sub, "compact") && argc == 2) {
    return ReplyStatus(ctx, ctx.server.keyspace().db().CompactAll());
  }
  if (EqualsIgnoreCase(sub, "disk-fault") && (argc == 3 || argc == 4)) return DebugDiskFault(ctx);
  ctx.reply.Error(SubcommandSyntaxError(ctx.args[0], sub));
}

}  // namespace

void RegisterDebugCommands(CommandTable& table) {
  CommandSpec debug =
      Row("debug", -2, kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale | kCmdDebug, "server",
          "A container for debugging commands.", DebugCommand,
          {Arg("subcommand"), Optional(Multiple(Arg("arg")))});
  debug.complexity = "Depends on subcommand.";
  table.Add(debug);
}

}  // namespace ebb::server
