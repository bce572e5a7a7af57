// What the files of server/scripting share about the one Lua state: the keys of the values it
// keeps in its registry, and two helpers of Redis's Lua API.
// Thread-safety: the Lua state's thread only.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "server/scripting/script_code.h"

struct lua_State;

namespace ebb::server::scripting {

// Registry keys; their addresses are the keys (light userdata), their values unused.
extern char kRunKey;           // the RunState of the script or function running, or nil
extern char kLoadKey;          // the LoadState of the library loading, or nil
extern char kHandlerKey;       // the error handler every run is called under
extern char kScriptsKey;       // the compiled EVAL scripts by SHA-1
extern char kGlobalsKey;       // the real globals table (KEYS and ARGV are set in it)
extern char kFunctionEnvKey;   // the environment of libraries and their functions
extern char kFunctionMetaKey;  // its metatable, whose __index says what it sees
extern char kLoadGlobalsKey;   // what library code sees while it loads
extern char kRunGlobalsKey;    // what scripts and functions see while they run

// The field redis.call and redis.pcall set on the error tables they make (Redis's name): the
// error was counted in INFO errorstats when the command failed or was refused.
inline constexpr const char* kErrorCountedField = "ignore_error_stats_update";

// Raises Redis's error table {err = "ERR <message>"} (luaPushError + luaError).
int RaiseError(lua_State* L, const char* message);

// Compiles `code` as chunk `chunk_name` ("@user_script", "@user_function") and pushes the
// function. On a syntax error pushes nothing and returns `failure` (kScriptCompile or
// kFunctionCompile) with Lua's message.
Result<ScriptCode> CompileChunk(lua_State* L, std::string_view code, const char* chunk_name,
                                ScriptCode failure);

// Pushes `values` as a Lua array of strings (KEYS, ARGV, a function's arguments).
void PushArray(lua_State* L, std::span<const std::string_view> values);

}  // namespace ebb::server::scripting
