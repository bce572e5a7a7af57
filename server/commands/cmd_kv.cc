// The timestamped string rows' own commands (docs/commands.md, "Timestamped rows"): PUT, GET
// (also Redis's GET), GETMETA, DELETE.
#include <optional>
#include <string_view>
#include <vector>

#include "common/strings.h"
#include "common/units.h"
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
#include "types/keyspace.h"
#include "types/kv.h"

namespace ebb::server {
namespace {

using types::OpResult;
using types::OpStatus;

// ---- GET, GETMETA

struct ReadOptions {
  std::string_view key;
  std::optional<int64_t> grace_ms;  // nullopt: default-retrieval-grace
};

// key [GRACE ms]
ReadOptions ParseRead(ArgParser& args) {
  ReadOptions o;
  o.key = args.Next();
  while (args.HasMore()) {
    if (args.Token("GRACE")) {
      o.grace_ms = args.Int64();
    } else {
      args.SyntaxError();
    }
  }
  return o;
}

// GET key [GRACE ms]
void ExecuteGet(CommandContext& ctx, const ReadOptions& o) {
  types::KeyMetaView row;
  bool found;
  if (!ReadPinnedStringOrReply(ctx, o.key, o.grace_ms, &row, &found)) return;
  if (!found) return ctx.reply.Null();
  ctx.reply.Bulk(row.payload);
}

// GETMETA key [GRACE ms] -> value, ts, ttl (remaining ms, -1 none), expire_at (ms, -1 none).
void ExecuteGetMeta(CommandContext& ctx, const ReadOptions& o) {
  std::optional<types::KvRow> row;
  if (!ReadStringOrReply(ctx, o.key, o.grace_ms, &row)) return;
  if (!row) return ctx.reply.NullArray();
  int64_t ttl = -1;
  int64_t expire_at = -1;
  if (row->expire_at_ms) {
    expire_at = *row->expire_at_ms;
    // Past expiries are visible only with `expiration off`: nothing is left to live.
    const int64_t now = ctx.server.clock().NowMs();
    ttl = expire_at > now ? expire_at - now : 0;
  }
  ctx.reply.MapHeader(4);
  ctx.reply.Bulk("value");
  ctx.reply.Bulk(row->value);
  ctx.reply.Bulk("ts");
  ctx.reply.Integer(row->ts);
  ctx.reply.Bulk("ttl");
  ctx.reply.Integer(ttl);
  ctx.reply.Bulk("expire_at");
  ctx.reply.Integer(expire_at);
}

// ---- PUT

struct PutOptions {
  std::string_view key;
  std::string_view value;
  std::optional<int64_t> ts;  // nullopt: the server clock
  enum class Expiry { kPolicy, kTtl, kNoTtl, kAbsolute };
  Expiry expiry = Expiry::kPolicy;
  int64_t ttl_ms = -1;              // kTtl; negative: `unlimited`
  std::optional<ExpireArg> expire;  // kAbsolute: EXAT / PXAT
};

// PUT key value [TS ms] [TTL duration | NOTTL | EXAT unix-s | PXAT unix-ms]. Repeating an
// option is allowed (the last wins, as Redis SET); combining two expiries is not. The TS is
// checked before the expiry.
PutOptions ParsePut(ArgParser& args) {
  PutOptions o;
  o.key = args.Next();
  o.value = args.Next();
  std::optional<std::string_view> ts_text, ttl_text;
  OptionGroup expiry;
  while (args.HasMore()) {
    if (args.Token("TS")) {
      ts_text = args.Next();
    } else if (const int e = args.Choice({"TTL", "NOTTL", "EXAT", "PXAT"}, &expiry); e >= 0) {
      if (e == 0) {
        o.expiry = PutOptions::Expiry::kTtl;
        ttl_text = args.Next();
      } else if (e == 1) {
        o.expiry = PutOptions::Expiry::kNoTtl;
      } else {
        o.expiry = PutOptions::Expiry::kAbsolute;
        o.expire = ExpireArg{.text = args.Next(), .seconds = e == 2, .relative = false};
      }
    } else {
      args.SyntaxError();
    }
  }
  if (args.failed()) return o;
  if (ts_text) {
    int64_t ts = 0;
    if (!ParseInt64(*ts_text, &ts)) args.Fail(kNotInteger);
    o.ts = ts;
  }
  if (!args.failed() && o.expiry == PutOptions::Expiry::kTtl &&
      !ParseDuration(*ttl_text, &o.ttl_ms)) {
    args.Fail(InvalidDurationError(*ttl_text));
  }
  return o;
}

// A PUT whose row had expired before it arrived (INFO stats dead_on_arrival_*).
void CountDeadOnArrival(CommandContext& ctx, const PutOptions& o) {
  ServerStats& stats = ctx.server.stats();
  if (o.expiry != PutOptions::Expiry::kPolicy) {
    ++stats.dead_on_arrival_own_expiry;
  } else if (ctx.server.keyspace().settings().ttl_policy.HasRuleFor(o.key)) {
    ++stats.dead_on_arrival_ttl_rule;
  } else {
    ++stats.dead_on_arrival_default_ttl;
  }
}

// When the version `o` writes at `ts` expires (nullopt: never), into *expire_at when kOk.
ExpireAtOutcome PutExpireAt(const PutOptions& o, int64_t ts, int64_t now,
                            const types::Keyspace& keyspace, std::optional<int64_t>* expire_at) {
  switch (o.expiry) {
    case PutOptions::Expiry::kPolicy:
      *expire_at = keyspace.PolicyExpireAt(o.key, ts);
      break;
    case PutOptions::Expiry::kNoTtl:
      break;
    case PutOptions::Expiry::kTtl: {
      if (o.ttl_ms < 0) break;  // `unlimited`
      int64_t at = 0;
      if (__builtin_add_overflow(ts, o.ttl_ms, &at)) return ExpireAtOutcome::kInvalid;
      *expire_at = at;
      break;
    }
    case PutOptions::Expiry::kAbsolute: {
      int64_t at = 0;
      const ExpireAtOutcome outcome = ResolveExpireAt(*o.expire, now, &at);
      if (outcome != ExpireAtOutcome::kOk) return outcome;
      *expire_at = at;
      break;
    }
  }
  return ExpireAtOutcome::kOk;
}

void ExecutePut(CommandContext& ctx, const PutOptions& o) {
  const int64_t now = ctx.server.clock().NowMs();
  const int64_t ts = o.ts.value_or(now);
  std::optional<int64_t> expire_at;
  const ExpireAtOutcome outcome = PutExpireAt(o, ts, now, ctx.server.keyspace(), &expire_at);
  if (outcome != ExpireAtOutcome::kOk) return ReplyExpireAtError(ctx, outcome, "put");
  const OpResult<void> put = KvOf(ctx).Put({o.key, o.value, ts, expire_at});
  if (put.ok() && expire_at && *expire_at <= now) CountDeadOnArrival(ctx, o);
  ReplyOkOrError(ctx, put, o.key, kNotifyString, "put");
}

// PUT in active-active mode: its timestamp and absolute expiry written out.
WriteForm FormPut(const PutOptions& o, const WriteFormInput& in) {
  const int64_t ts = o.ts.value_or(in.now_ms);
  std::optional<int64_t> expire_at;
  if (PutExpireAt(o, ts, in.now_ms, in.keyspace, &expire_at) != ExpireAtOutcome::kOk) {
    return WriteForm::Invalid();
  }
  return StringPutForm(o.key, o.value, ts, expire_at, o.ts, in.spare_args);
}

// ---- DELETE

struct DeleteOptions {
  std::string_view key;
  std::optional<int64_t> ts;  // nullopt: the server clock
};

// DELETE key [TS ms]
DeleteOptions ParseDelete(ArgParser& args) {
  DeleteOptions o;
  o.key = args.Next();
  while (args.HasMore()) {
    if (args.Token("TS")) {
      o.ts = args.Int64();
    } else {
      args.SyntaxError();
    }
  }
  return o;
}

void ExecuteDelete(CommandContext& ctx, const DeleteOptions& o) {
  ReplyOkOrError(ctx, KvOf(ctx).Delete(o.key, o.ts.value_or(ctx.server.clock().NowMs())), o.key,
                 kNotifyString, "delete");
}

// DELETE in active-active mode: its timestamp written out.
WriteForm FormDelete(const DeleteOptions& o, const WriteFormInput& in) {
  return WriteForm::Delta(
      {"delete", std::string(o.key), "TS", std::to_string(o.ts.value_or(in.now_ms))}, o.ts);
}

// ---- Rows

const ArgSpec kKey = {.name = "key", .type = ArgType::kKey};
const ArgSpec kGrace = {
    .name = "grace", .type = ArgType::kInteger, .token = "GRACE", .optional = true};
const ArgSpec kTs = {.name = "ts", .type = ArgType::kInteger, .token = "TS", .optional = true};

}  // namespace

std::vector<CommandSpec> KvCommands() {
  return {
      {.name = "get",
       .arity = -2,
       .flags = kCmdReadOnly | kCmdFast,
       .keys = kFirstKey,
       .group = "string",
       .summary = "Returns the string value of a key; GRACE resolves out-of-order versions",
       .arguments = {kKey, kGrace},
       .handler = Handler<ParseRead, ExecuteGet>},
      {.name = "getmeta",
       .arity = -2,
       .flags = kCmdReadOnly | kCmdFast,
       .keys = kFirstKey,
       .group = "string",
       .since = "0.1.0",
       .summary = "Returns a string row's value, timestamp, remaining TTL and expiry",
       .arguments = {kKey, kGrace},
       .handler = Handler<ParseRead, ExecuteGetMeta>},
      {.name = "put",
       .arity = -3,
       .flags = kCmdWrite | kCmdDenyOom,
       .keys = kFirstKey,
       .group = "string",
       .since = "0.1.0",
       .summary = "Writes a new timestamped version of a string row, with an optional TTL",
       .arguments = {kKey,
                     {.name = "value"},
                     kTs,
                     {.name = "expiration",
                      .type = ArgType::kOneOf,
                      .optional = true,
                      .children = {{.name = "duration", .token = "TTL"},
                                   {.name = "nottl", .type = ArgType::kPureToken, .token = "NOTTL"},
                                   {.name = "unix-time-seconds",
                                    .type = ArgType::kUnixTime,
                                    .token = "EXAT"},
                                   {.name = "unix-time-milliseconds",
                                    .type = ArgType::kUnixTime,
                                    .token = "PXAT"}}}},
       .handler = Handler<ParsePut, ExecutePut>,
       .write_form = FormOf<ParsePut, FormPut>},
      {.name = "delete",
       .arity = -2,
       .flags = kCmdWrite | kCmdFast,
       .keys = kFirstKey,
       .group = "string",
       .since = "0.1.0",
       .summary = "Writes a timestamped tombstone version of a key",
       .arguments = {kKey, kTs},
       .handler = Handler<ParseDelete, ExecuteDelete>,
       .write_form = FormOf<ParseDelete, FormDelete>},
  };
}

}  // namespace ebb::server
