// COMMAND [COUNT|DOCS|INFO|LIST|HELP]: generated from the command table, in Redis 7's shapes
// (COMMAND INFO's 10-field entries, COMMAND DOCS's maps), so clients such as redis-cli can show
// argument hints for ebb's own commands.
#include <iterator>
#include <string>
#include <vector>

#include "protocol/reply_writer.h"
#include "server/command.h"
#include "server/commands/arg_parser.h"
#include "server/commands/command_rows.h"
#include "server/commands/register.h"
#include "server/config/glob.h"
#include "server/errors.h"
#include "server/server_context.h"

namespace ebb::server {
namespace {

using protocol::ReplyWriter;

std::vector<std::string> FlagNames(uint32_t flags) {
  std::vector<std::string> out;
  if (flags & kCmdWrite) out.push_back("write");
  if (flags & kCmdReadOnly) out.push_back("readonly");
  if (flags & kCmdAdmin) out.push_back("admin");
  if (flags & kCmdNoScript) out.push_back("noscript");
  if (flags & kCmdLoading) out.push_back("loading");
  if (flags & kCmdStale) out.push_back("stale");
  if (flags & kCmdFast) out.push_back("fast");
  if (flags & kCmdNoAuth) out.push_back("no_auth");
  if (flags & kCmdDebug) out.push_back("protected");
  return out;
}

std::vector<std::string> AclCategories(const CommandSpec& spec) {
  std::vector<std::string> out;
  if (spec.flags & kCmdWrite) out.push_back("@write");
  if (spec.flags & kCmdReadOnly) out.push_back("@read");
  if (!spec.group.empty()) out.push_back("@" + spec.group);
  if (spec.flags & kCmdFast) {
    out.push_back("@fast");
  } else {
    out.push_back("@slow");
  }
  if (spec.flags & (kCmdAdmin | kCmdDebug)) out.push_back("@dangerous");
  return out;
}

void StatusSet(ReplyWriter& w, const std::vector<std::string>& items) {
  w.SetHeader(items.size());
  for (const auto& s : items) w.SimpleString(s);
}

void KeySpecs(ReplyWriter& w, const CommandSpec& spec) {
  if (spec.first_key <= 0) return w.ArrayHeader(0);
  w.ArrayHeader(1);
  w.MapHeader(3);
  w.Bulk("flags");
  StatusSet(w, {(spec.flags & kCmdWrite) ? "RW" : "RO"});
  w.Bulk("begin_search");
  w.MapHeader(2);
  w.Bulk("type");
  w.Bulk("index");
  w.Bulk("spec");
  w.MapHeader(1);
  w.Bulk("index");
  w.Integer(spec.first_key);
  w.Bulk("find_keys");
  w.MapHeader(2);
  w.Bulk("type");
  w.Bulk("range");
  w.Bulk("spec");
  w.MapHeader(3);
  w.Bulk("lastkey");
  w.Integer(spec.last_key < 0 ? spec.last_key : spec.last_key - spec.first_key);
  w.Bulk("keystep");
  w.Integer(spec.step);
  w.Bulk("limit");
  w.Integer(0);
}

void CommandInfo(ReplyWriter& w, const CommandSpec& spec, const std::string& full_name,
                 uint32_t inherited_flags) {
  w.ArrayHeader(10);
  w.Bulk(full_name);
  w.Integer(spec.arity);
  StatusSet(w, FlagNames(spec.flags | inherited_flags));
  w.Integer(spec.first_key);
  w.Integer(spec.last_key);
  w.Integer(spec.step);
  StatusSet(w, AclCategories(spec));
  w.SetHeader(0);  // tips
  KeySpecs(w, spec);
  w.ArrayHeader(spec.subcommands.size());
  for (const CommandSpec& sub : spec.subcommands) {
    CommandInfo(w, sub, full_name + "|" + sub.name, spec.flags & kCmdDebug);
  }
}

const char* TypeName(ArgType t) {
  switch (t) {
    case ArgType::kString:
      return "string";
    case ArgType::kInteger:
      return "integer";
    case ArgType::kDouble:
      return "double";
    case ArgType::kKey:
      return "key";
    case ArgType::kPattern:
      return "pattern";
    case ArgType::kUnixTime:
      return "unix-time";
    case ArgType::kPureToken:
      return "pure-token";
    case ArgType::kOneOf:
      return "oneof";
    case ArgType::kBlock:
      return "block";
  }
  return "string";
}

void ArgDoc(ReplyWriter& w, const ArgSpec& arg) {
  bool has_children = !arg.children.empty();
  bool show_text = arg.type != ArgType::kPureToken && !has_children;
  bool has_flags = arg.optional || arg.multiple;
  size_t fields =
      2 + (arg.type == ArgType::kKey) + !arg.token.empty() + has_flags + has_children + show_text;
  w.MapHeader(fields);
  w.Bulk("name");
  w.Bulk(arg.name);
  w.Bulk("type");
  w.Bulk(TypeName(arg.type));
  if (show_text) {
    w.Bulk("display_text");
    w.Bulk(arg.name);
  }
  if (arg.type == ArgType::kKey) {
    w.Bulk("key_spec_index");
    w.Integer(0);
  }
  if (!arg.token.empty()) {
    w.Bulk("token");
    w.Bulk(arg.token);
  }
  if (has_flags) {
    std::vector<std::string> flags;
    if (arg.optional) flags.push_back("optional");
    if (arg.multiple) flags.push_back("multiple");
    w.Bulk("flags");
    StatusSet(w, flags);
  }
  if (has_children) {
    w.Bulk("arguments");
    w.ArrayHeader(arg.children.size());
    for (const ArgSpec& child : arg.children) ArgDoc(w, child);
  }
}

void CommandDoc(ReplyWriter& w, const CommandSpec& spec) {
  bool has_subs = !spec.subcommands.empty();
  bool has_args = !spec.arguments.empty();
  w.MapHeader(4 + has_args + has_subs);
  w.Bulk("summary");
  w.Bulk(spec.summary);
  w.Bulk("since");
  w.Bulk(spec.since);
  w.Bulk("group");
  w.Bulk(spec.group);
  w.Bulk("complexity");
  w.Bulk(spec.complexity);
  if (has_args) {
    w.Bulk("arguments");
    w.ArrayHeader(spec.arguments.size());
    for (const ArgSpec& arg : spec.arguments) ArgDoc(w, arg);
  }
  if (has_subs) {
    w.Bulk("subcommands");
    w.MapHeader(spec.subcommands.size());
    for (const CommandSpec& sub : spec.subcommands) {
      w.Bulk(spec.name + "|" + sub.name);
      CommandDoc(w, sub);
    }
  }
}

void CommandAll(CommandContext& ctx) {
  const auto& rows = ctx.server.commands().rows();
  ctx.reply.ArrayHeader(rows.size());
  for (const auto& [name, spec] : rows) CommandInfo(ctx.reply, spec, name, 0);
}

void CommandCount(CommandContext& ctx) {
  ctx.reply.Integer(static_cast<int64_t>(ctx.server.commands().rows().size()));
}

void CommandInfoCmd(CommandContext& ctx) {
  if (ctx.args.size() == 2) return CommandAll(ctx);
  ctx.reply.ArrayHeader(ctx.args.size() - 2);
  for (size_t i = 2; i < ctx.args.size(); ++i) {
    const CommandSpec* spec = ctx.server.commands().Find(ctx.args[i]);
    if (spec == nullptr) {
      ctx.reply.Null();
    } else {
      CommandInfo(ctx.reply, *spec, spec->name, 0);
    }
  }
}

void CommandDocs(CommandContext& ctx) {
  std::vector<const CommandSpec*> specs;
  if (ctx.args.size() == 2) {
    for (const auto& [name, spec] : ctx.server.commands().rows()) specs.push_back(&spec);
  } else {
    for (size_t i = 2; i < ctx.args.size(); ++i) {
      const CommandSpec* spec = ctx.server.commands().Find(ctx.args[i]);
      if (spec != nullptr) specs.push_back(spec);
    }
  }
  ctx.reply.MapHeader(specs.size());
  for (const CommandSpec* spec : specs) {
    ctx.reply.Bulk(spec->name);
    CommandDoc(ctx.reply, *spec);
  }
}

// COMMAND LIST [FILTERBY PATTERN p | ACLCAT c | MODULE m].
void CommandList(CommandContext& ctx) {
  std::string_view pattern, category;
  bool module_filter = false;
  ArgParser p(ctx.args, 2);
  if (p.HasMore()) {
    if (!p.Token("FILTERBY") || p.remaining() != 2) {
      p.SyntaxError();
    } else if (p.Token("PATTERN")) {
      pattern = p.Next();
    } else if (p.Token("ACLCAT")) {
      category = p.Next();
    } else if (p.Token("MODULE")) {
      p.Next();
      module_filter = true;
    } else {
      p.SyntaxError();
    }
  }
  if (p.Failed()) return p.ReplyError(ctx.reply);
  std::vector<std::string> names;
  for (const auto& [name, spec] : ctx.server.commands().rows()) {
    if (module_filter) break;
    std::vector<std::pair<std::string, const CommandSpec*>> entries = {{name, &spec}};
    for (const CommandSpec& sub : spec.subcommands)
      entries.emplace_back(name + "|" + sub.name, &sub);
    for (const auto& [full, s] : entries) {
      if (!pattern.empty() && !GlobMatch(pattern, full, true)) continue;
      if (!category.empty()) {
        bool found = false;
        for (const auto& c : AclCategories(*s)) found |= EqualsIgnoreCase(c.substr(1), category);
        if (!found) continue;
      }
      names.push_back(full);
    }
  }
  ctx.reply.ArrayHeader(names.size());
  for (const auto& n : names) ctx.reply.Bulk(n);
}

void CommandHelp(CommandContext& ctx) {
  static const char* kLines[] = {
      "COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "(no subcommand)",
      "    Return details about all commands.",
      "COUNT",
      "    Return the total number of commands in this server.",
      "LIST [FILTERBY (MODULE <module-name>|ACLCAT <category>|PATTERN <pattern>)]",
      "    Return a list of all commands in this server.",
      "INFO [<command-name> ...]",
      "    Return details about multiple commands.",
      "DOCS [<command-name> ...]",
      "    Return documentation details about multiple commands.",
      "HELP",
      "    Print this help."};
  ctx.reply.ArrayHeader(std::size(kLines));
  for (const char* line : kLines) ctx.reply.SimpleString(line);
}

}  // namespace

void RegisterCommandDocsCommands(CommandTable& table) {
  const uint32_t kFlags = kCmdLoading | kCmdStale;
  CommandSpec command = Row("command", -1, kFlags, "server",
                            "Returns detailed information about all commands.", CommandAll);
  command.since = "2.8.13";
  command.complexity = "O(N) where N is the total number of commands";
  command.subcommands = {
      Row("count", 2, kFlags, "server", "Returns a count of commands.", CommandCount),
      Row("docs", -2, kFlags, "server",
          "Returns documentary information about one, multiple or all commands.", CommandDocs,
          {Optional(Multiple(Arg("command-name")))}),
      Row("info", -2, kFlags, "server", "Returns information about one, multiple or all commands.",
          CommandInfoCmd, {Optional(Multiple(Arg("command-name")))}),
      Row("list", -2, kFlags, "server", "Returns a list of command names.", CommandList,
          {Optional(TokenArg("FILTERBY", "filterby", ArgType::kString))}),
      Row("help", 2, kFlags, "server", "Returns helpful text.", CommandHelp),
  };
  table.Add(command);
}

}  // namespace ebb::server
