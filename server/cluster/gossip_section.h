// The gossip section of a PING, PONG or MEET (Redis 7.0's clusterSendPing and
// clusterProcessGossipSection): which nodes a message tells its receiver about, what it says of
// each, and what the receiver learns of a node it knows from what it is told. Gossip is how every
// node comes to know every other one and how failure reports spread (Cluster::ProcessGossip
// applies the rest: failure reports, FAIL, meeting unknown nodes).
//
// Owns: nothing — pure functions of the node table they are given (server/cluster/node_table.h)
// and of the random choices `random_index` makes. Thread: the caller's (the cluster's io
// thread). Invariants of the section: no node appears twice among the random picks, myself is
// never picked, and every node this node flags PFAIL (timed out) that has an address and is not
// in a handshake is included, so failure reports reach a quorum of masters fast.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "server/cluster/bus_message.h"
#include "server/cluster/node_table.h"

namespace ebb::server::cluster {

// What a message says of `n`: its name, address, flags and ping/pong times (in seconds).
GossipEntry GossipEntryOf(const Node& n);

// The nodes a message gossips about: about a tenth of the known nodes (at least 3, at most the
// nodes other than myself and the receiver), picked by `random_index` (a number below its
// argument) among the reachable ones that have an address, are not in a handshake and have a
// link or slots — at most three tries per wanted node — then every node flagged PFAIL that has
// an address and is not in a handshake.
std::vector<const Node*> GossipNodes(const ClusterState& state,
                                     const std::function<size_t(size_t n)>& random_index);

// Whether the entry says its node is failing (FAIL or PFAIL where the sender sits).
bool GossipReportsFailure(const GossipEntry& g);

// What this node learns of known node `n` from an entry about it, at `now_ms`: a fresher pong the
// sender saw (kept only while `n` has no ping outstanding and no failure report here, and never
// later than now), and, for a node this node flags failing and has no link to while the sender
// does not, the address the sender knows it at (a node that moved is reached again).
void LearnFromGossip(Node* n, const GossipEntry& g, int64_t now_ms);

}  // namespace ebb::server::cluster
