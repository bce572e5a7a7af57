// Bindings of the Redis string commands over timestamped string rows (t_string.c's replies and
// errors, Redis 7): SET, SETNX, SETEX, PSETEX, GETEX, GETDEL, GETSET, MGET, MSET, MSETNX, STRLEN,
// APPEND, SETRANGE, GETRANGE, SUBSTR, INCR, DECR, INCRBY, DECRBY. GET is in kv.cc (it takes GRACE).
// Writes use the server clock as the row timestamp; without a TTL option they get the TTL policy
// (ttl-rule, default-ttl). Reads use default-retrieval-grace.
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/reply_writer.h"
#include "server/command.h"
#include "server/commands/arg_parser.h"
#include "server/commands/kv_support.h"
#include "server/commands/register.h"
#include "server/errors.h"
#include "server/server_context.h"
#include "types/kv.h"

namespace ebb::server {
namespace {

using types::KvResult;

// Redis's OBJ_* flags of parseExtendedStringArgumentsOrReply.
enum SetFlag : unsigned {
  kNx = 1 << 0,
  kXx = 1 << 1,
  kGet = 1 << 2,
  kKeepTtl = 1 << 3,
  kPersist = 1 << 4,
  kEx = 1 << 5,
  kPx = 1 << 6,
  kExat = 1 << 7,
  kPxat = 1 << 8,
};
constexpr unsigned kAnyExpire = kEx | kPx | kExat | kPxat;

struct ExtendedArgs {
  unsigned flags = 0;
  std::string_view expire;  // the EX/PX/EXAT/PXAT argument
};

// Redis's parseExtendedStringArgumentsOrReply for SET (is_set) and GETEX (!is_set), from
// args[start]. The same option may repeat (the last wins); conflicting ones are a syntax error.
bool ParseExtendedOrReply(CommandContext& ctx, size_t start, bool is_set, ExtendedArgs* out) {
  auto args = ctx.args;
  for (size_t j = start; j < args.size(); j++) {
    const std::string_view opt = args[j];
    const bool has_next = j + 1 < args.size();
    const unsigned f = out->flags;
    auto expire_ok = [&](unsigned self) {
      return !(f & kKeepTtl) && !(f & kPersist) && !(f & (kAnyExpire & ~self)) && has_next;
    };
    if (is_set && EqualsIgnoreCase(opt, "NX") && !(f & kXx)) {
      out->flags |= kNx;
    } else if (is_set && EqualsIgnoreCase(opt, "XX") && !(f & kNx)) {
      out->flags |= kXx;
    } else if (is_set && EqualsIgnoreCase(opt, "GET")) {
      out->flags |= kGet;
    } else if (is_set && EqualsIgnoreCase(opt, "KEEPTTL") && !(f & kPersist) && !(f & kAnyExpire)) {
      out->flags |= kKeepTtl;
    } else if (!is_set && EqualsIgnoreCase(opt, "PERSIST") && !(f & kAnyExpire) &&
               !(f & kKeepTtl)) {
      out->flags |= kPersist;
    } else if (EqualsIgnoreCase(opt, "EX") && expire_ok(kEx)) {
      out->flags |= kEx;
      out->expire = args[++j];
    } else if (EqualsIgnoreCase(opt, "PX") && expire_ok(kPx)) {
      out->flags |= kPx;
      out->expire = args[++j];
    } else if (EqualsIgnoreCase(opt, "EXAT") && expire_ok(kExat)) {
      out->flags |= kExat;
      out->expire = args[++j];
    } else if (EqualsIgnoreCase(opt, "PXAT") && expire_ok(kPxat)) {
      out->flags |= kPxat;
      out->expire = args[++j];
    } else {
      ctx.reply.Error(kSyntaxError);
      return false;
    }
  }
  return true;
}

// The absolute expiry of an EX/PX/EXAT/PXAT argument; false after replying an error.
bool ExtendedExpireOrReply(CommandContext& ctx, std::string_view cmd, const ExtendedArgs& a,
                           int64_t now, int64_t* expire_at) {
  return ParseExpireOrReply(ctx, cmd, a.expire, (a.flags & (kEx | kExat)) != 0,
                            (a.flags & (kEx | kPx)) != 0, now, expire_at);
}

// Replies for a KvResult that is an error; returns true if it was one.
bool ReplyIfError(CommandContext& ctx, KvResult result) {
  switch (result) {
    case KvResult::kWrongType:
      ctx.reply.Error(kWrongType);
      return true;
    case KvResult::kNotInteger:
      ctx.reply.Error(kNotInteger);
      return true;
    case KvResult::kOverflow:
      ctx.reply.Error(kOverflow);
      return true;
    case KvResult::kTooLarge:
      ctx.reply.Error("ERR string exceeds maximum allowed size (proto-max-bulk-len)");
      return true;
    default:
      return false;
  }
}

// The shared core of SET, SETNX, SETEX, PSETEX and GETSET (Redis's setGenericCommand).
// `expire_at` is already resolved (nullopt with !keep_ttl: apply the TTL policy).
void SetGeneric(CommandContext& ctx, std::string_view key, std::string_view value, unsigned flags,
                std::optional<int64_t> expire_at, int64_t now, bool reply_integer) {
  types::KvSetOptions options;
  options.condition = (flags & kNx)   ? types::KvSetOptions::Condition::kNx
                      : (flags & kXx) ? types::KvSetOptions::Condition::kXx
                                      : types::KvSetOptions::Condition::kNone;
  options.get = (flags & kGet) != 0;
  options.keep_ttl = (flags & kKeepTtl) != 0;
  options.ts = now;
  options.expire_at_ms = expire_at ? expire_at : PolicyExpireAt(TtlPolicyFromConfig(ctx), key, now);
  types::Kv kv = KvFor(ctx);
  KvResult result;
  std::optional<std::string> old;
  storage::Status s = kv.Set(key, value, options, &result, &old);
  if (!s.ok()) return ReplyStorageError(ctx, s);
  if (ReplyIfError(ctx, result)) return;
  const bool written = result == KvResult::kOk;
  if (options.get) {
    if (old) {
      ctx.reply.Bulk(*old);
    } else {
      ctx.reply.Null();
    }
  } else if (reply_integer) {
    ctx.reply.Integer(written ? 1 : 0);
  } else if (written) {
    ctx.reply.Ok();
  } else {
    ctx.reply.Null();
  }
}

// SET key value [NX|XX] [GET] [EX s|PX ms|EXAT s|PXAT ms|KEEPTTL]
void SetCommand(CommandContext& ctx) {
  ExtendedArgs a;
  if (!ParseExtendedOrReply(ctx, 3, /*is_set=*/true, &a)) return;
  const int64_t now = NowMs(ctx);
  std::optional<int64_t> expire_at;
  if (a.flags & kAnyExpire) {
    int64_t at = 0;
    if (!ExtendedExpireOrReply(ctx, "set", a, now, &at)) return;
    expire_at = at;
  }
  SetGeneric(ctx, ctx.args[1], ctx.args[2], a.flags, expire_at, now, false);
}

// SETNX key value -> 1 if set, 0 if the key existed.
void SetNxCommand(CommandContext& ctx) {
  SetGeneric(ctx, ctx.args[1], ctx.args[2], kNx, std::nullopt, NowMs(ctx), true);
}

// SETEX key seconds value / PSETEX key milliseconds value
void SetExGeneric(CommandContext& ctx, std::string_view cmd, bool seconds) {
  const int64_t now = NowMs(ctx);
  int64_t at = 0;
  if (!ParseExpireOrReply(ctx, cmd, ctx.args[2], seconds, /*relative=*/true, now, &at)) return;
  SetGeneric(ctx, ctx.args[1], ctx.args[3], 0, at, now, false);
}
void SetExCommand(CommandContext& ctx) { SetExGeneric(ctx, "setex", true); }
void PSetExCommand(CommandContext& ctx) { SetExGeneric(ctx, "psetex", false); }

// GETSET key value: SET key value GET (the TTL is replaced, as SET does).
void GetSetCommand(CommandContext& ctx) {
  SetGeneric(ctx, ctx.args[1], ctx.args[2], kGet, std::nullopt, NowMs(ctx), false);
}

// Reads a string for GETEX/GETDEL/STRLEN, counting hits and misses. Replies WRONGTYPE or an
// engine error itself and returns false; otherwise *result is kOk or kAbsent.
bool ReadOrReply(CommandContext& ctx, types::Kv& kv, types::KvRow* row, KvResult* result) {
  storage::Status s = kv.Get(ctx.args[1], row, result);
  if (!s.ok()) {
    ReplyStorageError(ctx, s);
    return false;
  }
  if (ReplyIfError(ctx, *result)) return false;
  if (*result == KvResult::kOk) {
    ctx.server.stats().keyspace_hits++;
  } else {
    ctx.server.stats().keyspace_misses++;
  }
  return true;
}

// GETEX key [EX s|PX ms|EXAT s|PXAT ms|PERSIST]: nil first, then WRONGTYPE, then the expire
// time's validity — Redis's order. The row keeps its timestamp; only the expiry changes.
void GetExCommand(CommandContext& ctx) {
  ExtendedArgs a;
  if (!ParseExtendedOrReply(ctx, 2, /*is_set=*/false, &a)) return;
  types::Kv kv = KvFor(ctx);
  types::KvRow row;
  KvResult result;
  if (!ReadOrReply(ctx, kv, &row, &result)) return;
  if (result == KvResult::kAbsent) return ctx.reply.Null();
  std::optional<int64_t> expire_at = row.expire_at_ms;
  if (a.flags & kAnyExpire) {
    int64_t at = 0;
    if (!ExtendedExpireOrReply(ctx, "getex", a, NowMs(ctx), &at)) return;
    expire_at = at;
  } else if (a.flags & kPersist) {
    expire_at = std::nullopt;
  }
  if (expire_at != row.expire_at_ms) {
    storage::Status s = kv.Put({ctx.args[1], row.value, row.ts, expire_at});
    if (!s.ok()) return ReplyStorageError(ctx, s);
  }
  ctx.reply.Bulk(row.value);
}

// GETDEL key
void GetDelCommand(CommandContext& ctx) {
  types::Kv kv = KvFor(ctx);
  types::KvRow row;
  KvResult result;
  storage::Status s = kv.GetDel(ctx.args[1], &row, &result);
  if (!s.ok()) return ReplyStorageError(ctx, s);
  if (ReplyIfError(ctx, result)) return;
  if (result == KvResult::kAbsent) {
    ctx.server.stats().keyspace_misses++;
    return ctx.reply.Null();
  }
  ctx.server.stats().keyspace_hits++;
  ctx.reply.Bulk(row.value);
}

// STRLEN key
void StrLenCommand(CommandContext& ctx) {
  types::Kv kv = KvFor(ctx);
  types::KvRow row;
  KvResult result;
  if (!ReadOrReply(ctx, kv, &row, &result)) return;
  ctx.reply.Integer(result == KvResult::kOk ? static_cast<int64_t>(row.value.size()) : 0);
}

// MGET key [key ...]: nil for missing keys and keys of other types.
void MGetCommand(CommandContext& ctx) {
  types::Kv kv = KvFor(ctx);
  ctx.reply.ArrayHeader(ctx.args.size() - 1);
  for (size_t i = 1; i < ctx.args.size(); i++) {
    types::KvRow row;
    KvResult result;
    storage::Status s = kv.Get(ctx.args[i], &row, &result);
    if (s.ok() && result == KvResult::kOk) {
      ctx.server.stats().keyspace_hits++;
      ctx.reply.Bulk(row.value);
    } else {
      ctx.server.stats().keyspace_misses++;
      ctx.reply.Null();  // an engine error here cannot become an error reply mid-array
    }
  }
}

// The rows of MSET/MSETNX at the clock, each with the TTL policy's expiry. Replies the arity
// error (an odd number of arguments) and returns false.
bool MultiPutsOrReply(CommandContext& ctx, std::string_view cmd, std::vector<types::KvPut>* puts) {
  if (ctx.args.size() % 2 == 0) {
    ctx.reply.Error(WrongArgsError(cmd));
    return false;
  }
  const int64_t now = NowMs(ctx);
  types::TtlPolicy policy = TtlPolicyFromConfig(ctx);
  for (size_t i = 1; i + 1 < ctx.args.size(); i += 2) {
    puts->push_back({ctx.args[i], ctx.args[i + 1], now, PolicyExpireAt(policy, ctx.args[i], now)});
  }
  return true;
}

// MSET key value [key value ...]: one atomic batch.
void MSetCommand(CommandContext& ctx) {
  std::vector<types::KvPut> puts;
  if (!MultiPutsOrReply(ctx, "mset", &puts)) return;
  types::Kv kv = KvFor(ctx);
  storage::Status s = kv.MultiPut(puts);
  if (!s.ok()) return ReplyStorageError(ctx, s);
  ctx.reply.Ok();
}

// MSETNX key value [key value ...] -> 1 if every key was set, 0 if any key existed.
void MSetNxCommand(CommandContext& ctx) {
  std::vector<types::KvPut> puts;
  if (!MultiPutsOrReply(ctx, "msetnx", &puts)) return;
  types::Kv kv = KvFor(ctx);
  KvResult result;
  storage::Status s = kv.MultiPutIfNoneExist(puts, &result);
  if (!s.ok()) return ReplyStorageError(ctx, s);
  ctx.reply.Integer(result == KvResult::kOk ? 1 : 0);
}

// APPEND key value -> the new length.
void AppendCommand(CommandContext& ctx) {
  const int64_t now = NowMs(ctx);
  const std::string_view key = ctx.args[1];
  types::Kv kv = KvFor(ctx);
  int64_t length = 0;
  KvResult result;
  storage::Status s =
      kv.Append(key, ctx.args[2], now, PolicyExpireAt(TtlPolicyFromConfig(ctx), key, now),
                ctx.server.config().proto_max_bulk_len, &length, &result);
  if (!s.ok()) return ReplyStorageError(ctx, s);
  if (ReplyIfError(ctx, result)) return;
  ctx.reply.Integer(length);
}

// SETRANGE key offset value -> the length after the write.
void SetRangeCommand(CommandContext& ctx) {
  int64_t offset = 0;
  if (!ParseInt64(ctx.args[2], &offset)) return ctx.reply.Error(kNotInteger);
  if (offset < 0) return ctx.reply.Error("ERR offset is out of range");
  const int64_t now = NowMs(ctx);
  const std::string_view key = ctx.args[1];
  types::Kv kv = KvFor(ctx);
  int64_t length = 0;
  KvResult result;
  storage::Status s = kv.SetRange(key, static_cast<uint64_t>(offset), ctx.args[3], now,
                                  PolicyExpireAt(TtlPolicyFromConfig(ctx), key, now),
                                  ctx.server.config().proto_max_bulk_len, &length, &result);
  if (!s.ok()) return ReplyStorageError(ctx, s);
  if (ReplyIfError(ctx, result)) return;
  ctx.reply.Integer(length);
}

// GETRANGE key start end (and SUBSTR): Redis's index rules; "" for a missing key.
void GetRangeCommand(CommandContext& ctx) {
  int64_t start = 0;
  int64_t end = 0;
  if (!ParseInt64(ctx.args[2], &start) || !ParseInt64(ctx.args[3], &end)) {
    return ctx.reply.Error(kNotInteger);
  }
  types::Kv kv = KvFor(ctx);
  types::KvRow row;
  KvResult result;
  if (!ReadOrReply(ctx, kv, &row, &result)) return;
  const int64_t len = static_cast<int64_t>(row.value.size());
  if (start < 0 && end < 0 && start > end) return ctx.reply.Bulk("");
  if (start < 0) start += len;
  if (end < 0) end += len;
  if (start < 0) start = 0;
  if (end < 0) end = 0;
  if (end >= len) end = len - 1;
  if (len == 0 || start > end) return ctx.reply.Bulk("");
  ctx.reply.Bulk(std::string_view(row.value).substr(static_cast<size_t>(start),
                                                    static_cast<size_t>(end - start + 1)));
}

void IncrDecr(CommandContext& ctx, int64_t delta) {
  const int64_t now = NowMs(ctx);
  const std::string_view key = ctx.args[1];
  types::Kv kv = KvFor(ctx);
  int64_t value = 0;
  KvResult result;
  storage::Status s = kv.IncrBy(key, delta, now, PolicyExpireAt(TtlPolicyFromConfig(ctx), key, now),
                                &value, &result);
  if (!s.ok()) return ReplyStorageError(ctx, s);
  if (ReplyIfError(ctx, result)) return;
  ctx.reply.Integer(value);
}

void IncrCommand(CommandContext& ctx) { IncrDecr(ctx, 1); }
void DecrCommand(CommandContext& ctx) { IncrDecr(ctx, -1); }

void IncrByCommand(CommandContext& ctx) {
  int64_t delta = 0;
  if (!ParseInt64(ctx.args[2], &delta)) return ctx.reply.Error(kNotInteger);
  IncrDecr(ctx, delta);
}

void DecrByCommand(CommandContext& ctx) {
  int64_t delta = 0;
  if (!ParseInt64(ctx.args[2], &delta)) return ctx.reply.Error(kNotInteger);
  // Negating INT64_MIN overflows.
  if (delta == std::numeric_limits<int64_t>::min()) {
    return ctx.reply.Error("ERR decrement would overflow");
  }
  IncrDecr(ctx, -delta);
}

ArgSpec Key() { return DocArg("key", ArgType::kKey); }
ArgSpec Value() { return DocArg("value", ArgType::kString); }
ArgSpec ExpireArg(std::string name, ArgType type, std::string token) {
  return DocArg(std::move(name), type, std::move(token));
}

}  // namespace

void RegisterStringCommands(CommandTable& table) {
  table.Add(MakeStringCommand(
      "set", -3, kCmdWrite, 1, 1, 1, "1.0.0",
      "Sets the string value of a key, ignoring its type. The key is created if it doesn't exist",
      "O(1)",
      {Key(), Value(),
       DocArg("condition", ArgType::kOneOf, "", true, false,
              {DocArg("nx", ArgType::kPureToken, "NX"), DocArg("xx", ArgType::kPureToken, "XX")}),
       DocArg("get", ArgType::kPureToken, "GET", true),
       DocArg("expiration", ArgType::kOneOf, "", true, false,
              {ExpireArg("seconds", ArgType::kInteger, "EX"),
               ExpireArg("milliseconds", ArgType::kInteger, "PX"),
               ExpireArg("unix-time-seconds", ArgType::kUnixTime, "EXAT"),
               ExpireArg("unix-time-milliseconds", ArgType::kUnixTime, "PXAT"),
               DocArg("keepttl", ArgType::kPureToken, "KEEPTTL")})},
      SetCommand));
  table.Add(MakeStringCommand("setnx", 3, kCmdWrite | kCmdFast, 1, 1, 1, "1.0.0",
                              "Set the string value of a key only when the key doesn't exist",
                              "O(1)", {Key(), Value()}, SetNxCommand));
  table.Add(MakeStringCommand(
      "setex", 4, kCmdWrite, 1, 1, 1, "2.0.0",
      "Sets the string value and expiration time of a key. Creates the key if it doesn't exist",
      "O(1)", {Key(), DocArg("seconds", ArgType::kInteger), Value()}, SetExCommand));
  table.Add(MakeStringCommand("psetex", 4, kCmdWrite, 1, 1, 1, "2.6.0",
                              "Sets both string value and expiration time in milliseconds of a key",
                              "O(1)", {Key(), DocArg("milliseconds", ArgType::kInteger), Value()},
                              PSetExCommand));
  table.Add(MakeStringCommand(
      "getex", -2, kCmdWrite | kCmdFast, 1, 1, 1, "6.2.0",
      "Returns the string value of a key after setting its expiration time", "O(1)",
      {Key(), DocArg("expiration", ArgType::kOneOf, "", true, false,
                     {ExpireArg("seconds", ArgType::kInteger, "EX"),
                      ExpireArg("milliseconds", ArgType::kInteger, "PX"),
                      ExpireArg("unix-time-seconds", ArgType::kUnixTime, "EXAT"),
                      ExpireArg("unix-time-milliseconds", ArgType::kUnixTime, "PXAT"),
                      DocArg("persist", ArgType::kPureToken, "PERSIST")})},
      GetExCommand));
  table.Add(MakeStringCommand("getdel", 2, kCmdWrite | kCmdFast, 1, 1, 1, "6.2.0",
                              "Returns the string value of a key after deleting the key", "O(1)",
                              {Key()}, GetDelCommand));
  table.Add(MakeStringCommand(
      "getset", 3, kCmdWrite | kCmdFast, 1, 1, 1, "1.0.0",
      "Returns the previous string value of a key after setting it to a new value", "O(1)",
      {Key(), Value()}, GetSetCommand));
  table.Add(MakeStringCommand("mget", -2, kCmdReadOnly | kCmdFast, 1, -1, 1, "1.0.0",
                              "Atomically returns the string values of one or more keys",
                              "O(N) where N is the number of keys to retrieve",
                              {DocArg("key", ArgType::kKey, "", false, true)}, MGetCommand));
  std::vector<ArgSpec> pairs = {DocArg("data", ArgType::kBlock, "", false, true, {Key(), Value()})};
  table.Add(
      MakeStringCommand("mset", -3, kCmdWrite, 1, -1, 2, "1.0.1",
                        "Atomically creates or modifies the string values of one or more keys",
                        "O(N) where N is the number of keys to set", pairs, MSetCommand));
  table.Add(MakeStringCommand(
      "msetnx", -3, kCmdWrite, 1, -1, 2, "1.0.1",
      "Atomically modifies the string values of one or more keys only when all keys don't exist",
      "O(N) where N is the number of keys to set", pairs, MSetNxCommand));
  table.Add(MakeStringCommand("strlen", 2, kCmdReadOnly | kCmdFast, 1, 1, 1, "2.2.0",
                              "Returns the length of a string value", "O(1)", {Key()},
                              StrLenCommand));
  table.Add(MakeStringCommand(
      "append", 3, kCmdWrite | kCmdFast, 1, 1, 1, "2.0.0",
      "Appends a string to the value of a key. Creates the key if it doesn't exist", "O(1)",
      {Key(), Value()}, AppendCommand));
  table.Add(MakeStringCommand(
      "setrange", 4, kCmdWrite, 1, 1, 1, "2.2.0",
      "Overwrites a part of a string value with another by an offset. Creates the key if it "
      "doesn't exist",
      "O(1)", {Key(), DocArg("offset", ArgType::kInteger), Value()}, SetRangeCommand));
  std::vector<ArgSpec> range = {Key(), DocArg("start", ArgType::kInteger),
                                DocArg("end", ArgType::kInteger)};
  table.Add(MakeStringCommand("getrange", 4, kCmdReadOnly, 1, 1, 1, "2.4.0",
                              "Returns a substring of the string stored at a key",
                              "O(N) where N is the length of the returned string", range,
                              GetRangeCommand));
  table.Add(MakeStringCommand(
      "substr", 4, kCmdReadOnly, 1, 1, 1, "1.0.0", "Returns a substring from a string value",
      "O(N) where N is the length of the returned string", range, GetRangeCommand));
  table.Add(MakeStringCommand(
      "incr", 2, kCmdWrite | kCmdFast, 1, 1, 1, "1.0.0",
      "Increments the integer value of a key by one. Uses 0 as initial value if the key doesn't "
      "exist",
      "O(1)", {Key()}, IncrCommand));
  table.Add(MakeStringCommand(
      "decr", 2, kCmdWrite | kCmdFast, 1, 1, 1, "1.0.0",
      "Decrements the integer value of a key by one. Uses 0 as initial value if the key doesn't "
      "exist",
      "O(1)", {Key()}, DecrCommand));
  table.Add(MakeStringCommand(
      "incrby", 3, kCmdWrite | kCmdFast, 1, 1, 1, "1.0.0",
      "Increments the integer value of a key by a number. Uses 0 as initial value if the key "
      "doesn't exist",
      "O(1)", {Key(), DocArg("increment", ArgType::kInteger)}, IncrByCommand));
  table.Add(MakeStringCommand(
      "decrby", 3, kCmdWrite | kCmdFast, 1, 1, 1, "1.0.0",
      "Decrements a number from the integer value of a key. Uses 0 as initial value if the key "
      "doesn't exist",
      "O(1)", {Key(), DocArg("decrement", ArgType::kInteger)}, DecrByCommand));
}

}  // namespace ebb::server
