// RENAME, RENAMENX, COPY and MOVE: a key of any type under another name or in another database,
// with its expiry and every timestamp, as one atomic write (types::Keyspace::CopyKey). Redis 7's
// replies, errors and events (db.c): rename_from/rename_to, copy_to, move_from/move_to, each key
// touched for WATCH. An expired source is absent: RENAME answers "no such key", the others 0.
#include <string_view>
#include <vector>

#include "protocol/reply_writer.h"
#include "server/commands/register.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/services/keyspace_events.h"
#include "server/services/reply.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"
#include "types/series_rules.h"

namespace ebb::server {
namespace {

using types::Keyspace;
using CopyOutcome = Keyspace::CopyOutcome;

struct TwoKeyOptions {
  std::string_view source;
  std::string_view destination;
};

TwoKeyOptions ParseTwoKeys(ArgParser& args) {
  TwoKeyOptions o;
  o.source = args.Next();
  o.destination = args.Next();
  return o;
}

// RENAME key newkey -> OK; RENAMENX key newkey -> 1, or 0 when newkey exists. A missing key is
// "ERR no such key" for both; renaming a key to itself changes nothing (OK / 0).
template <bool kNx>
void ExecuteRename(CommandContext& ctx, const TwoKeyOptions& o) {
  const int db = ctx.client.db_index();
  if (o.source == o.destination) {
    types::OpResult<bool> exists = ctx.server.keyspace().Exists(db, o.source);
    if (!exists.ok()) return ReplyError(ctx, exists);
    if (!*exists) return ctx.reply.Error(kNoSuchKey);
    return kNx ? ctx.reply.Integer(0) : ctx.reply.Ok();
  }
  types::OpResult<CopyOutcome> copied = ctx.server.keyspace().CopyKey({.src_db = db,
                                                                       .src = o.source,
                                                                       .dst_db = db,
                                                                       .dst = o.destination,
                                                                       .replace = !kNx,
                                                                       .remove_source = true});
  if (!copied.ok()) return ReplyError(ctx, copied);
  if (*copied == CopyOutcome::kNoSource) return ctx.reply.Error(kNoSuchKey);
  if (*copied == CopyOutcome::kTargetExists) return ctx.reply.Integer(0);
  types::OpResult<void> relinked =
      types::SeriesRules(ctx.server.keyspace(), db).AfterRename(o.source, o.destination);
  if (!relinked.ok()) return ReplyError(ctx, relinked);
  SignalKeyChange(ctx, o.source, kNotifyGeneric, "rename_from");
  SignalKeyChange(ctx, o.destination, kNotifyGeneric, "rename_to");
  kNx ? ctx.reply.Integer(1) : ctx.reply.Ok();
}

// A database number as Redis reads one (getIntFromObjectOrReply); its range is checked against
// `databases` when the command runs.
int64_t ParseDbIndex(ArgParser& args) { return args.Int64InRange(INT32_MIN, INT32_MAX, kNotInt32); }

bool ValidDbOrReply(CommandContext& ctx, int64_t db) {
  if (db >= 0 && db < ctx.server.config().databases) return true;
  ctx.reply.Error(kDbIndexOutOfRange);
  return false;
}

struct CopyOptions {
  std::string_view source;
  std::string_view destination;
  std::optional<int64_t> db;  // DB destination-db; none: the client's database
  bool replace = false;
};

// COPY source destination [DB destination-db] [REPLACE]
CopyOptions ParseCopy(ArgParser& args) {
  CopyOptions o;
  o.source = args.Next();
  o.destination = args.Next();
  while (args.HasMore()) {
    if (args.Token("REPLACE")) {
      o.replace = true;
    } else if (args.remaining() >= 2 && args.Token("DB")) {
      o.db = ParseDbIndex(args);
    } else {
      args.SyntaxError();
    }
  }
  return o;
}

// -> 1 if copied; 0 if the source is absent or the destination exists without REPLACE.
void ExecuteCopy(CommandContext& ctx, const CopyOptions& o) {
  const int src_db = ctx.client.db_index();
  if (o.db && !ValidDbOrReply(ctx, *o.db)) return;
  const int dst_db = o.db ? static_cast<int>(*o.db) : src_db;
  if (ctx.server.config().cluster_enabled && (src_db != 0 || dst_db != 0)) {
    return ctx.reply.Error(kCopyDbInCluster);
  }
  if (src_db == dst_db && o.source == o.destination) return ctx.reply.Error(kSameObject);
  types::OpResult<CopyOutcome> copied = ctx.server.keyspace().CopyKey({.src_db = src_db,
                                                                       .src = o.source,
                                                                       .dst_db = dst_db,
                                                                       .dst = o.destination,
                                                                       .replace = o.replace});
  if (!copied.ok()) return ReplyError(ctx, copied);
  if (*copied != CopyOutcome::kCopied) return ctx.reply.Integer(0);
  SignalKeyChange(ctx.server, dst_db, o.destination, kNotifyGeneric, "copy_to");
  ctx.reply.Integer(1);
}

struct MoveOptions {
  std::string_view key;
  int64_t db = 0;
};

// MOVE key db
MoveOptions ParseMove(ArgParser& args) {
  MoveOptions o;
  o.key = args.Next();
  o.db = ParseDbIndex(args);
  return o;
}

// -> 1 if moved; 0 if the key is absent or exists in the target database.
void ExecuteMove(CommandContext& ctx, const MoveOptions& o) {
  if (ctx.server.config().cluster_enabled) return ctx.reply.Error(kMoveInCluster);
  const int src_db = ctx.client.db_index();
  if (!ValidDbOrReply(ctx, o.db)) return;
  const int dst_db = static_cast<int>(o.db);
  if (src_db == dst_db) return ctx.reply.Error(kSameObject);
  types::OpResult<CopyOutcome> moved = ctx.server.keyspace().CopyKey(
      {.src_db = src_db, .src = o.key, .dst_db = dst_db, .dst = o.key, .remove_source = true});
  if (!moved.ok()) return ReplyError(ctx, moved);
  if (*moved != CopyOutcome::kCopied) return ctx.reply.Integer(0);
  SignalKeyChange(ctx.server, src_db, o.key, kNotifyGeneric, "move_from");
  SignalKeyChange(ctx.server, dst_db, o.key, kNotifyGeneric, "move_to");
  ctx.reply.Integer(1);
}

const ArgSpec kSourceKey = {.name = "key", .type = ArgType::kKey};
const ArgSpec kNewKey = {.name = "newkey", .type = ArgType::kKey};

}  // namespace

std::vector<CommandSpec> RenameCommands() {
  return {
      {.name = "rename",
       .arity = 3,
       .flags = kCmdWrite,
       .keys = {1, 2, 1},
       .group = "generic",
       .summary = "Renames a key and overwrites the destination.",
       .arguments = {kSourceKey, kNewKey},
       .handler = Handler<ParseTwoKeys, ExecuteRename<false>>},
      {.name = "renamenx",
       .arity = 3,
       .flags = kCmdWrite | kCmdFast,
       .keys = {1, 2, 1},
       .group = "generic",
       .summary = "Renames a key only when the target key name doesn't exist.",
       .arguments = {kSourceKey, kNewKey},
       .handler = Handler<ParseTwoKeys, ExecuteRename<true>>},
      {.name = "copy",
       .arity = -3,
       .flags = kCmdWrite | kCmdDenyOom,
       .keys = {1, 2, 1},
       .group = "generic",
       .since = "6.2.0",
       .summary = "Copies the value of a key to a new key.",
       .complexity = "O(N) worst case for collections, where N is the number of nested items.",
       .arguments =
           {{.name = "source", .type = ArgType::kKey},
            {.name = "destination", .type = ArgType::kKey},
            {.name = "destination-db", .type = ArgType::kInteger, .token = "DB", .optional = true},
            {.name = "replace", .type = ArgType::kPureToken, .token = "REPLACE", .optional = true}},
       .handler = Handler<ParseCopy, ExecuteCopy>},
      {.name = "move",
       .arity = 3,
       .flags = kCmdWrite | kCmdFast,
       .keys = kFirstKey,
       .group = "generic",
       .summary = "Moves a key to another database.",
       .arguments = {kSourceKey, {.name = "db", .type = ArgType::kInteger}},
       .handler = Handler<ParseMove, ExecuteMove>},
  };
}

}  // namespace ebb::server
