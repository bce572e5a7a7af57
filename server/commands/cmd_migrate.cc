// MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE] [AUTH password]
//         [AUTH2 username password] [KEYS key [key ...]]
//
// Moves keys to another server as Redis 7 does (cluster.c): DUMP each key here, send the target
// [AUTH] SELECT db and one RESTORE key 0 payload [REPLACE] per key in one write (RESTORE-ASKING
// from a cluster node, so that a target importing the slot runs it; ttl 0: the payload carries
// each version's own expiry, absolute, docs/dump-format.md), read the
// replies, and delete here each key the target restored (unless COPY). Like Redis, the command
// waits for the target on the event loop, each connect, write and read bounded by `timeout` ms
// (<= 0: 1000). Unlike Redis, no connection is kept for the next MIGRATE: each opens its own (so
// each sends SELECT, as Redis does on a new connection). The payload is ebb's own (DUMP), so the
// target is an ebb server; another server answers RESTORE with its error, which MIGRATE reports.
// MIGRATE runs once (kCmdNoRestart): its reads wait for the disk inline, because the RESTOREs go
// out before its first write here — a run repeated after them (its first delete needing a block
// a flush or compaction moved while it waited for the target) would send them again and meet
// BUSYKEY.
//
// Replies: +OK; +NOKEY when none of the keys exists; "-IOERR error or timeout connecting to the
// client"; "-IOERR error or timeout writing|reading to target instance"; "-ERR Target instance
// replied with error: <its error>" (keys it restored before the error are still deleted here).
#include <hiredis/hiredis.h>
#include <sys/time.h>

#include <algorithm>
#include <memory>
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
#include "types/keyspace.h"

namespace ebb::server {
namespace {

struct MigrateOptions {
  std::string_view host;
  std::string_view port;
  std::string_view db;       // checked after the options, as Redis does
  std::string_view timeout;  // likewise
  bool copy = false;
  bool replace = false;
  std::optional<std::string_view> username;
  std::optional<std::string_view> password;
  std::vector<std::string_view> keys;
};

MigrateOptions ParseMigrate(ArgParser& args) {
  MigrateOptions o;
  o.host = args.Next();
  o.port = args.Next();
  const std::string_view key = args.Next();
  o.db = args.Next();
  o.timeout = args.Next();
  while (args.HasMore()) {
    if (args.Token("COPY")) {
      o.copy = true;
    } else if (args.Token("REPLACE")) {
      o.replace = true;
    } else if (args.remaining() >= 2 && args.Token("AUTH")) {
      o.password = args.Next();
    } else if (args.remaining() >= 3 && args.Token("AUTH2")) {
      o.username = args.Next();
      o.password = args.Next();
    } else if (args.Token("KEYS")) {
      if (!key.empty()) {
        args.Fail(kMigrateKeysNeedsEmptyKey);
        return o;
      }
      while (args.HasMore()) o.keys.push_back(args.Next());
    } else {
      args.SyntaxError();
    }
  }
  if (o.keys.empty()) o.keys.push_back(key);
  return o;
}

struct RedisContextFree {
  void operator()(redisContext* c) const { redisFree(c); }
};
struct RedisReplyFree {
  void operator()(redisReply* r) const { freeReplyObject(r); }
};
using TargetConnection = std::unique_ptr<redisContext, RedisContextFree>;
using TargetReply = std::unique_ptr<redisReply, RedisReplyFree>;

void AppendCommand(redisContext* c, const std::vector<std::string_view>& args) {
  std::vector<const char*> argv;
  std::vector<size_t> lengths;
  for (std::string_view a : args) {
    argv.push_back(a.data());
    lengths.push_back(a.size());
  }
  redisAppendCommandArgv(c, static_cast<int>(args.size()), argv.data(), lengths.data());
}

// A key to send: its name and payload.
struct Outgoing {
  std::string_view key;
  std::string payload;
};

// A connection to host:port whose connect, writes and reads wait at most timeout_ms; null when
// the port is not one or the connection failed.
TargetConnection ConnectTarget(std::string_view host_text, std::string_view port_text,
                               int64_t timeout_ms) {
  const timeval timeout{.tv_sec = static_cast<time_t>(timeout_ms / 1000),
                        .tv_usec = static_cast<suseconds_t>((timeout_ms % 1000) * 1000)};
  const std::string host(host_text);
  TargetConnection target;
  int64_t port = 0;
  if (ParseInt64(port_text, &port) && port > 0 && port <= 65535) {
    target.reset(redisConnectWithTimeout(host.c_str(), static_cast<int>(port), timeout));
  }
  if (!target || target->err || redisSetTimeout(target.get(), timeout) != REDIS_OK) return nullptr;
  return target;
}

// Queues [AUTH] SELECT db and one RESTORE per key; returns how many replies come before the
// RESTOREs' (AUTH's and SELECT's).
size_t QueueMigrateCommands(CommandContext& ctx, redisContext* target, const MigrateOptions& o,
                            int64_t db, const std::vector<Outgoing>& outgoing) {
  const std::string db_text = std::to_string(db);
  size_t replies_before_keys = 1;
  if (o.password) {
    if (o.username) {
      AppendCommand(target, {"AUTH", *o.username, *o.password});
    } else {
      AppendCommand(target, {"AUTH", *o.password});
    }
    replies_before_keys++;
  }
  AppendCommand(target, {"SELECT", db_text});
  for (const Outgoing& out : outgoing) {
    // A cluster node sends RESTORE-ASKING, which a target importing the slot runs (Redis).
    const std::string_view restore_command =
        ctx.server.config().cluster_enabled ? "RESTORE-ASKING" : "RESTORE";
    std::vector<std::string_view> restore = {restore_command, out.key, "0", out.payload};
    if (o.replace) restore.push_back("REPLACE");
    AppendCommand(target, restore);
  }
  return replies_before_keys;
}

// Reads the target's replies and deletes here each key it restored (unless COPY), then replies.
// The first error the target answered is the reply; a key it restored is deleted here whatever
// another key's RESTORE answered, unless its AUTH or SELECT failed.
void FinishMigrate(CommandContext& ctx, redisContext* target, const MigrateOptions& o,
                   size_t replies_before_keys, const std::vector<Outgoing>& outgoing) {
  const int source_db = ctx.client.db_index();
  std::optional<std::string> target_error;
  bool setup_failed = false;
  bool read_error = false;
  for (size_t i = 0; i < replies_before_keys + outgoing.size(); i++) {
    void* raw = nullptr;
    if (redisGetReply(target, &raw) != REDIS_OK) {
      read_error = true;
      break;
    }
    TargetReply reply(static_cast<redisReply*>(raw));
    if (reply->type == REDIS_REPLY_ERROR) {
      if (!target_error) target_error.emplace(reply->str, reply->len);
      if (i < replies_before_keys) setup_failed = true;
      continue;
    }
    if (i < replies_before_keys || setup_failed || o.copy) continue;
    // Restored there: gone from here, as a DEL would remove it.
    const std::string_view key = outgoing[i - replies_before_keys].key;
    types::OpResult<bool> deleted = ctx.server.keyspace().Delete(source_db, key);
    if (!deleted.ok()) return ReplyError(ctx, deleted);
    if (*deleted) SignalKeyChange(ctx, key, kNotifyGeneric, "del");
  }
  if (target_error) {
    return ctx.reply.Error(MigrateTargetError(*target_error));
  }
  if (read_error) return ctx.reply.Error(kMigrateReadError);
  ctx.reply.Ok();
}

void ExecuteMigrate(CommandContext& ctx, const MigrateOptions& o) {
  int64_t timeout_ms = 0, db = 0;
  if (!ParseInt64(o.timeout, &timeout_ms) || !ParseInt64(o.db, &db)) {
    return ctx.reply.Error(kNotInteger);
  }
  if (timeout_ms <= 0) timeout_ms = 1000;
  const int source_db = ctx.client.db_index();
  types::Keyspace& keyspace = ctx.server.keyspace();
  std::vector<Outgoing> outgoing;
  for (std::string_view key : o.keys) {
    types::OpResult<std::optional<std::string>> payload = keyspace.DumpKey(source_db, key);
    if (!payload.ok()) return ReplyError(ctx, payload);
    if (!*payload) continue;
    outgoing.push_back({key, std::move(**payload)});
  }
  if (outgoing.empty()) return ctx.reply.SimpleString("NOKEY");

  TargetConnection target = ConnectTarget(o.host, o.port, timeout_ms);
  if (!target) return ctx.reply.Error(kMigrateConnectError);
  const size_t replies_before_keys = QueueMigrateCommands(ctx, target.get(), o, db, outgoing);
  for (int done = 0; !done;) {
    if (redisBufferWrite(target.get(), &done) != REDIS_OK) {
      return ctx.reply.Error(kMigrateWriteError);
    }
  }
  FinishMigrate(ctx, target.get(), o, replies_before_keys, outgoing);
}

}  // namespace

std::vector<CommandSpec> MigrateCommands() {
  return {
      {.name = "migrate",
       .arity = -6,
       .flags = kCmdWrite | kCmdNoRestart,
       .keys = {.first = 3, .last = 3, .step = 1, .keyword = "KEYS", .keyword_from = 6},
       .group = "generic",
       .since = "2.6.0",
       .summary = "Atomically transfers a key from one Redis instance to another.",
       .complexity = "This command actually executes a DUMP+DEL in the source instance, and a "
                     "RESTORE in the target instance. See the pages of these commands for time "
                     "complexity. Also an O(N) data transfer between the two instances is "
                     "performed.",
       .arguments =
           {{.name = "host"},
            {.name = "port", .type = ArgType::kInteger},
            {.name = "key-selector",
             .type = ArgType::kOneOf,
             .children = {{.name = "key", .type = ArgType::kKey},
                          {.name = "empty-string", .type = ArgType::kPureToken, .token = "\"\""}}},
            {.name = "destination-db", .type = ArgType::kInteger},
            {.name = "timeout", .type = ArgType::kInteger},
            {.name = "copy", .type = ArgType::kPureToken, .token = "COPY", .optional = true},
            {.name = "replace", .type = ArgType::kPureToken, .token = "REPLACE", .optional = true},
            {.name = "authentication",
             .type = ArgType::kOneOf,
             .optional = true,
             .children = {{.name = "password", .token = "AUTH"},
                          {.name = "auth2",
                           .type = ArgType::kBlock,
                           .token = "AUTH2",
                           .children = {{.name = "username"}, {.name = "password"}}}}},
            {.name = "key",
             .type = ArgType::kKey,
             .token = "KEYS",
             .optional = true,
             .multiple = true}},
       .handler = Handler<ParseMigrate, ExecuteMigrate>},
  };
}

}  // namespace ebb::server
