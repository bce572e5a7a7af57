// The one place a data type's outcome becomes a reply.
//
// Every Execute step that calls types/ passes a failed OpResult here: WRONGTYPE, not an integer,
// overflow, too long, invalid cursor, or "ERR <engine status>" when the engine failed — each
// worded as errors.h words it. kNotFound is not an error: each command replies its own nil, 0 or
// empty array for an absent key before it gets here.
// Thread-safety: used on the command thread only.
#pragma once

#include "protocol/reply_writer.h"
#include "server/core/command.h"
#include "server/services/keyspace_events.h"
#include "types/op_result.h"

namespace ebb::server {

// Replies the error of `failure`. REQUIRES: failure.status is neither kOk nor kNotFound.
void ReplyError(CommandContext& ctx, const types::OpFailure& failure);

template <typename T>
void ReplyError(CommandContext& ctx, const types::OpResult<T>& result) {
  ReplyError(ctx, types::FailureOf(result));
}

// +OK for a successful write, else its error.
void ReplyOkOrError(CommandContext& ctx, const types::OpResult<void>& result);
// The same, signalling `event` of class `type` on `key` when the write succeeded
// (server/services/keyspace_events.h).
void ReplyOkOrError(CommandContext& ctx, const types::OpResult<void>& result, std::string_view key,
                    NotifyClass type, std::string_view event);

}  // namespace ebb::server
