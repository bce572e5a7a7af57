// The text of a node table: CLUSTER NODES's lines and the cluster-config-file (nodes.conf), in
// Redis 7.0's format, so a Redis user reads ebb's file as their own (docs/cluster.md,
// "nodes.conf"). One line per node:
//
//   <name> <ip>:<port>@<cport> <flags> <master name|-> <ping sent ms> <pong received ms>
//   <configEpoch> <connected|disconnected> <slot or first-last>... [<slot>->-<name>]...
//   [<slot>-<-<name>]...
//
// flags: myself, master, slave, fail?, fail, handshake, noaddr, nofailover joined by ',', or
// noflags; the bracketed migrating (->-) and importing (-<-) marks appear on myself's line only.
// The file adds a last line `vars currentEpoch <n> lastVoteEpoch <m>` and leaves out nodes in
// handshake.
// Thread-safety: none; pure functions of the state they are given.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "server/cluster/cluster_code.h"
#include "server/cluster/node_table.h"

namespace ebb::server::cluster {

// One node's line, without the newline. `plaintext_ports`: a node's plain port (pport, under
// tls-cluster) in place of its client port, for a client connected in clear text (Redis 7.0).
std::string DescribeNode(const ClusterState& state, const Node& node, bool plaintext_ports = false);
// Every node's line, each ending with '\n' (CLUSTER NODES: include_handshake true).
std::string DescribeNodes(const ClusterState& state, bool include_handshake,
                          bool plaintext_ports = false);
// The cluster-config-file's contents.
std::string NodesConfigText(const ClusterState& state);
// Reads a cluster-config-file's contents. Refusal: kNodesConfCorrupt, naming the line, when a
// line is malformed or no line is `myself`. Nodes read get ping/pong times of `now_ms` when the
// file had non-zero ones, as Redis does.
Result<ClusterCode, std::unique_ptr<ClusterState>> ParseNodesConfig(std::string_view text,
                                                                    int64_t now_ms);

}  // namespace ebb::server::cluster
