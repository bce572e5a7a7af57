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

}  // namespace ebb::server::cluster
