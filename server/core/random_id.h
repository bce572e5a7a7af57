// RandomHexId: a fresh random identifier, 40 lowercase hex characters (160 bits from the
// kernel's random source), as Redis's run ids and replication ids are spelled. The server's run
// id (INFO run_id, server/services/server_context.h) is one.
// Thread-safety: any thread.
#pragma once

#include <string>

namespace ebb::server {

// 40 random hex characters; a different value at each call.
std::string RandomHexId();

}  // namespace ebb::server
