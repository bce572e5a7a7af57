// Scripting: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT, as Redis 7 answers them. The
// interpreter, the sandbox and the conversions are server/scripting/ (script_engine.h); this file
// parses the requests. docs/scripting.md describes what scripts can do.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/reply_writer.h"
#include "server/command.h"
#include "server/command_docs.h"
#include "server/commands/register.h"
#include "server/scripting/script_engine.h"
#include "server/server_context.h"

namespace ebb::server {
namespace {

struct EvalOptions {
  std::string_view script;
  size_t numkeys = 0;  // the first numkeys arguments after it are KEYS, the rest ARGV
};

// script numkeys [key ...] [arg ...]
EvalOptions ParseEval(ArgParser& args) {
  EvalOptions o;
  o.script = args.Next();
  const int64_t numkeys = args.Int64();
  const size_t rest = args.remaining();
  while (args.HasMore()) args.Next();
  if (args.failed()) return o;
  if (numkeys > static_cast<int64_t>(rest)) {
    args.Fail("ERR Number of keys can't be greater than number of args");
  } else if (numkeys < 0) {
    args.Fail("ERR Number of keys can't be negative");
  }
  o.numkeys = static_cast<size_t>(std::max<int64_t>(numkeys, 0));
  return o;
}

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
  std::string sha;
  std::string error;
  if (!ctx.server.scripts().Load(o.key, &sha, &error)) return ctx.reply.Error(error);
  ctx.reply.Bulk(sha);
}

void ExecuteScriptExists(CommandContext& ctx, const RestOptions& o) {
  ctx.reply.ArrayHeader(o.args.size());
  for (std::string_view sha : o.args) ctx.reply.Integer(ctx.server.scripts().Exists(sha) ? 1 : 0);
}

struct FlushOptions {};

// SCRIPT FLUSH [ASYNC|SYNC]: both flush at once (the scripts are small and few).
FlushOptions ParseScriptFlush(ArgParser& args) {
  if (args.HasMore()) {
    if (args.Choice({"SYNC", "ASYNC"}) < 0 || args.HasMore()) {
      args.Fail("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
    }
  }
  return {};
}

void ExecuteScriptFlush(CommandContext& ctx, const FlushOptions&) {
  ctx.server.scripts().Flush();
  ctx.reply.Ok();
}

// A script runs to its end before the server reads another request, so when SCRIPT KILL runs
// there is never one to kill.
void ExecuteScriptKill(CommandContext& ctx, const NoOptions&) {
  ctx.reply.Error("NOTBUSY No scripts in execution right now.");
}

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
constexpr uint32_t kEvalFlags = kCmdNoScript | kCmdStale | kCmdNoRestart;

}  // namespace

std::vector<CommandSpec> ScriptingCommands() {
  return {
      {.name = "eval",
       .arity = -3,
       .flags = kEvalFlags,
       .group = "scripting",
       .since = "2.6.0",
       .summary = "Executes a server-side Lua script.",
       .complexity = "Depends on the script that is executed.",
       .arguments = kEvalArguments,
       .handler = Handler<ParseEval, ExecuteEval<false, false>>},
      {.name = "evalsha",
       .arity = -3,
       .flags = kEvalFlags,
       .group = "scripting",
       .since = "2.6.0",
       .summary = "Executes a server-side Lua script by SHA1 digest.",
       .complexity = "Depends on the script that is executed.",
       .arguments = kEvalShaArguments,
       .handler = Handler<ParseEval, ExecuteEval<true, false>>},
      {.name = "eval_ro",
       .arity = -3,
       .flags = kEvalFlags | kCmdReadOnly,
       .group = "scripting",
       .since = "7.0.0",
       .summary = "Executes a read-only server-side Lua script.",
       .complexity = "Depends on the script that is executed.",
       .arguments = kEvalArguments,
       .handler = Handler<ParseEval, ExecuteEval<false, true>>},
      {.name = "evalsha_ro",
       .arity = -3,
       .flags = kEvalFlags | kCmdReadOnly,
       .group = "scripting",
       .since = "7.0.0",
       .summary = "Executes a read-only server-side Lua script by SHA1 digest.",
       .complexity = "Depends on the script that is executed.",
       .arguments = kEvalShaArguments,
       .handler = Handler<ParseEval, ExecuteEval<true, true>>},
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
             .handler = Handler<ParseRest, ExecuteScriptExists>},
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
             .flags = kCmdNoScript,
             .group = "scripting",
             .since = "2.6.0",
             .summary = "Terminates a server-side Lua script during execution.",
             .help = {{.usage = "KILL", .text = "Kill the currently executing Lua script."}},
             .handler = Handler<ParseNothing, ExecuteScriptKill>},
            HelpSubcommand("scripting", "Returns helpful text about the different subcommands.",
                           kCmdLoading | kCmdStale, "5.0.0")}},
  };
}

}  // namespace ebb::server
