// The C functions of the `redis` library and the base-library replacements that stand on their
// own (Redis's scripting_lua.c counterparts), set into a Lua state by ScriptEngine::Open and
// RegisterRedisApi. The ones that dispatch commands (redis.call, redis.pcall, acl_check_cmd,
// setresp, set_repl) are ScriptEngine's: they need the running script.
//
//   math.random([m [, n]])  Redis's redisLrand48 sequence, the same on every platform; one
//                           sequence per process. Only inside a script invocation.
//   math.randomseed(x)      reseeds it.
//   pcall(f, ...)           Lua's pcall, except that an error table raised by redis.call comes
//                           back as its message (luaRedisPcall).
//   redis.sha1hex(s)        the SHA-1 of s in lower-case hex.
//   redis.error_reply(e)    the error table {err = e}, '-' added when e lacks it.
//   redis.status_reply(s)   the status table {ok = s}.
//   redis.log(level, ...)   its arguments joined by spaces, logged at level 0..3.
//
// Thread-safety: as the Lua state they run in.
#pragma once

struct lua_State;

namespace ebb::server::scripting {

int MathRandom(lua_State* L);
int MathRandomseed(lua_State* L);
int Pcall(lua_State* L);
int Sha1hex(lua_State* L);
int ErrorReply(lua_State* L);
int StatusReply(lua_State* L);
int Log(lua_State* L);

}  // namespace ebb::server::scripting
