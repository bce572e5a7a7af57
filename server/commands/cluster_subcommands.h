// The rows of CLUSTER's subcommands, by job: the node table (cmd_cluster_topology.cc: MYID,
// NODES, SLOTS, SHARDS, INFO, LINKS, MEET), slot assignment (cmd_cluster_slots.cc: ADDSLOTS,
// DELSLOTS, FLUSHSLOTS, SETSLOT), membership, roles and epochs (cmd_cluster_membership.cc:
// FORGET, RESET, REPLICATE, FAILOVER, SET-CONFIG-EPOCH, SAVECONFIG, ...) and the keys of a slot
// (cmd_cluster_keys.cc: KEYSLOT, COUNTKEYSINSLOT, GETKEYSINSLOT). cmd_cluster.cc makes them one
// CLUSTER command, in that order (CLUSTER HELP's).
#pragma once

#include <vector>

#include "server/core/command.h"

namespace ebb::server {

std::vector<CommandSpec> ClusterTopologySubcommands();
std::vector<CommandSpec> ClusterSlotSubcommands();
std::vector<CommandSpec> ClusterMembershipSubcommands();
std::vector<CommandSpec> ClusterKeySubcommands();

}  // namespace ebb::server
