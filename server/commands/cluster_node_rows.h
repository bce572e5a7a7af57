// What the rows of CLUSTER's node subcommands share (cmd_cluster_topology.cc, cmd_cluster_slots.cc,
// cmd_cluster_membership.cc): their flags, the node they act on, the reply of an operation's
// outcome, a slot argument as Redis reads it, and the row and argument shapes.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/strings.h"
#include "server/cluster/cluster.h"
#include "server/cluster/cluster_code.h"
#include "server/core/command.h"
#include "server/services/server_context.h"

namespace ebb::server {

inline constexpr uint32_t kClusterInfoFlags = kCmdStale | kCmdNoScript | kCmdNeedsClusterNode;
inline constexpr uint32_t kClusterAdminFlags =
    kCmdAdmin | kCmdStale | kCmdNoScript | kCmdNeedsClusterNode;

// The node. REQUIRES: the row is flagged kCmdNeedsClusterNode (the dispatcher checked it).
inline cluster::Cluster* ClusterNodeOf(CommandContext& ctx) {
  return static_cast<cluster::Cluster*>(ctx.server.cluster());
}

// +OK, or the operation's error reply.
inline void ReplyClusterResult(CommandContext& ctx, const Result<cluster::ClusterCode>& result) {
  if (result.ok()) return ctx.reply.Ok();
  ctx.reply.Error(cluster::ClusterErrorText(result));
}

// A slot number, as Redis's getSlotOrReply reads it.
inline bool ParseClusterSlot(std::string_view text, int* slot) {
  int64_t v = 0;
  if (!ParseInt64(text, &v) || v < 0 || v >= cluster::kSlots) return false;
  *slot = static_cast<int>(v);
  return true;
}

// A CLUSTER subcommand's row: in the cluster group, and since 3.0.0 at the earliest.
inline CommandSpec ClusterNodeRow(CommandSpec spec) {
  spec.group = "cluster";
  if (spec.since == "1.0.0") spec.since = "3.0.0";
  return spec;
}

inline ArgSpec ClusterNodeIdArg() { return {.name = "node-id"}; }
inline ArgSpec ClusterSlotArg(std::string_view name = "slot") {
  return {.name = name, .type = ArgType::kInteger};
}

}  // namespace ebb::server
