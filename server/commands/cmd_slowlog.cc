// SLOWLOG GET / LEN / RESET / HELP: the commands that ran past slowlog-log-slower-than
// (server/services/slowlog.h), with Redis 7's replies and errors.
#include <cstdint>
#include <limits>
#include <vector>

#include "protocol/reply_writer.h"
#include "server/commands/register.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/services/command_docs.h"
#include "server/services/server_context.h"
#include "server/services/slowlog.h"

namespace ebb::server {
namespace {

constexpr uint32_t kFlags = kCmdAdmin | kCmdLoading | kCmdStale;
constexpr size_t kDefaultCount = 10;

struct GetOptions {
  size_t count = kDefaultCount;
};

// SLOWLOG GET [count]: count -1 is every entry.
GetOptions ParseGet(ArgParser& args) {
  GetOptions o;
  if (args.remaining() > 1) {
    args.Fail(SubcommandSyntaxError("slowlog", args.at(args.position() - 1)));
  } else if (args.HasMore()) {
    const int64_t count =
        args.Int64InRange(-1, std::numeric_limits<int64_t>::max(), kSlowlogCountRange);
    o.count = count == -1 ? std::numeric_limits<size_t>::max() : static_cast<size_t>(count);
  }
  return o;
}

// Each entry: [id, unix time, microseconds, [argument...], client address, client name].
void ExecuteGet(CommandContext& ctx, const GetOptions& o) {
  const std::vector<const SlowLog::Entry*> entries = ctx.server.slowlog().Newest(o.count);
  ctx.reply.ArrayHeader(entries.size());
  for (const SlowLog::Entry* entry : entries) {
    ctx.reply.ArrayHeader(6);
    ctx.reply.Integer(static_cast<int64_t>(entry->id));
    ctx.reply.Integer(entry->unix_time_s);
    ctx.reply.Integer(static_cast<int64_t>(entry->duration_us));
    ctx.reply.ArrayHeader(entry->args.size());
    for (const std::string& arg : entry->args) ctx.reply.Bulk(arg);
    ctx.reply.Bulk(entry->client_addr);
    ctx.reply.Bulk(entry->client_name);
  }
}

void ExecuteLen(CommandContext& ctx, const NoOptions&) {
  ctx.reply.Integer(static_cast<int64_t>(ctx.server.slowlog().size()));
}

void ExecuteReset(CommandContext& ctx, const NoOptions&) {
  ctx.server.slowlog().Reset();
  ctx.reply.Ok();
}

}  // namespace

std::vector<CommandSpec> SlowlogCommands() {
  return {{
      .name = "slowlog",
      .arity = -2,
      .group = "server",
      .since = "2.2.12",
      .summary = "A container for slow log commands.",
      .complexity = "Depends on subcommand.",
      .subcommands =
          {{.name = "get",
            .arity = -2,
            .flags = kFlags,
            .group = "server",
            .since = "2.2.12",
            .summary = "Returns the slow log's entries.",
            .complexity = "O(N) where N is the number of entries returned",
            .arguments = {{.name = "count", .type = ArgType::kInteger, .optional = true}},
            .help = {{.usage = "GET [<count>]",
                      .text = "Return top <count> entries from the slowlog (default: 10, -1 mean "
                              "all).\nEntries are made of:\nid, timestamp, time in "
                              "microseconds, arguments array, client IP and port,\nclient "
                              "name"}},
            .handler = Handler<ParseGet, ExecuteGet>},
           {.name = "len",
            .arity = 2,
            .flags = kFlags,
            .group = "server",
            .since = "2.2.12",
            .summary = "Returns the number of entries in the slow log.",
            .complexity = "O(1)",
            .help = {{.text = "Return the length of the slowlog."}},
            .handler = Handler<ParseNothing, ExecuteLen>},
           {.name = "reset",
            .arity = 2,
            .flags = kFlags,
            .group = "server",
            .since = "2.2.12",
            .summary = "Clears all entries from the slow log.",
            .complexity = "O(N) where N is the number of entries in the slowlog",
            .help = {{.text = "Reset the slowlog."}},
            .handler = Handler<ParseNothing, ExecuteReset>},
           HelpSubcommand("server", "Show helpful text about the different subcommands",
                          kCmdLoading | kCmdStale, "6.2.0")},
  }};
}

}  // namespace ebb::server
