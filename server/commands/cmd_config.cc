// CONFIG GET|SET|RESETSTAT|REWRITE|HELP over the ConfigRegistry. Changes reach the engine and the
// types through the registry's change hook (server/main.cc).
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/acl/acl.h"
#include "server/commands/register.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/services/command_docs.h"
#include "server/services/server_context.h"

namespace ebb::server {
namespace {

// CONFIG GET pattern [pattern ...]: a map of every matching option, each once.
struct GetOptions {
  std::vector<std::string_view> patterns;
};
GetOptions ParseGet(ArgParser& args) { return {RemainingArgs(args)}; }

void ExecuteGet(CommandContext& ctx, const GetOptions& o) {
  std::vector<std::pair<std::string, std::string>> found;
  std::set<std::string> seen;
  for (std::string_view pattern : o.patterns) {
    for (auto& [name, value] : ctx.server.config_registry().Get(pattern)) {
      if (seen.insert(name).second) found.emplace_back(name, value);
    }
  }
  ctx.reply.MapHeader(found.size());
  for (const auto& [name, value] : found) {
    ctx.reply.Bulk(name);
    ctx.reply.Bulk(value);
  }
}

// CONFIG SET name value [name value ...]: each name once.
struct SetOptions {
  std::vector<std::string_view> pairs;  // name, value, name, value, ...
};
SetOptions ParseSet(ArgParser& args) {
  if (args.remaining() % 2 != 0) {
    args.Fail(WrongArgsError("config|set"));
    return {};
  }
  SetOptions o{RemainingArgs(args)};
  std::set<std::string> names;
  for (size_t i = 0; i < o.pairs.size(); i += 2) {
    const std::string lower = AsciiLower(o.pairs[i]);
    if (!names.insert(lower).second) {
      args.Fail(ConfigSetFailedError(lower, "duplicate parameter"));
      break;
    }
  }
  return o;
}

// All or nothing, as Redis 7: a failed value undoes the ones set before it.
void ExecuteSet(CommandContext& ctx, const SetOptions& o) {
  ConfigRegistry& registry = ctx.server.config_registry();
  const bool may_set_protected =
      AllowsProtectedAction(registry.config().enable_protected_configs, ctx.client.is_local());
  std::vector<std::pair<std::string, std::string>> undo;  // values before this command
  for (size_t i = 0; i < o.pairs.size(); i += 2) {
    auto before = registry.Get(o.pairs[i]);
    if (Result<ConfigCode> set = registry.Set(o.pairs[i], o.pairs[i + 1], may_set_protected);
        !set.ok()) {
      for (auto it = undo.rbegin(); it != undo.rend(); ++it) {
        (void)registry.Set(it->first, it->second);  // the value it had: accepted before
      }
      return ctx.reply.Error(ConfigErrorText(set, o.pairs[i]));
    }
    if (before.size() == 1) undo.push_back(before[0]);
  }
  ctx.reply.Ok();
}

void ExecuteResetStat(CommandContext& ctx, const NoOptions&) {
  ctx.server.stats().Reset();
  ctx.server.command_stats().Reset();
  ctx.reply.Ok();
}

void ExecuteRewrite(CommandContext& ctx, const NoOptions&) {
  ConfigRegistry& registry = ctx.server.config_registry();
  // The users are written as `user` lines unless an aclfile holds them, as Redis does.
  registry.SetUsers(ctx.server.config().aclfile.empty() ? ctx.server.acl().ConfigUserLines()
                                                        : std::vector<std::vector<std::string>>{});
  if (Result<ConfigCode> rewritten = registry.Rewrite(); !rewritten.ok()) {
    return ctx.reply.Error(ConfigErrorText(rewritten));
  }
  ctx.reply.Ok();
}

constexpr uint32_t kAdmin = kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale;

}  // namespace

std::vector<CommandSpec> ConfigCommands() {
  return {{
      .name = "config",
      .arity = -2,
      .group = "server",
      .since = "2.0.0",
      .summary = "A container for server configuration commands.",
      .complexity = "Depends on subcommand.",
      .subcommands = {{.name = "get",
                       .arity = -3,
                       .flags = kAdmin,
                       .group = "server",
                       .summary = "Returns the effective values of configuration parameters.",
                       .arguments = {{.name = "parameter", .multiple = true}},
                       .help = {{.usage = "GET <pattern>",
                                 .text =
                                     "Return parameters matching the glob-like <pattern> and their "
                                     "values."}},
                       .handler = Handler<ParseGet, ExecuteGet>},
                      {.name = "set",
                       .arity = -4,
                       .flags = kAdmin,
                       .group = "server",
                       .summary = "Sets configuration parameters in-flight.",
                       .arguments = {{.name = "data",
                                      .type = ArgType::kBlock,
                                      .multiple = true,
                                      .children = {{.name = "parameter"}, {.name = "value"}}}},
                       .help = {{.usage = "SET <directive> <value>",
                                 .text = "Set the configuration <directive> to <value>."}},
                       .handler = Handler<ParseSet, ExecuteSet>},
                      {.name = "resetstat",
                       .arity = 2,
                       .flags = kAdmin,
                       .group = "server",
                       .summary = "Resets the server's statistics.",
                       .help = {{.text = "Reset statistics reported by the INFO command."}},
                       .handler = Handler<ParseNothing, ExecuteResetStat>},
                      {.name = "rewrite",
                       .arity = 2,
                       .flags = kAdmin,
                       .group = "server",
                       .summary = "Persists the effective configuration to file.",
                       .help = {{.text = "Rewrite the configuration file."}},
                       .handler = Handler<ParseNothing, ExecuteRewrite>},
                      HelpSubcommand("server", "Returns helpful text.", kCmdLoading | kCmdStale)},
  }};
}

}  // namespace ebb::server
