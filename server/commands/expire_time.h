// Expire-time arguments as SET EX|PX|EXAT|PXAT, GETEX, SETEX, PSETEX and PUT EXAT|PXAT take them
// (Redis's getExpireMillisecondsOrReply).
//
// Parse keeps the argument's text (Redis checks it only after the options are known, and GETEX
// only after reading the key); Execute resolves it against the clock.
// Thread-safety: used on the command thread only.
#pragma once

#include <cstdint>
#include <string_view>

#include "server/core/command.h"

namespace ebb::server {

struct ExpireArg {
  std::string_view text;  // the integer as given
  bool seconds = false;   // EX, EXAT, SETEX: seconds; else milliseconds
  bool relative = false;  // EX, PX, SETEX, PSETEX: from now; else a Unix time
};

enum class ExpireAtOutcome {
  kOk,
  kNotInteger,  // the text is not a 64-bit integer
  kInvalid,     // <= 0, or it overflows once made absolute and in milliseconds
};

// The absolute expiry (ms) `arg` names at `now_ms`, into *expire_at_ms when kOk.
ExpireAtOutcome ResolveExpireAt(const ExpireArg& arg, int64_t now_ms, int64_t* expire_at_ms);

// Replies a failed outcome: "ERR value is not an integer or out of range" (kNotInteger) or
// "ERR invalid expire time in '<cmd>' command" (kInvalid).
void ReplyExpireAtError(CommandContext& ctx, ExpireAtOutcome outcome, std::string_view cmd);

// ResolveExpireAt, replying its failure. Replies "ERR value is not an integer or out
// of range", or "ERR invalid expire time in '<cmd>' command" for a value <= 0 or one that
// overflows, and returns false.
bool ExpireAtOrReply(CommandContext& ctx, const ExpireArg& arg, std::string_view cmd,
                     int64_t now_ms, int64_t* expire_at_ms);

}  // namespace ebb::server
