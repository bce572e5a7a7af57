// CLUSTER's subcommands that read the node table (server/cluster/cluster.h) — MYID, MYSHARDID,
// NODES, SLOTS, SHARDS, INFO, LINKS — and MEET, which adds a node to it. Redis 7's replies and
// errors; on a server that is no cluster node every one answers kClusterDisabled (the rows'
// kCmdNeedsClusterNode, which the dispatcher checks before Parse).
#include <optional>
#include <string>
#include <vector>

#include "common/strings.h"
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
using cluster::Node;

void ExecuteMyId(CommandContext& ctx, const NoOptions&) {
  Cluster* c = ClusterNodeOf(ctx);
  ctx.reply.Bulk(c->state().myself()->name);
}

// A shard is a master and its replicas; its ID is the master's name.
void ExecuteMyShardId(CommandContext& ctx, const NoOptions&) {
  Cluster* c = ClusterNodeOf(ctx);
  const Node* me = c->state().myself();
  ctx.reply.Bulk(me->is_replica() && me->master != nullptr ? me->master->name : me->name);
}

void ExecuteNodes(CommandContext& ctx, const NoOptions&) {
  Cluster* c = ClusterNodeOf(ctx);
  ctx.reply.Verbatim("txt", c->NodesText(!ctx.client.tls()));
}

void ExecuteInfo(CommandContext& ctx, const NoOptions&) {
  Cluster* c = ClusterNodeOf(ctx);
  ctx.reply.Verbatim("txt", c->InfoText());
}

// [ip, port, id, {}]: a node as CLUSTER SLOTS lists it.
void ReplySlotsNode(CommandContext& ctx, const Cluster& c, const Node& n) {
  const cluster::NodeAddress address = c.ClientAddress(n);
  ctx.reply.ArrayHeader(4);
  ctx.reply.Bulk(address.host);
  ctx.reply.Integer(cluster::PortFor(address, ctx.client.tls()));
  ctx.reply.Bulk(n.name);
  ctx.reply.MapHeader(0);
}

// A replica clients may read from: not failed and past its first synchronisation.
bool ReplicaAvailable(const Cluster& c, const Node& n) {
  return !n.failed() && c.ReplicationOffset(n) != 0;
}

void ExecuteSlots(CommandContext& ctx, const NoOptions&) {
  Cluster* c = ClusterNodeOf(ctx);
  struct Range {
    int first, last;
    const Node* owner;
  };
  std::vector<Range> ranges;
  for (int j = 0; j < cluster::kSlots; j++) {
    const Node* owner = c->state().slot_owner(j);
    if (owner == nullptr) continue;
    if (!ranges.empty() && ranges.back().owner == owner && ranges.back().last == j - 1) {
      ranges.back().last = j;
    } else {
      ranges.push_back({j, j, owner});
    }
  }
  ctx.reply.ArrayHeader(ranges.size());
  for (const Range& r : ranges) {
    std::vector<const Node*> replicas;
    for (const Node* replica : r.owner->replicas) {
      if (ReplicaAvailable(*c, *replica)) replicas.push_back(replica);
    }
    ctx.reply.ArrayHeader(3 + replicas.size());
    ctx.reply.Integer(r.first);
    ctx.reply.Integer(r.last);
    ReplySlotsNode(ctx, *c, *r.owner);
    for (const Node* replica : replicas) ReplySlotsNode(ctx, *c, *replica);
  }
}

void ReplyShardNode(CommandContext& ctx, const Cluster& c, const Node& n) {
  const cluster::NodeAddress address = c.ClientAddress(n);
  const uint64_t offset = c.ReplicationOffset(n);
  // As Redis 7.0: under tls-cluster, "port" is the plain port and "tls-port" the TLS one.
  const bool tls_cluster = address.plaintext_port != 0;
  ctx.reply.MapHeader(tls_cluster ? 8 : 7);
  ctx.reply.Bulk("id");
  ctx.reply.Bulk(n.name);
  ctx.reply.Bulk("port");
  ctx.reply.Integer(tls_cluster ? address.plaintext_port : address.port);
  if (tls_cluster) {
    ctx.reply.Bulk("tls-port");
    ctx.reply.Integer(address.port);
  }
  ctx.reply.Bulk("ip");
  ctx.reply.Bulk(address.host);
  ctx.reply.Bulk("endpoint");
  ctx.reply.Bulk(address.host);
  ctx.reply.Bulk("role");
  ctx.reply.Bulk(n.is_master() ? "master" : "replica");
  ctx.reply.Bulk("replication-offset");
  ctx.reply.Integer(static_cast<int64_t>(offset));
  ctx.reply.Bulk("health");
  ctx.reply.Bulk(n.failed() ? "fail" : (n.is_replica() && offset == 0) ? "loading" : "online");
}

void ExecuteShards(CommandContext& ctx, const NoOptions&) {
  Cluster* c = ClusterNodeOf(ctx);
  std::vector<const Node*> masters;
  for (const auto& [name, n] : c->state().nodes()) {
    if (n->is_master() && !n->in_handshake()) masters.push_back(n.get());
  }
  ctx.reply.ArrayHeader(masters.size());
  for (const Node* master : masters) {
    ctx.reply.MapHeader(2);
    ctx.reply.Bulk("slots");
    std::vector<int> bounds;
    for (int j = 0; j < cluster::kSlots; j++) {
      if (!master->slots.test(j)) continue;
      int last = j;
      while (last + 1 < cluster::kSlots && master->slots.test(last + 1)) last++;
      bounds.push_back(j);
      bounds.push_back(last);
      j = last;
    }
    ctx.reply.ArrayHeader(bounds.size());
    for (int b : bounds) ctx.reply.Integer(b);
    ctx.reply.Bulk("nodes");
    ctx.reply.ArrayHeader(1 + master->replicas.size());
    ReplyShardNode(ctx, *c, *master);
    for (const Node* replica : master->replicas) ReplyShardNode(ctx, *c, *replica);
  }
}

void ExecuteLinks(CommandContext& ctx, const NoOptions&) {
  Cluster* c = ClusterNodeOf(ctx);
  const auto links = c->Links();
  ctx.reply.ArrayHeader(links.size());
  for (const auto& link : links) {
    ctx.reply.MapHeader(6);
    ctx.reply.Bulk("direction");
    ctx.reply.Bulk(link.outbound ? "to" : "from");
    ctx.reply.Bulk("node");
    ctx.reply.Bulk(link.node);
    ctx.reply.Bulk("create-time");
    ctx.reply.Integer(link.ctime_ms);
    ctx.reply.Bulk("events");
    ctx.reply.Bulk(link.writing ? "rw" : "r");
    ctx.reply.Bulk("send-buffer-allocated");
    ctx.reply.Integer(static_cast<int64_t>(link.send_buffer_used));
    ctx.reply.Bulk("send-buffer-used");
    ctx.reply.Integer(static_cast<int64_t>(link.send_buffer_used));
  }
}

// MEET ip port [bus-port]
struct MeetOptions {
  std::string_view ip;
  int64_t port = 0;
  int64_t bus_port = 0;
};
MeetOptions ParseMeet(ArgParser& args) {
  MeetOptions o;
  if (args.remaining() > 3) {
    args.Fail(kClusterMeetArity);
    return o;
  }
  o.ip = args.Next();
  const std::string_view port = args.Next();
  if (!ParseInt64(port, &o.port)) {
    args.Fail(InvalidBasePortError(port));
    return o;
  }
  o.bus_port = o.port + 10000;
  if (args.HasMore()) {
    const std::string_view bus_port = args.Next();
    if (!ParseInt64(bus_port, &o.bus_port)) args.Fail(InvalidBusPortError(bus_port));
  }
  return o;
}

void ExecuteMeet(CommandContext& ctx, const MeetOptions& o) {
  ReplyClusterResult(ctx, ClusterNodeOf(ctx)->Meet(std::string(o.ip), static_cast<int>(o.port),
                                                   static_cast<int>(o.bus_port)));
}

}  // namespace

std::vector<CommandSpec> ClusterTopologySubcommands() {
  return {
      ClusterNodeRow({.name = "myid",
                      .arity = 2,
                      .flags = kClusterInfoFlags,
                      .summary = "Returns the ID of a node.",
                      .help = {{.text = "Return the node id."}},
                      .handler = Handler<ParseNothing, ExecuteMyId>}),
      ClusterNodeRow({.name = "myshardid",
                      .arity = 2,
                      .flags = kClusterInfoFlags,
                      .since = "7.2.0",
                      .summary = "Returns the shard ID of a node.",
                      .help = {{.text = "Return the node's shard id (its master's id)."}},
                      .handler = Handler<ParseNothing, ExecuteMyShardId>}),
      ClusterNodeRow(
          {.name = "nodes",
           .arity = 2,
           .flags = kClusterInfoFlags,
           .summary = "Returns the cluster configuration for a node.",
           .complexity = "O(N) where N is the total number of Cluster nodes",
           .help = {{.text = "Return cluster configuration seen by node. Output format:\n"
                             "    <id> <ip:port@bus-port> <flags> <master> <pings> <pongs> "
                             "<epoch> <link> <slot> ..."}},
           .handler = Handler<ParseNothing, ExecuteNodes>}),
      ClusterNodeRow(
          {.name = "slots",
           .arity = 2,
           .flags = kClusterInfoFlags,
           .summary = "Returns the mapping of cluster slots to nodes.",
           .complexity = "O(N) where N is the total number of Cluster nodes",
           .help = {{.text = "Return information about slots range mappings. Each range is made "
                             "of:\n    start, end, master and replicas IP addresses, ports and "
                             "ids"}},
           .handler = Handler<ParseNothing, ExecuteSlots>}),
      ClusterNodeRow(
          {.name = "shards",
           .arity = 2,
           .flags = kClusterInfoFlags,
           .since = "7.0.0",
           .summary = "Returns the mapping of cluster slots to shards.",
           .complexity = "O(N) where N is the total number of cluster nodes",
           .help = {{.text = "Return information about slot range mappings and the nodes "
                             "associated with them."}},
           .handler = Handler<ParseNothing, ExecuteShards>}),
      ClusterNodeRow({.name = "info",
                      .arity = 2,
                      .flags = kClusterInfoFlags,
                      .summary = "Returns information about the state of a node.",
                      .help = {{.text = "Return information about the cluster."}},
                      .handler = Handler<ParseNothing, ExecuteInfo>}),
      ClusterNodeRow(
          {.name = "links",
           .arity = 2,
           .flags = kClusterInfoFlags,
           .since = "7.0.0",
           .summary = "Returns a list of all TCP links to and from peer nodes.",
           .complexity = "O(N) where N is the total number of Cluster nodes",
           .help = {{.text = "Return information about all network links between this node and "
                             "its peers.\nOutput format is an array where each array element "
                             "is a map containing attributes of a link"}},
           .handler = Handler<ParseNothing, ExecuteLinks>}),
      ClusterNodeRow(
          {.name = "meet",
           .arity = -4,
           .flags = kClusterAdminFlags,
           .summary = "Forces a node to handshake with another node.",
           .arguments = {{.name = "ip"},
                         {.name = "port", .type = ArgType::kInteger},
                         {.name = "cluster-bus-port", .type = ArgType::kInteger, .optional = true}},
           .help = {{.usage = "MEET <ip> <port> [<bus-port>]",
                     .text = "Connect nodes into a working cluster."}},
           .handler = Handler<ParseMeet, ExecuteMeet>}),
  };
}

}  // namespace ebb::server
