// CLUSTER: the container of the cluster's subcommands (server/commands/cluster_subcommands.h).

#include "server/commands/cluster_subcommands.h"
#include "server/commands/register.h"
#include "server/services/command_docs.h"

namespace ebb::server {

std::vector<CommandSpec> ClusterCommands() {
  std::vector<CommandSpec> subcommands;
  for (std::vector<CommandSpec> rows : {ClusterTopologySubcommands(), ClusterSlotSubcommands(),
                                        ClusterMembershipSubcommands(), ClusterKeySubcommands()}) {
    for (CommandSpec& row : rows) subcommands.push_back(std::move(row));
  }
  subcommands.push_back(HelpSubcommand("cluster",
                                       "Returns helpful text about the different subcommands.",
                                       kCmdLoading | kCmdStale, "5.0.0"));
  return {{.name = "cluster",
           .arity = -2,
           .group = "cluster",
           .since = "3.0.0",
           .summary = "A container for Redis Cluster commands.",
           .complexity = "Depends on subcommand.",
           .subcommands = std::move(subcommands)}};
}

}  // namespace ebb::server
