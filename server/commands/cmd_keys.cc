// Generic keyspace commands (any type): DEL, UNLINK, EXISTS, TYPE, KEYS, SCAN, RANDOMKEY,
// DBSIZE, FLUSHDB, FLUSHALL. Redis 7 replies and errors; the work is types::Keyspace's, which
// reads only metadata rows, so expired keys are invisible at once.
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/glob.h"
#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/active_active/peer_delta.h"
#include "server/commands/register.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/services/keyspace_events.h"
#include "server/services/reply.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"

namespace ebb::server {
namespace {

using types::OpResult;

// DEL / UNLINK key [key ...] -> how many existed.
void ExecuteDel(CommandContext& ctx, const KeysOptions& o) {
  std::vector<std::string_view> existed;
  OpResult<int64_t> deleted = ctx.server.keyspace().Delete(ctx.client.db_index(), o.keys, &existed);
  if (!deleted.ok()) return ReplyError(ctx, deleted);
  for (std::string_view key : existed) SignalKeyChange(ctx, key, kNotifyGeneric, "del");
  ctx.reply.Integer(*deleted);
}

// DEL and UNLINK in active-active mode: `del-at <T> key ...`, each key once; the mode takes T
// from what the keys hold.
WriteForm FormDel(const KeysOptions& o, const WriteFormInput&) {
  std::vector<std::string> form = {std::string(kDelAt), ""};
  std::set<std::string_view> seen;
  for (std::string_view key : o.keys) {
    if (seen.insert(key).second) form.emplace_back(key);
  }
  return WriteForm::Delta(std::move(form), std::nullopt);
}

// EXISTS key [key ...] -> how many exist (a key named twice counts twice). Every key is read
// even after a failed read, so a run waiting for the disk asks for all their blocks at once.
void ExecuteExists(CommandContext& ctx, const KeysOptions& o) {
  int64_t count = 0;
  std::optional<types::OpFailure> failure;
  for (std::string_view key : o.keys) {
    OpResult<bool> exists = ctx.server.keyspace().Exists(ctx.client.db_index(), key);
    if (!exists.ok()) {
      if (!failure) failure = types::FailureOf(exists);
      continue;
    }
    if (*exists) {
      ctx.server.stats().keyspace_hits++;
      count++;
    } else {
      SignalKeyMiss(ctx, key);
    }
  }
  if (failure) return ReplyError(ctx, *failure);
  ctx.reply.Integer(count);
}

void ExecuteType(CommandContext& ctx, const KeyOptions& o) {
  OpResult<std::optional<types::KeyType>> type =
      ctx.server.keyspace().Type(ctx.client.db_index(), o.key);
  if (!type.ok()) return ReplyError(ctx, type);
  if (*type) {
    ctx.server.stats().keyspace_hits++;
  } else {
    SignalKeyMiss(ctx, o.key);
  }
  ctx.reply.SimpleString(*type ? types::KeyTypeName(**type) : "none");
}

// KEYS pattern
void ExecuteKeys(CommandContext& ctx, const KeyOptions& o) {
  const std::string pattern(o.key);
  types::KeyMatcher match = [&pattern](std::string_view key) { return GlobMatch(pattern, key); };
  OpResult<std::vector<std::string>> keys =
      ctx.server.keyspace().Keys(ctx.client.db_index(), pattern == "*" ? nullptr : &match);
  if (!keys.ok()) return ReplyError(ctx, keys);
  ctx.reply.ArrayHeader(keys->size());
  for (const std::string& key : *keys) ctx.reply.Bulk(key);
}

struct ScanOptions {
  uint64_t cursor = 0;       // names the position of the next key (types/scan_cursor.h)
  std::string_view pattern;  // empty: no MATCH (or MATCH *)
  int64_t count = 10;
  std::optional<types::KeyType> type;
  bool unknown_type = false;  // Redis 7: an unknown TYPE name matches nothing
};

// SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]
ScanOptions ParseScan(ArgParser& args) {
  ScanOptions o;
  // Checked first, as Redis does: a bad cursor is the error even when an option is bad too.
  const std::optional<uint64_t> cursor = types::ParseScanCursor(args.Next());
  if (!cursor) args.Fail(kInvalidCursor);
  o.cursor = cursor.value_or(0);
  while (args.HasMore()) {
    if (args.Token("MATCH")) {
      o.pattern = args.Next();
      if (o.pattern == "*") o.pattern = {};
    } else if (args.Token("COUNT")) {
      o.count = args.Int64();
      if (o.count < 1) args.SyntaxError();
    } else if (args.Token("TYPE")) {
      o.type = types::KeyTypeFromName(args.Next());
      o.unknown_type = !o.type;
    } else {
      args.SyntaxError();
    }
  }
  return o;
}

void ExecuteScan(CommandContext& ctx, const ScanOptions& o) {
  const bool filter = !o.pattern.empty() || o.unknown_type;
  types::KeyMatcher match = [&o](std::string_view key) {
    return !o.unknown_type && (o.pattern.empty() || GlobMatch(o.pattern, key));
  };
  OpResult<types::ScanResult> result =
      ctx.server.keyspace().Scan(ctx.client.db_index(), o.cursor, filter ? &match : nullptr,
                                 static_cast<size_t>(o.count), o.type);
  if (!result.ok()) return ReplyError(ctx, result);
  ctx.reply.ArrayHeader(2);
  ctx.reply.Bulk(std::to_string(result->cursor));
  ctx.reply.ArrayHeader(result->keys.size());
  for (const std::string& key : result->keys) ctx.reply.Bulk(key);
}

void ExecuteRandomKey(CommandContext& ctx, const NoOptions&) {
  OpResult<std::optional<std::string>> key = ctx.server.keyspace().RandomKey(ctx.client.db_index());
  if (!key.ok()) return ReplyError(ctx, key);
  if (!*key) return ctx.reply.Null();
  ctx.reply.Bulk(**key);
}

void ExecuteDbSize(CommandContext& ctx, const NoOptions&) {
  OpResult<uint64_t> size = ctx.server.keyspace().DbSize(ctx.client.db_index());
  if (!size.ok()) return ReplyError(ctx, size);
  ctx.reply.Integer(static_cast<int64_t>(*size));
}

// FLUSHDB/FLUSHALL [ASYNC|SYNC]: both flush before replying (ebb has no lazy free).
NoOptions ParseFlushMode(ArgParser& args) {
  if (args.HasMore() && args.Choice({"ASYNC", "SYNC"}) < 0) args.SyntaxError();
  return {};
}

void ExecuteFlushDb(CommandContext& ctx, const NoOptions&) {
  SignalFlush(ctx.server, ctx.client.db_index());
  ReplyOkOrError(ctx, ctx.server.keyspace().FlushDb(ctx.client.db_index()));
}

// FLUSHDB and FLUSHALL in active-active mode: `flushdb-at <T>`, `flushall-at <T>`.
WriteForm FormFlushDb(const NoOptions&, const WriteFormInput&) {
  return WriteForm::Delta({std::string(kFlushDbAt), ""}, std::nullopt);
}

WriteForm FormFlushAll(const NoOptions&, const WriteFormInput&) {
  return WriteForm::Delta({std::string(kFlushAllAt), ""}, std::nullopt);
}

void ExecuteFlushAll(CommandContext& ctx, const NoOptions&) {
  SignalFlush(ctx.server, -1);
  ReplyOkOrError(ctx, ctx.server.keyspace().FlushAll());
}

const ArgSpec kKeys = {.name = "key", .type = ArgType::kKey, .multiple = true};
const ArgSpec kFlushMode = {
    .name = "flush-type",
    .type = ArgType::kOneOf,
    .optional = true,
    .children = {{.name = "async", .type = ArgType::kPureToken, .token = "ASYNC"},
                 {.name = "sync", .type = ArgType::kPureToken, .token = "SYNC"}}};

}  // namespace

std::vector<CommandSpec> KeyCommands() {
  return {
      {.name = "del",
       .arity = -2,
       .flags = kCmdWrite,
       .keys = kAllKeys,
       .group = "generic",
       .summary = "Deletes one or more keys.",
       .complexity = "O(N) where N is the number of keys that will be removed.",
       .arguments = {kKeys},
       .handler = Handler<ParseKeys, ExecuteDel>,
       .write_form = FormOf<ParseKeys, FormDel>},
      {.name = "unlink",
       .arity = -2,
       .flags = kCmdWrite | kCmdFast,
       .keys = kAllKeys,
       .group = "generic",
       .since = "4.0.0",
       .summary = "Asynchronously deletes one or more keys.",
       .complexity = "O(1) for each key removed.",
       .arguments = {kKeys},
       .handler = Handler<ParseKeys, ExecuteDel>,
       .write_form = FormOf<ParseKeys, FormDel>},
      {.name = "exists",
       .arity = -2,
       .flags = kCmdReadOnly | kCmdFast,
       .keys = kAllKeys,
       .group = "generic",
       .summary = "Determines whether one or more keys exist.",
       .complexity = "O(N) where N is the number of keys to check.",
       .arguments = {kKeys},
       .handler = Handler<ParseKeys, ExecuteExists>},
      {.name = "type",
       .arity = 2,
       .flags = kCmdReadOnly | kCmdFast,
       .keys = kFirstKey,
       .group = "generic",
       .summary = "Determines the type of value stored at a key.",
       .arguments = {{.name = "key", .type = ArgType::kKey}},
       .handler = Handler<ParseKey, ExecuteType>},
      {.name = "keys",
       .arity = 2,
       .flags = kCmdReadOnly,
       .group = "generic",
       .summary = "Returns all key names that match a pattern.",
       .complexity = "O(N) with N being the number of keys in the database.",
       .arguments = {{.name = "pattern", .type = ArgType::kPattern}},
       .handler = Handler<ParseKey, ExecuteKeys>},
      {.name = "scan",
       .arity = -2,
       .flags = kCmdReadOnly,
       .group = "generic",
       .since = "2.8.0",
       .summary = "Iterates over the key names in the database.",
       .complexity = "O(1) for every call. O(N) for a complete iteration.",
       .arguments =
           {{.name = "cursor", .type = ArgType::kInteger},
            {.name = "pattern", .type = ArgType::kPattern, .token = "MATCH", .optional = true},
            {.name = "count", .type = ArgType::kInteger, .token = "COUNT", .optional = true},
            {.name = "type", .token = "TYPE", .optional = true}},
       .handler = Handler<ParseScan, ExecuteScan>},
      {.name = "randomkey",
       .arity = 1,
       .flags = kCmdReadOnly,
       .group = "generic",
       .summary = "Returns a random key name from the database.",
       .complexity = "O(N) with N being the number of keys in the database.",
       .handler = Handler<ParseNothing, ExecuteRandomKey>},
      {.name = "dbsize",
       .arity = 1,
       .flags = kCmdReadOnly | kCmdFast,
       .group = "server",
       .summary = "Returns the number of keys in the database.",
       .complexity = "O(N) with N being the number of keys in the database.",
       .handler = Handler<ParseNothing, ExecuteDbSize>},
      {.name = "flushdb",
       .arity = -1,
       .flags = kCmdWrite,
       .group = "server",
       .summary = "Removes all keys from the current database.",
       .complexity = "O(N) where N is the number of keys in the selected database.",
       .arguments = {kFlushMode},
       .handler = Handler<ParseFlushMode, ExecuteFlushDb>,
       .write_form = FormOf<ParseFlushMode, FormFlushDb>},
      {.name = "flushall",
       .arity = -1,
       .flags = kCmdWrite,
       .group = "server",
       .summary = "Removes all keys from all databases.",
       .complexity = "O(N) where N is the total number of keys in all databases.",
       .arguments = {kFlushMode},
       .handler = Handler<ParseFlushMode, ExecuteFlushAll>,
       .write_form = FormOf<ParseFlushMode, FormFlushAll>},
  };
}

}  // namespace ebb::server
