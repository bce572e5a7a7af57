// Expiry commands (any type): EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT [NX|XX|GT|LT], TTL, PTTL,
// EXPIRETIME, PEXPIRETIME, PERSIST — Redis 7 semantics over the whole-key expiry kept in the
// key's metadata row. "Now" is the server clock (DEBUG CLOCK moves it in tests).
#include <algorithm>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include "common/strings.h"
#include "protocol/reply_writer.h"
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

struct ExpireOptions {
  std::string_view key;
  std::string_view when;  // checked after the flags, as Redis does
  uint32_t flags = 0;     // types::ExpireFlag bits
};

// CMD key time [NX|XX|GT|LT ...]: XX may combine with GT or LT; NX with nothing, GT not with LT.
ExpireOptions ParseExpire(ArgParser& args) {
  ExpireOptions o;
  o.key = args.Next();
  o.when = args.Next();
  constexpr uint32_t kFlags[] = {types::kExpireNx, types::kExpireXx, types::kExpireGt,
                                 types::kExpireLt};
  while (args.HasMore()) {
    const std::string_view option = args.Peek();
    const int i = args.Choice({"NX", "XX", "GT", "LT"});
    if (i < 0) args.Fail(UnsupportedOptionError(option));
    if (i >= 0) o.flags |= kFlags[i];
  }
  if ((o.flags & types::kExpireNx) &&
      (o.flags & (types::kExpireXx | types::kExpireGt | types::kExpireLt))) {
    args.Fail(kExpireNxAndOthers);
  } else if ((o.flags & types::kExpireGt) && (o.flags & types::kExpireLt)) {
    args.Fail(kExpireGtAndLt);
  } else if (int64_t when = 0; !args.failed() && !ParseInt64(o.when, &when)) {
    args.Fail(kNotInteger);
  }
  return o;
}

// The EXPIRE family: `kSeconds` says the unit of the time, `kRelative` whether it is added to
// now; kName is the command in errors.
template <bool kSeconds, bool kRelative, const char* kName>
void ExecuteExpire(CommandContext& ctx, const ExpireOptions& o) {
  int64_t when = 0;
  ParseInt64(o.when, &when);  // checked by ParseExpire
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  if (kSeconds) {
    if (when > kMax / 1000 || when < kMin / 1000) {
      return ctx.reply.Error(InvalidExpireTimeError(kName));
    }
    when *= 1000;
  }
  if (kRelative) {
    const int64_t now = ctx.server.clock().NowMs();
    if (when > kMax - now) return ctx.reply.Error(InvalidExpireTimeError(kName));
    when += now;
  }
  OpResult<bool> applied =
      ctx.server.keyspace().Expire(ctx.client.db_index(), o.key, when, o.flags);
  if (!applied.ok()) return ReplyError(ctx, applied);
  if (*applied) {
    const bool deleted = when <= ctx.server.clock().NowMs();
    SignalKeyChange(ctx, o.key, kNotifyGeneric, deleted ? "del" : "expire");
  }
  ctx.reply.Integer(*applied ? 1 : 0);
}

constexpr char kExpire[] = "expire";
constexpr char kPexpire[] = "pexpire";
constexpr char kExpireAt[] = "expireat";
constexpr char kPexpireAt[] = "pexpireat";

// The TTL family: -2 missing, -1 no expiry; else the remaining time (TTL, PTTL) or the absolute
// expiry (EXPIRETIME, PEXPIRETIME), in seconds or milliseconds.
template <bool kMillis, bool kAbsolute>
void ExecuteTtl(CommandContext& ctx, const KeyOptions& o) {
  OpResult<std::optional<int64_t>> expire_at =
      ctx.server.keyspace().GetExpireAt(ctx.client.db_index(), o.key);
  if (expire_at.status() == types::OpStatus::kNotFound) {
    SignalKeyMiss(ctx, o.key);
    return ctx.reply.Integer(-2);
  }
  if (!expire_at.ok()) return ReplyError(ctx, expire_at);
  ctx.server.stats().keyspace_hits++;
  if (!*expire_at) return ctx.reply.Integer(-1);
  const int64_t at = **expire_at;
  if (kAbsolute) return ctx.reply.Integer(kMillis ? at : at / 1000);
  const int64_t ttl = std::max<int64_t>(at - ctx.server.clock().NowMs(), 0);
  ctx.reply.Integer(kMillis ? ttl : (ttl + 500) / 1000);
}

void ExecutePersist(CommandContext& ctx, const KeyOptions& o) {
  OpResult<bool> applied = ctx.server.keyspace().Persist(ctx.client.db_index(), o.key);
  if (!applied.ok()) return ReplyError(ctx, applied);
  if (*applied) SignalKeyChange(ctx, o.key, kNotifyGeneric, "persist");
  ctx.reply.Integer(*applied ? 1 : 0);
}

CommandSpec ExpireRow(std::string_view name, std::string_view since, std::string_view summary,
                      std::string_view time_name, ArgType time_type, CommandHandler handler) {
  return {.name = name,
          .arity = -3,
          .flags = kCmdWrite | kCmdFast,
          .keys = kFirstKey,
          .group = "generic",
          .since = since,
          .summary = summary,
          .arguments = {{.name = "key", .type = ArgType::kKey},
                        {.name = time_name, .type = time_type},
                        {.name = "condition",
                         .type = ArgType::kOneOf,
                         .optional = true,
                         .children = {{.name = "nx", .type = ArgType::kPureToken, .token = "NX"},
                                      {.name = "xx", .type = ArgType::kPureToken, .token = "XX"},
                                      {.name = "gt", .type = ArgType::kPureToken, .token = "GT"},
                                      {.name = "lt", .type = ArgType::kPureToken, .token = "LT"}}}},
          .handler = handler};
}

CommandSpec KeyRow(std::string_view name, uint32_t flags, std::string_view since,
                   std::string_view summary, CommandHandler handler) {
  return {.name = name,
          .arity = 2,
          .flags = flags,
          .keys = kFirstKey,
          .group = "generic",
          .since = since,
          .summary = summary,
          .arguments = {{.name = "key", .type = ArgType::kKey}},
          .handler = handler};
}

}  // namespace

std::vector<CommandSpec> ExpireCommands() {
  const uint32_t kRead = kCmdReadOnly | kCmdFast;
  return {
      ExpireRow("expire", "1.0.0", "Sets the expiration time of a key in seconds.", "seconds",
                ArgType::kInteger, Handler<ParseExpire, ExecuteExpire<true, true, kExpire>>),
      ExpireRow("pexpire", "2.6.0", "Sets the expiration time of a key in milliseconds.",
                "milliseconds", ArgType::kInteger,
                Handler<ParseExpire, ExecuteExpire<false, true, kPexpire>>),
      ExpireRow("expireat", "1.2.0", "Sets the expiration time of a key to a Unix timestamp.",
                "unix-time-seconds", ArgType::kUnixTime,
                Handler<ParseExpire, ExecuteExpire<true, false, kExpireAt>>),
      ExpireRow("pexpireat", "2.6.0",
                "Sets the expiration time of a key to a Unix milliseconds timestamp.",
                "unix-time-milliseconds", ArgType::kUnixTime,
                Handler<ParseExpire, ExecuteExpire<false, false, kPexpireAt>>),
      KeyRow("ttl", kRead, "1.0.0", "Returns the expiration time in seconds of a key.",
             Handler<ParseKey, ExecuteTtl<false, false>>),
      KeyRow("pttl", kRead, "2.6.0", "Returns the expiration time in milliseconds of a key.",
             Handler<ParseKey, ExecuteTtl<true, false>>),
      KeyRow("expiretime", kRead, "7.0.0",
             "Returns the expiration time of a key as a Unix timestamp.",
             Handler<ParseKey, ExecuteTtl<false, true>>),
      KeyRow("pexpiretime", kRead, "7.0.0",
             "Returns the expiration time of a key as a Unix milliseconds timestamp.",
             Handler<ParseKey, ExecuteTtl<true, true>>),
      KeyRow("persist", kCmdWrite | kCmdFast, "2.2.0", "Removes the expiration time of a key.",
             Handler<ParseKey, ExecutePersist>),
  };
}

}  // namespace ebb::server
