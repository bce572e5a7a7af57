#include "server/services/wal_commit.h"

#include "server/services/server_context.h"
#include "types/keyspace.h"

namespace ebb::server {

storage::Status CommitWalNow(ServerContext& context) {
  storage::DB& db = context.keyspace().db();
  return context.defer_sync() ? db.SyncWal() : db.FlushWal();
}

}  // namespace ebb::server
