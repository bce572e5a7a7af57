// Generic keyspace commands (any type): DEL, UNLINK, EXISTS, TYPE, KEYS, SCAN, RANDOMKEY,
// DBSIZE, FLUSHDB, FLUSHALL. Redis 7 replies and errors; the work is types::Keyspace's, which
// reads only metadata rows, so expired keys are invisible at once. Writes follow the server's
// group commit (defer_sync).
#include <string>
#include <vector>

#include "protocol/reply_writer.h"
#include "server/client.h"
#include "server/command.h"
#include "server/commands/arg_parser.h"
#include "server/commands/command_rows.h"
#include "server/commands/register.h"
#include "server/commands/replies.h"
#include "server/config/glob.h"
#include "server/errors.h"
#include "server/server_context.h"
#include "types/keyspace.h"

namespace ebb::server {
namespace {

void DelCommand(CommandContext& ctx) {
  types::Keyspace& ks = ctx.server.command_keyspace();
  int64_t deleted = 0;
  for (size_t i = 1; i < ctx.args.size(); ++i) {
    bool existed = false;
    if (StorageErrorOrReply(ctx, ks.Delete(ctx.client.db_index(), ctx.args[i], &existed))) return;
    deleted += existed ? 1 : 0;
  }
  ctx.reply.Integer(deleted);
}

void ExistsCommand(CommandContext& ctx) {
  types::Keyspace& ks = ctx.server.command_keyspace();
  int64_t count = 0;
  for (size_t i = 1; i < ctx.args.size(); ++i) {
    bool exists = false;
    if (StorageErrorOrReply(ctx, ks.Exists(ctx.client.db_index(), ctx.args[i], &exists))) return;
    count += exists ? 1 : 0;
  }
  ctx.reply.Integer(count);
}

void TypeCommand(CommandContext& ctx) {
  std::optional<types::KeyType> type;
  if (StorageErrorOrReply(
          ctx, ctx.server.command_keyspace().Type(ctx.client.db_index(), ctx.args[1], &type))) {
    return;
  }
  ctx.reply.SimpleString(type ? types::KeyTypeName(*type) : "none");
}

void KeysCommand(CommandContext& ctx) {
  std::string pattern(ctx.args[1]);
  types::KeyMatcher match = [&pattern](std::string_view key) { return GlobMatch(pattern, key); };
  std::vector<std::string> keys;
  if (StorageErrorOrReply(
          ctx, ctx.server.command_keyspace().Keys(ctx.client.db_index(),
                                                  pattern == "*" ? nullptr : &match, &keys))) {
    return;
  }
  ctx.reply.ArrayHeader(keys.size());
  for (const std::string& key : keys) ctx.reply.Bulk(key);
}

void ScanCommand(CommandContext& ctx) {
  uint64_t cursor = 0;
  if (!ParseUint64(ctx.args[1], &cursor)) return ctx.reply.Error("ERR invalid cursor");
  std::string pattern;
  bool has_pattern = false;
  int64_t count = 10;
  std::optional<types::KeyType> type;
  bool unknown_type = false;
  ArgParser p(ctx.args, 2);
  while (p.HasMore()) {
    if (p.Token("MATCH")) {
      pattern = p.Next();
      has_pattern = pattern != "*";
    } else if (p.Token("COUNT")) {
      count = p.Int64();
      if (!p.Failed() && count < 1) p.SyntaxError();
    } else if (p.Token("TYPE")) {
      std::string_view name = p.Next();
      type = types::KeyTypeFromName(name);
      unknown_type = !type;  // Redis 7: an unknown type name matches nothing
    } else {
      p.SyntaxError();
    }
  }
  if (p.Failed()) return p.ReplyError(ctx.reply);

  types::KeyMatcher match = [&](std::string_view key) {
    return !unknown_type && (!has_pattern || GlobMatch(pattern, key));
  };
  types::ScanResult result;
  storage::Status s = ctx.server.command_keyspace().Scan(
      ctx.client.db_index(), cursor, has_pattern || unknown_type ? &match : nullptr,
      static_cast<size_t>(count), type, &result);
  if (s.IsInvalidArgument()) return ctx.reply.Error("ERR invalid cursor");
  if (StorageErrorOrReply(ctx, s)) return;
  ctx.reply.ArrayHeader(2);
  ctx.reply.Bulk(std::to_string(result.cursor));
  ctx.reply.ArrayHeader(result.keys.size());
  for (const std::string& key : result.keys) ctx.reply.Bulk(key);
}

void RandomKeyCommand(CommandContext& ctx) {
  std::optional<std::string> key;
  if (StorageErrorOrReply(ctx,
                          ctx.server.command_keyspace().RandomKey(ctx.client.db_index(), &key)))
    return;
  if (key) {
    ctx.reply.Bulk(*key);
  } else {
    ctx.reply.Null();
  }
}

void DbSizeCommand(CommandContext& ctx) {
  uint64_t size = 0;
  if (StorageErrorOrReply(ctx, ctx.server.command_keyspace().DbSize(ctx.client.db_index(), &size)))
    return;
  ctx.reply.Integer(static_cast<int64_t>(size));
}

// FLUSHDB/FLUSHALL [ASYNC|SYNC]: both flush before replying (ebb has no lazy free).
bool FlushModeOrReply(CommandContext& ctx) {
  if (ctx.args.size() == 1) return true;
  if (ctx.args.size() == 2 &&
      (EqualsIgnoreCase(ctx.args[1], "ASYNC") || EqualsIgnoreCase(ctx.args[1], "SYNC"))) {
    return true;
  }
  ctx.reply.Error(kSyntaxError);
  return false;
}

void FlushDbCommand(CommandContext& ctx) {
  if (!FlushModeOrReply(ctx)) return;
  if (StorageErrorOrReply(ctx, ctx.server.command_keyspace().FlushDb(ctx.client.db_index())))
    return;
  ctx.reply.Ok();
}

void FlushAllCommand(CommandContext& ctx) {
  if (!FlushModeOrReply(ctx)) return;
  if (StorageErrorOrReply(ctx, ctx.server.command_keyspace().FlushAll())) return;
  ctx.reply.Ok();
}

ArgSpec KeyArg(bool multiple = false) { return DocArg("key", ArgType::kKey, "", false, multiple); }

ArgSpec FlushModeArg() {
  return DocArg(
      "flush-type", ArgType::kOneOf, "", true, false,
      {DocArg("async", ArgType::kPureToken, "ASYNC"), DocArg("sync", ArgType::kPureToken, "SYNC")});
}

}  // namespace

void RegisterKeyCommands(CommandTable& table) {
  table.Add(KeyedRow("del", -2, kCmdWrite, 1, "generic", "1.0.0", "Deletes one or more keys.",
                     "O(N) where N is the number of keys that will be removed.", {KeyArg(true)},
                     DelCommand));
  table.Add(KeyedRow("unlink", -2, kCmdWrite | kCmdFast, 1, "generic", "4.0.0",
                     "Asynchronously deletes one or more keys.", "O(1) for each key removed.",
                     {KeyArg(true)}, DelCommand));
  table.Add(KeyedRow("exists", -2, kCmdReadOnly | kCmdFast, 1, "generic", "1.0.0",
                     "Determines whether one or more keys exist.",
                     "O(N) where N is the number of keys to check.", {KeyArg(true)},
                     ExistsCommand));
  table.Add(KeyedRow("type", 2, kCmdReadOnly | kCmdFast, 1, "generic", "1.0.0",
                     "Determines the type of value stored at a key.", "O(1)", {KeyArg()},
                     TypeCommand));
  table.Add(KeyedRow("keys", 2, kCmdReadOnly, 0, "generic", "1.0.0",
                     "Returns all key names that match a pattern.",
                     "O(N) with N being the number of keys in the database.",
                     {DocArg("pattern", ArgType::kPattern)}, KeysCommand));
  table.Add(KeyedRow(
      "scan", -2, kCmdReadOnly, 0, "generic", "2.8.0",
      "Iterates over the key names in the database.",
      "O(1) for every call. O(N) for a complete iteration.",
      {DocArg("cursor", ArgType::kInteger), DocArg("pattern", ArgType::kPattern, "MATCH", true),
       DocArg("count", ArgType::kInteger, "COUNT", true),
       DocArg("type", ArgType::kString, "TYPE", true)},
      ScanCommand));
  table.Add(KeyedRow("randomkey", 1, kCmdReadOnly, 0, "generic", "1.0.0",
                     "Returns a random key name from the database.",
                     "O(N) with N being the number of keys in the database.", {},
                     RandomKeyCommand));
  table.Add(KeyedRow("dbsize", 1, kCmdReadOnly | kCmdFast, 0, "server", "1.0.0",
                     "Returns the number of keys in the database.",
                     "O(N) with N being the number of keys in the database.", {}, DbSizeCommand));
  table.Add(KeyedRow("flushdb", -1, kCmdWrite, 0, "server", "1.0.0",
                     "Removes all keys from the current database.",
                     "O(N) where N is the number of keys in the selected database.",
                     {FlushModeArg()}, FlushDbCommand));
  table.Add(KeyedRow("flushall", -1, kCmdWrite, 0, "server", "1.0.0",
                     "Removes all keys from all databases.",
                     "O(N) where N is the total number of keys in all databases.", {FlushModeArg()},
                     FlushAllCommand));
}

}  // namespace ebb::server
