// INFO's `replication` section, Redis 7's fields (docs/replication.md).
// Thread-safety: the io thread.
#pragma once

#include <string>

namespace ebb::server {

class ServerContext;

// Appends the `# Replication` block: role, connected_slaves, one slaveN line per replica
// (ip, port, state wait_bgsave | send_bulk | online, acknowledged offset, lag in seconds since
// its last acknowledgement), master_failover_state, the replication IDs and offsets, and the
// backlog's state.
void AppendReplicationInfo(ServerContext& context, std::string* out);

}  // namespace ebb::server
