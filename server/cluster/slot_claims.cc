#include "server/cluster/slot_claims.h"

namespace ebb::server::cluster {

SlotClaimOutcome SettleSlotClaim(ClusterState& state, Node* sender, uint64_t sender_config_epoch,
                                 const SlotBitmap& slots, bool allow_replica_migration,
                                 const std::function<bool(int slot)>& slot_has_keys) {
  SlotClaimOutcome out;
  Node* me = state.myself();
  if (sender == me) return out;
  Node* current_master = me->is_master() ? me : me->master;
  Node* new_master = nullptr;
  int migrated_our_slots = 0;
  for (int j = 0; j < kSlots; j++) {
    if (!slots.test(j)) continue;
    Node* owner = state.slot_owner(j);
    if (owner == sender) continue;
    // A slot being imported is this node's business until SETSLOT NODE ends it.
    if (state.importing_from(j) != nullptr) continue;
    if (owner != nullptr && owner->config_epoch >= sender_config_epoch) continue;
    if (owner == me && slot_has_keys(j)) out.dirty.push_back(j);
    if (owner != nullptr && owner == current_master) {
      new_master = sender;
      migrated_our_slots++;
    }
    state.DelSlot(j);
    state.AddSlot(sender, j);
    out.changed = true;
  }
  if (new_master != nullptr && current_master->num_slots == 0 &&
      (allow_replica_migration || migrated_our_slots == sender->num_slots)) {
    out.follow = sender;
  }
  return out;
}

Node* StaleClaimOwner(const ClusterState& state, const Node* sender, uint64_t claim_epoch,
                      const SlotBitmap& slots) {
  for (int j = 0; j < kSlots; j++) {
    if (!slots.test(j)) continue;
    Node* owner = state.slot_owner(j);
    if (owner == sender || owner == nullptr) continue;
    if (owner->config_epoch > claim_epoch) return owner;
  }
  return nullptr;
}

bool ResolveConfigEpochCollision(ClusterState& state, const Node& sender) {
  Node* me = state.myself();
  if (sender.config_epoch != me->config_epoch) return false;
  // Only the node with the smaller name moves.
  if (sender.name <= me->name) return false;
  state.set_current_epoch(state.current_epoch() + 1);
  me->config_epoch = state.current_epoch();
  return true;
}

}  // namespace ebb::server::cluster
