// ScriptEngine: the Lua 5.1 interpreter behind EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT,
// as Redis 7 runs scripts (docs/scripting.md).
//
// One Lua state serves every client. A script is compiled once, kept by the SHA-1 of its body
// (SCRIPT LOAD, or the first EVAL), and runs with KEYS and ARGV set. Inside it, redis.call and
// redis.pcall run any command through the command table on the calling client's behalf (its
// database, its own SELECT kept to the script, the protocol the script chose with
// redis.setresp), with Redis's refusals: commands flagged kCmdNoScript, writes from a read-only
// script (EVAL_RO, `#!lua flags=no-writes`), deny-oom commands above maxmemory before the first
// write. The handlers run as they run for a client, so WATCH, keyspace notifications and stats
// see every call.
//
// Atomicity: a script's writes go to one keyspace batch (types/keyspace.h, "batches"), which
// reaches the engine as one WAL record when the script ends, whatever it returns, and is
// acknowledged per wal-fsync as any write (CommandContext::wrote). Inside EXEC the
// transaction's batch is already open and the script's writes join it. A script runs once and
// never restarts (EVAL is kCmdNoRestart): its reads wait for the disk inline, as EXEC's do.
//
// The sandbox is Redis's: the globals table and every table reachable from it (redis, string,
// math, table, cjson, bit, ...) are read-only ("Attempt to modify a readonly table"), reading an
// undefined global is an error ("Script attempted to access nonexistent global variable"), there
// is no os, io, loadfile, dofile, print, require or debug, loadstring refuses bytecode, and
// math.random is Redis's own 48-bit generator (the same sequence on every platform, reseeded only
// by math.randomseed). Debian's Lua has no read-only tables, so they are proxies: each protected
// table is an empty table whose metatable reads through to the real one and refuses writes
// (setmetatable and rawset refuse them too).
//
// Thread-safety: none; the command thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

struct lua_State;

namespace ebb::server {
struct CommandContext;
class ServerContext;
}  // namespace ebb::server

namespace ebb::server::scripting {

// A script's `#!lua flags=...` (Redis 7). A script without a shebang runs in the compatible
// mode of earlier Redis versions: writes allowed, no flag checks before it runs.
enum ScriptFlag : uint32_t {
  kScriptNoWrites = 1 << 0,        // no-writes
  kScriptAllowOom = 1 << 1,        // allow-oom
  kScriptAllowStale = 1 << 2,      // allow-stale
  kScriptNoCluster = 1 << 3,       // no-cluster
  kScriptAllowCrossSlot = 1 << 4,  // allow-cross-slot-keys
  kScriptEvalCompat = 1 << 5,      // no shebang
};

// Parses the shebang of `body` (Redis's evalExtractShebangFlags): on success *flags are its
// flags (kScriptEvalCompat without one) and *shebang_length the bytes of its first line (without
// the newline, so line numbers stay the script's). On failure *error is the reply.
bool ParseShebang(std::string_view body, uint32_t* flags, size_t* shebang_length,
                  std::string* error);

class ScriptEngine {
 public:
  // REQUIRES: server outlives the engine.
  explicit ScriptEngine(ServerContext* server);
  ~ScriptEngine();
  ScriptEngine(const ScriptEngine&) = delete;
  ScriptEngine& operator=(const ScriptEngine&) = delete;

  // Compiles `body` and keeps it under its SHA-1 (returned in *sha); a script already kept is
  // not compiled again. False with the error reply in *error (a bad shebang, "Error compiling
  // script (new function): ...").
  bool Load(std::string_view body, std::string* sha, std::string* error);
  // True if a script with this SHA-1 (either case) is kept.
  bool Exists(std::string_view sha) const;
  // Forgets every script and starts a fresh Lua state (SCRIPT FLUSH).
  void Flush();
  size_t script_count() const { return scripts_.size(); }
  // Bytes the Lua state uses (INFO used_memory_lua).
  size_t lua_memory() const;
  // Bytes of the kept scripts' bodies and names (INFO used_memory_scripts).
  size_t scripts_memory() const { return scripts_memory_; }

  // What EVAL and its variants run: the script's body (EVAL) or SHA-1 (EVALSHA), its keys and
  // arguments, and whether the command was a *_RO variant.
  struct Eval {
    std::string_view script;
    bool by_sha = false;
    bool read_only = false;
    std::span<const std::string_view> keys;
    std::span<const std::string_view> args;
  };
  // Runs the script for ctx.client and replies its result (NOSCRIPT, a compile error, a refusal
  // or the script's error in Redis's words). Sets ctx.wrote when its batch wrote.
  void Run(CommandContext& ctx, const Eval& eval);

 private:
  struct Script {
    std::string body;
    uint32_t flags = 0;
  };
  struct RunState;

  void Open();
  void Close();
  // redis.call (raise = true) and redis.pcall: the command on the stack, its reply pushed.
  static int Call(lua_State* L, bool raise);
  static int RedisCall(lua_State* L) { return Call(L, true); }
  static int RedisPcall(lua_State* L) { return Call(L, false); }
  // Runs the command in args_ for `run`; writes its reply (or the refusal) to reply_.
  // Returns false for a refusal (reply_ then holds the error text alone).
  bool Dispatch(RunState& run);
  static RunState* CurrentRun(lua_State* L);
  static void RegisterRedisApi(lua_State* L);

  ServerContext* server_;
  lua_State* L_ = nullptr;
  std::unordered_map<std::string, Script> scripts_;  // by lower-case SHA-1
  size_t scripts_memory_ = 0;
  uint64_t runs_ = 0;  // scripts run, for the periodic GC step
  // Reused by every redis.call: the arguments and the reply buffer.
  std::vector<std::string> args_;
  std::vector<std::string_view> arg_views_;
  std::string reply_;
};

}  // namespace ebb::server::scripting
