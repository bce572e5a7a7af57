// CommitWalNow: the WAL commit of a write made outside a client's request. A client's write is
// committed by its turn's WalTurnCommit (server/net/wal_turn_commit.h) before its reply and
// before anything the turn queued for other connections leaves; a write the server makes on its
// own — a replica applying its master's stream, an active-active node logging its own `collect` —
// asks no turn for one, so its bytes would wait in the WAL's buffer until the everysec sync.
// Such a write commits here, as `wal-fsync` says: synced under `always`, handed to the OS
// otherwise (surviving a killed process, not a power cut). Blocks for the fdatasync under
// `always`. Thread-safety: the io thread.
#pragma once

#include "storage/status.h"

namespace ebb::server {

class ServerContext;

storage::Status CommitWalNow(ServerContext& context);

}  // namespace ebb::server
