// Reply helpers every command binding shares: an engine failure, and the result checks of the
// data types' calls.
// Thread-safety: used on the command thread only.
#pragma once

#include "protocol/reply_writer.h"
#include "server/command.h"
#include "server/errors.h"
#include "storage/status.h"

namespace ebb::server {

// Replies "ERR <status>" for an engine failure.
void ReplyStorageError(CommandContext& ctx, const storage::Status& status);

// Replies the engine failure if there is one; true if it replied (the caller just returns).
bool StorageErrorOrReply(CommandContext& ctx, const storage::Status& status);

// For a data type's call that returns a Status and a result enum with kWrongType (TLOG, TREG):
// replies the engine failure or WRONGTYPE and returns true; false when the caller replies.
template <typename Result>
bool FailedOrReply(CommandContext& ctx, const storage::Status& status, Result result) {
  if (StorageErrorOrReply(ctx, status)) return true;
  if (result != Result::kWrongType) return false;
  ctx.reply.Error(kWrongType);
  return true;
}

}  // namespace ebb::server
