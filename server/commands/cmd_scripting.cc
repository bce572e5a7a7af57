// Scripting: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO, SCRIPT, FCALL, FCALL_RO and FUNCTION, as
// Redis 7 answers them. The
// interpreter, the sandbox and the conversions are server/scripting/ (script_engine.h); this file
// parses the requests. docs/scripting.md describes what scripts can do.
#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/glob.h"
#include "protocol/reply_writer.h"
#include "server/commands/register.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/scripting/script_engine.h"
#include "server/services/command_docs.h"
#include "server/services/server_context.h"

namespace ebb::server {
namespace {

struct EvalOptions {
  std::string_view script;
  size_t numkeys = 0;  // the first numkeys arguments after it are KEYS, the rest ARGV
};

// script numkeys [key ...] [arg ...]; `bad_numkeys` answers a numkeys that is not an integer.
EvalOptions ParseScriptCall(ArgParser& args, std::string_view bad_numkeys) {
  EvalOptions o;
  o.script = args.Next();
  const int64_t numkeys = args.Int64(bad_numkeys);
  const size_t rest = args.remaining();
  while (args.HasMore()) args.Next();
  if (args.failed()) return o;
  if (numkeys > static_cast<int64_t>(rest)) {
    args.Fail(kNumKeysTooLarge);
  } else if (numkeys < 0) {
    args.Fail(kNumKeysNegative);
  }
  o.numkeys = static_cast<size_t>(std::max<int64_t>(numkeys, 0));
  return o;
}

EvalOptions ParseEval(ArgParser& args) { return ParseScriptCall(args, {}); }
EvalOptions ParseFcall(ArgParser& args) { return ParseScriptCall(args, kFcallBadNumKeys); }

template <bool kBySha, bool kReadOnly>
void ExecuteEval(CommandContext& ctx, const EvalOptions& o) {
  const auto rest = ctx.args.subspan(ctx.first_arg + 2);
  ctx.server.scripts().Run(ctx, {.script = o.script,
                                 .by_sha = kBySha,
                                 .read_only = kReadOnly,
                                 .keys = rest.first(o.numkeys),
                                 .args = rest.subspan(o.numkeys)});
}

void ExecuteScriptLoad(CommandContext& ctx, const KeyOptions& o) {
  const Result<scripting::ScriptCode, std::string> sha = ctx.server.scripts().Load(o.key);
  if (!sha.ok()) return ctx.reply.Error(scripting::ScriptErrorText(sha.failure()));
  ctx.reply.Bulk(*sha);
}

// SCRIPT EXISTS sha1 [sha1 ...]
struct ShasOptions {
  std::vector<std::string_view> shas;
};
ShasOptions ParseShas(ArgParser& args) { return {RemainingArgs(args)}; }

void ExecuteScriptExists(CommandContext& ctx, const ShasOptions& o) {
  ctx.reply.ArrayHeader(o.shas.size());
  for (std::string_view sha : o.shas) ctx.reply.Integer(ctx.server.scripts().Exists(sha) ? 1 : 0);
}

struct FlushOptions {};

// SCRIPT FLUSH [ASYNC|SYNC]: both flush at once (the scripts are small and few).
FlushOptions ParseScriptFlush(ArgParser& args) {
  if (args.HasMore()) {
    if (args.Choice({"SYNC", "ASYNC"}) < 0 || args.HasMore()) {
      args.Fail(kScriptFlushOption);
    }
  }
  return {};
}

void ExecuteScriptFlush(CommandContext& ctx, const FlushOptions&) {
  ctx.server.scripts().Flush();
  ctx.reply.Ok();
}

// SCRIPT KILL (kEval = true) and FUNCTION KILL: served while a script is busy (kCmdAllowBusy).
template <bool kEval>
void ExecuteKill(CommandContext& ctx, const NoOptions&) {
  using Result = scripting::ScriptEngine::KillResult;
  switch (ctx.server.scripts().Kill(kEval)) {
    case Result::kNotBusy:
      return ctx.reply.Error(kNotBusy);
    case Result::kUnkillable:
      return ctx.reply.Error(kUnkillable);
    case Result::kWrongKind:
      return ctx.reply.Error(kEval ? kBusyFunctionError : kBusyScriptError);
    case Result::kKilled:
      return ctx.reply.Ok();
  }
}

template <bool kReadOnly>
void ExecuteFcall(CommandContext& ctx, const EvalOptions& o) {
  const auto rest = ctx.args.subspan(ctx.first_arg + 2);
  ctx.server.scripts().CallFunction(ctx, o.script, kReadOnly, rest.first(o.numkeys),
                                    rest.subspan(o.numkeys));
}

struct FunctionLoadOptions {
  bool replace = false;
  std::string_view code;
};

// FUNCTION LOAD [REPLACE] code
FunctionLoadOptions ParseFunctionLoad(ArgParser& args) {
  FunctionLoadOptions o;
  while (args.remaining() > 1) {
    if (args.Token("REPLACE")) {
      o.replace = true;
    } else {
      args.Fail(UnknownOptionGivenError(args.Next()));
    }
  }
  if (!args.HasMore() && !args.failed()) args.Fail(kFunctionCodeMissing);
  o.code = args.Next();
  return o;
}

void ExecuteFunctionLoad(CommandContext& ctx, const FunctionLoadOptions& o) {
  const Result<scripting::ScriptCode, std::string> name =
      ctx.server.scripts().LoadLibrary(o.code, o.replace);
  if (!name.ok()) return ctx.reply.Error(scripting::ScriptErrorText(name.failure()));
  ctx.reply.Bulk(*name);
}

void ExecuteFunctionDelete(CommandContext& ctx, const KeyOptions& o) {
  const Result<scripting::ScriptCode> deleted = ctx.server.scripts().DeleteLibrary(o.key);
  if (!deleted.ok()) return ctx.reply.Error(scripting::ScriptErrorText(deleted));
  ctx.reply.Ok();
}

FlushOptions ParseFunctionFlush(ArgParser& args) {
  if (args.remaining() > 1) args.Fail(SubcommandSyntaxError("FUNCTION", "flush"));
  if (args.HasMore()) {
    if (args.Choice({"SYNC", "ASYNC"}) < 0 || args.HasMore()) {
      args.Fail(kFunctionFlushOption);
    }
  }
  return {};
}

void ExecuteFunctionFlush(CommandContext& ctx, const FlushOptions&) {
  const Result<scripting::ScriptCode> flushed = ctx.server.scripts().FlushLibraries();
  if (!flushed.ok()) return ctx.reply.Error(scripting::ScriptErrorText(flushed));
  ctx.reply.Ok();
}

struct FunctionListOptions {
  bool with_code = false;
  std::optional<std::string_view> pattern;
};

// FUNCTION LIST [WITHCODE] [LIBRARYNAME pattern]
FunctionListOptions ParseFunctionList(ArgParser& args) {
  FunctionListOptions o;
  while (args.HasMore()) {
    if (args.Token("WITHCODE")) {
      if (o.with_code) args.Fail(kUnknownArgumentWithCode);
      o.with_code = true;
    } else if (args.Token("LIBRARYNAME")) {
      if (o.pattern) args.Fail(kUnknownArgumentLibraryName);
      if (!args.HasMore()) {
        args.Fail(kLibraryNameNotGiven);
      } else {
        o.pattern = args.Next();
      }
    } else {
      args.Fail(UnknownArgumentError(args.Next()));
    }
  }
  return o;
}

void ExecuteFunctionList(CommandContext& ctx, const FunctionListOptions& o) {
  using scripting::ScriptEngine;
  std::vector<const ScriptEngine::Library*> listed;
  for (const auto& [name, library] : ctx.server.scripts().libraries()) {
    if (!o.pattern || GlobMatch(*o.pattern, name)) listed.push_back(&library);
  }
  protocol::ReplyWriter& r = ctx.reply;
  r.ArrayHeader(listed.size());
  for (const ScriptEngine::Library* library : listed) {
    r.MapHeader(o.with_code ? 4 : 3);
    r.Bulk("library_name");
    r.Bulk(library->name);
    r.Bulk("engine");
    r.Bulk("LUA");
    r.Bulk("functions");
    r.ArrayHeader(library->functions.size());
    for (const auto& [name, f] : library->functions) {
      r.MapHeader(3);
      r.Bulk("name");
      r.Bulk(f.name);
      r.Bulk("description");
      if (f.description.empty()) {
        r.Null();
      } else {
        r.Bulk(f.description);
      }
      r.Bulk("flags");
      std::vector<std::string_view> flags;
      for (const scripting::ScriptFlagName& flag : scripting::kScriptFlagNames) {
        if (f.flags & flag.flag) flags.push_back(flag.name);
      }
      r.SetHeader(flags.size());
      for (std::string_view flag : flags) r.Bulk(flag);
    }
    if (o.with_code) {
      r.Bulk("library_code");
      r.Bulk(library->code);
    }
  }
}

void ExecuteFunctionDump(CommandContext& ctx, const NoOptions&) {
  ctx.reply.Bulk(ctx.server.scripts().DumpLibraries());
}

struct FunctionRestoreOptions {
  std::string_view payload;
  scripting::ScriptEngine::RestorePolicy policy = scripting::ScriptEngine::RestorePolicy::kAppend;
};

// FUNCTION RESTORE payload [FLUSH|APPEND|REPLACE]
FunctionRestoreOptions ParseFunctionRestore(ArgParser& args) {
  using Policy = scripting::ScriptEngine::RestorePolicy;
  FunctionRestoreOptions o;
  if (args.remaining() > 2) args.Fail(SubcommandSyntaxError("FUNCTION", "restore"));
  o.payload = args.Next();
  if (args.HasMore()) {
    switch (args.Choice({"FLUSH", "APPEND", "REPLACE"})) {
      case 0:
        o.policy = Policy::kFlush;
        break;
      case 1:
        o.policy = Policy::kAppend;
        break;
      case 2:
        o.policy = Policy::kReplace;
        break;
      default:
        args.Fail(kRestorePolicy);
    }
  }
  return o;
}

void ExecuteFunctionRestore(CommandContext& ctx, const FunctionRestoreOptions& o) {
  const Result<scripting::ScriptCode> restored =
      ctx.server.scripts().RestoreLibraries(o.payload, o.policy);
  if (!restored.ok()) return ctx.reply.Error(scripting::ScriptErrorText(restored));
  ctx.reply.Ok();
}

// running_script is set while FUNCTION STATS is served during a busy script (kCmdAllowBusy).
void ExecuteFunctionStats(CommandContext& ctx, const NoOptions&) {
  const scripting::ScriptEngine& scripts = ctx.server.scripts();
  protocol::ReplyWriter& r = ctx.reply;
  r.MapHeader(2);
  r.Bulk("running_script");
  if (const scripting::ScriptEngine::RunState* run = scripts.running()) {
    r.MapHeader(3);
    r.Bulk("name");
    r.Bulk(*run->name);
    r.Bulk("command");
    r.ArrayHeader(run->ctx->args.size());
    for (std::string_view arg : run->ctx->args) r.Bulk(arg);
    r.Bulk("duration_ms");
    r.Integer(std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::steady_clock::now() - run->start)
                  .count());
  } else {
    r.Null();
  }
  r.Bulk("engines");
  r.MapHeader(1);
  r.Bulk("LUA");
  r.MapHeader(2);
  r.Bulk("libraries_count");
  r.Integer(static_cast<int64_t>(scripts.libraries().size()));
  r.Bulk("functions_count");
  r.Integer(static_cast<int64_t>(scripts.function_count()));
}

const std::vector<ArgSpec> kFcallArguments = {
    {.name = "function"},
    {.name = "numkeys", .type = ArgType::kInteger},
    {.name = "key", .type = ArgType::kKey, .optional = true, .multiple = true},
    {.name = "arg", .optional = true, .multiple = true}};

const std::vector<ArgSpec> kEvalArguments = {
    {.name = "script"},
    {.name = "numkeys", .type = ArgType::kInteger},
    {.name = "key", .type = ArgType::kKey, .optional = true, .multiple = true},
    {.name = "arg", .optional = true, .multiple = true}};
const std::vector<ArgSpec> kEvalShaArguments = {
    {.name = "sha1"},
    {.name = "numkeys", .type = ArgType::kInteger},
    {.name = "key", .type = ArgType::kKey, .optional = true, .multiple = true},
    {.name = "arg", .optional = true, .multiple = true}};

// A script runs once, its reads waiting for the disk inline (as EXEC), and may write.
constexpr uint32_t kEvalFlags = kCmdNoScript | kCmdStale | kCmdNoRestart | kCmdSkipMonitor;

}  // namespace

std::vector<CommandSpec> ScriptingCommands() {
  return {
      {.name = "eval",
       .arity = -3,
       .flags = kEvalFlags,
       .keys = kNumkeysKeys,
       .group = "scripting",
       .since = "2.6.0",
       .summary = "Executes a server-side Lua script.",
       .complexity = "Depends on the script that is executed.",
       .arguments = kEvalArguments,
       .handler = Handler<ParseEval, ExecuteEval<false, false>>},
      {.name = "evalsha",
       .arity = -3,
       .flags = kEvalFlags,
       .keys = kNumkeysKeys,
       .group = "scripting",
       .since = "2.6.0",
       .summary = "Executes a server-side Lua script by SHA1 digest.",
       .complexity = "Depends on the script that is executed.",
       .arguments = kEvalShaArguments,
       .handler = Handler<ParseEval, ExecuteEval<true, false>>},
      {.name = "eval_ro",
       .arity = -3,
       .flags = kEvalFlags | kCmdReadOnly,
       .keys = kNumkeysKeys,
       .group = "scripting",
       .since = "7.0.0",
       .summary = "Executes a read-only server-side Lua script.",
       .complexity = "Depends on the script that is executed.",
       .arguments = kEvalArguments,
       .handler = Handler<ParseEval, ExecuteEval<false, true>>},
      {.name = "evalsha_ro",
       .arity = -3,
       .flags = kEvalFlags | kCmdReadOnly,
       .keys = kNumkeysKeys,
       .group = "scripting",
       .since = "7.0.0",
       .summary = "Executes a read-only server-side Lua script by SHA1 digest.",
       .complexity = "Depends on the script that is executed.",
       .arguments = kEvalShaArguments,
       .handler = Handler<ParseEval, ExecuteEval<true, true>>},
      {.name = "fcall",
       .arity = -3,
       .flags = kEvalFlags,
       .keys = kNumkeysKeys,
       .group = "scripting",
       .since = "7.0.0",
       .summary = "Invokes a function.",
       .complexity = "Depends on the function that is executed.",
       .arguments = kFcallArguments,
       .handler = Handler<ParseFcall, ExecuteFcall<false>>},
      {.name = "fcall_ro",
       .arity = -3,
       .flags = kEvalFlags | kCmdReadOnly,
       .keys = kNumkeysKeys,
       .group = "scripting",
       .since = "7.0.0",
       .summary = "Invokes a read-only function.",
       .complexity = "Depends on the function that is executed.",
       .arguments = kFcallArguments,
       .handler = Handler<ParseFcall, ExecuteFcall<true>>},
      {.name = "function",
       .arity = -2,
       .group = "scripting",
       .since = "7.0.0",
       .summary = "A container for function commands.",
       .complexity = "Depends on subcommand.",
       .subcommands =
           {{.name = "load",
             .arity = -3,
             .flags = kCmdNoScript | kCmdWrite | kCmdDenyOom,
             .group = "scripting",
             .since = "7.0.0",
             .summary = "Creates a library.",
             .complexity = "O(1) (considering compilation time is redundant)",
             .arguments = {{.name = "replace",
                            .type = ArgType::kPureToken,
                            .token = "REPLACE",
                            .optional = true},
                           {.name = "function-code"}},
             .help = {{.usage = "LOAD [REPLACE] <FUNCTION CODE>",
                       .text = "Create a new library with the given library name and code."}},
             .handler = Handler<ParseFunctionLoad, ExecuteFunctionLoad>},
            {.name = "delete",
             .arity = 3,
             .flags = kCmdNoScript | kCmdWrite,
             .group = "scripting",
             .since = "7.0.0",
             .summary = "Deletes a library and its functions.",
             .arguments = {{.name = "library-name"}},
             .help = {{.usage = "DELETE <LIBRARY NAME>", .text = "Delete the given library."}},
             .handler = Handler<ParseKey, ExecuteFunctionDelete>},
            {.name = "flush",
             .arity = -2,
             .flags = kCmdNoScript | kCmdWrite,
             .group = "scripting",
             .since = "7.0.0",
             .summary = "Deletes all libraries and functions.",
             .complexity = "O(N) where N is the number of functions deleted",
             .arguments =
                 {{.name = "flush-type",
                   .type = ArgType::kOneOf,
                   .optional = true,
                   .children = {{.name = "async", .type = ArgType::kPureToken, .token = "ASYNC"},
                                {.name = "sync", .type = ArgType::kPureToken, .token = "SYNC"}}}},
             .help = {{.usage = "FLUSH [ASYNC|SYNC]",
                       .text = "Deletes all the libraries and functions."}},
             .handler = Handler<ParseFunctionFlush, ExecuteFunctionFlush>},
            {.name = "list",
             .arity = -2,
             .flags = kCmdNoScript,
             .group = "scripting",
             .since = "7.0.0",
             .summary = "Returns information about all libraries.",
             .complexity = "O(N) where N is the number of functions",
             .arguments =
                 {{.name = "library-name-pattern", .token = "LIBRARYNAME", .optional = true},
                  {.name = "withcode",
                   .type = ArgType::kPureToken,
                   .token = "WITHCODE",
                   .optional = true}},
             .help = {{.usage = "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
                       .text = "Return general information on all the libraries."}},
             .handler = Handler<ParseFunctionList, ExecuteFunctionList>},
            {.name = "dump",
             .arity = 2,
             .flags = kCmdNoScript,
             .group = "scripting",
             .since = "7.0.0",
             .summary = "Dumps all libraries into a serialized binary payload.",
             .complexity = "O(N) where N is the number of functions",
             .help = {{.usage = "DUMP",
                       .text = "Return a serialized payload representing the current "
                               "libraries."}},
             .handler = Handler<ParseNothing, ExecuteFunctionDump>},
            {.name = "restore",
             .arity = -3,
             .flags = kCmdNoScript | kCmdWrite | kCmdDenyOom,
             .group = "scripting",
             .since = "7.0.0",
             .summary = "Restores all libraries from a payload.",
             .complexity = "O(N) where N is the number of functions on the payload",
             .arguments =
                 {{.name = "serialized-value"},
                  {.name = "policy",
                   .type = ArgType::kOneOf,
                   .optional = true,
                   .children =
                       {{.name = "flush", .type = ArgType::kPureToken, .token = "FLUSH"},
                        {.name = "append", .type = ArgType::kPureToken, .token = "APPEND"},
                        {.name = "replace", .type = ArgType::kPureToken, .token = "REPLACE"}}}},
             .help = {{.usage = "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
                       .text = "Restore the libraries represented by the given payload."}},
             .handler = Handler<ParseFunctionRestore, ExecuteFunctionRestore>},
            {.name = "stats",
             .arity = 2,
             .flags = kCmdNoScript | kCmdAllowBusy,
             .group = "scripting",
             .since = "7.0.0",
             .summary = "Returns information about a function during execution.",
             .help = {{.usage = "STATS",
                       .text = "Return information about the current function running."}},
             .handler = Handler<ParseNothing, ExecuteFunctionStats>},
            {.name = "kill",
             .arity = 2,
             .flags = kCmdNoScript | kCmdAllowBusy,
             .group = "scripting",
             .since = "7.0.0",
             .summary = "Terminates a function during execution.",
             .help = {{.usage = "KILL", .text = "Kill the current running function."}},
             .handler = Handler<ParseNothing, ExecuteKill<false>>},
            HelpSubcommand("scripting", "Returns helpful text about the different subcommands.",
                           kCmdLoading | kCmdStale, "7.0.0")}},
      {.name = "script",
       .arity = -2,
       .group = "scripting",
       .since = "2.6.0",
       .summary = "A container for Lua scripts management commands.",
       .complexity = "Depends on subcommand.",
       .subcommands =
           {{.name = "load",
             .arity = 3,
             .flags = kCmdNoScript | kCmdStale,
             .group = "scripting",
             .since = "2.6.0",
             .summary = "Loads a server-side Lua script to the script cache.",
             .complexity = "O(N) with N being the length in bytes of the script body.",
             .arguments = {{.name = "script"}},
             .help = {{.usage = "LOAD <script>",
                       .text = "Load a script into the scripts cache without executing it."}},
             .handler = Handler<ParseKey, ExecuteScriptLoad>},
            {.name = "exists",
             .arity = -3,
             .flags = kCmdNoScript | kCmdStale,
             .group = "scripting",
             .since = "2.6.0",
             .summary = "Determines whether server-side Lua scripts exist in the script cache.",
             .complexity = "O(N) with N being the number of scripts to check (so checking a "
                           "single script is an O(1) operation).",
             .arguments = {{.name = "sha1", .multiple = true}},
             .help = {{.usage = "EXISTS <sha1> [<sha1> ...]",
                       .text = "Return information about the existence of the scripts in the "
                               "script cache."}},
             .handler = Handler<ParseShas, ExecuteScriptExists>},
            {.name = "flush",
             .arity = -2,
             .flags = kCmdNoScript,
             .group = "scripting",
             .since = "2.6.0",
             .summary = "Removes all server-side Lua scripts from the script cache.",
             .complexity = "O(N) with N being the number of scripts in cache",
             .arguments =
                 {{.name = "flush-type",
                   .type = ArgType::kOneOf,
                   .optional = true,
                   .children = {{.name = "async", .type = ArgType::kPureToken, .token = "ASYNC"},
                                {.name = "sync", .type = ArgType::kPureToken, .token = "SYNC"}}}},
             .help = {{.usage = "FLUSH [ASYNC|SYNC]",
                       .text = "Flush the Lua scripts cache. Very dangerous on replicas.\n"
                               "When called without the optional mode argument, the behavior "
                               "is determined by the\nlazyfree-lazy-user-flush configuration "
                               "directive. Valid modes are:\n* ASYNC: Asynchronously flush the "
                               "scripts cache.\n* SYNC: Synchronously flush the scripts cache."}},
             .handler = Handler<ParseScriptFlush, ExecuteScriptFlush>},
            {.name = "kill",
             .arity = 2,
             .flags = kCmdNoScript | kCmdAllowBusy,
             .group = "scripting",
             .since = "2.6.0",
             .summary = "Terminates a server-side Lua script during execution.",
             .help = {{.usage = "KILL", .text = "Kill the currently executing Lua script."}},
             .handler = Handler<ParseNothing, ExecuteKill<true>>},
            HelpSubcommand("scripting", "Returns helpful text about the different subcommands.",
                           kCmdLoading | kCmdStale, "5.0.0")}},
  };
}

}  // namespace ebb::server
