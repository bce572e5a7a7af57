#include "server/commands/cluster_subcommands.h"

namespace ebb::server {

std::vector<CommandSpec> ClusterNodeSubcommands() { return {}; }

}  // namespace ebb::server
