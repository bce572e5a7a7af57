// CLUSTER's subcommands of membership, roles and epochs (server/cluster/cluster.h): FORGET,
// RESET, REPLICATE, REPLICAS (SLAVES), COUNT-FAILURE-REPORTS, FAILOVER, SET-CONFIG-EPOCH,
// BUMPEPOCH and SAVECONFIG. Redis 7's replies and errors; on a server that is no cluster node
// every one answers kClusterDisabled (the rows' kCmdNeedsClusterNode, which the dispatcher
// checks before Parse).
#include <string>
#include <vector>

#include "protocol/reply_writer.h"
#include "server/cluster/cluster.h"
#include "server/cluster/nodes_conf.h"
#include "server/commands/cluster_node_rows.h"
#include "server/commands/cluster_subcommands.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/services/server_context.h"

namespace ebb::server {
namespace {

using cluster::Cluster;
using cluster::ClusterCode;
using cluster::Node;

struct EpochOptions {
  int64_t epoch = 0;
};
EpochOptions ParseEpoch(ArgParser& args) { return {args.Int64()}; }

void ExecuteSetConfigEpoch(CommandContext& ctx, const EpochOptions& o) {
  ReplyClusterResult(ctx, ClusterNodeOf(ctx)->SetConfigEpoch(o.epoch));
}

void ExecuteBumpEpoch(CommandContext& ctx, const NoOptions&) {
  Cluster* c = ClusterNodeOf(ctx);
  const bool bumped = c->BumpEpoch();
  ctx.reply.SimpleString((bumped ? "BUMPED " : "STILL ") +
                         std::to_string(c->state().myself()->config_epoch));
}

void ExecuteSaveConfig(CommandContext& ctx, const NoOptions&) {
  Cluster* c = ClusterNodeOf(ctx);
  ReplyClusterResult(ctx, c->SaveNow());
}

// RESET [HARD|SOFT]
struct ResetOptions {
  bool hard = false;
};
ResetOptions ParseReset(ArgParser& args) { return {args.Choice({"HARD", "SOFT"}) == 0}; }

void ExecuteReset(CommandContext& ctx, const ResetOptions& o) {
  ReplyClusterResult(ctx, ClusterNodeOf(ctx)->Reset(o.hard));
}

void ExecuteForget(CommandContext& ctx, const KeyOptions& o) {
  Cluster* c = ClusterNodeOf(ctx);
  ReplyClusterResult(ctx, c->Forget(o.key));
}

void ExecuteReplicate(CommandContext& ctx, const KeyOptions& o) {
  Cluster* c = ClusterNodeOf(ctx);
  ReplyClusterResult(ctx, c->Replicate(o.key));
}

void ExecuteReplicas(CommandContext& ctx, const KeyOptions& o) {
  Cluster* c = ClusterNodeOf(ctx);
  const Node* n = c->state().Find(o.key);
  if (n == nullptr) return ctx.reply.Error(UnknownNodeError(o.key));
  if (n->is_replica()) return ctx.reply.Error(kNodeNotMaster);
  ctx.reply.ArrayHeader(n->replicas.size());
  for (const Node* replica : n->replicas) {
    ctx.reply.Bulk(cluster::DescribeNode(c->state(), *replica, !ctx.client.tls()));
  }
}

void ExecuteCountFailureReports(CommandContext& ctx, const KeyOptions& o) {
  Cluster* c = ClusterNodeOf(ctx);
  const Result<ClusterCode, int64_t> count = c->CountFailureReports(o.key);
  if (!count.ok()) return ctx.reply.Error(ClusterErrorText(count));
  ctx.reply.Integer(*count);
}

// FAILOVER [FORCE|TAKEOVER]
struct FailoverOptions {
  bool force = false;
  bool takeover = false;
};
FailoverOptions ParseFailover(ArgParser& args) {
  FailoverOptions o;
  if (args.HasMore()) {
    const int option = args.Choice({"FORCE", "TAKEOVER"});
    if (option < 0) args.SyntaxError();
    o.force = option >= 0;
    o.takeover = option == 1;
  }
  return o;
}

void ExecuteFailover(CommandContext& ctx, const FailoverOptions& o) {
  ReplyClusterResult(ctx, ClusterNodeOf(ctx)->StartManualFailover(o.force, o.takeover));
}

}  // namespace

std::vector<CommandSpec> ClusterMembershipSubcommands() {
  return {
      ClusterNodeRow({.name = "set-config-epoch",
                      .arity = 3,
                      .flags = kClusterAdminFlags,
                      .summary = "Sets the configuration epoch for a new node.",
                      .arguments = {{.name = "config-epoch", .type = ArgType::kInteger}},
                      .help = {{.usage = "SET-CONFIG-EPOCH <epoch>",
                                .text = "Set config epoch of current node."}},
                      .handler = Handler<ParseEpoch, ExecuteSetConfigEpoch>}),
      ClusterNodeRow({.name = "bumpepoch",
                      .arity = 2,
                      .flags = kClusterAdminFlags,
                      .summary = "Advances the cluster config epoch.",
                      .help = {{.text = "Advance the cluster config epoch."}},
                      .handler = Handler<ParseNothing, ExecuteBumpEpoch>}),
      ClusterNodeRow({.name = "saveconfig",
                      .arity = 2,
                      .flags = kClusterAdminFlags,
                      .summary = "Forces a node to save the cluster configuration to disk.",
                      .help = {{.text = "Force saving cluster configuration on disk."}},
                      .handler = Handler<ParseNothing, ExecuteSaveConfig>}),
      ClusterNodeRow(
          {.name = "reset",
           .arity = -2,
           .flags = kClusterAdminFlags | kCmdNoMulti,
           .summary = "Resets a node.",
           .complexity = "O(N) where N is the number of known nodes. The command may execute a "
                         "FLUSHALL as a side effect.",
           .arguments =
               {{.name = "reset-type",
                 .type = ArgType::kOneOf,
                 .optional = true,
                 .children = {{.name = "hard", .type = ArgType::kPureToken, .token = "HARD"},
                              {.name = "soft", .type = ArgType::kPureToken, .token = "SOFT"}}}},
           .help = {{.usage = "RESET [HARD|SOFT]", .text = "Reset current node (default: soft)."}},
           .handler = Handler<ParseReset, ExecuteReset>}),
      ClusterNodeRow(
          {.name = "forget",
           .arity = 3,
           .flags = kClusterAdminFlags,
           .summary = "Removes a node from the nodes table.",
           .arguments = {ClusterNodeIdArg()},
           .help = {{.usage = "FORGET <node-id>", .text = "Remove a node from the cluster."}},
           .handler = Handler<ParseKey, ExecuteForget>}),
      ClusterNodeRow({.name = "replicate",
                      .arity = 3,
                      .flags = kClusterAdminFlags,
                      .summary = "Configure a node as replica of a master node.",
                      .arguments = {ClusterNodeIdArg()},
                      .help = {{.usage = "REPLICATE <node-id>",
                                .text = "Configure current node as replica to <node-id>."}},
                      .handler = Handler<ParseKey, ExecuteReplicate>}),
      ClusterNodeRow(
          {.name = "replicas",
           .arity = 3,
           .flags = kClusterAdminFlags,
           .since = "5.0.0",
           .summary = "Lists the replica nodes of a master node.",
           .arguments = {ClusterNodeIdArg()},
           .help = {{.usage = "REPLICAS <node-id>", .text = "Return <node-id> replicas."}},
           .handler = Handler<ParseKey, ExecuteReplicas>}),
      ClusterNodeRow(
          {.name = "slaves",
           .arity = 3,
           .flags = kClusterAdminFlags,
           .summary = "Lists the replica nodes of a master node. (CLUSTER REPLICAS's old name.)",
           .arguments = {ClusterNodeIdArg()},
           .help = {{.usage = "SLAVES <node-id>", .text = "Return <node-id> replicas."}},
           .handler = Handler<ParseKey, ExecuteReplicas>}),
      ClusterNodeRow({.name = "count-failure-reports",
                      .arity = 3,
                      .flags = kClusterAdminFlags,
                      .summary = "Returns the number of active failure reports active for a node.",
                      .complexity = "O(N) where N is the number of failure reports",
                      .arguments = {ClusterNodeIdArg()},
                      .help = {{.usage = "COUNT-FAILURE-REPORTS <node-id>",
                                .text = "Return number of failure reports for <node-id>."}},
                      .handler = Handler<ParseKey, ExecuteCountFailureReports>}),
      ClusterNodeRow(
          {.name = "failover",
           .arity = -2,
           .flags = kClusterAdminFlags,
           .summary = "Forces a replica to perform a manual failover of its master.",
           .arguments =
               {{.name = "options",
                 .type = ArgType::kOneOf,
                 .optional = true,
                 .children =
                     {{.name = "force", .type = ArgType::kPureToken, .token = "FORCE"},
                      {.name = "takeover", .type = ArgType::kPureToken, .token = "TAKEOVER"}}}},
           .help = {{.usage = "FAILOVER [FORCE|TAKEOVER]",
                     .text = "Promote current replica node to being a master."}},
           .handler = Handler<ParseFailover, ExecuteFailover>}),
  };
}

}  // namespace ebb::server
