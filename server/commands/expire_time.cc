#include "server/commands/expire_time.h"

#include <limits>

#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/core/errors.h"

namespace ebb::server {

ExpireAtOutcome ResolveExpireAt(const ExpireArg& arg, int64_t now_ms, int64_t* expire_at_ms) {
  int64_t value = 0;
  if (!ParseInt64(arg.text, &value)) return ExpireAtOutcome::kNotInteger;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (value <= 0 || (arg.seconds && value > kMax / 1000)) return ExpireAtOutcome::kInvalid;
  if (arg.seconds) value *= 1000;
  if ((arg.relative && __builtin_add_overflow(value, now_ms, &value)) || value <= 0) {
    return ExpireAtOutcome::kInvalid;
  }
  *expire_at_ms = value;
  return ExpireAtOutcome::kOk;
}

void ReplyExpireAtError(CommandContext& ctx, ExpireAtOutcome outcome, std::string_view cmd) {
  if (outcome == ExpireAtOutcome::kNotInteger) return ctx.reply.Error(kNotInteger);
  ctx.reply.Error(InvalidExpireTimeError(cmd));
}

bool ExpireAtOrReply(CommandContext& ctx, const ExpireArg& arg, std::string_view cmd,
                     int64_t now_ms, int64_t* expire_at_ms) {
  const ExpireAtOutcome outcome = ResolveExpireAt(arg, now_ms, expire_at_ms);
  if (outcome == ExpireAtOutcome::kOk) return true;
  ReplyExpireAtError(ctx, outcome, cmd);
  return false;
}

}  // namespace ebb::server
