// FakeCluster: a slot table a test fills (slots this node owns, slots other nodes own,
// migrations, the cluster's state), installed on a CommandRunner's context with
// set_cluster(&fake) to test routing without a cluster bus.
// Thread-safety: none; one test thread.
#pragma once

#include <map>
#include <set>

#include "server/dispatch/slot_ownership.h"

namespace ebb::test {

class FakeCluster : public server::cluster::SlotOwnership {
 public:
  bool ok = true;
  std::set<int> mine;
  std::map<int, server::cluster::NodeAddress> others;     // owned elsewhere
  std::map<int, server::cluster::NodeAddress> migrating;  // mine, moving to
  std::set<int> importing;
  std::set<int> replicated;  // owned by this replica's master

  bool cluster_ok() const override { return ok; }
  bool OwnsSlot(int slot) const override { return mine.contains(slot); }
  bool ReplicatesSlot(int slot) const override { return replicated.contains(slot); }
  bool SlotOwner(int slot, server::cluster::NodeAddress* owner) const override {
    if (mine.contains(slot)) {
      *owner = {"127.0.0.1", 7000};
      return true;
    }
    auto it = others.find(slot);
    if (it == others.end()) return false;
    *owner = it->second;
    return true;
  }
  bool MigratingTo(int slot, server::cluster::NodeAddress* target) const override {
    auto it = migrating.find(slot);
    if (it == migrating.end() || !mine.contains(slot)) return false;
    *target = it->second;
    return true;
  }
  bool Importing(int slot) const override { return importing.contains(slot); }
};

}  // namespace ebb::test
