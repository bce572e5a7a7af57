// TLOG: the timestamped log commands (COMMANDS.md "TLOG", spec/jylis-tlog.txt).
//
// A container command; each subcommand parses its arguments (timestamps and counts are unsigned
// 64-bit: digits only, see types::ParseLogicalTimestamp), calls types::Tlog and writes the
// reply. Timestamps are replied with ReplyWriter::Unsigned, so values above 2^63-1 go out as a
// RESP3 big number / RESP2 bulk string.
// Writes follow the server's group commit (defer_sync).
#include "types/tlog.h"

#include <cstdint>
#include <iterator>
#include <limits>
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

namespace ebb::server {
namespace {

types::Tlog LogFor(CommandContext& ctx) {
  return types::Tlog(ctx.server.command_keyspace(), ctx.client.db_index(),
                     &ctx.server.tlog_heads());
}

// Parses a timestamp or count (types::ParseLogicalTimestamp: digits, leading zeros allowed);
// replies the integer error and returns false if malformed.
bool ParseUnsignedOrReply(CommandContext& ctx, std::string_view text, uint64_t* value) {
  if (types::ParseLogicalTimestamp(text, value)) return true;
  ctx.reply.Error(kNotInteger);
  return false;
}

void ReplyOkUnless(CommandContext& ctx, const storage::Status& s, types::TlogResult result) {
  if (!FailedOrReply(ctx, s, result)) ctx.reply.Ok();
}

void InsCommand(CommandContext& ctx) {
  uint64_t ts;
  if (!ParseUnsignedOrReply(ctx, ctx.args[4], &ts)) return;
  types::TlogResult result;
  storage::Status s = LogFor(ctx).Insert(ctx.args[2], ctx.args[3], ts, &result);
  ReplyOkUnless(ctx, s, result);
}

void GetCommand(CommandContext& ctx) {
  if (ctx.args.size() > 4) return ctx.reply.Error(WrongArgsError("tlog|get"));
  uint64_t count = std::numeric_limits<uint64_t>::max();
  if (ctx.args.size() == 4 && !ParseUnsignedOrReply(ctx, ctx.args[3], &count)) return;
  types::TlogResult result;
  std::vector<types::TlogEntry> entries;
  storage::Status s = LogFor(ctx).Get(ctx.args[2], count, &entries, &result);
  if (FailedOrReply(ctx, s, result)) return;
  ctx.reply.ArrayHeader(entries.size());
  for (const types::TlogEntry& entry : entries) {
    ctx.reply.ArrayHeader(2);
    ctx.reply.Bulk(entry.value);
    ctx.reply.Unsigned(entry.ts);
  }
}

void SizeCommand(CommandContext& ctx) {
  types::TlogResult result;
  uint64_t size = 0;
  storage::Status s = LogFor(ctx).Size(ctx.args[2], &size, &result);
  if (!FailedOrReply(ctx, s, result)) ctx.reply.Unsigned(size);
}

void CutoffCommand(CommandContext& ctx) {
  types::TlogResult result;
  uint64_t cutoff = 0;
  storage::Status s = LogFor(ctx).Cutoff(ctx.args[2], &cutoff, &result);
  if (!FailedOrReply(ctx, s, result)) ctx.reply.Unsigned(cutoff);
}

void TrimAtCommand(CommandContext& ctx) {
  uint64_t ts;
  if (!ParseUnsignedOrReply(ctx, ctx.args[3], &ts)) return;
  types::TlogResult result;
  storage::Status s = LogFor(ctx).TrimAt(ctx.args[2], ts, &result);
  ReplyOkUnless(ctx, s, result);
}

void TrimCommand(CommandContext& ctx) {
  uint64_t count;
  if (!ParseUnsignedOrReply(ctx, ctx.args[3], &count)) return;
  types::TlogResult result;
  storage::Status s = LogFor(ctx).Trim(ctx.args[2], count, &result);
  ReplyOkUnless(ctx, s, result);
}

void ClrCommand(CommandContext& ctx) {
  types::TlogResult result;
  storage::Status s = LogFor(ctx).Clear(ctx.args[2], &result);
  ReplyOkUnless(ctx, s, result);
}

constexpr std::string_view kHelp[] = {
    "TLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "INS <key> <value> <timestamp>",
    "    Insert a value/timestamp entry; ignored if a duplicate or below the cutoff.",
    "GET <key> [<count>]",
    "    Return the [value, timestamp] entries, newest first, at most <count> of them.",
    "SIZE <key>",
    "    Return the number of entries in the log.",
    "CUTOFF <key>",
    "    Return the cutoff timestamp of the log.",
    "TRIMAT <key> <timestamp>",
    "    Raise the cutoff to <timestamp>, discarding older entries.",
    "TRIM <key> <count>",
    "    Raise the cutoff to the timestamp of entry <count>-1 (0: same as CLR).",
    "CLR <key>",
    "    Raise the cutoff past the newest entry, emptying the log.",
    "HELP",
    "    Print this help.",
};

void HelpCommand(CommandContext& ctx) {
  ctx.reply.ArrayHeader(std::size(kHelp));
  for (std::string_view line : kHelp) ctx.reply.SimpleString(line);
}

ArgSpec Arg(std::string name, ArgType type, bool optional = false) {
  ArgSpec arg;
  arg.name = std::move(name);
  arg.type = type;
  arg.optional = optional;
  return arg;
}

// A subcommand row; its key (if it has arguments) is args[2].
CommandSpec Sub(std::string name, int arity, uint32_t flags, std::string summary,
                std::string complexity, std::vector<ArgSpec> arguments, CommandHandler handler) {
  CommandSpec spec;
  bool has_key = !arguments.empty();
  spec.name = std::move(name);
  spec.arity = arity;
  spec.flags = flags;
  spec.first_key = has_key ? 2 : 0;
  spec.last_key = has_key ? 2 : 0;
  spec.step = has_key ? 1 : 0;
  spec.group = "tlog";
  spec.summary = std::move(summary);
  spec.complexity = std::move(complexity);
  spec.arguments = std::move(arguments);
  spec.handler = handler;
  return spec;
}

}  // namespace

void RegisterTlogCommands(CommandTable& table) {
  ArgSpec key = Arg("key", ArgType::kKey);
  ArgSpec timestamp = Arg("timestamp", ArgType::kInteger);
  CommandSpec tlog;
  tlog.name = "tlog";
  tlog.arity = -2;
  tlog.group = "tlog";
  tlog.summary = "A container for timestamped log (TLOG) commands.";
  tlog.complexity = "Depends on subcommand.";
  tlog.subcommands = {
      Sub("ins", 5, kCmdWrite, "Inserts a value/timestamp entry into a log.", "O(log(N))",
          {key, Arg("value", ArgType::kString), timestamp}, InsCommand),
      Sub("get", -3, kCmdReadOnly, "Returns the newest entries of a log, newest first.", "O(count)",
          {key, Arg("count", ArgType::kInteger, true)}, GetCommand),
      Sub("size", 3, kCmdReadOnly | kCmdFast, "Returns the number of entries in a log.", "O(1)",
          {key}, SizeCommand),
      Sub("cutoff", 3, kCmdReadOnly | kCmdFast, "Returns the cutoff timestamp of a log.", "O(1)",
          {key}, CutoffCommand),
      Sub("trimat", 4, kCmdWrite, "Raises the cutoff timestamp of a log.",
          "O(M) where M is the number of entries discarded", {key, timestamp}, TrimAtCommand),
      Sub("trim", 4, kCmdWrite, "Raises the cutoff to retain at least count entries.",
          "O(count + M) where M is the number of entries discarded",
          {key, Arg("count", ArgType::kInteger)}, TrimCommand),
      Sub("clr", 3, kCmdWrite, "Raises the cutoff past the newest entry, emptying a log.", "O(1)",
          {key}, ClrCommand),
      Sub("help", 2, kCmdReadOnly | kCmdFast, "Returns helpful text about TLOG.", "O(1)", {},
          HelpCommand),
  };
  table.Add(std::move(tlog));
}

}  // namespace ebb::server
