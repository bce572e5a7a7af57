// The keys' side of Redis Cluster (docs/cluster.md, "Keys, slots and redirections"): CLUSTER
// KEYSLOT, COUNTKEYSINSLOT, GETKEYSINSLOT (the hash slots of keys and the keys of a slot), and
// ASKING, READONLY, READWRITE (a cluster client's per-connection routing state,
// server/core/client.h). They answer only with cluster-enabled (kCmdNeedsClusterEnabled: Redis
// checks it before the arguments).
#include <cstdint>
#include <string>
#include <vector>

#include "common/key_slot.h"
#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/commands/cluster_subcommands.h"
#include "server/commands/register.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/services/reply.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"

namespace ebb::server {
namespace {

// CLUSTER KEYSLOT key
void ExecuteKeyslot(CommandContext& ctx, const KeyOptions& o) { ctx.reply.Integer(KeySlot(o.key)); }

struct SlotOptions {
  int64_t slot = 0;
};
SlotOptions ParseSlot(ArgParser& args) { return {args.Int64()}; }

// CLUSTER COUNTKEYSINSLOT slot
void ExecuteCountKeysInSlot(CommandContext& ctx, const SlotOptions& o) {
  if (o.slot < 0 || o.slot >= kClusterSlots) return ctx.reply.Error(kInvalidSlot);
  types::OpResult<uint64_t> count = ctx.server.keyspace().CountKeysInSlot(static_cast<int>(o.slot));
  if (!count.ok()) return ReplyError(ctx, count);
  ctx.reply.Integer(static_cast<int64_t>(*count));
}

struct SlotCountOptions {
  int64_t slot = 0;
  int64_t count = 0;
};
SlotCountOptions ParseSlotCount(ArgParser& args) {
  SlotCountOptions o;
  o.slot = args.Int64();
  o.count = args.Int64();
  return o;
}

// CLUSTER GETKEYSINSLOT slot count
void ExecuteGetKeysInSlot(CommandContext& ctx, const SlotCountOptions& o) {
  if (o.slot < 0 || o.slot >= kClusterSlots || o.count < 0) {
    return ctx.reply.Error(kInvalidSlotOrCount);
  }
  types::OpResult<std::vector<std::string>> keys =
      ctx.server.keyspace().KeysInSlot(static_cast<int>(o.slot), static_cast<size_t>(o.count));
  if (!keys.ok()) return ReplyError(ctx, keys);
  ctx.reply.ArrayHeader(keys->size());
  for (const std::string& key : *keys) ctx.reply.Bulk(key);
}

void ExecuteAsking(CommandContext& ctx, const NoOptions&) {
  ctx.client.set_asking(true);
  ctx.reply.Ok();
}

template <bool kReadOnly>
void ExecuteReadMode(CommandContext& ctx, const NoOptions&) {
  ctx.client.set_cluster_readonly(kReadOnly);
  ctx.reply.Ok();
}

}  // namespace

std::vector<CommandSpec> ClusterClientCommands() {
  return {
      {.name = "asking",
       .arity = 1,
       .flags = kCmdFast | kCmdNeedsClusterEnabled,
       .group = "cluster",
       .since = "3.0.0",
       .summary = "Signals that a cluster client is following an -ASK redirect.",
       .handler = Handler<ParseNothing, ExecuteAsking>},
      {.name = "readonly",
       .arity = 1,
       .flags = kCmdFast | kCmdLoading | kCmdStale | kCmdNeedsClusterEnabled,
       .group = "cluster",
       .since = "3.0.0",
       .summary = "Enables read-only queries for a connection to a Redis Cluster replica node.",
       .handler = Handler<ParseNothing, ExecuteReadMode<true>>},
      {.name = "readwrite",
       .arity = 1,
       .flags = kCmdFast | kCmdLoading | kCmdStale | kCmdNeedsClusterEnabled,
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
       .flags = kCmdStale | kCmdNeedsClusterEnabled,
       .group = "cluster",
       .since = "3.0.0",
       .summary = "Returns the hash slot for a key.",
       .complexity = "O(N) where N is the number of bytes in the key",
       .arguments = {{.name = "key"}},
       .handler = Handler<ParseKey, ExecuteKeyslot>},
      {.name = "countkeysinslot",
       .arity = 3,
       .flags = kCmdStale | kCmdNeedsClusterEnabled,
       .group = "cluster",
       .since = "3.0.0",
       .summary = "Returns the number of keys in a hash slot.",
       .complexity = "O(N) where N is the number of keys in the slot (one range of the engine)",
       .arguments = {{.name = "slot", .type = ArgType::kInteger}},
       .handler = Handler<ParseSlot, ExecuteCountKeysInSlot>},
      {.name = "getkeysinslot",
       .arity = 4,
       .flags = kCmdStale | kCmdNeedsClusterEnabled,
       .group = "cluster",
       .since = "3.0.0",
       .summary = "Returns the key names in a hash slot.",
       .complexity = "O(N) where N is the number of requested keys",
       .arguments = {{.name = "slot", .type = ArgType::kInteger},
                     {.name = "count", .type = ArgType::kInteger}},
       .handler = Handler<ParseSlotCount, ExecuteGetKeysInSlot>},
  };
}

}  // namespace ebb::server
