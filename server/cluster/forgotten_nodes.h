// ForgottenNodes: the nodes CLUSTER FORGET removed, kept aside for a minute so that gossip from
// nodes that still know them does not add them back before every node forgot them (Redis's
// nodes blacklist, CLUSTER_BLACKLIST_TTL).
//
// Owns: each forgotten node's name and when it may be met again. Thread: the cluster's io
// thread. Invariant: a name is held from Add until kTtlMs later; Expire drops the names whose
// time passed (the cron calls it), and a name re-added gets a new minute.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

namespace ebb::server::cluster {

class ForgottenNodes {
 public:
  static constexpr int64_t kTtlMs = 60000;  // Redis's CLUSTER_BLACKLIST_TTL

  // `name` is forgotten from `now_ms` for kTtlMs.
  void Add(std::string_view name, int64_t now_ms) { until_[std::string(name)] = now_ms + kTtlMs; }
  // Whether `name` is still forgotten at `now_ms` (gossip about it is then ignored).
  bool Holds(std::string_view name, int64_t now_ms) const {
    auto it = until_.find(std::string(name));
    return it != until_.end() && it->second > now_ms;
  }
  // Drops the names no longer forgotten at `now_ms`.
  void Expire(int64_t now_ms) {
    for (auto it = until_.begin(); it != until_.end();) {
      it = it->second <= now_ms ? until_.erase(it) : std::next(it);
    }
  }
  size_t size() const { return until_.size(); }

 private:
  std::unordered_map<std::string, int64_t> until_;  // name -> when it may be met again
};

}  // namespace ebb::server::cluster
