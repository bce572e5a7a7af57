// DUMP and RESTORE: a key's value and timestamps as ebb's own versioned, checksummed payload
// (docs/dump-format.md) and back, for every type. Redis 7's options, replies, errors and their
// order (cluster.c): RESTORE key ttl payload [REPLACE] [ABSTTL] [IDLETIME s] [FREQ f].
//   - ttl 0: the payload's own expiries (each string version's, a TREG's or TLOG's; none in a
//     format 1 payload); else every version expires by then at the latest; ABSTTL: ttl is a unix
//     time in ms; a ttl already past creates nothing (and with REPLACE deletes the existing key:
//     a "del" event) and answers OK.
//   - IDLETIME s: a TREG's or TLOG's last write is s seconds ago (OBJECT IDLETIME counts from
//     it). A string's timestamps are its versions' own, so IDLETIME leaves them.
//   - FREQ f: checked and ignored, as Redis does without an LFU maxmemory policy.
#include <limits>
#include <optional>
#include <string>
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
#include "types/dump_codec.h"
#include "types/keyspace.h"

namespace ebb::server {
namespace {

void ExecuteDump(CommandContext& ctx, const KeyOptions& o) {
  types::OpResult<std::optional<std::string>> payload =
      ctx.server.keyspace().DumpKey(ctx.client.db_index(), o.key);
  if (!payload.ok()) return ReplyError(ctx, payload);
  if (!*payload) return ctx.reply.Null();
  ctx.reply.Bulk(**payload);
}

struct RestoreOptions {
  std::string_view key;
  // None: not an integer, answered after the BUSYKEY check, as Redis does.
  std::optional<int64_t> ttl;
  std::string_view payload;
  bool replace = false;
  bool absttl = false;
  std::optional<int64_t> idle_seconds;
  bool freq = false;
};

RestoreOptions ParseRestore(ArgParser& args) {
  RestoreOptions o;
  o.key = args.Next();
  if (int64_t ttl = 0; ParseInt64(args.Next(), &ttl)) o.ttl = ttl;
  o.payload = args.Next();
  while (args.HasMore()) {
    if (args.Token("REPLACE")) {
      o.replace = true;
    } else if (args.Token("ABSTTL")) {
      o.absttl = true;
    } else if (args.remaining() >= 2 && !o.freq && args.Token("IDLETIME")) {
      o.idle_seconds = args.Int64();
      if (!args.failed() && *o.idle_seconds < 0) args.Fail(kInvalidIdleTime);
    } else if (args.remaining() >= 2 && !o.idle_seconds && args.Token("FREQ")) {
      const int64_t freq = args.Int64();
      if (!args.failed() && (freq < 0 || freq > 255)) args.Fail(kInvalidFreq);
      o.freq = true;
    } else {
      args.SyntaxError();
    }
  }
  return o;
}

int64_t SaturatingAdd(int64_t a, int64_t b) {
  if (b > 0 && a > std::numeric_limits<int64_t>::max() - b) {
    return std::numeric_limits<int64_t>::max();
  }
  return a + b;
}

void ExecuteRestore(CommandContext& ctx, const RestoreOptions& o) {
  const int db = ctx.client.db_index();
  types::Keyspace& keyspace = ctx.server.keyspace();
  types::OpResult<bool> exists = keyspace.Exists(db, o.key);
  if (!exists.ok()) return ReplyError(ctx, exists);
  if (*exists && !o.replace) return ctx.reply.Error(kBusyKey);
  if (!o.ttl) return ctx.reply.Error(kNotInteger);
  const int64_t ttl = *o.ttl;
  if (ttl < 0) return ctx.reply.Error(kInvalidTtl);
  types::KeyDump dump;
  switch (types::DecodeDump(o.payload, &dump)) {
    case types::DumpDecode::kOk:
      break;
    case types::DumpDecode::kBadVersionOrChecksum:
      return ctx.reply.Error(kBadDumpPayload);
    case types::DumpDecode::kBadFormat:
      return ctx.reply.Error(kBadDataFormat);
  }
  const int64_t now = ctx.server.clock().NowMs();
  std::optional<int64_t> expire_at;
  if (ttl != 0) expire_at = o.absttl ? ttl : SaturatingAdd(now, ttl);
  if (expire_at && *expire_at <= now) {
    // Already expired: nothing is created; a replaced key is deleted.
    if (*exists) {
      types::OpResult<bool> deleted = keyspace.Delete(db, o.key);
      if (!deleted.ok()) return ReplyError(ctx, deleted);
      SignalKeyChange(ctx, o.key, kNotifyGeneric, "del");
    }
    return ctx.reply.Ok();
  }
  std::optional<int64_t> last_write;
  if (o.idle_seconds) {
    // s seconds before now, no earlier than the epoch.
    const int64_t idle_ms = *o.idle_seconds > now / 1000 ? now : *o.idle_seconds * 1000;
    last_write = now - idle_ms;
  }
  types::OpResult<void> restored = keyspace.RestoreKey(db, o.key, dump, expire_at, last_write);
  if (!restored.ok()) return ReplyError(ctx, restored);
  SignalKeyChange(ctx, o.key, kNotifyGeneric, "restore");
  ctx.reply.Ok();
}

}  // namespace

std::vector<CommandSpec> DumpCommands() {
  std::vector<CommandSpec> rows = {
      {.name = "dump",
       .arity = 2,
       .flags = kCmdReadOnly,
       .keys = kFirstKey,
       .group = "generic",
       .since = "2.6.0",
       .summary = "Returns a serialized representation of the value stored at a key.",
       .complexity = "O(1) to access the key and additional O(N*M) to serialize it, where N is "
                     "the number of Redis objects composing the value and M their average size.",
       .arguments = {{.name = "key", .type = ArgType::kKey}},
       .handler = Handler<ParseKey, ExecuteDump>},
      {.name = "restore",
       .arity = -4,
       .flags = kCmdWrite | kCmdDenyOom,
       .keys = kFirstKey,
       .group = "generic",
       .since = "2.6.0",
       .summary = "Creates a key from the serialized representation of a value.",
       .complexity = "O(1) to create the new key and additional O(N*M) to reconstruct the "
                     "serialized value, where N is the number of Redis objects composing the "
                     "value and M their average size.",
       .arguments =
           {{.name = "key", .type = ArgType::kKey},
            {.name = "ttl", .type = ArgType::kInteger},
            {.name = "serialized-value"},
            {.name = "replace", .type = ArgType::kPureToken, .token = "REPLACE", .optional = true},
            {.name = "absttl", .type = ArgType::kPureToken, .token = "ABSTTL", .optional = true},
            {.name = "seconds", .type = ArgType::kInteger, .token = "IDLETIME", .optional = true},
            {.name = "frequency", .type = ArgType::kInteger, .token = "FREQ", .optional = true}},
       .handler = Handler<ParseRestore, ExecuteRestore>},
  };
  // What MIGRATE sends a cluster node: RESTORE that runs on a slot the target is importing
  // without a separate ASKING (kCmdAsking).
  CommandSpec restore_asking = rows.back();
  restore_asking.name = "restore-asking";
  restore_asking.flags |= kCmdAsking;
  restore_asking.group = "server";
  restore_asking.since = "3.0.0";
  restore_asking.summary = "An internal command for migrating keys in a cluster.";
  rows.push_back(std::move(restore_asking));
  return rows;
}

}  // namespace ebb::server
