// TREG: the timestamped register commands (COMMANDS.md "TREG"; last write wins by (ts, value)).
//
// A container command over types::Treg. Timestamps are unsigned 64-bit (digits only, see
// types::ParseLogicalTimestamp) and replied with ReplyWriter::Unsigned (RESP3 big number / RESP2
// bulk string above 2^63-1).
// Writes follow the server's group commit (defer_sync).
#include "types/treg.h"

#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "protocol/reply_writer.h"
#include "server/client.h"
#include "server/command.h"
#include "server/commands/register.h"
#include "server/commands/replies.h"
#include "server/errors.h"
#include "server/server_context.h"
#include "types/keyspace.h"
#include "types/tlog.h"

namespace ebb::server {
namespace {

types::Treg RegisterFor(CommandContext& ctx) {
  return types::Treg(ctx.server.command_keyspace(), ctx.client.db_index());
}

void SetCommand(CommandContext& ctx) {
  uint64_t ts;
  if (!types::ParseLogicalTimestamp(ctx.args[4], &ts)) return ctx.reply.Error(kNotInteger);
  types::TregResult result;
  storage::Status s = RegisterFor(ctx).Set(ctx.args[2], ctx.args[3], ts, &result);
  if (!FailedOrReply(ctx, s, result)) ctx.reply.Ok();
}

void GetCommand(CommandContext& ctx) {
  types::TregResult result;
  types::TregState state;
  storage::Status s = RegisterFor(ctx).Get(ctx.args[2], &state, &result);
  if (FailedOrReply(ctx, s, result)) return;
  if (result == types::TregResult::kAbsent) return ctx.reply.NullArray();
  ctx.reply.ArrayHeader(2);
  ctx.reply.Bulk(state.value());
  ctx.reply.Unsigned(state.ts());
}

constexpr std::string_view kHelp[] = {
    "TREG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "SET <key> <value> <timestamp>",
    "    Set the register if <timestamp> is newer (or equal with a greater value).",
    "GET <key>",
    "    Return the [value, timestamp] pair, or nil if the key does not exist.",
    "HELP",
    "    Print this help.",
};

void HelpCommand(CommandContext& ctx) {
  ctx.reply.ArrayHeader(std::size(kHelp));
  for (std::string_view line : kHelp) ctx.reply.SimpleString(line);
}

ArgSpec Arg(std::string name, ArgType type) {
  ArgSpec arg;
  arg.name = std::move(name);
  arg.type = type;
  return arg;
}

// A subcommand row; its key (if it has arguments) is args[2].
CommandSpec Sub(std::string name, int arity, uint32_t flags, std::string summary,
                std::vector<ArgSpec> arguments, CommandHandler handler) {
  CommandSpec spec;
  bool has_key = !arguments.empty();
  spec.name = std::move(name);
  spec.arity = arity;
  spec.flags = flags;
  spec.first_key = has_key ? 2 : 0;
  spec.last_key = has_key ? 2 : 0;
  spec.step = has_key ? 1 : 0;
  spec.group = "treg";
  spec.summary = std::move(summary);
  spec.complexity = "O(1)";
  spec.arguments = std::move(arguments);
  spec.handler = handler;
  return spec;
}

}  // namespace

void RegisterTregCommands(CommandTable& table) {
  ArgSpec key = Arg("key", ArgType::kKey);
  CommandSpec treg;
  treg.name = "treg";
  treg.arity = -2;
  treg.group = "treg";
  treg.summary = "A container for timestamped register (TREG) commands.";
  treg.complexity = "Depends on subcommand.";
  treg.subcommands = {
      Sub("set", 5, kCmdWrite | kCmdFast,
          "Sets a register unless it holds a newer (timestamp, value) pair.",
          {key, Arg("value", ArgType::kString), Arg("timestamp", ArgType::kInteger)}, SetCommand),
      Sub("get", 3, kCmdReadOnly | kCmdFast, "Returns the value and timestamp of a register.",
          {key}, GetCommand),
      Sub("help", 2, kCmdReadOnly | kCmdFast, "Returns helpful text about TREG.", {}, HelpCommand),
  };
  table.Add(std::move(treg));
}

}  // namespace ebb::server
