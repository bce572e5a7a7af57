// CLUSTER's node subcommands (server/cluster/cluster.h): the node table (MYID, MYSHARDID, NODES,
// SLOTS, SHARDS, INFO, LINKS, REPLICAS), membership (MEET, FORGET, RESET, REPLICATE), slots
// (ADDSLOTS[RANGE], DELSLOTS[RANGE], FLUSHSLOTS, SETSLOT), epochs (SET-CONFIG-EPOCH, BUMPEPOCH),
// SAVECONFIG, COUNT-FAILURE-REPORTS and FAILOVER. Redis 7's replies and errors; on a server that
// is no cluster node every one answers kClusterDisabled (the rows' kCmdNeedsClusterNode, which
// the dispatcher checks before Parse).
#include <optional>
#include <string>
#include <vector>

#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/cluster/cluster.h"
#include "server/cluster/nodes_conf.h"
#include "server/commands/cluster_subcommands.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/services/server_context.h"

namespace ebb::server {
namespace {

using cluster::Cluster;
using cluster::ClusterCode;
using cluster::Node;

constexpr uint32_t kInfoFlags = kCmdStale | kCmdNoScript | kCmdNeedsClusterNode;
constexpr uint32_t kAdminFlags = kCmdAdmin | kCmdStale | kCmdNoScript | kCmdNeedsClusterNode;

// The node. REQUIRES: the row is flagged kCmdNeedsClusterNode (the dispatcher checked it).
Cluster* NodeOf(CommandContext& ctx) { return static_cast<Cluster*>(ctx.server.cluster()); }

// +OK, or the operation's error reply.
void ReplyResult(CommandContext& ctx, const Result<ClusterCode>& result) {
  if (result.ok()) return ctx.reply.Ok();
  ctx.reply.Error(ClusterErrorText(result));
}

// A slot number, as Redis's getSlotOrReply reads it.
bool ParseSlot(std::string_view text, int* slot) {
  int64_t v = 0;
  if (!ParseInt64(text, &v) || v < 0 || v >= cluster::kSlots) return false;
  *slot = static_cast<int>(v);
  return true;
}

void ExecuteMyId(CommandContext& ctx, const NoOptions&) {
  Cluster* c = NodeOf(ctx);
  ctx.reply.Bulk(c->state().myself()->name);
}

// A shard is a master and its replicas; its ID is the master's name.
void ExecuteMyShardId(CommandContext& ctx, const NoOptions&) {
  Cluster* c = NodeOf(ctx);
  const Node* me = c->state().myself();
  ctx.reply.Bulk(me->is_replica() && me->master != nullptr ? me->master->name : me->name);
}

void ExecuteNodes(CommandContext& ctx, const NoOptions&) {
  Cluster* c = NodeOf(ctx);
  ctx.reply.Verbatim("txt", c->NodesText(!ctx.client.tls()));
}

void ExecuteInfo(CommandContext& ctx, const NoOptions&) {
  Cluster* c = NodeOf(ctx);
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
  Cluster* c = NodeOf(ctx);
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
  Cluster* c = NodeOf(ctx);
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
  Cluster* c = NodeOf(ctx);
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
  ReplyResult(ctx, NodeOf(ctx)->Meet(std::string(o.ip), static_cast<int>(o.port),
                                     static_cast<int>(o.bus_port)));
}

// ADDSLOTS / DELSLOTS / their RANGE forms: the slots as given (a range's first and last in
// turn); every slot checked before any changes.
struct SlotsOptions {
  std::vector<int> slots;
};
template <bool kRanges, bool kDel>
SlotsOptions ParseSlots(ArgParser& args) {
  SlotsOptions o;
  if (kRanges && args.remaining() % 2 != 0) {
    args.Fail(WrongArgsError(kDel ? "cluster|delslotsrange" : "cluster|addslotsrange"));
    return o;
  }
  while (args.HasMore()) {
    int slot = 0;
    if (!ParseSlot(args.Next(), &slot)) args.Fail(kBadSlot);
    o.slots.push_back(slot);
  }
  return o;
}

template <bool kRanges, bool kDel>
void ExecuteChangeSlots(CommandContext& ctx, const SlotsOptions& o) {
  Cluster* c = NodeOf(ctx);
  std::vector<uint8_t> seen(cluster::kSlots, 0);
  std::vector<int> slots;
  const size_t step = kRanges ? 2 : 1;
  for (size_t i = 0; i < o.slots.size(); i += step) {
    const int first = o.slots[i];
    const int last = kRanges ? o.slots[i + 1] : first;
    if (first > last) {
      return ctx.reply.Error(SlotRangeOrderError(first, last));
    }
    for (int j = first; j <= last; j++) {
      const bool owned = c->state().slot_owner(j) != nullptr;
      if (kDel && !owned) {
        return ctx.reply.Error(SlotUnassignedError(j));
      }
      if (!kDel && owned) {
        return ctx.reply.Error(SlotBusyError(j));
      }
      if (seen[j]++ == 1) {
        return ctx.reply.Error(SlotRepeatedError(j));
      }
      slots.push_back(j);
    }
  }
  if (kDel) {
    c->DelSlots(slots);
  } else {
    c->AddSlots(slots);
  }
  ctx.reply.Ok();
}

void ExecuteFlushSlots(CommandContext& ctx, const NoOptions&) {
  Cluster* c = NodeOf(ctx);
  if (!c->DatabaseEmpty()) return ctx.reply.Error(kFlushSlotsNotEmpty);
  c->FlushSlots();
  ctx.reply.Ok();
}

// SETSLOT slot IMPORTING|MIGRATING node | STABLE | NODE node. A malformed slot or form is
// answered after the node's own refusal (a replica), as Redis does: Parse records it.
struct SetSlotOptions {
  std::optional<int> slot;  // none: not a slot
  enum class Action { kMigrating, kImporting, kStable, kNode, kInvalid } action = Action::kInvalid;
  std::string_view node;
};
SetSlotOptions ParseSetSlot(ArgParser& args) {
  using Action = SetSlotOptions::Action;
  SetSlotOptions o;
  if (int slot = 0; ParseSlot(args.Next(), &slot)) o.slot = slot;
  const size_t operands = args.remaining();  // the action and its node
  const int action = args.Choice({"MIGRATING", "IMPORTING", "STABLE", "NODE"});
  const bool with_node = action != 2;
  if (action >= 0 && operands == (with_node ? 2u : 1u)) {
    o.action = static_cast<Action>(action);
    if (with_node) o.node = args.Next();
  }
  while (args.HasMore()) args.Next();  // the wrong form is answered by Execute
  return o;
}

void ExecuteSetSlot(CommandContext& ctx, const SetSlotOptions& o) {
  using Action = SetSlotOptions::Action;
  Cluster* c = NodeOf(ctx);
  if (c->state().myself()->is_replica()) {
    return ctx.reply.Error(kSetSlotOnReplica);
  }
  if (!o.slot) return ctx.reply.Error(kBadSlot);
  switch (o.action) {
    case Action::kMigrating:
      return ReplyResult(ctx, c->SetSlotMigrating(*o.slot, o.node));
    case Action::kImporting:
      return ReplyResult(ctx, c->SetSlotImporting(*o.slot, o.node));
    case Action::kStable:
      c->SetSlotStable(*o.slot);
      return ctx.reply.Ok();
    case Action::kNode:
      return ReplyResult(ctx, c->SetSlotNode(*o.slot, o.node));
    case Action::kInvalid:
      break;
  }
  ctx.reply.Error(kSetSlotSyntax);
}

struct EpochOptions {
  int64_t epoch = 0;
};
EpochOptions ParseEpoch(ArgParser& args) { return {args.Int64()}; }

void ExecuteSetConfigEpoch(CommandContext& ctx, const EpochOptions& o) {
  ReplyResult(ctx, NodeOf(ctx)->SetConfigEpoch(o.epoch));
}

void ExecuteBumpEpoch(CommandContext& ctx, const NoOptions&) {
  Cluster* c = NodeOf(ctx);
  const bool bumped = c->BumpEpoch();
  ctx.reply.SimpleString((bumped ? "BUMPED " : "STILL ") +
                         std::to_string(c->state().myself()->config_epoch));
}

void ExecuteSaveConfig(CommandContext& ctx, const NoOptions&) {
  Cluster* c = NodeOf(ctx);
  ReplyResult(ctx, c->SaveNow());
}

// RESET [HARD|SOFT]
struct ResetOptions {
  bool hard = false;
};
ResetOptions ParseReset(ArgParser& args) { return {args.Choice({"HARD", "SOFT"}) == 0}; }

void ExecuteReset(CommandContext& ctx, const ResetOptions& o) {
  ReplyResult(ctx, NodeOf(ctx)->Reset(o.hard));
}

void ExecuteForget(CommandContext& ctx, const KeyOptions& o) {
  Cluster* c = NodeOf(ctx);
  ReplyResult(ctx, c->Forget(o.key));
}

void ExecuteReplicate(CommandContext& ctx, const KeyOptions& o) {
  Cluster* c = NodeOf(ctx);
  ReplyResult(ctx, c->Replicate(o.key));
}

void ExecuteReplicas(CommandContext& ctx, const KeyOptions& o) {
  Cluster* c = NodeOf(ctx);
  const Node* n = c->state().Find(o.key);
  if (n == nullptr) return ctx.reply.Error(UnknownNodeError(o.key));
  if (n->is_replica()) return ctx.reply.Error(kNodeNotMaster);
  ctx.reply.ArrayHeader(n->replicas.size());
  for (const Node* replica : n->replicas) {
    ctx.reply.Bulk(cluster::DescribeNode(c->state(), *replica, !ctx.client.tls()));
  }
}

void ExecuteCountFailureReports(CommandContext& ctx, const KeyOptions& o) {
  Cluster* c = NodeOf(ctx);
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
  ReplyResult(ctx, NodeOf(ctx)->StartManualFailover(o.force, o.takeover));
}

CommandSpec Sub(CommandSpec spec) {
  spec.group = "cluster";
  if (spec.since == "1.0.0") spec.since = "3.0.0";
  return spec;
}

ArgSpec NodeIdArg() { return {.name = "node-id"}; }
ArgSpec SlotArg(std::string_view name = "slot") {
  return {.name = name, .type = ArgType::kInteger};
}

// ADDSLOTSRANGE and DELSLOTSRANGE: one row shape.
CommandSpec SlotRangesRow(std::string_view name, std::string_view summary, std::string_view usage,
                          std::string_view text, CommandHandler handler) {
  return Sub({.name = name,
              .arity = -4,
              .flags = kAdminFlags,
              .since = "7.0.0",
              .summary = summary,
              .complexity = "O(N) where N is the total number of the slots between the start "
                            "slot and end slot arguments.",
              .arguments = {{.name = "range",
                             .type = ArgType::kBlock,
                             .multiple = true,
                             .children = {SlotArg("start-slot"), SlotArg("end-slot")}}},
              .help = {{.usage = usage, .text = text}},
              .handler = handler});
}

}  // namespace

std::vector<CommandSpec> ClusterNodeSubcommands() {
  return {
      Sub({.name = "myid",
           .arity = 2,
           .flags = kInfoFlags,
           .summary = "Returns the ID of a node.",
           .help = {{.text = "Return the node id."}},
           .handler = Handler<ParseNothing, ExecuteMyId>}),
      Sub({.name = "myshardid",
           .arity = 2,
           .flags = kInfoFlags,
           .since = "7.2.0",
           .summary = "Returns the shard ID of a node.",
           .help = {{.text = "Return the node's shard id (its master's id)."}},
           .handler = Handler<ParseNothing, ExecuteMyShardId>}),
      Sub({.name = "nodes",
           .arity = 2,
           .flags = kInfoFlags,
           .summary = "Returns the cluster configuration for a node.",
           .complexity = "O(N) where N is the total number of Cluster nodes",
           .help = {{.text = "Return cluster configuration seen by node. Output format:\n"
                             "    <id> <ip:port@bus-port> <flags> <master> <pings> <pongs> "
                             "<epoch> <link> <slot> ..."}},
           .handler = Handler<ParseNothing, ExecuteNodes>}),
      Sub({.name = "slots",
           .arity = 2,
           .flags = kInfoFlags,
           .summary = "Returns the mapping of cluster slots to nodes.",
           .complexity = "O(N) where N is the total number of Cluster nodes",
           .help = {{.text = "Return information about slots range mappings. Each range is made "
                             "of:\n    start, end, master and replicas IP addresses, ports and "
                             "ids"}},
           .handler = Handler<ParseNothing, ExecuteSlots>}),
      Sub({.name = "shards",
           .arity = 2,
           .flags = kInfoFlags,
           .since = "7.0.0",
           .summary = "Returns the mapping of cluster slots to shards.",
           .complexity = "O(N) where N is the total number of cluster nodes",
           .help = {{.text = "Return information about slot range mappings and the nodes "
                             "associated with them."}},
           .handler = Handler<ParseNothing, ExecuteShards>}),
      Sub({.name = "info",
           .arity = 2,
           .flags = kInfoFlags,
           .summary = "Returns information about the state of a node.",
           .help = {{.text = "Return information about the cluster."}},
           .handler = Handler<ParseNothing, ExecuteInfo>}),
      Sub({.name = "links",
           .arity = 2,
           .flags = kInfoFlags,
           .since = "7.0.0",
           .summary = "Returns a list of all TCP links to and from peer nodes.",
           .complexity = "O(N) where N is the total number of Cluster nodes",
           .help = {{.text = "Return information about all network links between this node and "
                             "its peers.\nOutput format is an array where each array element "
                             "is a map containing attributes of a link"}},
           .handler = Handler<ParseNothing, ExecuteLinks>}),
      Sub({.name = "meet",
           .arity = -4,
           .flags = kAdminFlags,
           .summary = "Forces a node to handshake with another node.",
           .arguments = {{.name = "ip"},
                         {.name = "port", .type = ArgType::kInteger},
                         {.name = "cluster-bus-port", .type = ArgType::kInteger, .optional = true}},
           .help = {{.usage = "MEET <ip> <port> [<bus-port>]",
                     .text = "Connect nodes into a working cluster."}},
           .handler = Handler<ParseMeet, ExecuteMeet>}),
      Sub({.name = "addslots",
           .arity = -3,
           .flags = kAdminFlags,
           .summary = "Assigns new hash slots to a node.",
           .complexity = "O(N) where N is the total number of hash slot arguments",
           .arguments = {{.name = "slot", .type = ArgType::kInteger, .multiple = true}},
           .help = {{.usage = "ADDSLOTS <slot> [<slot> ...]",
                     .text = "Assign slots to current node."}},
           .handler = Handler<ParseSlots<false, false>, ExecuteChangeSlots<false, false>>}),
      SlotRangesRow("addslotsrange", "Assigns new hash slot ranges to a node.",
                    "ADDSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
                    "Assign slots which are between <start-slot> and <end-slot> to current node.",
                    Handler<ParseSlots<true, false>, ExecuteChangeSlots<true, false>>),
      Sub({.name = "delslots",
           .arity = -3,
           .flags = kAdminFlags,
           .summary = "Sets hash slots as unbound for a node.",
           .complexity = "O(N) where N is the total number of hash slot arguments",
           .arguments = {{.name = "slot", .type = ArgType::kInteger, .multiple = true}},
           .help = {{.usage = "DELSLOTS <slot> [<slot> ...]",
                     .text = "Delete slots information from current node."}},
           .handler = Handler<ParseSlots<false, true>, ExecuteChangeSlots<false, true>>}),
      SlotRangesRow("delslotsrange", "Sets hash slot ranges as unbound for a node.",
                    "DELSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
                    "Delete slots information which are between <start-slot> and <end-slot> from "
                    "current node.",
                    Handler<ParseSlots<true, true>, ExecuteChangeSlots<true, true>>),
      Sub({.name = "flushslots",
           .arity = 2,
           .flags = kAdminFlags,
           .summary = "Deletes all slots information from a node.",
           .help = {{.text = "Delete current node own slots information."}},
           .handler = Handler<ParseNothing, ExecuteFlushSlots>}),
      Sub({.name = "setslot",
           .arity = -4,
           .flags = kAdminFlags,
           .summary = "Binds a hash slot to a node.",
           .arguments =
               {SlotArg(),
                {.name = "subcommand",
                 .type = ArgType::kOneOf,
                 .children = {{.name = "node-id", .token = "IMPORTING"},
                              {.name = "node-id", .token = "MIGRATING"},
                              {.name = "node-id", .token = "NODE"},
                              {.name = "stable", .type = ArgType::kPureToken, .token = "STABLE"}}}},
           .help = {{.usage = "SETSLOT <slot> (IMPORTING <node-id>|MIGRATING <node-id>|STABLE|"
                              "NODE <node-id>)",
                     .text = "Set slot state."}},
           .handler = Handler<ParseSetSlot, ExecuteSetSlot>}),
      Sub({.name = "set-config-epoch",
           .arity = 3,
           .flags = kAdminFlags,
           .summary = "Sets the configuration epoch for a new node.",
           .arguments = {{.name = "config-epoch", .type = ArgType::kInteger}},
           .help = {{.usage = "SET-CONFIG-EPOCH <epoch>",
                     .text = "Set config epoch of current node."}},
           .handler = Handler<ParseEpoch, ExecuteSetConfigEpoch>}),
      Sub({.name = "bumpepoch",
           .arity = 2,
           .flags = kAdminFlags,
           .summary = "Advances the cluster config epoch.",
           .help = {{.text = "Advance the cluster config epoch."}},
           .handler = Handler<ParseNothing, ExecuteBumpEpoch>}),
      Sub({.name = "saveconfig",
           .arity = 2,
           .flags = kAdminFlags,
           .summary = "Forces a node to save the cluster configuration to disk.",
           .help = {{.text = "Force saving cluster configuration on disk."}},
           .handler = Handler<ParseNothing, ExecuteSaveConfig>}),
      Sub({.name = "reset",
           .arity = -2,
           .flags = kAdminFlags | kCmdNoMulti,
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
      Sub({.name = "forget",
           .arity = 3,
           .flags = kAdminFlags,
           .summary = "Removes a node from the nodes table.",
           .arguments = {NodeIdArg()},
           .help = {{.usage = "FORGET <node-id>", .text = "Remove a node from the cluster."}},
           .handler = Handler<ParseKey, ExecuteForget>}),
      Sub({.name = "replicate",
           .arity = 3,
           .flags = kAdminFlags,
           .summary = "Configure a node as replica of a master node.",
           .arguments = {NodeIdArg()},
           .help = {{.usage = "REPLICATE <node-id>",
                     .text = "Configure current node as replica to <node-id>."}},
           .handler = Handler<ParseKey, ExecuteReplicate>}),
      Sub({.name = "replicas",
           .arity = 3,
           .flags = kAdminFlags,
           .since = "5.0.0",
           .summary = "Lists the replica nodes of a master node.",
           .arguments = {NodeIdArg()},
           .help = {{.usage = "REPLICAS <node-id>", .text = "Return <node-id> replicas."}},
           .handler = Handler<ParseKey, ExecuteReplicas>}),
      Sub({.name = "slaves",
           .arity = 3,
           .flags = kAdminFlags,
           .summary = "Lists the replica nodes of a master node. (CLUSTER REPLICAS's old name.)",
           .arguments = {NodeIdArg()},
           .help = {{.usage = "SLAVES <node-id>", .text = "Return <node-id> replicas."}},
           .handler = Handler<ParseKey, ExecuteReplicas>}),
      Sub({.name = "count-failure-reports",
           .arity = 3,
           .flags = kAdminFlags,
           .summary = "Returns the number of active failure reports active for a node.",
           .complexity = "O(N) where N is the number of failure reports",
           .arguments = {NodeIdArg()},
           .help = {{.usage = "COUNT-FAILURE-REPORTS <node-id>",
                     .text = "Return number of failure reports for <node-id>."}},
           .handler = Handler<ParseKey, ExecuteCountFailureReports>}),
      Sub({.name = "failover",
           .arity = -2,
           .flags = kAdminFlags,
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
