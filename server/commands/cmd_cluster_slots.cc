// CLUSTER's subcommands that assign slots (server/cluster/cluster.h): ADDSLOTS, ADDSLOTSRANGE,
// DELSLOTS, DELSLOTSRANGE, FLUSHSLOTS and SETSLOT (migration: IMPORTING, MIGRATING, STABLE,
// NODE). Redis 7's replies and errors; on a server that is no cluster node every one answers
// kClusterDisabled (the rows' kCmdNeedsClusterNode, which the dispatcher checks before Parse).
#include <optional>
#include <string>
#include <vector>

#include "protocol/reply_writer.h"
#include "server/cluster/cluster.h"
#include "server/commands/cluster_node_rows.h"
#include "server/commands/cluster_subcommands.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/services/server_context.h"

namespace ebb::server {
namespace {

using cluster::Cluster;

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
    if (!ParseClusterSlot(args.Next(), &slot)) args.Fail(kBadSlot);
    o.slots.push_back(slot);
  }
  return o;
}

template <bool kRanges, bool kDel>
void ExecuteChangeSlots(CommandContext& ctx, const SlotsOptions& o) {
  Cluster* c = ClusterNodeOf(ctx);
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
  Cluster* c = ClusterNodeOf(ctx);
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
  if (int slot = 0; ParseClusterSlot(args.Next(), &slot)) o.slot = slot;
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
  Cluster* c = ClusterNodeOf(ctx);
  if (c->state().myself()->is_replica()) {
    return ctx.reply.Error(kSetSlotOnReplica);
  }
  if (!o.slot) return ctx.reply.Error(kBadSlot);
  switch (o.action) {
    case Action::kMigrating:
      return ReplyClusterResult(ctx, c->SetSlotMigrating(*o.slot, o.node));
    case Action::kImporting:
      return ReplyClusterResult(ctx, c->SetSlotImporting(*o.slot, o.node));
    case Action::kStable:
      c->SetSlotStable(*o.slot);
      return ctx.reply.Ok();
    case Action::kNode:
      return ReplyClusterResult(ctx, c->SetSlotNode(*o.slot, o.node));
    case Action::kInvalid:
      break;
  }
  ctx.reply.Error(kSetSlotSyntax);
}

// ADDSLOTSRANGE and DELSLOTSRANGE: one row shape.
CommandSpec SlotRangesRow(std::string_view name, std::string_view summary, std::string_view usage,
                          std::string_view text, CommandHandler handler) {
  return ClusterNodeRow(
      {.name = name,
       .arity = -4,
       .flags = kClusterAdminFlags,
       .since = "7.0.0",
       .summary = summary,
       .complexity = "O(N) where N is the total number of the slots between the start "
                     "slot and end slot arguments.",
       .arguments = {{.name = "range",
                      .type = ArgType::kBlock,
                      .multiple = true,
                      .children = {ClusterSlotArg("start-slot"), ClusterSlotArg("end-slot")}}},
       .help = {{.usage = usage, .text = text}},
       .handler = handler});
}

}  // namespace

std::vector<CommandSpec> ClusterSlotSubcommands() {
  return {
      ClusterNodeRow(
          {.name = "addslots",
           .arity = -3,
           .flags = kClusterAdminFlags,
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
      ClusterNodeRow(
          {.name = "delslots",
           .arity = -3,
           .flags = kClusterAdminFlags,
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
      ClusterNodeRow({.name = "flushslots",
                      .arity = 2,
                      .flags = kClusterAdminFlags,
                      .summary = "Deletes all slots information from a node.",
                      .help = {{.text = "Delete current node own slots information."}},
                      .handler = Handler<ParseNothing, ExecuteFlushSlots>}),
      ClusterNodeRow(
          {.name = "setslot",
           .arity = -4,
           .flags = kClusterAdminFlags,
           .summary = "Binds a hash slot to a node.",
           .arguments =
               {ClusterSlotArg(),
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
  };
}

}  // namespace ebb::server
