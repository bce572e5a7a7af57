#include "server/commands/replies.h"

#include <string>

namespace ebb::server {

void ReplyStorageError(CommandContext& ctx, const storage::Status& status) {
  ctx.reply.Error("ERR " + status.ToString());
}

bool StorageErrorOrReply(CommandContext& ctx, const storage::Status& status) {
  if (status.ok()) return false;
  ReplyStorageError(ctx, status);
  return true;
}

}  // namespace ebb::server
