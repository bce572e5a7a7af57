// RandomHexId: a fresh random identifier, 40 lowercase hex characters (160 bits from the
// kernel's random source), as Redis's run ids, replication ids and cluster node names are
// spelled. The server's run id (INFO run_id, server/services/server_context.h) is one.
// IsHexId: whether text another server sent (a node name, a master's replication ID) is one.
// Thread-safety: any thread.
#pragma once

#include <string>
#include <string_view>

namespace ebb::server {

// 40 random hex characters; a different value at each call.
std::string RandomHexId();

// True when `id` is 40 hex characters (of either case, as a peer may spell one).
bool IsHexId(std::string_view id);

}  // namespace ebb::server
