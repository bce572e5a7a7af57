// Expiry commands (any type): EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT [NX|XX|GT|LT], TTL, PTTL,
// EXPIRETIME, PEXPIRETIME, PERSIST — Redis 7 semantics over the whole-key expiry kept in the
// key's metadata row. "Now" is the server clock (DEBUG CLOCK moves it in tests).
#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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
// The absolute expiry (ms) `o` names at `now_ms`; false when it overflows. `kSeconds` says the
// unit of the time, `kRelative` whether it is added to now.
template <bool kSeconds, bool kRelative>
bool ExpireAtOf(const ExpireOptions& o, int64_t now_ms, int64_t* when) {
  ParseInt64(o.when, when);  // checked by ParseExpire
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  if (kSeconds) {
    if (*when > kMax / 1000 || *when < kMin / 1000) return false;
    *when *= 1000;
  }
  if (kRelative) {
    if (*when > kMax - now_ms) return false;
    *when += now_ms;
  }
  return true;
}

// The EXPIRE family; kName is the command in errors.
template <bool kSeconds, bool kRelative, const char* kName>
void ExecuteExpire(CommandContext& ctx, const ExpireOptions& o) {
  int64_t when = 0;
  if (!ExpireAtOf<kSeconds, kRelative>(o, ctx.server.clock().NowMs(), &when)) {
    return ctx.reply.Error(InvalidExpireTimeError(kName));
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

// The EXPIRE family in active-active mode: `expiry-at <T> key <absolute expiry ms>`, its NX, XX,
// GT and LT judged on the origin, which takes T above what the key holds.
template <bool kSeconds, bool kRelative>
WriteForm FormExpire(const ExpireOptions& o, const WriteFormInput& in) {
  int64_t when = 0;
  if (!ExpireAtOf<kSeconds, kRelative>(o, in.now_ms, &when)) return WriteForm::Invalid();
  WriteForm form = WriteForm::Delta(
      {std::string(kExpiryAt), "", std::string(o.key), std::to_string(when)}, std::nullopt);
  form.expire_flags = o.flags;
  return form;
}

// PERSIST in active-active mode: `expiry-at <T> key persist`.
WriteForm FormPersist(const KeyOptions& o, const WriteFormInput&) {
  return WriteForm::Delta({std::string(kExpiryAt), "", std::string(o.key), std::string(kPersist)},
                          std::nullopt);
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
                      std::string_view time_name, ArgType time_type, CommandHandler handler,
                      WriteFormer write_form) {
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
          .handler = handler,
          .write_form = write_form};
}

CommandSpec KeyRow(std::string_view name, uint32_t flags, std::string_view since,
                   std::string_view summary, CommandHandler handler,
                   WriteFormer write_form = nullptr) {
  return {.name = name,
          .arity = 2,
          .flags = flags,
          .keys = kFirstKey,
          .group = "generic",
          .since = since,
          .summary = summary,
          .arguments = {{.name = "key", .type = ArgType::kKey}},
          .handler = handler,
          .write_form = write_form};
}

}  // namespace

std::vector<CommandSpec> ExpireCommands() {
  const uint32_t kRead = kCmdReadOnly | kCmdFast;
  return {
      ExpireRow("expire", "1.0.0", "Sets the expiration time of a key in seconds.", "seconds",
                ArgType::kInteger, Handler<ParseExpire, ExecuteExpire<true, true, kExpire>>,
                FormOf<ParseExpire, FormExpire<true, true>>),
      ExpireRow("pexpire", "2.6.0", "Sets the expiration time of a key in milliseconds.",
                "milliseconds", ArgType::kInteger,
                Handler<ParseExpire, ExecuteExpire<false, true, kPexpire>>,
                FormOf<ParseExpire, FormExpire<false, true>>),
      ExpireRow("expireat", "1.2.0", "Sets the expiration time of a key to a Unix timestamp.",
                "unix-time-seconds", ArgType::kUnixTime,
                Handler<ParseExpire, ExecuteExpire<true, false, kExpireAt>>,
                FormOf<ParseExpire, FormExpire<true, false>>),
      ExpireRow("pexpireat", "2.6.0",
                "Sets the expiration time of a key to a Unix milliseconds timestamp.",
                "unix-time-milliseconds", ArgType::kUnixTime,
                Handler<ParseExpire, ExecuteExpire<false, false, kPexpireAt>>,
                FormOf<ParseExpire, FormExpire<false, false>>),
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
             Handler<ParseKey, ExecutePersist>, FormOf<ParseKey, FormPersist>),
  };
}

}  // namespace ebb::server
