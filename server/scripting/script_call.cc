// ScriptEngine's redis.call and redis.pcall: a running script's command, read from the Lua
// stack, checked as Redis checks a script's calls (Dispatch's refusals) and run through the
// dispatcher on the calling client's behalf (script_engine.h).
#include <cstdio>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include "protocol/reply_writer.h"
#include "server/acl/acl.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/dispatch/dispatcher.h"
#include "server/scripting/lua_registry.h"
#include "server/scripting/lua_values.h"
#include "server/scripting/script_engine.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"

namespace ebb::server::scripting {

ScriptEngine::RunState* ScriptEngine::CurrentRun(lua_State* L) {
  lua_pushlightuserdata(L, &kRunKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  auto* run = static_cast<RunState*>(lua_touserdata(L, -1));
  lua_pop(L, 1);
  return run;
}

int ScriptEngine::Call(lua_State* L, bool raise) {
  RunState* run = CurrentRun(L);
  if (run == nullptr) {
    return RaiseError(L, kScriptCallOutsideScript.data());
  }
  ScriptEngine& engine = *run->engine;
  const int argc = lua_gettop(L);
  if (argc == 0) {
    PushErrorTable(L, kScriptCallNoArguments);
    return raise ? lua_error(L) : 1;
  }
  if (!engine.ReadCallArgs(L, argc)) {
    PushErrorTable(L, kScriptCallBadArguments);
    return raise ? lua_error(L) : 1;
  }
  bool error;
  if (engine.Dispatch(*run)) {
    PushReply(L, engine.reply_);
    error = !engine.reply_.empty() && engine.reply_[0] == '-';
  } else {
    PushErrorTable(L, engine.reply_);
    error = true;
  }
  if (!error) return 1;
  // Counted in INFO errorstats already (the command's reply, or its refusal): the script's own
  // reply passing it on is not counted again.
  lua_pushstring(L, kErrorCountedField);
  lua_pushboolean(L, 1);
  lua_rawset(L, -3);
  return raise ? lua_error(L) : 1;
}

bool ScriptEngine::ReadCallArgs(lua_State* L, int argc) {
  if (args_.size() < static_cast<size_t>(argc)) args_.resize(argc);
  bool strings = true;
  for (int i = 1; i <= argc && strings; ++i) {
    std::string& arg = args_[i - 1];
    if (lua_type(L, i) == LUA_TNUMBER) {
      // Not lua_tolstring: Lua's "%.14g" would lose precision.
      char buffer[64];
      const int n =
          std::snprintf(buffer, sizeof(buffer), "%.17g", static_cast<double>(lua_tonumber(L, i)));
      arg.assign(buffer, n);
    } else if (lua_type(L, i) == LUA_TSTRING) {
      size_t length = 0;
      const char* s = lua_tolstring(L, i, &length);
      arg.assign(s, length);
    } else {
      strings = false;
    }
  }
  lua_pop(L, argc);
  if (strings) arg_views_.assign(args_.begin(), args_.begin() + argc);
  return strings;
}

bool ScriptEngine::Dispatch(RunState& run) {
  reply_.clear();
  const std::span<const std::string_view> args(arg_views_);
  const ResolvedCommand row = server_->commands().Resolve(args);
  const CommandSpec* spec = row.spec;
  const uint32_t flags = row.flags;
  auto refuse = [&](std::string_view error) {
    reply_.assign(error);
    if (run.ctx->dispatcher != nullptr) run.ctx->dispatcher->CountScriptRefusal(spec, error);
    return false;
  };
  if (spec == nullptr) return refuse(kScriptUnknownCommand);
  if (spec->handler == nullptr || !ArityOk(spec->arity, args.size())) {
    return refuse(kScriptWrongArity);
  }
  if (flags & kCmdNoScript) return refuse(kScriptCommandNotAllowed);
  // Only an allow-stale script runs on a stale replica; it may call only what a stale replica
  // serves.
  if (!(flags & kCmdStale) && server_->RefusesStaleData()) {
    return refuse(kScriptStaleReplica);
  }
  if (flags & kCmdDebug) {
    if (!AllowsProtectedAction(server_->config().enable_debug_command,
                               run.ctx->client.is_local())) {
      return refuse("-" + std::string(kDebugNotAllowed));
    }
  }
  const AclUser* user = server_->acl().UserOf(run.ctx->client);
  if (user != nullptr && !user->unrestricted()) {
    const AclVerdict verdict = server_->acl().CheckAndLog(
        run.ctx->client, *user, *spec, flags, args, AclLogContext::kLua, server_->clock().NowMs());
    if (verdict != AclVerdict::kAllowed) return refuse(AclScriptDeniedError(verdict));
  }
  if (flags & kCmdWrite) {
    if (run.read_only) return refuse(kScriptWriteFromReadOnly);
    if (server_->RefusesWrites(run.ctx->client)) return refuse("-" + std::string(kReadOnlyReplica));
    if (server_->RefusesWritesForReplicas()) return refuse("-" + std::string(kNoReplicas));
    // Above maxmemory a script may go on writing once it has written (Redis's scriptVerifyOOM).
    if ((flags & kCmdDenyOom) && !run.allow_oom && !run.wrote && server_->OverMaxmemory()) {
      return refuse("-" + std::string(kOomError));
    }
    run.wrote = true;
    // The batch opens at the first write: until then there is nothing for reads to see in it.
    if (server_->has_keyspace() && !server_->keyspace().in_batch()) {
      server_->keyspace().BeginBatch();
      run.own_batch = true;
    }
  }
  if (server_->cluster() != nullptr && run.ctx->dispatcher != nullptr) {
    // On a cluster node a script may touch only keys of this node, in one slot.
    if (std::optional<std::string_view> refusal = run.ctx->dispatcher->ScriptCallRefusal(
            *spec, flags, args, run.allow_cross_slot, run.ctx->client)) {
      return refuse(*refusal);
    }
  }
  Client& client = run.ctx->client;
  const int caller_db = client.db_index();
  const int caller_resp = client.resp();
  client.set_db_index(run.db);
  client.set_resp(run.resp);
  protocol::ReplyWriter writer(&reply_, run.resp);
  run.ctx->dispatcher->Run(*spec, row.first_arg, args, client, writer, Dispatcher::Caller::kScript);
  run.db = client.db_index();
  client.set_db_index(caller_db);
  client.set_resp(caller_resp);
  return true;
}

}  // namespace ebb::server::scripting
