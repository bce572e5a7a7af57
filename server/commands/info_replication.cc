// INFO replication: the master's replication state (server/replication/info_replication.h).
#include "server/replication/info_replication.h"

#include <string>

#include "common/wall_clock.h"
#include "server/commands/info_sections.h"

namespace ebb::server {

void InfoReplication(ServerContext& ctx, std::string* out) {
  AppendReplicationInfo(ctx, WallMs(), out);
}

}  // namespace ebb::server
