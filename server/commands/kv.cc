// Bindings of the timestamped KV rows (COMMANDS.md "KV rows with timestamps and TTL"):
// PUT, GET (also Redis's GET), GETMETA, DELETE. Parse, then call types::Kv, then reply.
#include "types/kv.h"

#include <optional>
#include <string_view>

#include "protocol/reply_writer.h"
#include "server/command.h"
#include "server/commands/arg_parser.h"
#include "server/commands/kv_support.h"
#include "server/commands/register.h"
#include "server/config/units.h"
#include "server/errors.h"
#include "server/server_context.h"
#include "types/ttl_policy.h"

namespace ebb::server {
namespace {

// Parses an optional trailing `GRACE ms` (from args[2]); false after replying an error.
bool ParseGraceOrReply(CommandContext& ctx, int64_t* grace_ms) {
  *grace_ms = ctx.server.config().default_retrieval_grace_ms;
  ArgParser p(ctx.args, 2);
  while (p.HasMore()) {
    if (p.Token("GRACE")) {
      *grace_ms = p.Int64();
    } else {
      p.SyntaxError();
    }
  }
  if (p.Failed()) {
    p.ReplyError(ctx.reply);
    return false;
  }
  return true;
}

// Reads the string row for GET/GETMETA, replying nil / WRONGTYPE / engine errors itself.
// Returns true with *row filled when the key holds a live string.
bool ReadRowOrReply(CommandContext& ctx, types::KvRow* row, bool array_nil) {
  int64_t grace_ms = 0;
  if (!ParseGraceOrReply(ctx, &grace_ms)) return false;
  types::Kv kv = KvFor(ctx);
  types::KvResult result;
  storage::Status s = kv.Get(ctx.args[1], grace_ms, row, &result);
  if (!s.ok()) {
    ReplyStorageError(ctx, s);
    return false;
  }
  if (result == types::KvResult::kWrongType) {
    ctx.reply.Error(kWrongType);
    return false;
  }
  if (result == types::KvResult::kAbsent) {
    ctx.server.stats().keyspace_misses++;
    if (array_nil) {
      ctx.reply.NullArray();
    } else {
      ctx.reply.Null();
    }
    return false;
  }
  ctx.server.stats().keyspace_hits++;
  return true;
}

// GET key [GRACE ms]
void GetCommand(CommandContext& ctx) {
  types::KvRow row;
  if (ReadRowOrReply(ctx, &row, /*array_nil=*/false)) ctx.reply.Bulk(row.value);
}

// GETMETA key [GRACE ms] -> value, ts, ttl (remaining ms, -1 none), expire_at (ms, -1 none).
void GetMetaCommand(CommandContext& ctx) {
  types::KvRow row;
  if (!ReadRowOrReply(ctx, &row, /*array_nil=*/true)) return;
  int64_t ttl = -1;
  int64_t expire_at = -1;
  if (row.expire_at_ms) {
    expire_at = *row.expire_at_ms;
    // Past expiries are visible only with `expiration off`: nothing is left to live.
    ttl = expire_at > NowMs(ctx) ? expire_at - NowMs(ctx) : 0;
  }
  ctx.reply.MapHeader(4);
  ctx.reply.Bulk("value");
  ctx.reply.Bulk(row.value);
  ctx.reply.Bulk("ts");
  ctx.reply.Integer(row.ts);
  ctx.reply.Bulk("ttl");
  ctx.reply.Integer(ttl);
  ctx.reply.Bulk("expire_at");
  ctx.reply.Integer(expire_at);
}

// PUT key value [TS ms] [TTL duration | NOTTL | EXAT unix-s | PXAT unix-ms]
void PutCommand(CommandContext& ctx) {
  enum class Expiry { kPolicy, kTtl, kNoTtl, kExat, kPxat };
  Expiry expiry = Expiry::kPolicy;
  std::string_view expiry_arg;
  std::optional<std::string_view> ts_arg;
  auto args = ctx.args;
  for (size_t i = 3; i < args.size(); i++) {
    const std::string_view opt = args[i];
    const bool has_next = i + 1 < args.size();
    // Repeating an option is allowed (the last wins, as Redis SET); combining two is not.
    auto takes = [&](Expiry kind) { return expiry == Expiry::kPolicy || expiry == kind; };
    if (EqualsIgnoreCase(opt, "TS") && has_next) {
      ts_arg = args[++i];
    } else if (EqualsIgnoreCase(opt, "TTL") && has_next && takes(Expiry::kTtl)) {
      expiry = Expiry::kTtl;
      expiry_arg = args[++i];
    } else if (EqualsIgnoreCase(opt, "NOTTL") && takes(Expiry::kNoTtl)) {
      expiry = Expiry::kNoTtl;
    } else if (EqualsIgnoreCase(opt, "EXAT") && has_next && takes(Expiry::kExat)) {
      expiry = Expiry::kExat;
      expiry_arg = args[++i];
    } else if (EqualsIgnoreCase(opt, "PXAT") && has_next && takes(Expiry::kPxat)) {
      expiry = Expiry::kPxat;
      expiry_arg = args[++i];
    } else {
      ctx.reply.Error(kSyntaxError);
      return;
    }
  }
  const int64_t now = NowMs(ctx);
  int64_t ts = now;
  if (ts_arg && !ParseInt64(*ts_arg, &ts)) {
    ctx.reply.Error(kNotInteger);
    return;
  }
  const std::string_view key = args[1];
  std::optional<int64_t> expire_at;
  switch (expiry) {
    case Expiry::kPolicy:
      expire_at = PolicyExpireAt(TtlPolicyFromConfig(ctx), key, ts);
      break;
    case Expiry::kNoTtl:
      break;
    case Expiry::kTtl: {
      int64_t ttl_ms = 0;
      if (!ParseDuration(expiry_arg, &ttl_ms)) {
        ctx.reply.Error(InvalidDurationError(expiry_arg));
        return;
      }
      if (ttl_ms >= 0) {  // negative: `unlimited`
        int64_t at = 0;
        if (__builtin_add_overflow(ts, ttl_ms, &at)) {
          ctx.reply.Error(InvalidExpireTimeError("put"));
          return;
        }
        expire_at = at;
      }
      break;
    }
    case Expiry::kExat:
    case Expiry::kPxat: {
      int64_t at = 0;
      if (!ParseExpireOrReply(ctx, "put", expiry_arg, expiry == Expiry::kExat,
                              /*relative=*/false, now, &at)) {
        return;
      }
      expire_at = at;
      break;
    }
  }
  types::Kv kv = KvFor(ctx);
  storage::Status s = kv.Put({key, args[2], ts, expire_at});
  if (!s.ok()) return ReplyStorageError(ctx, s);
  ctx.reply.Ok();
}

// DELETE key [TS ms]
void DeleteCommand(CommandContext& ctx) {
  int64_t ts = NowMs(ctx);
  ArgParser p(ctx.args, 2);
  while (p.HasMore()) {
    if (p.Token("TS")) {
      ts = p.Int64();
    } else {
      p.SyntaxError();
    }
  }
  if (p.Failed()) return p.ReplyError(ctx.reply);
  types::Kv kv = KvFor(ctx);
  storage::Status s = kv.Delete(ctx.args[1], ts);
  if (!s.ok()) return ReplyStorageError(ctx, s);
  ctx.reply.Ok();
}

ArgSpec Key() { return DocArg("key", ArgType::kKey); }
ArgSpec Grace() { return DocArg("grace", ArgType::kInteger, "GRACE", /*optional=*/true); }
ArgSpec Ts() { return DocArg("ts", ArgType::kInteger, "TS", /*optional=*/true); }

}  // namespace

void RegisterKvCommands(CommandTable& table) {
  table.Add(
      MakeStringCommand("get", -2, kCmdReadOnly | kCmdFast, 1, 1, 1, "1.0.0",
                        "Returns the string value of a key; GRACE resolves out-of-order versions",
                        "O(1)", {Key(), Grace()}, GetCommand));
  table.Add(MakeStringCommand("getmeta", -2, kCmdReadOnly | kCmdFast, 1, 1, 1, "0.1.0",
                              "Returns a string row's value, timestamp, remaining TTL and expiry",
                              "O(1)", {Key(), Grace()}, GetMetaCommand));
  std::vector<ArgSpec> expiration = {DocArg("duration", ArgType::kString, "TTL"),
                                     DocArg("nottl", ArgType::kPureToken, "NOTTL"),
                                     DocArg("unix-time-seconds", ArgType::kUnixTime, "EXAT"),
                                     DocArg("unix-time-milliseconds", ArgType::kUnixTime, "PXAT")};
  table.Add(MakeStringCommand(
      "put", -3, kCmdWrite, 1, 1, 1, "0.1.0",
      "Writes a new timestamped version of a string row, with an optional TTL", "O(1)",
      {Key(), DocArg("value", ArgType::kString), Ts(),
       DocArg("expiration", ArgType::kOneOf, "", /*optional=*/true, false, std::move(expiration))},
      PutCommand));
  table.Add(MakeStringCommand("delete", -2, kCmdWrite | kCmdFast, 1, 1, 1, "0.1.0",
                              "Writes a timestamped tombstone version of a key", "O(1)",
                              {Key(), Ts()}, DeleteCommand));
}

}  // namespace ebb::server
