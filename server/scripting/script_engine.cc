#include "server/scripting/script_engine.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>

extern "C" {
#include <lauxlib.h>
#include <lua-bitop.h>
#include <lua-cjson.h>
#include <lua.h>
#include <lualib.h>
}

#include "protocol/reply_writer.h"
#include "protocol/split_args.h"
#include "server/acl/acl.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/digest.h"
#include "server/core/errors.h"
#include "server/dispatch/dispatcher.h"
#include "server/scripting/lua_guards.h"
#include "server/scripting/lua_libraries.h"
#include "server/scripting/lua_patterns.h"
#include "server/scripting/lua_redis_functions.h"
#include "server/scripting/lua_registry.h"
#include "server/scripting/lua_values.h"
#include "server/scripting/sandbox.lua.h"
#include "server/services/reply.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"

namespace ebb::server::scripting {

namespace {

// Lua instructions between two calls of a running script's hook (Redis's LUA_MASKCOUNT 100000):
// how often a busy script serves the other clients, well under a millisecond apart.
constexpr int kBusyHookInstructions = 100000;

// What WriteResult hands to the C function it runs under.
struct ResultWrite {
  int script_resp;
  protocol::ReplyWriter* writer;
  ReplyBudget* budget;
};

// Converts the value on the top of the stack into *out (a reply in `protocol`) inside a C
// function call: the stack space the conversion of a deep table claims (lua_checkstack) belongs
// to that call and is released with it. Claimed at the base level, it would stay claimed, and
// Lua would never shrink the stack. A reply past the budget (lua_values.h) is replaced whole by
// kScriptReplyTooLarge.
void WriteResult(lua_State* L, int script_resp, std::string* out, int protocol,
                 const ReplyLimits& limits) {
  protocol::ReplyWriter writer(out, protocol);
  ReplyBudget budget{.bytes = out, .limits = limits};
  ResultWrite write{script_resp, &writer, &budget};
  lua_pushcfunction(L, [](lua_State* L) -> int {
    auto* w = static_cast<ResultWrite*>(lua_touserdata(L, 1));
    WriteLuaValue(L, w->script_resp, *w->writer, *w->budget);
    return 0;
  });
  lua_insert(L, -2);
  lua_pushlightuserdata(L, &write);
  lua_insert(L, -2);
  if (lua_pcall(L, 2, 0, 0) != 0) {
    out->clear();
    if (budget.exceeded) {
      writer.Error(kScriptReplyTooLarge);
    } else {
      writer.Error(GenericError(lua_isstring(L, -1) ? lua_tostring(L, -1) : "out of memory"));
    }
    lua_pop(L, 1);
  }
}

// The error reply of a script that raised an error table ({err = ..., source = ..., line =
// ...}, as redis.error_reply and the redis.* refusals make): its err without a leading '-', and
// where it was raised when the table says.
std::string ErrorTableText(lua_State* L, const std::string& name) {
  auto field = [&](const char* key) {
    // Raw: the error may be a table of the script's with metamethods.
    lua_pushstring(L, key);
    lua_rawget(L, -2);
    const bool present = lua_isstring(L, -1);
    std::string value = present ? lua_tostring(L, -1) : "";
    lua_pop(L, 1);
    return std::pair{present, value};
  };
  auto [has_error, error] = field("err");
  const auto [has_source, source] = field("source");
  const auto [has_line, line] = field("line");
  if (!has_error) error = kScriptUnknownError;
  if (!error.empty() && error[0] == '-') error.erase(0, 1);
  if (has_source && has_line) error += " script: " + name + ", on " + source + ":" + line + ".";
  return error;
}

void Panic(lua_State* L) {
  spdlog::critical("Lua error outside a protected call: {}",
                   lua_isstring(L, -1) ? lua_tostring(L, -1) : "(not a string)");
  std::abort();
}

int ReturnFalse(lua_State* L) {
  lua_pushboolean(L, 0);
  return 1;
}
int ReturnTrue(lua_State* L) {
  lua_pushboolean(L, 1);
  return 1;
}
int DoNothing(lua_State*) { return 0; }

void SetField(lua_State* L, const char* name, lua_CFunction f) {
  lua_pushcfunction(L, f);
  lua_setfield(L, -2, name);
}
void SetNumber(lua_State* L, const char* name, lua_Number n) {
  lua_pushnumber(L, n);
  lua_setfield(L, -2, name);
}

// The Redis version scripts see (the one INFO reports).
void SetVersion(lua_State* L) {
  SetNumber(L, "REDIS_VERSION_NUM", 0x070000);
  lua_pushstring(L, "7.0.0");
  lua_setfield(L, -2, "REDIS_VERSION");
}

void OpenLibrary(lua_State* L, const char* name, lua_CFunction open) {
  lua_pushcfunction(L, open);
  lua_pushstring(L, name);
  lua_call(L, 1, 1);
  // cjson and bit register their global themselves; make sure of it for every library.
  if (lua_istable(L, -1) && name[0] != '\0') {
    lua_setglobal(L, name);
  } else {
    lua_pop(L, 1);
  }
}

}  // namespace

std::optional<ScriptFlag> ScriptFlagNamed(std::string_view name) {
  for (const ScriptFlagName& f : kScriptFlagNames) {
    if (f.name == name) return f.flag;
  }
  return std::nullopt;
}

Result<ScriptCode> ParseShebang(std::string_view body, uint32_t* flags, size_t* shebang_length) {
  *flags = kScriptEvalCompat;
  *shebang_length = 0;
  if (!body.starts_with("#!")) return {};
  const size_t end = body.find('\n');
  if (end == std::string_view::npos) return ScriptCode::kInvalidShebang;
  *shebang_length = end;
  std::vector<std::string> parts;
  if (!protocol::SplitArgs(body.substr(0, end), &parts) || parts.empty()) {
    return ScriptCode::kInvalidShebangEngine;
  }
  if (parts[0] != "#!lua") return {ScriptCode::kUnexpectedShebangEngine, parts[0]};
  *flags = 0;
  for (size_t i = 1; i < parts.size(); ++i) {
    std::string_view part = parts[i];
    if (!part.starts_with("flags=")) return {ScriptCode::kUnknownShebangOption, parts[i]};
    part.remove_prefix(6);
    // Redis splits on commas and keeps empty pieces, which match no flag ("flags=" is none).
    size_t start = 0;
    while (!part.empty()) {
      const size_t comma = part.find(',', start);
      const std::string_view name = part.substr(
          start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
      const std::optional<ScriptFlag> flag = ScriptFlagNamed(name);
      if (!flag) return {ScriptCode::kUnexpectedShebangFlag, name};
      *flags |= *flag;
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
  }
  return {};
}

ScriptEngine::ScriptEngine(ServerContext* server) : server_(server) { Open(); }

ScriptEngine::~ScriptEngine() { Close(); }

void ScriptEngine::RegisterRedisApi(lua_State* L) {
  lua_newtable(L);
  SetField(L, "call", RedisCall);
  SetField(L, "pcall", RedisPcall);
  SetField(L, "log", Log);
  SetNumber(L, "LOG_DEBUG", 0);
  SetNumber(L, "LOG_VERBOSE", 1);
  SetNumber(L, "LOG_NOTICE", 2);
  SetNumber(L, "LOG_WARNING", 3);
  SetField(L, "setresp", [](lua_State* L) -> int {
    if (CurrentRun(L) == nullptr) {
      return RaiseError(L, "redis.setresp can only be called inside a script invocation");
    }
    if (lua_gettop(L) != 1) return RaiseError(L, "redis.setresp() requires one argument.");
    const int resp = static_cast<int>(lua_tointeger(L, -1));
    if (resp != 2 && resp != 3) return RaiseError(L, "RESP version must be 2 or 3.");
    CurrentRun(L)->resp = resp;
    return 0;
  });
  SetField(L, "sha1hex", Sha1hex);
  SetField(L, "error_reply", ErrorReply);
  SetField(L, "status_reply", StatusReply);
  // Accepted for compatibility: a script's writes replicate as the one batch they form.
  SetField(L, "set_repl", [](lua_State* L) -> int {
    if (CurrentRun(L) == nullptr) {
      return RaiseError(L, "redis.set_repl can only be called inside a script invocation");
    }
    if (lua_gettop(L) != 1) return RaiseError(L, "redis.set_repl() requires two arguments.");
    const lua_Integer flags = lua_tointeger(L, -1);
    if ((flags & ~3) != 0) {
      return RaiseError(
          L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
    }
    return 0;
  });
  SetNumber(L, "REPL_NONE", 0);
  SetNumber(L, "REPL_AOF", 1);
  SetNumber(L, "REPL_SLAVE", 2);
  SetNumber(L, "REPL_REPLICA", 2);
  SetNumber(L, "REPL_ALL", 3);
  SetField(L, "replicate_commands", ReturnTrue);
  SetField(L, "breakpoint", ReturnFalse);  // no debugger attached
  SetField(L, "debug", DoNothing);
  SetField(L, "acl_check_cmd", [](lua_State* L) -> int {
    RunState* run = CurrentRun(L);
    if (run == nullptr) {
      return RaiseError(L, "redis.acl_check_cmd can only be called inside a script invocation");
    }
    if (lua_gettop(L) < 1 || !lua_isstring(L, 1)) {
      return RaiseError(L, "Please specify at least one argument for this redis lib call");
    }
    ScriptEngine& engine = *run->engine;
    if (!engine.ReadCallArgs(L, lua_gettop(L))) {
      return RaiseError(L, "Lua redis lib command arguments must be strings or integers");
    }
    // Whether the script's caller may run this command on these keys and channels.
    const std::span<const std::string_view> args(engine.arg_views_);
    const auto [spec, flags, first_arg] = engine.server_->commands().Resolve(args);
    if (spec == nullptr) return RaiseError(L, "Invalid command passed to redis.acl_check_cmd()");
    const AclUser* user = engine.server_->acl().UserOf(run->ctx->client);
    lua_pushboolean(
        L, user != nullptr && Acl::Check(*user, *spec, flags, args) == AclVerdict::kAllowed);
    return 1;
  });
  SetVersion(L);
  lua_setglobal(L, "redis");
}

void ScriptEngine::RegisterLoadApi(lua_State* L) {
  lua_newtable(L);
  SetField(L, "register_function", RegisterFunction);
  SetField(L, "log", Log);
  SetNumber(L, "LOG_DEBUG", 0);
  SetNumber(L, "LOG_VERBOSE", 1);
  SetNumber(L, "LOG_NOTICE", 2);
  SetNumber(L, "LOG_WARNING", 3);
  SetVersion(L);
}

void ScriptEngine::Open() {
  heap_ = std::make_unique<HeapLimit>();
  lua_State* L = lua_newstate(LimitedAlloc, heap_.get());
  if (L == nullptr) {
    spdlog::critical("Lua state creation failed: out of memory");
    std::abort();
  }
  lua_atpanic(L, [](lua_State* L) -> int {
    Panic(L);
    return 0;
  });
  OpenLibrary(L, "", luaopen_base);
  OpenLibrary(L, LUA_TABLIBNAME, luaopen_table);
  OpenLibrary(L, LUA_STRLIBNAME, luaopen_string);
  OpenLibrary(L, LUA_MATHLIBNAME, luaopen_math);
  OpenLibrary(L, LUA_DBLIBNAME, luaopen_debug);
  OpenLibrary(L, "cjson", luaopen_cjson);
  OpenLibrary(L, "bit", luaopen_bit);
  OpenLibrary(L, "cmsgpack", OpenCmsgpack);
  OpenLibrary(L, "struct", OpenStruct);
  InstallGuards(L);
  // A long pattern match runs inside one C call, where the count hook never fires: the matcher
  // calls the hook itself now and then.
  InstallPatternFunctions(L, [](lua_State* L) { BusyHook(L, nullptr); });
  lua_pushcfunction(L, Pcall);
  lua_setglobal(L, "pcall");
  RegisterRedisApi(L);
  lua_getglobal(L, "math");
  SetField(L, "random", MathRandom);
  SetField(L, "randomseed", MathRandomseed);
  lua_pop(L, 1);

  if (luaL_loadbuffer(L, kSandboxLua, sizeof(kSandboxLua) - 1, "@sandbox") != 0) {
    spdlog::critical("Lua sandbox setup failed: {}", lua_tostring(L, -1));
    std::abort();
  }
  RegisterLoadApi(L);
  if (lua_pcall(L, 1, 6, 0) != 0) {
    spdlog::critical("Lua sandbox setup failed: {}", lua_tostring(L, -1));
    std::abort();
  }
  // Stack: handler, globals view, real globals, function env, its metatable, load globals.
  for (char* key : {&kLoadGlobalsKey, &kFunctionMetaKey, &kFunctionEnvKey, &kGlobalsKey}) {
    lua_pushlightuserdata(L, key);
    lua_insert(L, -2);
    lua_rawset(L, LUA_REGISTRYINDEX);
  }
  lua_pushlightuserdata(L, &kRunGlobalsKey);
  lua_pushvalue(L, -2);
  lua_rawset(L, LUA_REGISTRYINDEX);
  lua_replace(L, LUA_GLOBALSINDEX);  // scripts compiled from now on see the view
  lua_pushlightuserdata(L, &kHandlerKey);
  lua_insert(L, -2);
  lua_rawset(L, LUA_REGISTRYINDEX);
  lua_pushlightuserdata(L, &kScriptsKey);
  lua_newtable(L);
  lua_rawset(L, LUA_REGISTRYINDEX);
  L_ = L;
}

void ScriptEngine::Close() {
  if (L_ != nullptr) lua_close(L_);
  L_ = nullptr;
}

void ScriptEngine::Flush() {
  scripts_.clear();
  scripts_memory_ = 0;
  Rebuild();
}

void ScriptEngine::Rebuild() {
  if (running_ != nullptr) return;  // never under a running script (FLUSH is not allow-busy)
  std::map<std::string, Library> old = std::move(libraries_);
  libraries_.clear();
  Close();
  Open();
  for (const auto& [sha, script] : scripts_) {
    size_t shebang_length = 0;
    uint32_t flags = 0;
    (void)ParseShebang(script.body, &flags, &shebang_length);  // it parsed when it was loaded
    const Result<ScriptCode> stored =
        Store(sha, std::string_view(script.body).substr(shebang_length));
    if (!stored.ok()) {
      spdlog::error("Script {} does not compile in a fresh Lua state: {}", sha,
                    ScriptErrorText(stored));
    }
  }
  // The libraries loaded before, so they load again (Redis's functionsLibCreateFromCode).
  for (const auto& [name, library] : old) {
    const Result<ScriptCode, std::string> loaded =
        LoadLibraryInto(library.code, false, &libraries_);
    if (!loaded.ok()) {
      spdlog::error("Library {} does not load in a fresh Lua state: {}", name,
                    ScriptErrorText(loaded.failure()));
    }
  }
  IndexFunctions();
}

Result<ScriptCode> ScriptEngine::Store(const std::string& sha, std::string_view code) {
  Result<ScriptCode> compiled = CompileChunk(L_, code, "@user_script", ScriptCode::kScriptCompile);
  if (!compiled.ok()) return compiled;
  lua_pushlightuserdata(L_, &kScriptsKey);
  lua_rawget(L_, LUA_REGISTRYINDEX);
  lua_insert(L_, -2);
  lua_setfield(L_, -2, sha.c_str());
  lua_pop(L_, 1);
  return {};
}

size_t ScriptEngine::lua_memory() const {
  return static_cast<size_t>(lua_gc(L_, LUA_GCCOUNT, 0)) * 1024 +
         static_cast<size_t>(lua_gc(L_, LUA_GCCOUNTB, 0));
}

void ScriptEngine::AppendMemoryInfo(std::string* out) const {
  const std::string lua = std::to_string(lua_memory());
  *out += "used_memory_lua:" + lua + "\r\nused_memory_vm_eval:" + lua +
          "\r\nused_memory_scripts_eval:" + std::to_string(scripts_memory_) +
          "\r\nnumber_of_cached_scripts:" + std::to_string(scripts_.size()) +
          "\r\nnumber_of_functions:" + std::to_string(function_index_.size()) +
          "\r\nnumber_of_libraries:" + std::to_string(libraries_.size()) + "\r\n";
}

bool ScriptEngine::Exists(std::string_view sha) const {
  if (sha.size() != 40) return false;
  std::string lower(sha);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return scripts_.contains(lower);
}

Result<ScriptCode, std::string> ScriptEngine::Load(std::string_view body) {
  std::string sha = Sha1Hex(body);
  if (scripts_.contains(sha)) return sha;
  uint32_t flags = 0;
  size_t shebang_length = 0;
  if (Result<ScriptCode> r = ParseShebang(body, &flags, &shebang_length); !r.ok()) return r;
  if (Result<ScriptCode> r = Store(sha, body.substr(shebang_length)); !r.ok()) return r;
  scripts_memory_ += body.size() + sha.size();
  scripts_.emplace(sha, Script{std::string(body), flags});
  return sha;
}

ScriptEngine::KillResult ScriptEngine::Kill(bool eval) {
  if (running_ == nullptr) return KillResult::kNotBusy;
  if (running_->wrote) return KillResult::kUnkillable;
  if (running_->eval != eval) return KillResult::kWrongKind;
  running_->killed = true;
  return KillResult::kKilled;
}

void ScriptEngine::BusyHook(lua_State* L, lua_Debug*) {
  RunState* run = CurrentRun(L);
  if (run == nullptr) return;
  ServerContext& server = *run->engine->server_;
  if (!run->timed_out) {
    const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - run->start);
    if (elapsed.count() < server.config().busy_reply_threshold_ms) return;
    run->timed_out = true;
    spdlog::warn(
        "Slow script detected: still in execution after {} milliseconds. You can try killing "
        "the script using the {} command. Script name is: {}.",
        elapsed.count(), run->eval ? "SCRIPT KILL" : "FUNCTION KILL", *run->name);
    server.set_busy_error(run->eval ? kBusyScriptError : kBusyFunctionError);
  }
  server.ServeWhileBusy(run->ctx->client);
  if (!run->killed) return;
  spdlog::warn("Lua script killed by user with {}.", run->eval ? "SCRIPT KILL" : "FUNCTION KILL");
  // From now on every line raises again, so a pcall in the script cannot swallow the kill.
  lua_sethook(L, BusyHook, LUA_MASKLINE, 0);
  PushErrorTable(L, kScriptKilled);
  lua_error(L);
}

bool ScriptEngine::MayRun(CommandContext& ctx, uint32_t flags, bool read_only) {
  const bool stale = server_->RefusesStaleData();
  if (flags & kScriptEvalCompat) {
    // No shebang: only a stale replica refuses it up front; its writes are checked one by one.
    if (stale) ctx.reply.Error(kMasterDown);
    return !stale;
  }
  if (stale && !(flags & kScriptAllowStale)) {
    ctx.reply.Error(kScriptMasterDown);
    return false;
  }
  if (!(flags & kScriptNoWrites)) {
    // A script that may write is refused where a write would be, before it runs.
    if (server_->RefusesWrites(ctx.client)) {
      ctx.reply.Error(kScriptReadOnlyReplica);
      return false;
    }
    if (std::optional<std::string> refusal = ctx.dispatcher->DiskErrorRefusal()) {
      ctx.reply.Error(*refusal);
      return false;
    }
    if (read_only) {
      ctx.reply.Error(kScriptWriteInReadOnlyCall);
      return false;
    }
    if (server_->RefusesWritesForReplicas()) {
      ctx.reply.Error(kNoReplicas);
      return false;
    }
  }
  if (!(flags & (kScriptAllowOom | kScriptNoWrites)) && server_->OverMaxmemory()) {
    ctx.reply.Error(kScriptOom);
    return false;
  }
  return true;
}

void ScriptEngine::Run(CommandContext& ctx, const Eval& eval) {
  std::string sha;
  if (eval.by_sha) {
    sha.assign(eval.script);
    std::transform(sha.begin(), sha.end(), sha.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (sha.size() != 40 || !scripts_.contains(sha)) return ctx.reply.Error(kNoScript);
  } else {
    Result<ScriptCode, std::string> loaded = Load(eval.script);
    if (!loaded.ok()) return ctx.reply.Error(ScriptErrorText(loaded.failure()));
    sha = std::move(*loaded);
  }
  const uint32_t flags = scripts_.at(sha).flags;
  if (!MayRun(ctx, flags, eval.read_only)) return;
  RunState run{.engine = this,
               .ctx = &ctx,
               .read_only = eval.read_only || (flags & kScriptNoWrites) != 0,
               .allow_oom = (flags & kScriptAllowOom) != 0,
               .allow_cross_slot = (flags & (kScriptAllowCrossSlot | kScriptEvalCompat)) != 0,
               .db = ctx.client.db_index()};
  lua_State* L = L_;
  lua_settop(L, 0);
  // KEYS and ARGV, set in the real globals (the view reads through to them).
  lua_pushlightuserdata(L, &kGlobalsKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  for (const auto& [name, values] : {std::pair{"KEYS", eval.keys}, std::pair{"ARGV", eval.args}}) {
    PushArray(L, values);
    lua_setfield(L, -2, name);
  }
  lua_pop(L, 1);
  lua_pushlightuserdata(L, &kHandlerKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_pushlightuserdata(L, &kScriptsKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_getfield(L, -1, sha.c_str());
  lua_remove(L, -2);
  // Each run starts in the globals view, whatever an earlier run gave setfenv(1, ...).
  lua_pushlightuserdata(L, &kRunGlobalsKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_setfenv(L, -2);
  Execute(ctx, run, 0, sha);
  // KEYS and ARGV belong to this run alone (a function that reads them finds no such global).
  lua_pushlightuserdata(L, &kGlobalsKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_pushnil(L);
  lua_setfield(L, -2, "KEYS");
  lua_pushnil(L);
  lua_setfield(L, -2, "ARGV");
  lua_settop(L, 0);
}

void ScriptEngine::Execute(CommandContext& ctx, RunState& run, int nargs, const std::string& name) {
  const std::string_view command_name = ctx.client.last_command();
  BeginRun(run, name);
  const int status = lua_pcall(L_, nargs, 1, -(nargs + 2));
  // The reply is built aside: if the batch cannot be written, the script answers that error.
  std::string out;
  WriteOutcome(ctx, run, status, name, &out);
  EndRun(run, status);
  ctx.client.set_last_command(command_name);
  if (run.own_batch) {
    const storage::Status s = server_->keyspace().CommitBatch();
    if (!s.ok()) return ReplyError(ctx, types::OpFailure{types::OpStatus::kEngineError, s});
  }
  ctx.wrote = run.wrote;
  ctx.reply.Raw(out);
}

void ScriptEngine::BeginRun(RunState& run, const std::string& name) {
  lua_State* L = L_;
  lua_pushlightuserdata(L, &kRunKey);
  lua_pushlightuserdata(L, &run);
  lua_rawset(L, LUA_REGISTRYINDEX);
  run.name = &name;
  run.start = std::chrono::steady_clock::now();
  running_ = &run;
  heap_->limit = server_->config().lua_memory_limit;
  // Lua 5.1 has no emergency collection: garbage left near the bound is collected first.
  if (heap_->limit != 0 && heap_->used > heap_->limit / 2) lua_gc(L, LUA_GCCOLLECT, 0);
  heap_->enforce = true;
  // The hook and the heap bound stay armed through the error handler and the conversion of
  // the result: both run code the script chose (metamethods, tables of any shape).
  lua_sethook(L, BusyHook, LUA_MASKCOUNT, kBusyHookInstructions);
}

void ScriptEngine::WriteOutcome(CommandContext& ctx, const RunState& run, int status,
                                const std::string& name, std::string* out) {
  lua_State* L = L_;
  protocol::ReplyWriter writer(out, ctx.reply.protocol());
  if (status == LUA_ERRMEM) {
    writer.Error(std::string(kScriptOutOfMemory) + name);
    lua_pop(L, 1);
    return;
  }
  if (lua_istable(L, -1)) {
    // Raw: the result may be any table, with a metatable that raises on a missing field (_G).
    lua_pushstring(L, kErrorCountedField);
    lua_rawget(L, -2);
    ctx.error_counted = lua_toboolean(L, -1);
    lua_pop(L, 1);
  }
  if (status == 0) {
    WriteResult(L, run.resp, out, ctx.reply.protocol(), reply_limits_);
  } else if (!lua_istable(L, -1)) {
    const char* message = lua_isstring(L, -1) ? lua_tostring(L, -1) : "execution failure";
    writer.Error(ScriptRunError(name, message));
    lua_pop(L, 1);
  } else {
    writer.Error(ErrorTableText(L, name));
    lua_pop(L, 1);
  }
}

void ScriptEngine::EndRun(const RunState& run, int status) {
  lua_State* L = L_;
  lua_sethook(L, nullptr, 0, 0);
  heap_->enforce = false;
  running_ = nullptr;
  if (run.timed_out) {
    server_->set_busy_error({});
    spdlog::warn("Slow script ended after {} milliseconds.",
                 std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::steady_clock::now() - run.start)
                     .count());
  }
  lua_pop(L, 1);  // the error handler
  lua_pushlightuserdata(L, &kRunKey);
  lua_pushnil(L);
  lua_rawset(L, LUA_REGISTRYINDEX);
  // A step of garbage collection now and then, so Lua never runs a whole cycle at once.
  if (status == LUA_ERRMEM) {
    lua_gc(L, LUA_GCCOLLECT, 0);
  } else if (++runs_ % 50 == 0) {
    lua_gc(L, LUA_GCSTEP, 50);
  }
}

}  // namespace ebb::server::scripting
