// COMMAND [COUNT|DOCS|INFO|LIST|GETKEYS|HELP]: the command table described to clients, in Redis 7's
// shapes (server/services/command_docs.h), so clients such as redis-cli show argument hints for
// ebb's own commands.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/glob.h"
#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/acl/acl_categories.h"
#include "server/commands/register.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/core/key_positions.h"
#include "server/services/command_docs.h"
#include "server/services/server_context.h"

namespace ebb::server {
namespace {

// The commands COMMAND INFO and COMMAND DOCS name (none: every command).
struct NamesOptions {
  std::vector<std::string_view> names;
};
NamesOptions ParseNames(ArgParser& args) { return {RemainingArgs(args)}; }

// COMMAND, COMMAND INFO [name ...]: every row, or the named ones (nil for an unknown name).
void ExecuteInfo(CommandContext& ctx, const NamesOptions& o) {
  const CommandTable& table = ctx.server.commands();
  if (o.names.empty()) {
    ctx.reply.ArrayHeader(table.rows().size());
    for (const auto& [name, spec] : table.rows()) WriteCommandInfo(ctx.reply, spec);
    return;
  }
  ctx.reply.ArrayHeader(o.names.size());
  for (std::string_view name : o.names) {
    const CommandSpec* spec = table.Find(name);
    if (spec == nullptr) {
      ctx.reply.Null();
    } else {
      WriteCommandInfo(ctx.reply, *spec);
    }
  }
}

void ExecuteAll(CommandContext& ctx, const NoOptions&) { ExecuteInfo(ctx, {}); }

void ExecuteCount(CommandContext& ctx, const NoOptions&) {
  ctx.reply.Integer(static_cast<int64_t>(ctx.server.commands().rows().size()));
}

// COMMAND DOCS [name ...]: a map of the named (known) commands, or of all.
void ExecuteDocs(CommandContext& ctx, const NamesOptions& o) {
  const CommandTable& table = ctx.server.commands();
  std::vector<const CommandSpec*> specs;
  if (o.names.empty()) {
    for (const auto& [name, spec] : table.rows()) specs.push_back(&spec);
  } else {
    for (std::string_view name : o.names) {
      const CommandSpec* spec = table.Find(name);
      if (spec != nullptr) specs.push_back(spec);
    }
  }
  ctx.reply.MapHeader(specs.size());
  for (const CommandSpec* spec : specs) {
    ctx.reply.Bulk(spec->name);
    WriteCommandDocs(ctx.reply, *spec);
  }
}

struct ListOptions {
  std::string_view pattern;   // FILTERBY PATTERN
  std::string_view category;  // FILTERBY ACLCAT
  bool module = false;        // FILTERBY MODULE: ebb has no modules, so nothing matches
};

// COMMAND LIST [FILTERBY PATTERN p | ACLCAT c | MODULE m]
ListOptions ParseList(ArgParser& args) {
  ListOptions o;
  if (!args.HasMore()) return o;
  if (!args.Token("FILTERBY") || args.remaining() != 2) {
    args.SyntaxError();
    return o;
  }
  switch (args.Choice({"PATTERN", "ACLCAT", "MODULE"})) {
    case 0:
      o.pattern = args.Next();
      break;
    case 1:
      o.category = args.Next();
      break;
    case 2:
      args.Next();
      o.module = true;
      break;
    default:
      args.SyntaxError();
  }
  return o;
}

bool Listed(const ListOptions& o, const CommandSpec& spec) {
  if (!o.pattern.empty() && !GlobMatch(o.pattern, spec.full_name, /*nocase=*/true)) return false;
  if (o.category.empty()) return true;
  const int category = FindAclCategory(o.category);
  return category >= 0 && (AclCategoriesOf(spec) & (uint64_t{1} << category)) != 0;
}

void ExecuteList(CommandContext& ctx, const ListOptions& o) {
  std::vector<std::string_view> names;
  for (const auto& [name, spec] : ctx.server.commands().rows()) {
    if (o.module) break;
    if (Listed(o, spec)) names.push_back(spec.full_name);
    for (const CommandSpec& sub : spec.subcommands) {
      if (Listed(o, sub)) names.push_back(sub.full_name);
    }
  }
  ctx.reply.ArrayHeader(names.size());
  for (std::string_view n : names) ctx.reply.Bulk(n);
}

// COMMAND GETKEYS command [arg ...]: the keys the command names, found by its row's key spec
// (a container's subcommand row when one is named), in Redis's words: the request is checked
// against the command table, so Execute does it.
struct GetKeysOptions {
  std::vector<std::string_view> request;  // command [arg ...]
};
GetKeysOptions ParseGetKeys(ArgParser& args) { return {RemainingArgs(args)}; }

void ExecuteGetKeys(CommandContext& ctx, const GetKeysOptions& o) {
  const std::vector<std::string_view>& args = o.request;
  const CommandSpec* spec = ctx.server.commands().Resolve(args).spec;
  if (spec == nullptr) return ctx.reply.Error(kInvalidCommandSpecified);
  if (spec->keys.first <= 0 && spec->keys.numkeys <= 0) {
    return ctx.reply.Error(kCommandHasNoKeys);
  }
  if (!ArityOk(spec->arity, args.size())) {
    return ctx.reply.Error(kGetKeysBadArity);
  }
  std::vector<size_t> positions;
  if (!FindKeyPositions(spec->keys, args, &positions)) {
    return ctx.reply.Error(kGetKeysBadArguments);
  }
  ctx.reply.ArrayHeader(positions.size());
  for (size_t i : positions) ctx.reply.Bulk(args[i]);
}

constexpr uint32_t kFlags = kCmdLoading | kCmdStale;
const ArgSpec kCommandNames = {.name = "command-name", .optional = true, .multiple = true};

}  // namespace

std::vector<CommandSpec> CommandCommands() {
  return {{
      .name = "command",
      .arity = -1,
      .flags = kFlags,
      .group = "server",
      .since = "2.8.13",
      .summary = "Returns detailed information about all commands.",
      .complexity = "O(N) where N is the total number of commands",
      .help = {{.usage = "(no subcommand)", .text = "Return details about all commands."}},
      .handler = Handler<ParseNothing, ExecuteAll>,
      .subcommands =
          {{.name = "count",
            .arity = 2,
            .flags = kFlags,
            .group = "server",
            .summary = "Returns a count of commands.",
            .help = {{.text = "Return the total number of commands in this server."}},
            .handler = Handler<ParseNothing, ExecuteCount>},
           {.name = "list",
            .arity = -2,
            .flags = kFlags,
            .group = "server",
            .summary = "Returns a list of command names.",
            .arguments = {{.name = "filterby", .token = "FILTERBY", .optional = true}},
            .help = {{.usage = "LIST [FILTERBY (MODULE <module-name>|ACLCAT <category>|PATTERN "
                               "<pattern>)]",
                      .text = "Return a list of all commands in this server."}},
            .handler = Handler<ParseList, ExecuteList>},
           {.name = "info",
            .arity = -2,
            .flags = kFlags,
            .group = "server",
            .summary = "Returns information about one, multiple or all commands.",
            .arguments = {kCommandNames},
            .help = {{.usage = "INFO [<command-name> ...]",
                      .text = "Return details about multiple commands."}},
            .handler = Handler<ParseNames, ExecuteInfo>},
           {.name = "docs",
            .arity = -2,
            .flags = kFlags,
            .group = "server",
            .summary = "Returns documentary information about one, multiple or all commands.",
            .arguments = {kCommandNames},
            .help = {{.usage = "DOCS [<command-name> ...]",
                      .text = "Return documentation details about multiple commands."}},
            .handler = Handler<ParseNames, ExecuteDocs>},
           {.name = "getkeys",
            .arity = -3,
            .flags = kFlags,
            .group = "server",
            .since = "2.8.13",
            .summary = "Extracts the key names from an arbitrary command.",
            .complexity = "O(N) where N is the number of arguments to the command",
            .arguments = {{.name = "command"}, {.name = "arg", .optional = true, .multiple = true}},
            .help = {{.usage = "GETKEYS <full-command>",
                      .text = "Return the keys from a full Redis command."}},
            .handler = Handler<ParseGetKeys, ExecuteGetKeys>},
           HelpSubcommand("server", "Returns helpful text.", kFlags)},
  }};
}

}  // namespace ebb::server
