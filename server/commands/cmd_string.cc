// The Redis string commands over timestamped string rows (t_string.c's replies and errors,
// Redis 7): SET, SETNX, SETEX, PSETEX, GETEX, GETDEL, GETSET, MGET, MSET, MSETNX, STRLEN,
// APPEND, SETRANGE, GETRANGE, SUBSTR, INCR, DECR, INCRBY, DECRBY, INCRBYFLOAT. GET is in cmd_kv.cc
// (it takes GRACE). Writes use the server clock as the row timestamp; without a TTL option they get
// the TTL policy (ttl-rule, default-ttl). Reads use default-retrieval-grace.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/commands/expire_time.h"
#include "server/commands/read_string.h"
#include "server/commands/register.h"
#include "server/commands/string_delta.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/services/keyspace_events.h"
#include "server/services/reply.h"
#include "server/services/server_context.h"
#include "types/counter.h"  // FormatLongDouble
#include "types/keyspace.h"
#include "types/kv.h"

namespace ebb::server {
namespace {

using types::KvSetOptions;
using types::OpResult;
using types::OpStatus;

int64_t NowMs(CommandContext& ctx) { return ctx.server.clock().NowMs(); }

// The expiry the TTL policy gives `key` written now.
std::optional<int64_t> PolicyExpireAt(CommandContext& ctx, std::string_view key, int64_t now) {
  return ctx.server.keyspace().PolicyExpireAt(key, now);
}

// ---- SET and its relatives (Redis's setGenericCommand)

struct SetOptions {
  std::string_view key;
  std::string_view value;
  KvSetOptions::Condition condition = KvSetOptions::Condition::kNone;
  bool get = false;
  bool keep_ttl = false;
  std::optional<ExpireArg> expire;
};

// How the SET family answers.
enum class SetReply { kOkOrNil, kInteger };

// SET's core. `expire_at` is resolved (nullopt without keep_ttl: the TTL policy).
void SetGeneric(CommandContext& ctx, const SetOptions& o, std::optional<int64_t> expire_at,
                int64_t now, SetReply reply) {
  KvSetOptions options;
  options.condition = o.condition;
  options.get = o.get;
  options.keep_ttl = o.keep_ttl;
  options.ts = now;
  options.expire_at_ms = expire_at ? expire_at : PolicyExpireAt(ctx, o.key, now);
  OpResult<types::KvSetResult> result = KvOf(ctx).Set(o.key, o.value, options);
  if (!result.ok()) return ReplyError(ctx, result);
  if (result->written) {
    SignalKeyChange(ctx, o.key, kNotifyString, "set");
    if (expire_at) SignalKeyChange(ctx, o.key, kNotifyGeneric, "expire");
  }
  if (o.get) {
    if (result->old) return ctx.reply.Bulk(*result->old);
    return ctx.reply.Null();
  }
  if (reply == SetReply::kInteger) return ctx.reply.Integer(result->written ? 1 : 0);
  if (result->written) return ctx.reply.Ok();
  ctx.reply.Null();
}

// SET key value [NX|XX] [GET] [EX s|PX ms|EXAT s|PXAT ms|KEEPTTL]. The same option may repeat
// (the last wins); combining two of a group is a syntax error.
SetOptions ParseSet(ArgParser& args) {
  SetOptions o;
  o.key = args.Next();
  o.value = args.Next();
  OptionGroup condition, expiry;
  while (args.HasMore()) {
    if (const int c = args.Choice({"NX", "XX"}, &condition); c >= 0) {
      o.condition = c == 0 ? KvSetOptions::Condition::kNx : KvSetOptions::Condition::kXx;
    } else if (args.Token("GET")) {
      o.get = true;
    } else if (const int e = args.Choice({"EX", "PX", "EXAT", "PXAT", "KEEPTTL"}, &expiry);
               e >= 0) {
      if (e == 4) {
        o.keep_ttl = true;
      } else {
        o.expire = ExpireArg{.text = args.Next(), .seconds = e == 0 || e == 2, .relative = e < 2};
      }
    } else {
      args.SyntaxError();
    }
  }
  return o;
}

void ExecuteSet(CommandContext& ctx, const SetOptions& o) {
  const int64_t now = NowMs(ctx);
  std::optional<int64_t> expire_at;
  if (o.expire) {
    int64_t at = 0;
    if (!ExpireAtOrReply(ctx, *o.expire, "set", now, &at)) return;
    expire_at = at;
  }
  SetGeneric(ctx, o, expire_at, now, SetReply::kOkOrNil);
}

// SET in active-active mode: a string version at the node's clock, its expiry written out. NX,
// XX, GET and KEEPTTL depend on what the key holds on the node, which peers do not share.
WriteForm FormSet(const SetOptions& o, const WriteFormInput& in) {
  if (o.condition != KvSetOptions::Condition::kNone) {
    return WriteForm::Refused(
        ConditionalSetError(o.condition == KvSetOptions::Condition::kNx ? "nx" : "xx"));
  }
  if (o.get) return WriteForm::Refused(ConditionalSetError("get"));
  if (o.keep_ttl) return WriteForm::Refused(ConditionalSetError("keepttl"));
  if (!o.expire) {
    return StringPutForm(o.key, o.value, in.now_ms, in.keyspace.PolicyExpireAt(o.key, in.now_ms),
                         std::nullopt, in.spare_args);
  }
  int64_t expire_at = 0;
  if (ResolveExpireAt(*o.expire, in.now_ms, &expire_at) != ExpireAtOutcome::kOk) {
    return WriteForm::Invalid();
  }
  return StringPutForm(o.key, o.value, in.now_ms, expire_at, std::nullopt, in.spare_args);
}

// SETNX key value -> 1 if set, 0 if the key existed. GETSET key value -> the old value.
SetOptions ParseKeyValue(ArgParser& args) {
  SetOptions o;
  o.key = args.Next();
  o.value = args.Next();
  return o;
}

void ExecuteSetNx(CommandContext& ctx, const SetOptions& options) {
  SetOptions o = options;
  o.condition = KvSetOptions::Condition::kNx;
  SetGeneric(ctx, o, std::nullopt, NowMs(ctx), SetReply::kInteger);
}

// GETSET key value: SET key value GET (the TTL is replaced, as SET does).
void ExecuteGetSet(CommandContext& ctx, const SetOptions& options) {
  SetOptions o = options;
  o.get = true;
  SetGeneric(ctx, o, std::nullopt, NowMs(ctx), SetReply::kOkOrNil);
}

// SETEX key seconds value / PSETEX key milliseconds value.
template <bool kSeconds>
SetOptions ParseSetEx(ArgParser& args) {
  SetOptions o;
  o.key = args.Next();
  o.expire = ExpireArg{.text = args.Next(), .seconds = kSeconds, .relative = true};
  o.value = args.Next();
  return o;
}

template <bool kSeconds>
void ExecuteSetEx(CommandContext& ctx, const SetOptions& o) {
  const int64_t now = NowMs(ctx);
  int64_t at = 0;
  if (!ExpireAtOrReply(ctx, *o.expire, kSeconds ? "setex" : "psetex", now, &at)) return;
  SetGeneric(ctx, o, at, now, SetReply::kOkOrNil);
}

// ---- GETEX, GETDEL, STRLEN, MGET

struct GetExOptions {
  std::string_view key;
  std::optional<ExpireArg> expire;
  bool persist = false;
};

// GETEX key [EX s|PX ms|EXAT s|PXAT ms|PERSIST]
GetExOptions ParseGetEx(ArgParser& args) {
  GetExOptions o;
  o.key = args.Next();
  OptionGroup expiry;
  while (args.HasMore()) {
    const int e = args.Choice({"EX", "PX", "EXAT", "PXAT", "PERSIST"}, &expiry);
    if (e == 4) {
      o.persist = true;
    } else if (e >= 0) {
      o.expire = ExpireArg{.text = args.Next(), .seconds = e == 0 || e == 2, .relative = e < 2};
    } else {
      args.SyntaxError();
    }
  }
  return o;
}

// Nil first, then WRONGTYPE, then the expire time's validity — Redis's order. The row keeps its
// timestamp; only the expiry changes.
void ExecuteGetEx(CommandContext& ctx, const GetExOptions& o) {
  std::optional<types::KvRow> row;
  if (!ReadStringOrReply(ctx, o.key, std::nullopt, &row)) return;
  if (!row) return ctx.reply.Null();
  std::optional<int64_t> expire_at = row->expire_at_ms;
  if (o.expire) {
    int64_t at = 0;
    if (!ExpireAtOrReply(ctx, *o.expire, "getex", NowMs(ctx), &at)) return;
    expire_at = at;
  } else if (o.persist) {
    expire_at = std::nullopt;
  }
  if (expire_at != row->expire_at_ms) {
    OpResult<void> put = KvOf(ctx).Put({o.key, row->value, row->ts, expire_at, row->raw});
    if (!put.ok()) return ReplyError(ctx, put);
    const bool gone = expire_at && *expire_at <= NowMs(ctx);
    SignalKeyChange(ctx, o.key, kNotifyGeneric, gone ? "del" : o.persist ? "persist" : "expire");
  }
  ctx.reply.Bulk(row->value);
}

void ExecuteGetDel(CommandContext& ctx, const KeyOptions& o) {
  OpResult<types::KvRow> row = KvOf(ctx).GetDel(o.key);
  if (row.status() == OpStatus::kNotFound) {
    SignalKeyMiss(ctx, o.key);
    return ctx.reply.Null();
  }
  if (!row.ok()) return ReplyError(ctx, row);
  ctx.server.stats().keyspace_hits++;
  SignalKeyChange(ctx, o.key, kNotifyGeneric, "del");
  ctx.reply.Bulk(row->value);
}

void ExecuteStrLen(CommandContext& ctx, const KeyOptions& o) {
  std::optional<types::KvRow> row;
  if (!ReadStringOrReply(ctx, o.key, std::nullopt, &row)) return;
  ctx.reply.Integer(row ? static_cast<int64_t>(row->value.size()) : 0);
}

// MGET key [key ...]: nil for missing keys and keys of other types.
void ExecuteMGet(CommandContext& ctx, const KeysOptions& o) {
  types::Kv kv = KvOf(ctx);
  ctx.reply.ArrayHeader(o.keys.size());
  for (std::string_view key : o.keys) {
    OpResult<types::KvRow> row = kv.Get(key);
    if (row.ok()) {
      ctx.server.stats().keyspace_hits++;
      ctx.reply.Bulk(row->value);
      continue;
    }
    if (row.status() == OpStatus::kNotFound) {
      SignalKeyMiss(ctx, key);
    } else {
      ctx.server.stats().keyspace_hits++;  // a key of another type (Redis's lookup found it)
    }
    ctx.reply.Null();  // an engine error here cannot become an error reply mid-array
  }
}

// ---- MSET, MSETNX

struct PairsOptions {
  std::vector<std::pair<std::string_view, std::string_view>> pairs;
};

// key value [key value ...]; an odd count is the command's arity error.
template <const char* kName>
PairsOptions ParsePairs(ArgParser& args) {
  PairsOptions o;
  if (args.remaining() % 2 != 0) {
    args.Fail(WrongArgsError(kName));
    return o;
  }
  while (args.HasMore()) {
    std::string_view key = args.Next();
    o.pairs.emplace_back(key, args.Next());
  }
  return o;
}

// The rows at the clock, each with the TTL policy's expiry.
std::vector<types::KvPut> PolicyPuts(CommandContext& ctx, const PairsOptions& o) {
  const int64_t now = NowMs(ctx);
  std::vector<types::KvPut> puts;
  puts.reserve(o.pairs.size());
  for (const auto& [key, value] : o.pairs) {
    puts.push_back({key, value, now, PolicyExpireAt(ctx, key, now)});
  }
  return puts;
}

// MSET key value [key value ...]: one atomic batch.
void ExecuteMSet(CommandContext& ctx, const PairsOptions& o) {
  OpResult<void> result = KvOf(ctx).MultiPut(PolicyPuts(ctx, o));
  if (!result.ok()) return ReplyError(ctx, result);
  for (const auto& [key, value] : o.pairs) SignalKeyChange(ctx, key, kNotifyString, "set");
  ctx.reply.Ok();
}

// MSETNX key value [key value ...] -> 1 if every key was set, 0 if any key existed.
void ExecuteMSetNx(CommandContext& ctx, const PairsOptions& o) {
  OpResult<bool> written = KvOf(ctx).MultiPutIfNoneExist(PolicyPuts(ctx, o));
  if (!written.ok()) return ReplyError(ctx, written);
  if (*written) {
    for (const auto& [key, value] : o.pairs) SignalKeyChange(ctx, key, kNotifyString, "set");
  }
  ctx.reply.Integer(*written ? 1 : 0);
}

constexpr char kMSet[] = "mset";
constexpr char kMSetNx[] = "msetnx";

// ---- APPEND, SETRANGE, GETRANGE

struct AppendOptions {
  std::string_view key;
  std::string_view value;
};

AppendOptions ParseAppend(ArgParser& args) {
  AppendOptions o;
  o.key = args.Next();
  o.value = args.Next();
  return o;
}

// APPEND key value -> the new length.
void ExecuteAppend(CommandContext& ctx, const AppendOptions& o) {
  const int64_t now = NowMs(ctx);
  OpResult<int64_t> length = KvOf(ctx).Append(o.key, o.value, now, PolicyExpireAt(ctx, o.key, now),
                                              ctx.server.config().proto_max_bulk_len);
  if (!length.ok()) return ReplyError(ctx, length);
  SignalKeyChange(ctx, o.key, kNotifyString, "append");
  ctx.reply.Integer(*length);
}

struct SetRangeOptions {
  std::string_view key;
  uint64_t offset = 0;
  std::string_view value;
};

SetRangeOptions ParseSetRange(ArgParser& args) {
  SetRangeOptions o;
  o.key = args.Next();
  const int64_t offset = args.Int64();
  if (offset < 0) args.Fail(kOffsetOutOfRange);
  o.offset = static_cast<uint64_t>(offset);
  o.value = args.Next();
  return o;
}

// SETRANGE key offset value -> the length after the write.
void ExecuteSetRange(CommandContext& ctx, const SetRangeOptions& o) {
  const int64_t now = NowMs(ctx);
  OpResult<int64_t> length =
      KvOf(ctx).SetRange(o.key, o.offset, o.value, now, PolicyExpireAt(ctx, o.key, now),
                         ctx.server.config().proto_max_bulk_len);
  if (!length.ok()) return ReplyError(ctx, length);
  if (!o.value.empty()) SignalKeyChange(ctx, o.key, kNotifyString, "setrange");
  ctx.reply.Integer(*length);
}

struct RangeOptions {
  std::string_view key;
  int64_t start = 0;
  int64_t end = 0;
};

RangeOptions ParseRange(ArgParser& args) {
  RangeOptions o;
  o.key = args.Next();
  o.start = args.Int64();
  o.end = args.Int64();
  return o;
}

// GETRANGE key start end (and SUBSTR): Redis's index rules; "" for a missing key.
void ExecuteGetRange(CommandContext& ctx, const RangeOptions& o) {
  std::optional<types::KvRow> row;
  if (!ReadStringOrReply(ctx, o.key, std::nullopt, &row)) return;
  const std::string_view value = row ? std::string_view(row->value) : std::string_view();
  const int64_t len = static_cast<int64_t>(value.size());
  int64_t start = o.start;
  int64_t end = o.end;
  if (start < 0 && end < 0 && start > end) return ctx.reply.Bulk("");
  if (start < 0) start += len;
  if (end < 0) end += len;
  if (start < 0) start = 0;
  if (end < 0) end = 0;
  if (end >= len) end = len - 1;
  if (len == 0 || start > end) return ctx.reply.Bulk("");
  ctx.reply.Bulk(value.substr(static_cast<size_t>(start), static_cast<size_t>(end - start + 1)));
}

// ---- INCR, DECR, INCRBY, DECRBY

struct IncrOptions {
  std::string_view key;
  int64_t delta = 0;
};

template <int64_t kDelta>
IncrOptions ParseIncrByOne(ArgParser& args) {
  return {args.Next(), kDelta};
}

IncrOptions ParseIncrBy(ArgParser& args) {
  IncrOptions o;
  o.key = args.Next();
  o.delta = args.Int64();
  return o;
}

IncrOptions ParseDecrBy(ArgParser& args) {
  IncrOptions o;
  o.key = args.Next();
  const int64_t decrement = args.Int64();
  if (decrement == std::numeric_limits<int64_t>::min()) {
    args.Fail(kDecrementOverflow);  // negating it overflows
  } else {
    o.delta = -decrement;
  }
  return o;
}

void ExecuteIncrBy(CommandContext& ctx, const IncrOptions& o) {
  const int64_t now = NowMs(ctx);
  OpResult<int64_t> value = KvOf(ctx).IncrBy(o.key, o.delta, now, PolicyExpireAt(ctx, o.key, now));
  if (!value.ok()) return ReplyError(ctx, value);
  SignalKeyChange(ctx, o.key, kNotifyString, "incrby");
  ctx.reply.Integer(*value);
}

// INCR, INCRBY, DECR and DECRBY in active-active mode: the counter's increment, which the mode
// settles into the origin's record of the key's counter (docs/active-active.md, "Counters").
WriteForm FormIncrBy(const IncrOptions& o, const WriteFormInput&) {
  return WriteForm::Delta(
      {std::string(kCounterIncrForm), std::string(o.key), std::to_string(o.delta)}, std::nullopt);
}

// ---- INCRBYFLOAT

// INCRBYFLOAT key increment -> the new value. WRONGTYPE first, then the stored value and the
// increment must be floats (string2ld: no spaces, no NaN), then the sum must be finite.
void ExecuteIncrByFloat(CommandContext& ctx, const SetOptions& o) {
  types::Kv kv = KvOf(ctx);
  OpResult<std::optional<types::KvRow>> base = kv.ReadForUpdate(o.key);
  if (!base.ok()) return ReplyError(ctx, base);
  long double value = 0;
  long double increment = 0;
  if ((*base && !ParseLongDouble((*base)->value, &value)) ||
      !ParseLongDouble(o.value, &increment)) {
    return ctx.reply.Error(kNotFloat);
  }
  value += increment;
  if (std::isnan(value) || std::isinf(value)) return ctx.reply.Error(kNanOrInfinity);
  const std::string text = types::FormatLongDouble(value);
  const int64_t now = NowMs(ctx);
  OpResult<void> put =
      kv.PutDerived(o.key, text, *base, now, PolicyExpireAt(ctx, o.key, now), /*raw=*/false);
  if (!put.ok()) return ReplyError(ctx, put);
  SignalKeyChange(ctx, o.key, kNotifyString, "incrbyfloat");
  ctx.reply.Bulk(text);
}

// INCRBYFLOAT in active-active mode: the counter's float increment (docs/active-active.md,
// "Counters"). Its value is checked where it runs, as ExecuteIncrByFloat checks it.
WriteForm FormIncrByFloat(const SetOptions& o, const WriteFormInput&) {
  return WriteForm::Delta(
      {std::string(kCounterIncrFloatForm), std::string(o.key), std::string(o.value)}, std::nullopt);
}

// ---- Rows

const ArgSpec kKey = {.name = "key", .type = ArgType::kKey};
const ArgSpec kValue = {.name = "value"};

std::vector<ArgSpec> Expiration(ArgSpec last) {
  return {{.name = "seconds", .type = ArgType::kInteger, .token = "EX"},
          {.name = "milliseconds", .type = ArgType::kInteger, .token = "PX"},
          {.name = "unix-time-seconds", .type = ArgType::kUnixTime, .token = "EXAT"},
          {.name = "unix-time-milliseconds", .type = ArgType::kUnixTime, .token = "PXAT"},
          std::move(last)};
}

}  // namespace

std::vector<CommandSpec> StringCommands() {
  const std::vector<ArgSpec> range = {kKey,
                                      {.name = "start", .type = ArgType::kInteger},
                                      {.name = "end", .type = ArgType::kInteger}};
  const std::vector<ArgSpec> pairs = {
      {.name = "data", .type = ArgType::kBlock, .multiple = true, .children = {kKey, kValue}}};
  return {
      {.name = "set",
       .arity = -3,
       .flags = kCmdWrite | kCmdDenyOom,
       .keys = kFirstKey,
       .group = "string",
       .summary = "Sets the string value of a key, ignoring its type. The key is created if it "
                  "doesn't exist",
       .arguments = {kKey,
                     kValue,
                     {.name = "condition",
                      .type = ArgType::kOneOf,
                      .optional = true,
                      .children = {{.name = "nx", .type = ArgType::kPureToken, .token = "NX"},
                                   {.name = "xx", .type = ArgType::kPureToken, .token = "XX"}}},
                     {.name = "get", .type = ArgType::kPureToken, .token = "GET", .optional = true},
                     {.name = "expiration",
                      .type = ArgType::kOneOf,
                      .optional = true,
                      .children = Expiration(
                          {.name = "keepttl", .type = ArgType::kPureToken, .token = "KEEPTTL"})}},
       .handler = Handler<ParseSet, ExecuteSet>,
       .write_form = FormOf<ParseSet, FormSet>},
      {.name = "setnx",
       .arity = 3,
       .flags = kCmdWrite | kCmdDenyOom | kCmdFast,
       .keys = kFirstKey,
       .group = "string",
       .summary = "Set the string value of a key only when the key doesn't exist",
       .arguments = {kKey, kValue},
       .handler = Handler<ParseKeyValue, ExecuteSetNx>},
      {.name = "setex",
       .arity = 4,
       .flags = kCmdWrite | kCmdDenyOom,
       .keys = kFirstKey,
       .group = "string",
       .since = "2.0.0",
       .summary = "Sets the string value and expiration time of a key. Creates the key if it "
                  "doesn't exist",
       .arguments = {kKey, {.name = "seconds", .type = ArgType::kInteger}, kValue},
       .handler = Handler<ParseSetEx<true>, ExecuteSetEx<true>>},
      {.name = "psetex",
       .arity = 4,
       .flags = kCmdWrite | kCmdDenyOom,
       .keys = kFirstKey,
       .group = "string",
       .since = "2.6.0",
       .summary = "Sets both string value and expiration time in milliseconds of a key",
       .arguments = {kKey, {.name = "milliseconds", .type = ArgType::kInteger}, kValue},
       .handler = Handler<ParseSetEx<false>, ExecuteSetEx<false>>},
      {.name = "getex",
       .arity = -2,
       .flags = kCmdWrite | kCmdFast,
       .keys = kFirstKey,
       .group = "string",
       .since = "6.2.0",
       .summary = "Returns the string value of a key after setting its expiration time",
       .arguments = {kKey,
                     {.name = "expiration",
                      .type = ArgType::kOneOf,
                      .optional = true,
                      .children = Expiration(
                          {.name = "persist", .type = ArgType::kPureToken, .token = "PERSIST"})}},
       .handler = Handler<ParseGetEx, ExecuteGetEx>},
      {.name = "getdel",
       .arity = 2,
       .flags = kCmdWrite | kCmdFast,
       .keys = kFirstKey,
       .group = "string",
       .since = "6.2.0",
       .summary = "Returns the string value of a key after deleting the key",
       .arguments = {kKey},
       .handler = Handler<ParseKey, ExecuteGetDel>},
      {.name = "getset",
       .arity = 3,
       .flags = kCmdWrite | kCmdDenyOom | kCmdFast,
       .keys = kFirstKey,
       .group = "string",
       .summary = "Returns the previous string value of a key after setting it to a new value",
       .arguments = {kKey, kValue},
       .handler = Handler<ParseKeyValue, ExecuteGetSet>},
      {.name = "mget",
       .arity = -2,
       .flags = kCmdReadOnly | kCmdFast,
       .keys = kAllKeys,
       .group = "string",
       .summary = "Atomically returns the string values of one or more keys",
       .complexity = "O(N) where N is the number of keys to retrieve",
       .arguments = {{.name = "key", .type = ArgType::kKey, .multiple = true}},
       .handler = Handler<ParseKeys, ExecuteMGet>},
      {.name = "mset",
       .arity = -3,
       .flags = kCmdWrite | kCmdDenyOom,
       .keys = kKeyValuePairs,
       .group = "string",
       .since = "1.0.1",
       .summary = "Atomically creates or modifies the string values of one or more keys",
       .complexity = "O(N) where N is the number of keys to set",
       .arguments = pairs,
       .handler = Handler<ParsePairs<kMSet>, ExecuteMSet>},
      {.name = "msetnx",
       .arity = -3,
       .flags = kCmdWrite | kCmdDenyOom,
       .keys = kKeyValuePairs,
       .group = "string",
       .since = "1.0.1",
       .summary = "Atomically modifies the string values of one or more keys only when all keys "
                  "don't exist",
       .complexity = "O(N) where N is the number of keys to set",
       .arguments = pairs,
       .handler = Handler<ParsePairs<kMSetNx>, ExecuteMSetNx>},
      {.name = "strlen",
       .arity = 2,
       .flags = kCmdReadOnly | kCmdFast,
       .keys = kFirstKey,
       .group = "string",
       .since = "2.2.0",
       .summary = "Returns the length of a string value",
       .arguments = {kKey},
       .handler = Handler<ParseKey, ExecuteStrLen>},
      {.name = "append",
       .arity = 3,
       .flags = kCmdWrite | kCmdDenyOom | kCmdFast,
       .keys = kFirstKey,
       .group = "string",
       .since = "2.0.0",
       .summary = "Appends a string to the value of a key. Creates the key if it doesn't exist",
       .arguments = {kKey, kValue},
       .handler = Handler<ParseAppend, ExecuteAppend>},
      {.name = "setrange",
       .arity = 4,
       .flags = kCmdWrite | kCmdDenyOom,
       .keys = kFirstKey,
       .group = "string",
       .since = "2.2.0",
       .summary = "Overwrites a part of a string value with another by an offset. Creates the "
                  "key if it doesn't exist",
       .arguments = {kKey, {.name = "offset", .type = ArgType::kInteger}, kValue},
       .handler = Handler<ParseSetRange, ExecuteSetRange>},
      {.name = "getrange",
       .arity = 4,
       .flags = kCmdReadOnly,
       .keys = kFirstKey,
       .group = "string",
       .since = "2.4.0",
       .summary = "Returns a substring of the string stored at a key",
       .complexity = "O(N) where N is the length of the returned string",
       .arguments = range,
       .handler = Handler<ParseRange, ExecuteGetRange>},
      {.name = "substr",
       .arity = 4,
       .flags = kCmdReadOnly,
       .keys = kFirstKey,
       .group = "string",
       .summary = "Returns a substring from a string value",
       .complexity = "O(N) where N is the length of the returned string",
       .arguments = range,
       .handler = Handler<ParseRange, ExecuteGetRange>},
      {.name = "incr",
       .arity = 2,
       .flags = kCmdWrite | kCmdDenyOom | kCmdFast,
       .keys = kFirstKey,
       .group = "string",
       .summary = "Increments the integer value of a key by one. Uses 0 as initial value if the "
                  "key doesn't exist",
       .arguments = {kKey},
       .handler = Handler<ParseIncrByOne<1>, ExecuteIncrBy>,
       .write_form = FormOf<ParseIncrByOne<1>, FormIncrBy>},
      {.name = "decr",
       .arity = 2,
       .flags = kCmdWrite | kCmdDenyOom | kCmdFast,
       .keys = kFirstKey,
       .group = "string",
       .summary = "Decrements the integer value of a key by one. Uses 0 as initial value if the "
                  "key doesn't exist",
       .arguments = {kKey},
       .handler = Handler<ParseIncrByOne<-1>, ExecuteIncrBy>,
       .write_form = FormOf<ParseIncrByOne<-1>, FormIncrBy>},
      {.name = "incrby",
       .arity = 3,
       .flags = kCmdWrite | kCmdDenyOom | kCmdFast,
       .keys = kFirstKey,
       .group = "string",
       .summary = "Increments the integer value of a key by a number. Uses 0 as initial value if "
                  "the key doesn't exist",
       .arguments = {kKey, {.name = "increment", .type = ArgType::kInteger}},
       .handler = Handler<ParseIncrBy, ExecuteIncrBy>,
       .write_form = FormOf<ParseIncrBy, FormIncrBy>},
      {.name = "incrbyfloat",
       .arity = 3,
       .flags = kCmdWrite | kCmdDenyOom | kCmdFast,
       .keys = kFirstKey,
       .group = "string",
       .since = "2.6.0",
       .summary = "Increment the floating point value of a key by a number. Uses 0 as initial "
                  "value if the key doesn't exist",
       .arguments = {kKey, {.name = "increment", .type = ArgType::kDouble}},
       .handler = Handler<ParseKeyValue, ExecuteIncrByFloat>,
       .write_form = FormOf<ParseKeyValue, FormIncrByFloat>},
      {.name = "decrby",
       .arity = 3,
       .flags = kCmdWrite | kCmdDenyOom | kCmdFast,
       .keys = kFirstKey,
       .group = "string",
       .summary = "Decrements a number from the integer value of a key. Uses 0 as initial value "
                  "if the key doesn't exist",
       .arguments = {kKey, {.name = "decrement", .type = ArgType::kInteger}},
       .handler = Handler<ParseDecrBy, ExecuteIncrBy>,
       .write_form = FormOf<ParseDecrBy, FormIncrBy>},
  };
}

}  // namespace ebb::server
