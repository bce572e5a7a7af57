// The rows of CLUSTER's subcommands, in two areas: the node's own state and the bus
// (cmd_cluster_node.cc: NODES, SLOTS, SHARDS, INFO, MEET, ADDSLOTS, SETSLOT, FAILOVER, ...) and
// the keys of a slot (cmd_cluster_keys.cc: KEYSLOT, COUNTKEYSINSLOT, GETKEYSINSLOT).
// cmd_cluster.cc makes them one CLUSTER command.
#pragma once

#include <vector>

#include "server/core/command.h"

namespace ebb::server {

std::vector<CommandSpec> ClusterNodeSubcommands();
std::vector<CommandSpec> ClusterKeySubcommands();

}  // namespace ebb::server
