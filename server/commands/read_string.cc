#include "server/commands/read_string.h"

#include <utility>

#include "server/core/client.h"
#include "server/services/keyspace_events.h"
#include "server/services/reply.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"

namespace ebb::server {

types::Kv KvOf(CommandContext& ctx) {
  return types::Kv(ctx.server.keyspace(), ctx.client.db_index());
}

bool ReadStringOrReply(CommandContext& ctx, std::string_view key, std::optional<int64_t> grace_ms,
                       std::optional<types::KvRow>* row) {
  types::OpResult<types::KvRow> read = KvOf(ctx).Get(key, grace_ms);
  if (read.status() == types::OpStatus::kNotFound) {
    SignalKeyMiss(ctx, key);
    return true;
  }
  if (!read.ok()) {
    ReplyError(ctx, read);
    return false;
  }
  ctx.server.stats().keyspace_hits++;
  *row = std::move(*read);
  return true;
}

}  // namespace ebb::server
