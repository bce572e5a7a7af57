// The keys' side of Redis Cluster (docs/cluster.md, "Keys, slots and redirections"): CLUSTER
// KEYSLOT, COUNTKEYSINSLOT, GETKEYSINSLOT (the hash slots of keys and the keys of a slot), and
// ASKING, READONLY, READWRITE (a cluster client's per-connection routing state, server/client.h).
#include <cstdint>
#include <string>
#include <vector>

#include "common/key_slot.h"
#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/client.h"
#include "server/command.h"
#include "server/commands/cluster_subcommands.h"
#include "server/commands/register.h"
#include "server/commands/reply.h"
#include "server/errors.h"
#include "server/server_context.h"
#include "types/keyspace.h"

namespace ebb::server {
namespace {

// These commands answer only on a cluster node (Redis checks it before the arguments).
bool ClusterEnabledOrReply(CommandContext& ctx) {
  if (ctx.server.config().cluster_enabled) return true;
  ctx.reply.Error(kClusterDisabled);
  return false;
}

// An integer argument as Redis's getLongLongFromObjectOrReply reads it.
bool Int64OrReply(CommandContext& ctx, std::string_view text, int64_t* value) {
  if (ParseInt64(text, value)) return true;
  ctx.reply.Error(kNotInteger);
  return false;
}

// CLUSTER KEYSLOT key
void ClusterKeyslot(CommandContext& ctx) {
  if (!ClusterEnabledOrReply(ctx)) return;
  ctx.reply.Integer(KeySlot(ctx.args[2]));
}

// CLUSTER COUNTKEYSINSLOT slot
void ClusterCountKeysInSlot(CommandContext& ctx) {
  if (!ClusterEnabledOrReply(ctx)) return;
  int64_t slot = 0;
  if (!Int64OrReply(ctx, ctx.args[2], &slot)) return;
  if (slot < 0 || slot >= kClusterSlots) return ctx.reply.Error(kInvalidSlot);
  types::OpResult<uint64_t> count = ctx.server.keyspace().CountKeysInSlot(static_cast<int>(slot));
  if (!count.ok()) return ReplyError(ctx, count);
  ctx.reply.Integer(static_cast<int64_t>(*count));
}

// CLUSTER GETKEYSINSLOT slot count
void ClusterGetKeysInSlot(CommandContext& ctx) {
  if (!ClusterEnabledOrReply(ctx)) return;
  int64_t slot = 0;
  int64_t count = 0;
  if (!Int64OrReply(ctx, ctx.args[2], &slot) || !Int64OrReply(ctx, ctx.args[3], &count)) return;
  if (slot < 0 || slot >= kClusterSlots || count < 0) return ctx.reply.Error(kInvalidSlotOrCount);
  types::OpResult<std::vector<std::string>> keys =
      ctx.server.keyspace().KeysInSlot(static_cast<int>(slot), static_cast<size_t>(count));
  if (!keys.ok()) return ReplyError(ctx, keys);
  ctx.reply.ArrayHeader(keys->size());
  for (const std::string& key : *keys) ctx.reply.Bulk(key);
}

void ExecuteAsking(CommandContext& ctx, const NoOptions&) {
  if (!ClusterEnabledOrReply(ctx)) return;
  ctx.client.set_asking(true);
  ctx.reply.Ok();
}

template <bool kReadOnly>
void ExecuteReadMode(CommandContext& ctx, const NoOptions&) {
  if (!ClusterEnabledOrReply(ctx)) return;
  ctx.client.set_cluster_readonly(kReadOnly);
  ctx.reply.Ok();
}

}  // namespace

std::vector<CommandSpec> ClusterClientCommands() {
  return {
      {.name = "asking",
       .arity = 1,
       .flags = kCmdFast,
       .group = "cluster",
       .since = "3.0.0",
       .summary = "Signals that a cluster client is following an -ASK redirect.",
       .handler = Handler<ParseNothing, ExecuteAsking>},
      {.name = "readonly",
       .arity = 1,
       .flags = kCmdFast | kCmdLoading | kCmdStale,
       .group = "cluster",
       .since = "3.0.0",
       .summary = "Enables read-only queries for a connection to a Redis Cluster replica node.",
       .handler = Handler<ParseNothing, ExecuteReadMode<true>>},
      {.name = "readwrite",
       .arity = 1,
       .flags = kCmdFast | kCmdLoading | kCmdStale,
       .group = "cluster",
       .since = "3.0.0",
       .summary = "Enables read-write queries for a connection to a Redis Cluster replica node.",
       .handler = Handler<ParseNothing, ExecuteReadMode<false>>},
  };
}

std::vector<CommandSpec> ClusterKeySubcommands() {
  return {
      {.name = "keyslot",
       .arity = 3,
       .flags = kCmdStale,
       .group = "cluster",
       .since = "3.0.0",
       .summary = "Returns the hash slot for a key.",
       .complexity = "O(N) where N is the number of bytes in the key",
       .arguments = {{.name = "key"}},
       .handler = ClusterKeyslot},
      {.name = "countkeysinslot",
       .arity = 3,
       .flags = kCmdStale,
       .group = "cluster",
       .since = "3.0.0",
       .summary = "Returns the number of keys in a hash slot.",
       .complexity = "O(N) where N is the number of keys in the slot (one range of the engine)",
       .arguments = {{.name = "slot", .type = ArgType::kInteger}},
       .handler = ClusterCountKeysInSlot},
      {.name = "getkeysinslot",
       .arity = 4,
       .flags = kCmdStale,
       .group = "cluster",
       .since = "3.0.0",
       .summary = "Returns the key names in a hash slot.",
       .complexity = "O(N) where N is the number of requested keys",
       .arguments = {{.name = "slot", .type = ArgType::kInteger},
                     {.name = "count", .type = ArgType::kInteger}},
       .handler = ClusterGetKeysInSlot},
  };
}

}  // namespace ebb::server
