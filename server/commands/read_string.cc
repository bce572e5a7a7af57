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

bool ReadPinnedStringOrReply(CommandContext& ctx, std::string_view key,
                             std::optional<int64_t> grace_ms, types::KeyMetaView* row,
                             bool* found) {
  types::OpResult<void> read = KvOf(ctx).GetPinned(key, grace_ms, row);
  *found = read.ok();
  if (read.status() == types::OpStatus::kNotFound) {
    SignalKeyMiss(ctx, key);
    return true;
  }
  if (!read.ok()) {
    ReplyError(ctx, read);
    return false;
  }
  ctx.server.stats().keyspace_hits++;
  return true;
}

bool ReadStringOrReply(CommandContext& ctx, std::string_view key, std::optional<int64_t> grace_ms,
                       std::optional<types::KvRow>* row) {
  types::KeyMetaView view;
  bool found;
  if (!ReadPinnedStringOrReply(ctx, key, grace_ms, &view, &found)) return false;
  if (!found) return true;
  *row = types::CopyKvRow(view);
  return true;
}

}  // namespace ebb::server
