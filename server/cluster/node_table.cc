#include "server/cluster/node_table.h"

#include <algorithm>

#include "server/core/random_id.h"

namespace ebb::server::cluster {

std::string RandomNodeName() { return RandomHexId(); }

bool IsNodeName(std::string_view name) { return IsHexId(name); }

ClusterState::ClusterState(std::string name) {
  myself_ = AddNode(std::move(name), kFlagMyself | kFlagMaster, 0);
}

Node* ClusterState::Find(std::string_view name) const {
  auto it = nodes_.find(name);
  return it == nodes_.end() ? nullptr : it->second.get();
}

Node* ClusterState::AddNode(std::string name, uint16_t flags, int64_t now_ms) {
  auto node = std::make_unique<Node>();
  node->name = name;
  node->flags = flags;
  node->ctime_ms = now_ms;
  Node* raw = node.get();
  nodes_.emplace(std::move(name), std::move(node));
  return raw;
}

void ClusterState::DeleteNode(Node* n) {
  for (int j = 0; j < kSlots; j++) {
    if (importing_[j] == n) importing_[j] = nullptr;
    if (migrating_[j] == n) migrating_[j] = nullptr;
    if (slots_[j] == n) DelSlot(j);
  }
  for (auto& [name, other] : nodes_) {
    other->fail_reports.erase(n);
    if (other->master == n) other->master = nullptr;
  }
  if (n->master != nullptr) {
    auto& siblings = n->master->replicas;
    siblings.erase(std::remove(siblings.begin(), siblings.end(), n), siblings.end());
  }
  nodes_.erase(n->name);
}

void ClusterState::RenameNode(Node* n, std::string name) {
  auto handle = nodes_.extract(n->name);
  n->name = name;
  handle.key() = std::move(name);
  nodes_.insert(std::move(handle));
}

bool ClusterState::AddSlot(Node* n, int slot) {
  if (slots_[slot] != nullptr) return false;
  slots_[slot] = n;
  n->slots.set(slot);
  n->num_slots++;
  return true;
}

bool ClusterState::DelSlot(int slot) {
  Node* n = slots_[slot];
  if (n == nullptr) return false;
  n->slots.reset(slot);
  n->num_slots--;
  slots_[slot] = nullptr;
  return true;
}

void ClusterState::DelNodeSlots(Node* n) {
  for (int j = 0; j < kSlots && n->num_slots > 0; j++) {
    if (slots_[j] == n) DelSlot(j);
  }
}

void ClusterState::SetReplicaOf(Node* n, Node* master) {
  if (n->master != nullptr && n->master != master) {
    auto& siblings = n->master->replicas;
    siblings.erase(std::remove(siblings.begin(), siblings.end(), n), siblings.end());
  }
  n->flags = static_cast<uint16_t>((n->flags & ~kFlagMaster) | kFlagSlave);
  if (master != nullptr && n->master != master) {
    master->replicas.push_back(n);
    // A node that used to be a replica of `n` follows it no more; it will say so.
  }
  n->master = master;
}

void ClusterState::SetAsMaster(Node* n) {
  if (n->master != nullptr) {
    auto& siblings = n->master->replicas;
    siblings.erase(std::remove(siblings.begin(), siblings.end(), n), siblings.end());
  }
  n->master = nullptr;
  n->flags = static_cast<uint16_t>((n->flags & ~kFlagSlave) | kFlagMaster);
}

void ClusterState::AddFailureReport(Node* n, Node* sender, int64_t now_ms) {
  n->fail_reports[sender] = now_ms;
}

void ClusterState::DelFailureReport(Node* n, Node* sender) { n->fail_reports.erase(sender); }

int ClusterState::CountFailureReports(Node* n, int64_t now_ms, int64_t node_timeout_ms) {
  const int64_t max_age = node_timeout_ms * 2;
  for (auto it = n->fail_reports.begin(); it != n->fail_reports.end();) {
    it = now_ms - it->second > max_age ? n->fail_reports.erase(it) : std::next(it);
  }
  return static_cast<int>(n->fail_reports.size());
}

uint64_t ClusterState::MaxEpoch() const {
  uint64_t max = current_epoch_;
  for (const auto& [name, n] : nodes_) max = std::max(max, n->config_epoch);
  return max;
}

bool ClusterState::BumpConfigEpochWithoutConsensus() {
  const uint64_t max = MaxEpoch();
  if (myself_->config_epoch != 0 && myself_->config_epoch == max) return false;
  current_epoch_++;
  myself_->config_epoch = current_epoch_;
  return true;
}

void ClusterState::UpdateHealth(bool require_full_coverage) {
  Health health = Health::kOk;
  if (require_full_coverage) {
    for (int j = 0; j < kSlots; j++) {
      if (slots_[j] == nullptr || slots_[j]->failed()) {
        health = Health::kFail;
        break;
      }
    }
  }
  int reachable = 0;
  size_ = 0;
  for (const auto& [name, n] : nodes_) {
    if (n->is_master() && n->num_slots > 0) {
      size_++;
      if (!(n->flags & (kFlagFail | kFlagPfail))) reachable++;
    }
  }
  if (reachable < size_ / 2 + 1) health = Health::kFail;
  health_ = health;
}

uint64_t ClusterState::EffectiveConfigEpoch(const Node* n) const {
  return n->is_replica() && n->master != nullptr ? n->master->config_epoch : n->config_epoch;
}

}  // namespace ebb::server::cluster
