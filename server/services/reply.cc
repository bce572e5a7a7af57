#include "server/services/reply.h"

#include <cassert>

#include "server/core/errors.h"

namespace ebb::server {

void ReplyError(CommandContext& ctx, const types::OpFailure& failure) {
  using types::OpStatus;
  switch (failure.status) {
    case OpStatus::kWrongType:
      return ctx.reply.Error(kWrongType);
    case OpStatus::kNotInteger:
      return ctx.reply.Error(kNotInteger);
    case OpStatus::kOverflow:
      return ctx.reply.Error(kOverflow);
    case OpStatus::kTooLarge:
      return ctx.reply.Error(kStringTooLong);
    case OpStatus::kInvalidCursor:
      return ctx.reply.Error(kInvalidCursor);
    case OpStatus::kEngineError:
      // A read that needs a table block not in memory: the dispatcher withdraws the reply and
      // runs the command again once the block is read (server/dispatch/dispatcher.h, "Restartable
      // commands"), so nobody sees it; every GET of a key on disk passes here.
      if (failure.engine_status.IsIncomplete()) return ctx.reply.Error(kWaitingForDisk);
      return ctx.reply.Error(EngineError(failure.engine_status.ToString()));
    case OpStatus::kOk:
    case OpStatus::kNotFound:
      break;
  }
  assert(false && "ReplyError called without an error");
  ctx.reply.Error(kSyntaxError);
}

void ReplyOkOrError(CommandContext& ctx, const types::OpResult<void>& result) {
  if (!result.ok()) return ReplyError(ctx, result);
  ctx.reply.Ok();
}

void ReplyOkOrError(CommandContext& ctx, const types::OpResult<void>& result, std::string_view key,
                    NotifyClass type, std::string_view event) {
  if (result.ok()) SignalKeyChange(ctx, key, type, event);
  ReplyOkOrError(ctx, result);
}

}  // namespace ebb::server
