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
// (setmetatable and rawset refuse them too). What stock Lua 5.1 leaves unsafe is closed in ebb's
// own C (lua_guards.h): no loader accepts bytecode, setfenv cannot reach the thread's globals,
// unpack and bit.tohex check their ranges; the heap is bounded by lua-memory-limit and the
// result's conversion by lua_values.h's budget (docs/security.md, "Scripts").
//
// Thread-safety: none; the command thread only.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "server/scripting/lua_values.h"
#include "server/scripting/script_code.h"
#include "storage/status.h"

struct lua_State;
struct lua_Debug;

namespace ebb::server {
struct CommandContext;
class ServerContext;
}  // namespace ebb::server

namespace ebb::server::scripting {

struct HeapLimit;

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

// The flags a script names (`#!lua flags=...`, redis.register_function's `flags`), in the order
// FUNCTION LIST shows them: the one table of their names.
struct ScriptFlagName {
  std::string_view name;
  ScriptFlag flag;
};
inline constexpr ScriptFlagName kScriptFlagNames[] = {
    {"no-writes", kScriptNoWrites},
    {"allow-oom", kScriptAllowOom},
    {"allow-stale", kScriptAllowStale},
    {"no-cluster", kScriptNoCluster},
    {"allow-cross-slot-keys", kScriptAllowCrossSlot}};
// The flag `name` names (case-sensitively, as Redis); nothing for an unknown name.
std::optional<ScriptFlag> ScriptFlagNamed(std::string_view name);

// Parses the shebang of `body` (Redis's evalExtractShebangFlags): on success *flags are its
// flags (kScriptEvalCompat without one) and *shebang_length the bytes of its first line (without
// the newline, so line numbers stay the script's).
Result<ScriptCode> ParseShebang(std::string_view body, uint32_t* flags, size_t* shebang_length);

class ScriptEngine {
 public:
  // REQUIRES: server outlives the engine.
  explicit ScriptEngine(ServerContext* server);
  ~ScriptEngine();
  ScriptEngine(const ScriptEngine&) = delete;
  ScriptEngine& operator=(const ScriptEngine&) = delete;

  // Compiles `body` and keeps it under its SHA-1, which it returns; a script already kept is
  // not compiled again. Fails for a bad shebang or a script that does not compile.
  Result<ScriptCode, std::string> Load(std::string_view body);
  // True if a script with this SHA-1 (either case) is kept.
  bool Exists(std::string_view sha) const;
  // Forgets every script and starts a fresh Lua state, the libraries loaded into it again
  // (SCRIPT FLUSH): nothing an earlier script did to the state survives.
  void Flush();
  size_t script_count() const { return scripts_.size(); }
  // The bounds of converting a result into a reply (lua_values.h); the server keeps the
  // defaults, a fuzzing harness lowers them.
  void set_reply_limits(const ReplyLimits& limits) { reply_limits_ = limits; }
  // Bytes the Lua state uses (INFO used_memory_lua).
  size_t lua_memory() const;
  // Bytes of the kept scripts' bodies and names (INFO used_memory_scripts_eval).
  size_t scripts_memory() const { return scripts_memory_; }
  // Appends INFO memory's scripting fields (Redis 7.0's names): used_memory_lua,
  // used_memory_vm_eval, used_memory_scripts_eval, number_of_cached_scripts,
  // number_of_functions, number_of_libraries.
  void AppendMemoryInfo(std::string* out) const;

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

  // ---- Functions (FUNCTION, FCALL; server/scripting/functions.cc) ----
  // A library is Lua code headed `#!lua name=<library>` that registers functions with
  // redis.register_function when loaded. The libraries persist in one engine row, rewritten
  // whole after every change, which the WAL, the replication stream and a replica's snapshot
  // carry (docs/scripting.md, "Where the libraries live").
  struct Function {
    std::string name;
    std::string description;  // empty: none
    uint32_t flags = 0;       // ScriptFlag, without kScriptEvalCompat
    int ref = 0;              // the callback in the Lua registry
  };
  struct Library {
    std::string name;
    std::string code;  // as loaded, shebang included
    std::map<std::string, Function> functions;
  };
  // Starts keeping the libraries in the engine's system row (types::Keyspace::
  // kFunctionLibrariesRow); until then they are kept in memory only. Loads them from the row;
  // when there is none and `legacy_file` (the functions file of an older ebb) exists, loads the
  // file, writes the row and removes the file. kLibrariesNotOpened (its detail what failed) when
  // the row or the file cannot be read, a library in it fails to load, or the row cannot be
  // written.
  Result<ScriptCode> OpenLibraries(const std::string& legacy_file);
  // Loads the libraries again from the engine's row after something else wrote it: a replica
  // that applied its master's stream or snapshot (no row: no libraries). Writes nothing; logs a
  // row that fails to load (the libraries then stay as they were).
  void ReloadLibraries();
  // The changes below (LOAD, DELETE, FLUSH, RESTORE) are acknowledged only once the engine's
  // row holds them durably. When that fails the reply is "MISCONF Errors writing to the data
  // directory: <error>" (kLibrariesNotSaved) and the libraries are what the row holds: the
  // change when it reached the engine and only the sync failed, else what they were before.
  //
  // FUNCTION LOAD [REPLACE]: the library's name.
  Result<ScriptCode, std::string> LoadLibrary(std::string_view code, bool replace);
  // FUNCTION DELETE: kLibraryNotFound, or the save's failure.
  Result<ScriptCode> DeleteLibrary(std::string_view name);
  // FUNCTION FLUSH.
  Result<ScriptCode> FlushLibraries();
  const std::map<std::string, Library>& libraries() const { return libraries_; }
  size_t function_count() const;
  // FUNCTION DUMP: every library, in the format docs/scripting.md describes.
  std::string DumpLibraries() const;
  enum class RestorePolicy { kAppend, kReplace, kFlush };
  // FUNCTION RESTORE: fails when the payload is damaged or a library conflicts (nothing changes
  // then), or the save fails.
  Result<ScriptCode> RestoreLibraries(std::string_view payload, RestorePolicy policy);
  // What a running script's redis.* functions reach through the Lua registry (kRunKey).
  struct RunState {
    ScriptEngine* engine;
    CommandContext* ctx;
    bool read_only;  // EVAL_RO, FCALL_RO or `no-writes`: write commands refused
    bool allow_oom;  // `allow-oom`: deny-oom commands run above maxmemory
    // `allow-cross-slot-keys`, or no shebang: on a cluster node its calls may name keys of any
    // slot this node serves (else only the slot of its declared keys or first call).
    bool allow_cross_slot;
    bool wrote = false;      // a write command ran
    bool own_batch = false;  // the script opened the keyspace batch (at its first write)
    int resp = 2;            // redis.setresp
    int db;                  // the script's SELECTed database
    // Busy scripts (docs/scripting.md): set by Execute and the hook.
    bool eval = true;                   // EVAL and its variants; false for FCALL
    const std::string* name = nullptr;  // the script's SHA-1 or the function's name
    std::chrono::steady_clock::time_point start;
    bool timed_out = false;  // ran past busy-reply-threshold: other clients are answered -BUSY
    bool killed = false;     // SCRIPT KILL or FUNCTION KILL: the hook raises at every line
  };
  // The library being loaded, reached by redis.register_function (kLoadKey).
  struct LoadState {
    Library* library;
    std::chrono::steady_clock::time_point start;
  };

  // The script or function running now, as a command served while it is busy sees it
  // (FUNCTION STATS); nullptr when none runs.
  const RunState* running() const { return running_; }
  enum class KillResult {
    kNotBusy,     // nothing runs: "NOTBUSY No scripts in execution right now."
    kUnkillable,  // it has written: only its end or SHUTDOWN NOSAVE stops it
    kWrongKind,   // SCRIPT KILL of a function or FUNCTION KILL of a script: the BUSY error
    kKilled,      // it ends at its next hook with "Script killed by user with SCRIPT KILL..."
  };
  // SCRIPT KILL (eval = true) or FUNCTION KILL. A killed script has not written, so it leaves
  // nothing behind; it cannot catch the error (the hook raises it again at every line).
  KillResult Kill(bool eval);

  // FCALL / FCALL_RO: runs the function `name` and replies its result, as Run does for scripts.
  void CallFunction(CommandContext& ctx, std::string_view name, bool read_only,
                    std::span<const std::string_view> keys, std::span<const std::string_view> args);

 private:
  struct Script {
    std::string body;
    uint32_t flags = 0;
  };
  // Checks a script's or function's flags against the command (Redis's scriptPrepareForRun);
  // false after replying the refusal.
  bool MayRun(CommandContext& ctx, uint32_t flags, bool read_only);
  // Calls the function on the top of the stack (under the error handler below it) with `nargs`
  // arguments above it, then replies. `name` is what errors name ("script: <name>").
  void Execute(CommandContext& ctx, RunState& run, int nargs, const std::string& name);
  // Execute's steps: arm the run (registry, hook, heap bound), write the reply of the pcall's
  // `status` (and the value it left) to *out, disarm the run and pop the error handler.
  void BeginRun(RunState& run, const std::string& name);
  void WriteOutcome(CommandContext& ctx, const RunState& run, int status, const std::string& name,
                    std::string* out);
  void EndRun(const RunState& run, int status);
  // Loads one library into `into` (the live map or a scratch one for RESTORE); its name.
  Result<ScriptCode, std::string> LoadLibraryInto(std::string_view code, bool replace,
                                                  std::map<std::string, Library>* into);
  void ReleaseLibrary(const Library& library);
  // Writes the libraries to the engine's row (durably), once OpenLibraries has run.
  storage::Status SaveLibraries();
  // After a change to the libraries: saves them; when that fails, logs it, puts back `before`
  // (DumpLibraries's payload from before the change) unless the engine's row holds the change,
  // and returns kLibrariesNotSaved.
  Result<ScriptCode> Persist(const std::string& before);

  void Open();
  void Close();
  // Replaces the Lua state with a fresh one and compiles the kept scripts and loads the
  // libraries into it again (SCRIPT FLUSH, FUNCTION FLUSH). Not while a script runs.
  void Rebuild();
  // Compiles `code` (a script without its shebang) and keeps it in the state under `sha`.
  Result<ScriptCode> Store(const std::string& sha, std::string_view code);
  // redis.call (raise = true) and redis.pcall: the command on the stack, its reply pushed.
  static int Call(lua_State* L, bool raise);
  static int RedisCall(lua_State* L) { return Call(L, true); }
  static int RedisPcall(lua_State* L) { return Call(L, false); }
  // Takes the `argc` values on the Lua stack (popping them) into args_ / arg_views_: strings as
  // they are, numbers as "%.17g". False (stack popped, views unset) if one is neither.
  bool ReadCallArgs(lua_State* L, int argc);
  // Runs the command in args_ for `run`; writes its reply (or the refusal) to reply_.
  // Returns false for a refusal (reply_ then holds the error text alone).
  bool Dispatch(RunState& run);
  static RunState* CurrentRun(lua_State* L);
  // The count hook of a running script: past busy-reply-threshold it marks the server busy,
  // serves the other clients (ServerContext::ServeWhileBusy) and ends a killed script.
  static void BusyHook(lua_State* L, lua_Debug* ar);
  static void RegisterRedisApi(lua_State* L);
  // Pushes the redis table libraries see while they load (register_function, log).
  static void RegisterLoadApi(lua_State* L);
  // redis.register_function (functions.cc).
  static int RegisterFunction(lua_State* L);
  // Rebuilds function_index_ from libraries_.
  void IndexFunctions();

  ServerContext* server_;
  lua_State* L_ = nullptr;
  std::unique_ptr<HeapLimit> heap_;  // the allocator's state of L_ (lua-memory-limit)
  ReplyLimits reply_limits_;
  std::unordered_map<std::string, Script> scripts_;                  // by lower-case SHA-1
  std::map<std::string, Library> libraries_;                         // by name
  std::unordered_map<std::string, const Function*> function_index_;  // lower-case names
  bool persist_ = false;  // OpenLibraries has run: changes are written to the engine
  size_t scripts_memory_ = 0;
  uint64_t runs_ = 0;  // scripts run, for the periodic GC step
  RunState* running_ = nullptr;
  // Reused by every redis.call: the arguments and the reply buffer.
  std::vector<std::string> args_;
  std::vector<std::string_view> arg_views_;
  std::string reply_;
};

}  // namespace ebb::server::scripting
