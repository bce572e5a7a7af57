// Transactions: MULTI, EXEC, DISCARD, WATCH, UNWATCH (Redis 7's multi.c replies and errors).
// The queueing itself is the dispatcher's (server/dispatch/dispatcher.h); the state and the WATCH
// registry are server/core/transaction.h. EXEC runs the queue inside one keyspace batch
// (types/keyspace.h, "batches"): the commands read each other's writes, and the writes reach
// the engine as one WAL record, acknowledged per wal-fsync like any write. EXEC is not
// restartable (kCmdNoRestart): a block its commands need is read inline, on the command thread,
// as Redis would; the queue is consumed once. Each queued command passes the ACL check again
// when EXEC runs it, against the rules of that moment (Redis's execCommand).
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/reply_writer.h"
#include "server/acl/acl.h"
#include "server/commands/register.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/core/transaction.h"
#include "server/dispatch/dispatcher.h"
#include "server/services/reply.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"

namespace ebb::server {
namespace {

void ExecuteMulti(CommandContext& ctx, const NoOptions&) {
  MultiState& m = ctx.client.multi();
  if (m.active) return ctx.reply.Error(kMultiNested);
  m.active = true;
  ctx.reply.Ok();
}

void ExecuteDiscard(CommandContext& ctx, const NoOptions&) {
  if (!ctx.client.multi().active) return ctx.reply.Error(kDiscardWithoutMulti);
  DiscardTransaction(ctx.server.watches(), ctx.client);
  ctx.reply.Ok();
}

// Redis's isWatchedKeyExpired: a key live with an expiry when watched whose time has passed.
bool WatchedKeyExpired(CommandContext& ctx) {
  if (!ctx.server.has_keyspace()) return false;
  const int64_t now = ctx.server.keyspace().db().ExpiryNowMs();
  for (const WatchedKey& w : ctx.client.multi().watched) {
    if (w.expire_at_ms && *w.expire_at_ms <= now) return true;
  }
  return false;
}

// Redis's execCommand re-check: the client's user's rules now, for a command queued earlier.
// A refusal goes to the ACL LOG in the `multi` context.
AclVerdict AclVerdictAtExec(CommandContext& ctx, const QueuedCommand& q,
                            std::span<const std::string_view> args) {
  const AclUser* user = ctx.server.acl().UserOf(ctx.client);
  if (user == nullptr) return AclVerdict::kDeniedCommand;  // no user to act as any more
  if (user->unrestricted()) return AclVerdict::kAllowed;
  // The row's flags with its container's, as when it was queued.
  const ResolvedCommand row = ctx.server.commands().Resolve(args);
  const uint32_t flags = row.spec == q.spec ? row.flags : q.spec->flags;
  return ctx.server.acl().CheckAndLog(ctx.client, *user, *q.spec, flags, args,
                                      AclLogContext::kMulti, ctx.server.clock().NowMs());
}

void ExecuteExec(CommandContext& ctx, const NoOptions&) {
  Client& client = ctx.client;
  MultiState& m = client.multi();
  if (!m.active) return ctx.reply.Error(kExecWithoutMulti);
  if (WatchedKeyExpired(ctx)) m.dirty_cas = true;
  if (m.dirty_exec || m.dirty_cas) {
    const bool aborted = m.dirty_exec;
    DiscardTransaction(ctx.server.watches(), client);
    if (aborted) return ctx.reply.Error(kExecAbort);
    return ctx.reply.NullArray();
  }
  std::vector<QueuedCommand> queued = std::move(m.queued);
  DiscardTransaction(ctx.server.watches(),
                     client);  // unwatches, leaves MULTI: the queue runs for real

  types::Keyspace* keyspace = ctx.server.has_keyspace() ? &ctx.server.keyspace() : nullptr;
  if (keyspace != nullptr) keyspace->BeginBatch();
  // The replies are built aside: if the batch cannot be written, EXEC answers the error alone.
  std::string replies;
  protocol::ReplyWriter writer(&replies, ctx.reply.protocol());
  writer.ArrayHeader(queued.size());
  for (const QueuedCommand& q : queued) {
    const std::vector<std::string_view> args(q.args.begin(), q.args.end());
    writer.set_protocol(client.resp());  // HELLO inside the transaction switches it
    // The ACL is asked again: rules changed since the command was queued refuse it alone.
    const AclVerdict verdict = AclVerdictAtExec(ctx, q, args);
    if (verdict != AclVerdict::kAllowed) {
      writer.Error(AclExecDeniedError(verdict));
      continue;
    }
    ctx.dispatcher->Run(*q.spec, q.first_arg, args, client, writer, Dispatcher::Caller::kClient);
  }
  client.set_last_command("exec");
  if (keyspace != nullptr) {
    const bool wrote = keyspace->batch_pending_count() > 0;
    const storage::Status s = keyspace->CommitBatch();
    if (!s.ok()) return ReplyError(ctx, types::OpFailure{types::OpStatus::kEngineError, s});
    ctx.wrote = wrote;
  }
  ctx.reply.set_protocol(client.resp());
  ctx.reply.Raw(replies);
}

struct WatchOptions {
  std::vector<std::string_view> keys;
};

WatchOptions ParseWatch(ArgParser& args) {
  WatchOptions o;
  while (args.HasMore()) o.keys.push_back(args.Next());
  return o;
}

void ExecuteWatch(CommandContext& ctx, const WatchOptions& o) {
  if (ctx.client.multi().active) return ctx.reply.Error(kWatchInsideMulti);
  const int db = ctx.client.db_index();
  for (std::string_view key : o.keys) {
    std::optional<int64_t> expire_at;
    if (ctx.server.has_keyspace()) {
      auto r = ctx.server.keyspace().GetExpireAt(db, key);
      if (r.ok()) expire_at = *r;
    }
    ctx.server.watches().Watch(&ctx.client, db, key, expire_at);
  }
  ctx.reply.Ok();
}

// UNWATCH also forgets that a watched key changed (Redis 7.0's unwatchCommand).
void ExecuteUnwatch(CommandContext& ctx, const NoOptions&) {
  ctx.server.watches().UnwatchAll(&ctx.client);
  ctx.client.multi().dirty_cas = false;
  ctx.reply.Ok();
}

constexpr uint32_t kControl =
    kCmdNoScript | kCmdLoading | kCmdStale | kCmdFast | kCmdNoQueue | kCmdAllowBusy;

}  // namespace

std::vector<CommandSpec> TransactionCommands() {
  return {
      {.name = "multi",
       .arity = 1,
       .flags = kControl,
       .group = "transactions",
       .summary = "Starts a transaction.",
       .handler = Handler<ParseNothing, ExecuteMulti>},
      {.name = "exec",
       .arity = 1,
       .flags =
           kCmdNoScript | kCmdLoading | kCmdStale | kCmdNoQueue | kCmdNoRestart | kCmdSkipSlowlog,
       .group = "transactions",
       .summary = "Executes all commands in a transaction as one atomic write.",
       .complexity = "Depends on commands in the transaction",
       .handler = Handler<ParseNothing, ExecuteExec>},
      {.name = "discard",
       .arity = 1,
       .flags = kControl,
       .group = "transactions",
       .since = "2.0.0",
       .summary = "Discards a transaction.",
       .complexity = "O(N), when N is the number of queued commands",
       .handler = Handler<ParseNothing, ExecuteDiscard>},
      {.name = "watch",
       .arity = -2,
       .flags = kControl,
       .keys = kAllKeys,
       .group = "transactions",
       .since = "2.2.0",
       .summary = "Monitors changes to keys to determine the execution of a transaction.",
       .complexity = "O(1) for every key.",
       .arguments = {{.name = "key", .type = ArgType::kKey, .multiple = true}},
       .handler = Handler<ParseWatch, ExecuteWatch>},
      {.name = "unwatch",
       .arity = 1,
       .flags = kCmdNoScript | kCmdLoading | kCmdStale | kCmdFast | kCmdAllowBusy,
       .group = "transactions",
       .since = "2.2.0",
       .summary = "Forgets about watched keys of a transaction.",
       .handler = Handler<ParseNothing, ExecuteUnwatch>},
  };
}

}  // namespace ebb::server
