// Cluster's operations: the changes CLUSTER's subcommands ask of the node (MEET, ADDSLOTS,
// SETSLOT, SET-CONFIG-EPOCH, RESET, FORGET, REPLICATE, ...) and what they read (INFO, NODES,
// LINKS). The command rows that parse and reply: server/commands/cmd_cluster_topology.cc,
// cmd_cluster_slots.cc and cmd_cluster_membership.cc; the outcomes' texts: cluster_code.h. The
// class and its contract: cluster.h.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "common/wall_clock.h"
#include "server/cluster/cluster.h"
#include "server/cluster/nodes_conf.h"
#include "server/replication/replica.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"

namespace ebb::server::cluster {

// ---------------------------------------------------------------- changes

Result<ClusterCode> Cluster::Meet(const std::string& ip, int port, int cport) {
  return StartHandshake(ip, port, cport);
}

void Cluster::AddSlots(const std::vector<int>& slots) {
  for (int j : slots) {
    state_->set_importing(j, nullptr);
    state_->AddSlot(state_->myself(), j);
  }
  Later(kTodoSave | kTodoUpdateState);
}

void Cluster::DelSlots(const std::vector<int>& slots) {
  for (int j : slots) {
    state_->set_importing(j, nullptr);
    state_->set_migrating(j, nullptr);
    state_->DelSlot(j);
  }
  Later(kTodoSave | kTodoUpdateState);
}

void Cluster::FlushSlots() {
  state_->DelNodeSlots(state_->myself());
  Later(kTodoSave | kTodoUpdateState);
}

Result<ClusterCode> Cluster::SetSlotMigrating(int slot, std::string_view node) {
  if (state_->slot_owner(slot) != state_->myself()) {
    return {ClusterCode::kNotSlotOwner, std::to_string(slot)};
  }
  Node* n = state_->Find(node);
  if (n == nullptr) return {ClusterCode::kNodeNotKnown, node};
  if (n->is_replica()) return ClusterCode::kTargetNotMaster;
  state_->set_migrating(slot, n);
  Later(kTodoSave | kTodoUpdateState);
  return {};
}

Result<ClusterCode> Cluster::SetSlotImporting(int slot, std::string_view node) {
  if (state_->slot_owner(slot) == state_->myself()) {
    return {ClusterCode::kAlreadySlotOwner, std::to_string(slot)};
  }
  Node* n = state_->Find(node);
  if (n == nullptr) return {ClusterCode::kNodeNotKnown, node};
  if (n->is_replica()) return ClusterCode::kTargetNotMaster;
  state_->set_importing(slot, n);
  Later(kTodoSave | kTodoUpdateState);
  return {};
}

void Cluster::SetSlotStable(int slot) {
  state_->set_importing(slot, nullptr);
  state_->set_migrating(slot, nullptr);
  Later(kTodoSave | kTodoUpdateState);
}

Result<ClusterCode> Cluster::SetSlotNode(int slot, std::string_view node) {
  Node* me = state_->myself();
  Node* n = state_->Find(node);
  if (n == nullptr) return {ClusterCode::kUnknownNode, node};
  if (n->is_replica()) return ClusterCode::kTargetNotMaster;
  auto count = context_->keyspace().CountKeysInSlot(slot);
  // A count the engine could not make is not zero: the slot may still hold rows.
  if (!count.ok()) return {ClusterCode::kEngineError, count.engine_status().ToString()};
  const uint64_t keys = *count;
  if (state_->slot_owner(slot) == me && n != me && keys != 0) {
    return {ClusterCode::kSlotHasKeys, std::to_string(slot)};
  }
  if (keys == 0 && state_->migrating_to(slot) != nullptr) state_->set_migrating(slot, nullptr);
  const bool was_mine = state_->slot_owner(slot) == me;
  state_->DelSlot(slot);
  state_->AddSlot(n, slot);
  if (was_mine && n != me && me->num_slots == 0 &&
      context_->config().cluster_allow_replica_migration) {
    spdlog::warn("Configuration change detected. Reconfiguring myself as a replica of {}", n->name);
    SetMyMaster(n);
  }
  if (n == me && state_->importing_from(slot) != nullptr) {
    if (state_->BumpConfigEpochWithoutConsensus()) {
      spdlog::warn("configEpoch updated after importing slot {}", slot);
    }
    state_->set_importing(slot, nullptr);
    BroadcastPong(/*local_replicas_only=*/false);
  }
  Later(kTodoSave | kTodoUpdateState);
  return {};
}

Result<ClusterCode> Cluster::SetConfigEpoch(int64_t epoch) {
  if (epoch < 0) return {ClusterCode::kInvalidConfigEpoch, std::to_string(epoch)};
  if (state_->nodes().size() > 1) {
    return ClusterCode::kConfigEpochWithOtherNodes;
  }
  if (state_->myself()->config_epoch != 0) return ClusterCode::kConfigEpochNonZero;
  state_->myself()->config_epoch = static_cast<uint64_t>(epoch);
  spdlog::warn("configEpoch set to {} via CLUSTER SET-CONFIG-EPOCH", epoch);
  if (state_->current_epoch() < static_cast<uint64_t>(epoch)) {
    state_->set_current_epoch(static_cast<uint64_t>(epoch));
  }
  Later(kTodoSave | kTodoUpdateState);
  return {};
}

bool Cluster::BumpEpoch() {
  const bool bumped = state_->BumpConfigEpochWithoutConsensus();
  if (bumped) Later(kTodoSave);
  return bumped;
}

bool Cluster::DatabaseEmpty() const {
  auto size = context_->keyspace().DbSize(0);
  return size.ok() && *size == 0;
}

Result<ClusterCode> Cluster::Reset(bool hard) {
  Node* me = state_->myself();
  if (me->is_master() && !DatabaseEmpty()) {
    return ClusterCode::kResetWithKeys;
  }
  if (me->is_replica()) {
    state_->SetAsMaster(me);
    if (ReplicaLink* link = context_->replica_link()) link->Promote("CLUSTER RESET");
    auto flushed = context_->keyspace().FlushAll();
    if (!flushed.ok()) spdlog::warn("CLUSTER RESET could not empty the replica's data");
  }
  ResetManualFailover();
  for (int j = 0; j < kSlots; j++) {
    state_->set_migrating(j, nullptr);
    state_->set_importing(j, nullptr);
  }
  state_->DelNodeSlots(me);
  std::vector<Node*> others;
  for (const auto& [name, n] : state_->nodes()) {
    if (!n->is_myself()) others.push_back(n.get());
  }
  for (Node* n : others) DeleteNode(n);
  if (hard) {
    state_->set_current_epoch(0);
    state_->set_last_vote_epoch(0);
    me->config_epoch = 0;
    spdlog::warn("configEpoch set to 0 via CLUSTER RESET HARD");
    const std::string old_name = me->name;
    state_->RenameNode(me, RandomNodeName());
    spdlog::info("Node hard reset, now I'm {}", me->name);
  }
  Later(kTodoSave | kTodoUpdateState);
  return {};
}

Result<ClusterCode> Cluster::Forget(std::string_view node) {
  Node* n = state_->Find(node);
  if (n == nullptr) return {ClusterCode::kUnknownNode, node};
  if (n->is_myself()) return ClusterCode::kForgetMyself;
  if (state_->myself()->is_replica() && state_->myself()->master == n) {
    return ClusterCode::kForgetMyMaster;
  }
  forgotten_.Add(n->name, WallMs());
  DeleteNode(n);
  Later(kTodoSave | kTodoUpdateState);
  return {};
}

Result<ClusterCode> Cluster::Replicate(std::string_view node) {
  Node* n = state_->Find(node);
  if (n == nullptr) return {ClusterCode::kUnknownNode, node};
  Node* me = state_->myself();
  if (n == me) return ClusterCode::kReplicateMyself;
  if (n->is_replica()) return ClusterCode::kReplicateReplica;
  if (me->is_master() && (me->num_slots != 0 || !DatabaseEmpty())) {
    return ClusterCode::kReplicateNotEmpty;
  }
  SetMyMaster(n);
  Later(kTodoSave | kTodoUpdateState);
  return {};
}

Result<ClusterCode, int64_t> Cluster::CountFailureReports(std::string_view node) {
  Node* n = state_->Find(node);
  if (n == nullptr) return {ClusterCode::kUnknownNode, node};
  return int64_t{state_->CountFailureReports(n, WallMs(), node_timeout())};
}

// ---------------------------------------------------------------- reads

Cluster::Summary Cluster::Summarize() const {
  Summary s;
  for (int j = 0; j < kSlots; j++) {
    const Node* n = state_->slot_owner(j);
    if (n == nullptr) continue;
    s.slots_assigned++;
    if (n->failed()) {
      s.slots_fail++;
    } else if (n->timed_out()) {
      s.slots_pfail++;
    } else {
      s.slots_ok++;
    }
  }
  s.ok = cluster_ok();
  s.known_nodes = state_->nodes().size();
  s.size = state_->size();
  s.current_epoch = state_->current_epoch();
  s.my_epoch = state_->EffectiveConfigEpoch(state_->myself());
  return s;
}

std::string Cluster::InfoText() const {
  const Summary s = Summarize();
  std::string out = fmt::format(
      "cluster_state:{}\r\ncluster_slots_assigned:{}\r\ncluster_slots_ok:{}\r\n"
      "cluster_slots_pfail:{}\r\ncluster_slots_fail:{}\r\ncluster_known_nodes:{}\r\n"
      "cluster_size:{}\r\ncluster_current_epoch:{}\r\ncluster_my_epoch:{}\r\n",
      s.ok ? "ok" : "fail", s.slots_assigned, s.slots_ok, s.slots_pfail, s.slots_fail,
      s.known_nodes, s.size, s.current_epoch, s.my_epoch);
  int64_t total = 0;
  for (int i = 0; i < kMessageTypeCount; i++) {
    if (sent_[i] == 0) continue;
    total += sent_[i];
    out += fmt::format("cluster_stats_messages_{}_sent:{}\r\n", MessageTypeName(i), sent_[i]);
  }
  out += fmt::format("cluster_stats_messages_sent:{}\r\n", total);
  total = 0;
  for (int i = 0; i < kMessageTypeCount; i++) {
    if (received_[i] == 0) continue;
    total += received_[i];
    out +=
        fmt::format("cluster_stats_messages_{}_received:{}\r\n", MessageTypeName(i), received_[i]);
  }
  out += fmt::format("cluster_stats_messages_received:{}\r\n", total);
  out += "total_cluster_links_buffer_limit_exceeded:0\r\n";
  return out;
}

std::string Cluster::NodesText(bool plaintext_ports) const {
  return DescribeNodes(*state_, /*include_handshake=*/true, plaintext_ports);
}

std::vector<Cluster::LinkInfo> Cluster::Links() const {
  std::vector<LinkInfo> out;
  for (const auto& [name, n] : state_->nodes()) {
    for (const BusLink* link : {n->link, n->inbound_link}) {
      if (link == nullptr) continue;
      out.push_back({!link->inbound(), n->name, link->ctime_ms(), link->send_buffer_used() > 0,
                     link->send_buffer_used()});
    }
  }
  return out;
}

}  // namespace ebb::server::cluster
