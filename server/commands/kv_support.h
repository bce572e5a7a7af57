// Helpers shared by the string-row bindings (kv.cc: PUT GET GETMETA DELETE; strings.cc: the Redis
// string commands): the Kv handle for the client's database, the TTL policy from Config, and
// Redis's expire-time validation.
// Thread-safety: used on the command thread only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/command.h"
#include "server/commands/command_rows.h"
#include "server/commands/replies.h"
#include "storage/status.h"
#include "types/kv.h"
#include "types/ttl_policy.h"

namespace ebb::server {

// A Kv handle on the client's database whose reads use default-retrieval-grace. Also makes the
// keyspace's writes follow the server's group-commit mode (defer_sync).
types::Kv KvFor(CommandContext& ctx);

// The server's clock (DEBUG CLOCK moves it), in ms since the epoch.
int64_t NowMs(CommandContext& ctx);

// default-ttl and the ttl-rules of the current Config, matched with GlobMatch.
types::TtlPolicy TtlPolicyFromConfig(CommandContext& ctx);

// The expiry the policy gives a key written at `ts_ms` without its own TTL option. A ttl so
// large that ts + ttl overflows means "never expires".
std::optional<int64_t> PolicyExpireAt(const types::TtlPolicy& policy, std::string_view key,
                                      int64_t ts_ms);

// Redis's getExpireMillisecondsOrReply: `text` is a positive integer of seconds (`seconds`) or
// ms; relative values are added to `now_ms`. On success *expire_at_ms is absolute. Otherwise
// replies ERR value is not an integer..., or ERR invalid expire time in '<cmd>' command (value
// <= 0, or overflow) and returns false.
bool ParseExpireOrReply(CommandContext& ctx, std::string_view cmd, std::string_view text,
                        bool seconds, bool relative, int64_t now_ms, int64_t* expire_at_ms);

// A "string" group command-table row (command_rows.h's KeyRangeRow); keys as CommandSpec
// documents them. Arguments are built with command_rows.h's DocArg.
CommandSpec MakeStringCommand(std::string name, int arity, uint32_t flags, int first_key,
                              int last_key, int step, std::string since, std::string summary,
                              std::string complexity, std::vector<ArgSpec> arguments,
                              CommandHandler handler);

}  // namespace ebb::server
