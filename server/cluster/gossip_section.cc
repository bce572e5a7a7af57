#include "server/cluster/gossip_section.h"

#include <algorithm>

namespace ebb::server::cluster {

GossipEntry GossipEntryOf(const Node& n) {
  GossipEntry g;
  g.name = n.name;
  g.ping_sent = static_cast<uint32_t>(n.ping_sent_ms / 1000);
  g.pong_received = static_cast<uint32_t>(n.pong_received_ms / 1000);
  g.ip = n.ip;
  g.port = static_cast<uint16_t>(n.port);
  g.cport = static_cast<uint16_t>(n.cport);
  g.flags = n.flags;
  g.pport = static_cast<uint16_t>(n.pport);
  return g;
}

std::vector<const Node*> GossipNodes(const ClusterState& state,
                                     const std::function<size_t(size_t n)>& random_index) {
  // Gossip about a tenth of the nodes (at least 3), plus every node this one flags PFAIL.
  const size_t fresh = state.nodes().size() > 2 ? state.nodes().size() - 2 : 0;
  size_t wanted = std::max<size_t>(3, state.nodes().size() / 10);
  wanted = std::min(wanted, fresh);
  std::vector<const Node*> candidates;
  for (const auto& [name, n] : state.nodes()) candidates.push_back(n.get());
  std::vector<const Node*> chosen;
  for (size_t tries = 0; chosen.size() < wanted && tries < wanted * 3; tries++) {
    const Node* n = candidates[random_index(candidates.size())];
    if (n->is_myself() || n->timed_out()) continue;
    if (n->flags & (kFlagHandshake | kFlagNoAddr)) continue;
    if (n->link == nullptr && n->num_slots == 0) continue;
    if (std::find(chosen.begin(), chosen.end(), n) != chosen.end()) continue;
    chosen.push_back(n);
  }
  for (const Node* n : candidates) {
    if (n->timed_out() && !n->in_handshake() && n->has_address()) chosen.push_back(n);
  }
  return chosen;
}

bool GossipReportsFailure(const GossipEntry& g) { return g.flags & (kFlagFail | kFlagPfail); }

void LearnFromGossip(Node* n, const GossipEntry& g, int64_t now_ms) {
  // A fresher pong seen by another node stands for one this node would have had.
  if (!GossipReportsFailure(g) && n->ping_sent_ms == 0 && n->fail_reports.empty()) {
    const int64_t pong = std::min<int64_t>(static_cast<int64_t>(g.pong_received) * 1000, now_ms);
    if (pong > n->pong_received_ms) n->pong_received_ms = pong;
  }
  // A node this one cannot reach, seen elsewhere at another address: try that one.
  if ((n->flags & (kFlagFail | kFlagPfail)) && !GossipReportsFailure(g) && n->link == nullptr &&
      (n->ip != g.ip || n->port != g.port || n->cport != g.cport)) {
    n->ip = g.ip;
    n->port = g.port;
    n->pport = g.pport;
    n->cport = g.cport;
    n->flags &= static_cast<uint16_t>(~kFlagNoAddr);
  }
}

}  // namespace ebb::server::cluster
