// The conversions between Redis replies and Lua values, exactly as Redis 7 documents them
// ("Conversion between Lua and Redis data types"; docs/scripting.md has the tables).
//
// A command called from a script (redis.call) replies RESP bytes, as it would to a client; they
// become Lua values here:
//   integer -> number          bulk string -> string        simple string -> {ok = s}
//   error -> {err = "CODE msg"} array -> table (1..n)       RESP2 nil bulk / nil array -> false
//   RESP3: null -> nil, boolean -> boolean, double -> {double = n}, map -> {map = {k = v}},
//          set -> {set = {m = true}}, big number -> {big_number = s},
//          verbatim -> {verbatim_string = {format = f, string = s}}; attributes are dropped.
// A script's return value becomes a reply the other way:
//   number -> integer (truncated)   string -> bulk   true -> 1 (RESP3 true)
//   false / nil -> null (RESP3 false for false)      table -> array up to the first nil,
//   unless it carries one of the fields err, ok, double, big_number, verbatim_string, map, set
//   (checked in that order), which make it that reply.
// Thread-safety: the Lua state's thread only.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "protocol/reply_writer.h"

struct lua_State;

namespace ebb::server::scripting {

// Pushes the one complete reply encoded in `resp` (RESP2 or RESP3, as ReplyWriter writes it)
// onto L's stack as a Lua value.
void PushReply(lua_State* L, std::string_view resp);

// The bound of one conversion of a script's result: a table may appear in it more than once
// (shared, {t, t}), so a small value can stand for an enormous reply. Past kMaxReplyElements
// values or kMaxReplyBytes bytes written to `bytes`, WriteLuaValue sets `exceeded` and raises a
// Lua error (the caller runs it under lua_pcall and replies kScriptReplyTooLarge instead).
// Nesting is bounded by Lua's stack, as in Redis: past it the nested value is the error
// "reached lua stack limit" (a table that contains itself ends there).
inline constexpr size_t kMaxReplyElements = size_t{1} << 24;
inline constexpr size_t kMaxReplyBytes = size_t{1} << 29;
// The server always converts under these defaults; a fuzzing harness sets smaller ones
// (ScriptEngine::set_reply_limits) so that every input ends quickly.
struct ReplyLimits {
  size_t max_elements = kMaxReplyElements;
  size_t max_bytes = kMaxReplyBytes;
};
struct ReplyBudget {
  const std::string* bytes;  // what the reply writer has written so far
  ReplyLimits limits;
  size_t elements = 0;
  bool exceeded = false;
};

// Pops the value on the top of L's stack and writes it to `out` as a reply. `script_resp` is
// the protocol the script selected with redis.setresp (2 or 3): under 2 a boolean true is the
// integer 1 and false is a null, as in Redis.
void WriteLuaValue(lua_State* L, int script_resp, protocol::ReplyWriter& out, ReplyBudget& budget);

// Pushes Redis's error table {err = "CODE msg"}. `error` is "-CODE msg" (the code kept) or a
// bare message (the code is ERR); a trailing CR/LF is trimmed (Redis's luaPushErrorBuff).
void PushErrorTable(lua_State* L, std::string_view error);

}  // namespace ebb::server::scripting
