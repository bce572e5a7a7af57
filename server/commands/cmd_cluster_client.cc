// ASKING, READONLY, READWRITE: a cluster client's per-connection routing state
// (server/client.h; docs/cluster.md, "Keys, slots and redirections").
#include <vector>

#include "protocol/reply_writer.h"
#include "server/client.h"
#include "server/command.h"
#include "server/commands/register.h"
#include "server/errors.h"
#include "server/server_context.h"

namespace ebb::server {
namespace {

bool ClusterModeOrReply(CommandContext& ctx) {
  if (ctx.server.config().cluster_enabled) return true;
  ctx.reply.Error(kClusterDisabled);
  return false;
}

void ExecuteAsking(CommandContext& ctx, const NoOptions&) {
  if (!ClusterModeOrReply(ctx)) return;
  ctx.client.set_asking(true);
  ctx.reply.Ok();
}

template <bool kReadOnly>
void ExecuteReadMode(CommandContext& ctx, const NoOptions&) {
  if (!ClusterModeOrReply(ctx)) return;
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

}  // namespace ebb::server
