// Expiry commands (any type): EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT [NX|XX|GT|LT], TTL, PTTL,
// EXPIRETIME, PEXPIRETIME, PERSIST — Redis 7 semantics over the whole-key expiry kept in the
// key's metadata row. "Now" is the server clock (DEBUG CLOCK moves it in tests).
#include <limits>
#include <string>
#include <vector>

#include "protocol/reply_writer.h"
#include "server/client.h"
#include "server/command.h"
#include "server/commands/arg_parser.h"
#include "server/commands/command_rows.h"
#include "server/commands/register.h"
#include "server/commands/replies.h"
#include "server/errors.h"
#include "server/server_context.h"
#include "types/keyspace.h"

namespace ebb::server {
namespace {

// The NX|XX|GT|LT flags after "CMD key time"; replies and returns false on a bad set.
bool ExpireFlagsOrReply(CommandContext& ctx, uint32_t* flags) {
  *flags = 0;
  for (size_t i = 3; i < ctx.args.size(); ++i) {
    std::string_view arg = ctx.args[i];
    if (EqualsIgnoreCase(arg, "NX")) {
      *flags |= types::kExpireNx;
    } else if (EqualsIgnoreCase(arg, "XX")) {
      *flags |= types::kExpireXx;
    } else if (EqualsIgnoreCase(arg, "GT")) {
      *flags |= types::kExpireGt;
    } else if (EqualsIgnoreCase(arg, "LT")) {
      *flags |= types::kExpireLt;
    } else {
      ctx.reply.Error("ERR Unsupported option " + std::string(arg));
      return false;
    }
  }
  if ((*flags & types::kExpireNx) &&
      (*flags & (types::kExpireXx | types::kExpireGt | types::kExpireLt))) {
    ctx.reply.Error("ERR NX and XX, GT or LT options at the same time are not compatible");
    return false;
  }
  if ((*flags & types::kExpireGt) && (*flags & types::kExpireLt)) {
    ctx.reply.Error("ERR GT and LT options at the same time are not compatible");
    return false;
  }
  return true;
}

// EXPIRE family: `seconds` says the unit of the argument, `relative` whether it is added to now.
void ExpireGeneric(CommandContext& ctx, std::string_view name, bool seconds, bool relative) {
  uint32_t flags = 0;
  if (!ExpireFlagsOrReply(ctx, &flags)) return;
  int64_t when = 0;
  if (!ParseInt64(ctx.args[2], &when)) return ctx.reply.Error(kNotInteger);
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  if (seconds) {
    if (when > kMax / 1000 || when < kMin / 1000) {
      return ctx.reply.Error(InvalidExpireTimeError(name));
    }
    when *= 1000;
  }
  if (relative) {
    int64_t now = ctx.server.clock().NowMs();
    if (when > kMax - now) return ctx.reply.Error(InvalidExpireTimeError(name));
    when += now;
  }
  bool applied = false;
  if (StorageErrorOrReply(ctx, ctx.server.command_keyspace().Expire(
                                   ctx.client.db_index(), ctx.args[1], when, flags, &applied))) {
    return;
  }
  ctx.reply.Integer(applied ? 1 : 0);
}

void ExpireCommand(CommandContext& ctx) { ExpireGeneric(ctx, "expire", true, true); }
void PexpireCommand(CommandContext& ctx) { ExpireGeneric(ctx, "pexpire", false, true); }
void ExpireAtCommand(CommandContext& ctx) { ExpireGeneric(ctx, "expireat", true, false); }
void PexpireAtCommand(CommandContext& ctx) { ExpireGeneric(ctx, "pexpireat", false, false); }

// TTL family: -2 missing, -1 no expiry; else the remaining time (ttl) or the absolute expiry.
void TtlGeneric(CommandContext& ctx, bool millis, bool absolute) {
  std::optional<int64_t> expire_at;
  storage::Status s =
      ctx.server.command_keyspace().GetExpireAt(ctx.client.db_index(), ctx.args[1], &expire_at);
  if (s.IsNotFound()) return ctx.reply.Integer(-2);
  if (StorageErrorOrReply(ctx, s)) return;
  if (!expire_at) return ctx.reply.Integer(-1);
  if (absolute) return ctx.reply.Integer(millis ? *expire_at : *expire_at / 1000);
  int64_t ttl = std::max<int64_t>(*expire_at - ctx.server.clock().NowMs(), 0);
  ctx.reply.Integer(millis ? ttl : (ttl + 500) / 1000);
}

void TtlCommand(CommandContext& ctx) { TtlGeneric(ctx, false, false); }
void PttlCommand(CommandContext& ctx) { TtlGeneric(ctx, true, false); }
void ExpireTimeCommand(CommandContext& ctx) { TtlGeneric(ctx, false, true); }
void PexpireTimeCommand(CommandContext& ctx) { TtlGeneric(ctx, true, true); }

void PersistCommand(CommandContext& ctx) {
  bool applied = false;
  if (StorageErrorOrReply(ctx, ctx.server.command_keyspace().Persist(ctx.client.db_index(),
                                                                     ctx.args[1], &applied))) {
    return;
  }
  ctx.reply.Integer(applied ? 1 : 0);
}

CommandSpec ExpireSpec(std::string name, std::string since, std::string summary,
                       std::string time_name, ArgType time_type, CommandHandler handler) {
  std::vector<ArgSpec> conditions = {
      DocArg("nx", ArgType::kPureToken, "NX"), DocArg("xx", ArgType::kPureToken, "XX"),
      DocArg("gt", ArgType::kPureToken, "GT"), DocArg("lt", ArgType::kPureToken, "LT")};
  return KeyedRow(std::move(name), -3, kCmdWrite | kCmdFast, 1, "generic", std::move(since),
                  std::move(summary), "O(1)",
                  {DocArg("key", ArgType::kKey), DocArg(std::move(time_name), time_type),
                   DocArg("condition", ArgType::kOneOf, "", true, false, std::move(conditions))},
                  handler);
}

CommandSpec ReadSpec(std::string name, std::string since, std::string summary,
                     CommandHandler handler) {
  return KeyedRow(std::move(name), 2, kCmdReadOnly | kCmdFast, 1, "generic", std::move(since),
                  std::move(summary), "O(1)", {DocArg("key", ArgType::kKey)}, handler);
}

}  // namespace
void RegisterExpireCommands(CommandTable& table) {
  table.Add(ExpireSpec("expire", "1.0.0", "Sets the expiration time of a key in seconds.",
                       "seconds", ArgType::kInteger, ExpireCommand));
  table.Add(ExpireSpec("pexpire", "2.6.0", "Sets the expiration time of a key in milliseconds.",
                       "milliseconds", ArgType::kInteger, PexpireCommand));
  table.Add(ExpireSpec("expireat", "1.2.0",
                       "Sets the expiration time of a key to a Unix timestamp.",
                       "unix-time-seconds", ArgType::kUnixTime, ExpireAtCommand));
  table.Add(ExpireSpec("pexpireat", "2.6.0",
                       "Sets the expiration time of a key to a Unix milliseconds timestamp.",
                       "unix-time-milliseconds", ArgType::kUnixTime, PexpireAtCommand));
  table.Add(
      ReadSpec("ttl", "1.0.0", "Returns the expiration time in seconds of a key.", TtlCommand));
  table.Add(ReadSpec("pttl", "2.6.0", "Returns the expiration time in milliseconds of a key.",
                     PttlCommand));
  table.Add(ReadSpec("expiretime", "7.0.0",
                     "Returns the expiration time of a key as a Unix timestamp.",
                     ExpireTimeCommand));
  table.Add(ReadSpec("pexpiretime", "7.0.0",
                     "Returns the expiration time of a key as a Unix milliseconds timestamp.",
                     PexpireTimeCommand));
  CommandSpec persist =
      ReadSpec("persist", "2.2.0", "Removes the expiration time of a key.", PersistCommand);
  persist.flags = kCmdWrite | kCmdFast;
  table.Add(std::move(persist));
}

}  // namespace ebb::server
