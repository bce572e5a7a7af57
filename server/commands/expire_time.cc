#include "server/commands/expire_time.h"

#include <limits>

#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/core/errors.h"

namespace ebb::server {

bool ExpireAtOrReply(CommandContext& ctx, const ExpireArg& arg, std::string_view cmd,
                     int64_t now_ms, int64_t* expire_at_ms) {
  int64_t value = 0;
  if (!ParseInt64(arg.text, &value)) {
    ctx.reply.Error(kNotInteger);
    return false;
  }
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (value <= 0 || (arg.seconds && value > kMax / 1000)) {
    ctx.reply.Error(InvalidExpireTimeError(cmd));
    return false;
  }
  if (arg.seconds) value *= 1000;
  if ((arg.relative && __builtin_add_overflow(value, now_ms, &value)) || value <= 0) {
    ctx.reply.Error(InvalidExpireTimeError(cmd));
    return false;
  }
  *expire_at_ms = value;
  return true;
}

}  // namespace ebb::server
