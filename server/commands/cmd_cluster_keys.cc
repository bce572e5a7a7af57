#include "server/commands/cluster_subcommands.h"

namespace ebb::server {

std::vector<CommandSpec> ClusterKeySubcommands() { return {}; }

}  // namespace ebb::server
