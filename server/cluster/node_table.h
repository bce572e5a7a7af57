// ClusterState: what a cluster node knows (Redis's clusterState) — the nodes it knows, which
// master serves each of the 16384 slots, the slots this node is migrating or importing, the
// epochs, and whether the cluster is up (docs/cluster.md, "State").
//
// A Node is one known node: its name (40 hex), address, flags, master, configEpoch, slots, the
// times of its last ping and pong, and the failure reports other masters sent about it. The
// table owns its nodes; `myself` is always in it. Pointers to nodes stay valid until the node
// is deleted (DeleteNode), which also removes every reference to it (slots, masters, reports).
//
// Invariants: slot_owner(j) == n iff n->slots[j]; n->num_slots == n->slots.count(); a node with
// kFlagSlave has no slots; m->replicas holds exactly the nodes whose master is m.
// Thread-safety: none; the io thread only.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "server/cluster/bus_message.h"
#include "server/dispatch/slot_ownership.h"

namespace ebb::server::cluster {

class BusLink;

struct Node {
  std::string name;
  uint16_t flags = 0;
  uint64_t config_epoch = 0;
  SlotBitmap slots;
  int num_slots = 0;
  struct Node* master = nullptr;  // for a replica, when known
  std::vector<struct Node*> replicas;
  int64_t ctime_ms = 0;
  int64_t ping_sent_ms = 0;      // when the unanswered ping went out; 0: none pending
  int64_t pong_received_ms = 0;  // the last pong
  int64_t data_received_ms = 0;  // the last byte of any message
  int64_t fail_time_ms = 0;      // when it was flagged FAIL
  int64_t voted_time_ms = 0;     // when this node last voted for a replica of it
  int64_t orphaned_time_ms = 0;
  uint64_t repl_offset = 0;  // from its last message's header
  std::string ip;
  int port = 0;
  int pport = 0;
  int cport = 0;
  BusLink* link = nullptr;                       // the link this node opened to it
  BusLink* inbound_link = nullptr;               // the link it opened to this node
  std::map<struct Node*, int64_t> fail_reports;  // master reporting it -> when

  bool is_master() const { return flags & kFlagMaster; }
  bool is_replica() const { return flags & kFlagSlave; }
  bool is_myself() const { return flags & kFlagMyself; }
  bool in_handshake() const { return flags & kFlagHandshake; }
  bool failed() const { return flags & kFlagFail; }
  bool timed_out() const { return flags & kFlagPfail; }
  bool has_address() const { return !(flags & kFlagNoAddr); }
};

// A fresh random node name: 40 lower-case hex digits.
std::string RandomNodeName();
// True when `name` is 40 hex digits.
bool IsNodeName(std::string_view name);

class ClusterState {
 public:
  enum class Health { kOk = 0, kFail = 1 };

  // Starts with only `myself`, a master without slots, named `name`.
  explicit ClusterState(std::string name);

  Node* myself() const { return myself_; }
  Node* Find(std::string_view name) const;
  const std::map<std::string, std::unique_ptr<Node>, std::less<>>& nodes() const { return nodes_; }
  // Adds a node (flags given) and returns it. REQUIRES: no node has that name.
  Node* AddNode(std::string name, uint16_t flags, int64_t now_ms);
  // Removes `n` and every reference to it: its slots become unassigned, migrating/importing
  // marks to it are cleared, its replicas lose their master, its reports are dropped.
  // REQUIRES: n != myself().
  void DeleteNode(Node* n);
  // Gives a handshake node its real name.
  void RenameNode(Node* n, std::string name);

  // Slots.
  Node* slot_owner(int slot) const { return slots_[slot]; }
  // False when the slot already has an owner.
  bool AddSlot(Node* n, int slot);
  // False when the slot had no owner.
  bool DelSlot(int slot);
  void DelNodeSlots(Node* n);
  Node* migrating_to(int slot) const { return migrating_[slot]; }
  Node* importing_from(int slot) const { return importing_[slot]; }
  void set_migrating(int slot, Node* n) { migrating_[slot] = n; }
  void set_importing(int slot, Node* n) { importing_[slot] = n; }

  // Roles. SetMaster makes `n` a replica of `master` (nullptr: of an unknown master);
  // SetAsMaster makes it a master.
  void SetReplicaOf(Node* n, Node* master);
  void SetAsMaster(Node* n);

  // Failure reports: `sender` (a master) says `n` is failing.
  void AddFailureReport(Node* n, Node* sender, int64_t now_ms);
  void DelFailureReport(Node* n, Node* sender);
  // Drops the reports older than twice the node timeout, then counts the rest.
  int CountFailureReports(Node* n, int64_t now_ms, int64_t node_timeout_ms);

  // Epochs.
  uint64_t current_epoch() const { return current_epoch_; }
  void set_current_epoch(uint64_t e) { current_epoch_ = e; }
  uint64_t last_vote_epoch() const { return last_vote_epoch_; }
  void set_last_vote_epoch(uint64_t e) { last_vote_epoch_ = e; }
  // The greatest configEpoch any node has, and currentEpoch.
  uint64_t MaxEpoch() const;
  // Redis's clusterBumpConfigEpochWithoutConsensus: when myself's configEpoch is 0 or not the
  // greatest, takes a new one (currentEpoch + 1). True when it did.
  bool BumpConfigEpochWithoutConsensus();

  // The cluster's health and size (masters serving at least one slot), Redis's
  // clusterUpdateState: fail when a slot is unserved or served by a FAIL node and full coverage
  // is required, or when this master cannot reach a majority of the masters that serve slots.
  void UpdateHealth(bool require_full_coverage);
  Health health() const { return health_; }
  int size() const { return size_; }

  // The configEpoch a node speaks with: a replica's master's.
  uint64_t EffectiveConfigEpoch(const Node* n) const;

 private:
  std::map<std::string, std::unique_ptr<Node>, std::less<>> nodes_;
  Node* myself_;
  std::array<Node*, 16384> slots_{};
  std::array<Node*, 16384> migrating_{};
  std::array<Node*, 16384> importing_{};
  uint64_t current_epoch_ = 0;
  uint64_t last_vote_epoch_ = 0;
  Health health_ = Health::kFail;
  int size_ = 0;
};

}  // namespace ebb::server::cluster
