// Cluster's slots (Redis 7.0's slot rules; docs/cluster.md, "Slots"): what the dispatcher asks
// (SlotOwnership: owner, migration target, importing), and the claims other masters make,
// settled by configEpoch — a newer epoch takes the slot, an older claim gets an UPDATE back, two
// masters with one epoch part by the epoch-collision rule — with the keys of a slot this node
// lost deleted. The class and its contract: cluster.h; how a claim is settled: slot_claims.h.
#include <spdlog/spdlog.h>

#include <vector>

#include "server/cluster/cluster.h"
#include "server/cluster/slot_claims.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"

namespace ebb::server::cluster {

// ---------------------------------------------------------------- SlotOwnership

bool Cluster::cluster_ok() const { return state_->health() == ClusterState::Health::kOk; }

bool Cluster::OwnsSlot(int slot) const { return state_->slot_owner(slot) == state_->myself(); }

bool Cluster::ReplicatesSlot(int slot) const {
  const Node* me = state_->myself();
  return me->is_replica() && me->master != nullptr && state_->slot_owner(slot) == me->master;
}

NodeAddress Cluster::ClientAddress(const Node& n) const { return {n.ip, n.port, n.pport}; }

bool Cluster::SlotOwner(int slot, NodeAddress* owner) const {
  const Node* n = state_->slot_owner(slot);
  if (n == nullptr) return false;
  *owner = ClientAddress(*n);
  return true;
}

bool Cluster::MigratingTo(int slot, NodeAddress* target) const {
  const Node* n = state_->migrating_to(slot);
  if (n == nullptr || !OwnsSlot(slot)) return false;
  *target = ClientAddress(*n);
  return true;
}

bool Cluster::Importing(int slot) const { return state_->importing_from(slot) != nullptr; }

// ---------------------------------------------------------------- slot claims

void Cluster::SendUpdate(BusLink* link, Node* n) {
  if (link == nullptr) return;
  BusMessage m = Header(MessageType::kUpdate);
  m.about = n->name;
  m.update_config_epoch = n->config_epoch;
  m.update_slots = n->slots;
  Send(link, m);
}

void Cluster::LearnSenderSlots(BusLink* link, Node* sender, const BusMessage& m) {
  // A master's claims are decided by configEpoch.
  Node* sender_master = sender->is_master() ? sender : sender->master;
  if (sender_master == nullptr || sender_master->slots == m.slots) return;
  if (sender->is_master()) UpdateSlotsConfigWith(sender, m.config_epoch, m.slots);
  // The sender claims a slot someone else serves under a newer epoch: tell it.
  if (Node* owner = StaleClaimOwner(*state_, sender, m.config_epoch, m.slots)) {
    spdlog::debug("Node {} has old slots configuration, sending an UPDATE message about {}",
                  sender->name, owner->name);
    SendUpdate(sender->link != nullptr ? sender->link : link, owner);
  }
}

void Cluster::ProcessUpdate(const BusMessage& m, Node* sender) {
  if (sender == nullptr) return;
  Node* n = state_->Find(m.about);
  // This node's own slots and role are its own to say (Redis discards an UPDATE about itself).
  if (n == nullptr || n == state_->myself() || n->config_epoch >= m.update_config_epoch) return;
  if (n->is_replica()) state_->SetAsMaster(n);
  n->config_epoch = m.update_config_epoch;
  UpdateSlotsConfigWith(n, m.update_config_epoch, m.update_slots);
  Later(kTodoSave | kTodoUpdateState);
}

void Cluster::UpdateSlotsConfigWith(Node* sender, uint64_t sender_config_epoch,
                                    const SlotBitmap& slots) {
  const SlotClaimOutcome settled =
      SettleSlotClaim(*state_, sender, sender_config_epoch, slots,
                      context_->config().cluster_allow_replica_migration, [this](int slot) {
                        auto count = context_->keyspace().CountKeysInSlot(slot);
                        return count.ok() && *count > 0;
                      });
  if (settled.changed) Later(kTodoSave | kTodoUpdateState);
  if (settled.follow != nullptr) {
    spdlog::warn("Configuration change detected. Reconfiguring myself as a replica of {}",
                 sender->name);
    SetMyMaster(sender);
    Later(kTodoSave | kTodoUpdateState);
  } else {
    for (int j : settled.dirty) DeleteKeysOfSlot(j);
  }
}

void Cluster::DeleteKeysOfSlot(int slot) {
  auto deleted = context_->keyspace().DeleteSlot(slot);
  if (!deleted.ok()) {
    spdlog::warn("Could not delete the keys of slot {}, which another node serves now", slot);
  }
}

void Cluster::HandleConfigEpochCollision(Node* sender) {
  if (!ResolveConfigEpochCollision(*state_, *sender)) return;
  Later(kTodoSave);
  spdlog::warn("WARNING: configEpoch collision with node {}. configEpoch set to {}", sender->name,
               state_->myself()->config_epoch);
}

}  // namespace ebb::server::cluster
