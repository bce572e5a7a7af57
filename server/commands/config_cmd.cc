// CONFIG GET|SET|RESETSTAT|REWRITE|HELP over the ConfigRegistry. Changes reach the engine through
// the registry's change hook (server/main.cc wires wal-fsync, expiration, expiry-whole-file,
// expiry-purge-deadline).
#include <iterator>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "protocol/reply_writer.h"
#include "server/command.h"
#include "server/commands/command_rows.h"
#include "server/commands/register.h"
#include "server/errors.h"
#include "server/server_context.h"

namespace ebb::server {
namespace {

// CONFIG GET pattern [pattern ...]: a map of every matching option, each once.
void ConfigGet(CommandContext& ctx) {
  std::vector<std::pair<std::string, std::string>> found;
  std::set<std::string> seen;
  for (size_t i = 2; i < ctx.args.size(); ++i) {
    for (auto& [name, value] : ctx.server.config_registry().Get(ctx.args[i])) {
      if (seen.insert(name).second) found.emplace_back(name, value);
    }
  }
  ctx.reply.MapHeader(found.size());
  for (const auto& [name, value] : found) {
    ctx.reply.Bulk(name);
    ctx.reply.Bulk(value);
  }
}

// CONFIG SET name value [name value ...]: all or nothing, as Redis 7.
void ConfigSet(CommandContext& ctx) {
  if ((ctx.args.size() - 2) % 2 != 0) return ctx.reply.Error(WrongArgsError("config|set"));
  ConfigRegistry& registry = ctx.server.config_registry();
  std::set<std::string> names;
  for (size_t i = 2; i < ctx.args.size(); i += 2) {
    std::string lower(ctx.args[i]);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!names.insert(lower).second) {
      return ctx.reply.Error("ERR CONFIG SET failed (possibly related to argument '" + lower +
                             "') - duplicate parameter");
    }
  }
  std::vector<std::pair<std::string, std::string>> undo;  // values before this command
  for (size_t i = 2; i < ctx.args.size(); i += 2) {
    auto before = registry.Get(ctx.args[i]);
    std::string error;
    if (!registry.Set(ctx.args[i], ctx.args[i + 1], &error)) {
      for (auto it = undo.rbegin(); it != undo.rend(); ++it) {
        std::string ignored;
        registry.Set(it->first, it->second, &ignored);
      }
      return ctx.reply.Error(error);
    }
    if (before.size() == 1) undo.push_back(before[0]);
  }
  ctx.reply.Ok();
}

void ConfigResetStat(CommandContext& ctx) {
  ctx.server.stats().Reset();
  ctx.reply.Ok();
}

void ConfigRewrite(CommandContext& ctx) {
  ConfigRegistry& registry = ctx.server.config_registry();
  if (registry.config_file().empty()) {
    return ctx.reply.Error("ERR The server is running without a config file");
  }
  std::string error;
  if (!registry.Rewrite(&error)) return ctx.reply.Error("ERR Rewriting config file: " + error);
  ctx.reply.Ok();
}

void ConfigHelp(CommandContext& ctx) {
  static const char* kLines[] = {
      "CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "GET <pattern>",
      "    Return parameters matching the glob-like <pattern> and their values.",
      "SET <directive> <value>",
      "    Set the configuration <directive> to <value>.",
      "RESETSTAT",
      "    Reset statistics reported by the INFO command.",
      "REWRITE",
      "    Rewrite the configuration file.",
      "HELP",
      "    Print this help."};
  ctx.reply.ArrayHeader(std::size(kLines));
  for (const char* line : kLines) ctx.reply.SimpleString(line);
}

}  // namespace

void RegisterConfigCommands(CommandTable& table) {
  CommandSpec config;
  config.name = "config";
  config.arity = -2;
  config.group = "server";
  config.since = "2.0.0";
  config.summary = "A container for server configuration commands.";
  config.complexity = "Depends on subcommand.";
  const uint32_t kAdmin = kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale;
  config.subcommands = {
      Row("get", -3, kAdmin, "server", "Returns the effective values of configuration parameters.",
          ConfigGet, {Multiple(Arg("parameter"))}),
      Row("set", -4, kAdmin, "server", "Sets configuration parameters in-flight.", ConfigSet,
          {Multiple(OneOf("data", {Arg("parameter"), Arg("value")}))}),
      Row("resetstat", 2, kAdmin, "server", "Resets the server's statistics.", ConfigResetStat),
      Row("rewrite", 2, kAdmin, "server", "Persists the effective configuration to file.",
          ConfigRewrite),
      Row("help", 2, kCmdLoading | kCmdStale, "server", "Returns helpful text.", ConfigHelp),
  };
  config.subcommands[1].arguments[0].type = ArgType::kBlock;
  table.Add(config);
}

}  // namespace ebb::server
