#include "server/commands/object_info.h"

#include <string>

#include "common/strings.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/services/keyspace_events.h"
#include "server/services/reply.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"

namespace ebb::server {
namespace {

// Redis's choice for a string value (tryObjectEncoding): an integer that reads back as the same
// text fits a long; short strings are embedded in the object.
std::string_view StringEncoding(std::string_view value) {
  int64_t number = 0;
  if (value.size() <= 20 && ParseInt64(value, &number) && std::to_string(number) == value) {
    return "int";
  }
  return value.size() <= 44 ? "embstr" : "raw";
}

}  // namespace

bool ReadMetaOrReply(CommandContext& ctx, std::string_view key,
                     std::optional<types::KeyMetaRow>* meta) {
  types::KeyMetaRow row;
  const storage::Status s = ctx.server.keyspace().GetMeta(ctx.client.db_index(), key, &row);
  if (s.IsNotFound()) {
    SignalKeyMiss(ctx, key);
    meta->reset();
    return true;
  }
  if (!s.ok()) {
    ReplyError(ctx, types::OpFailure{types::OpStatus::kEngineError, s});
    return false;
  }
  ctx.server.stats().keyspace_hits++;
  *meta = std::move(row);
  return true;
}

std::string_view ObjectEncoding(const types::KeyMetaRow& meta) {
  if (meta.type != types::KeyType::kString) return types::KeyTypeName(meta.type);
  return meta.raw_string ? "raw" : StringEncoding(meta.payload);
}

int64_t IdleSeconds(const types::KeyMetaRow& meta, int64_t now_ms) {
  const int64_t idle_ms = now_ms - meta.meta.timestamp_or_zero();
  return idle_ms > 0 ? idle_ms / 1000 : 0;
}

}  // namespace ebb::server
