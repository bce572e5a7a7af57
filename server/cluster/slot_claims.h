// SlotClaims: how the slots a master claims on the bus are settled against the node table
// (Redis 7.0's clusterUpdateSlotsConfigWith and the epoch-collision rule; docs/cluster.md,
// "Slots"). A claim under a newer configEpoch takes the slot; an older claim is answered with an
// UPDATE about the node that holds the slot; two masters with one configEpoch part by name.
//
// Owns: nothing — it reads and changes the ClusterState it is given, and tells its caller
// (Cluster, server/cluster/cluster.h) what the change asks for: saving the table, following a new
// master, deleting the keys of slots this node lost. It sends nothing and touches no keys.
// Thread: the caller's (the cluster's io thread); pure functions of the table and the claim.
// Invariants kept: the table's own (server/cluster/node_table.h: one owner per slot); a slot
// this node is importing is not taken by a claim (SETSLOT NODE ends the import); a claim in
// myself's own name changes nothing.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "server/cluster/bus_message.h"
#include "server/cluster/node_table.h"

namespace ebb::server::cluster {

// What settling a claim came to.
struct SlotClaimOutcome {
  bool changed = false;  // a slot changed owner: the table is to be saved and its health updated
  // The master this node is to follow: its own master (or itself) lost its last slot to the
  // sender, and replica migration allows the move. Null otherwise.
  Node* follow = nullptr;
  // Slots this node served, lost to the sender, that hold keys: their keys are to be deleted
  // (unless this node follows the sender: its master's data replaces them).
  std::vector<int> dirty;
};

// Gives `sender` (a master; not myself) every slot of `slots` whose owner is none or has an
// older configEpoch than `sender_config_epoch`. `slot_has_keys` says whether this node holds
// keys of a slot; `allow_replica_migration` is cluster-allow-replica-migration.
SlotClaimOutcome SettleSlotClaim(ClusterState& state, Node* sender, uint64_t sender_config_epoch,
                                 const SlotBitmap& slots, bool allow_replica_migration,
                                 const std::function<bool(int slot)>& slot_has_keys);

// The owner, other than `sender`, of a slot `sender` claims under `claim_epoch` while the owner's
// configEpoch is newer: the node to send `sender` an UPDATE about. Null when every claim is
// current.
Node* StaleClaimOwner(const ClusterState& state, const Node* sender, uint64_t claim_epoch,
                      const SlotBitmap& slots);

// The epoch-collision rule: when `sender` has myself's configEpoch and the greater name, myself
// takes a new current epoch as its configEpoch. True when it did (the table is to be saved).
bool ResolveConfigEpochCollision(ClusterState& state, const Node& sender);

}  // namespace ebb::server::cluster
