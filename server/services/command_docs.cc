#include "server/services/command_docs.h"

#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/acl/acl_categories.h"
#include "server/services/server_context.h"

namespace ebb::server {

using protocol::ReplyWriter;

std::vector<std::string> FlagNames(uint32_t flags) {
  std::vector<std::string> out;
  if (flags & kCmdWrite) out.push_back("write");
  if (flags & kCmdDenyOom) out.push_back("denyoom");
  if (flags & kCmdReadOnly) out.push_back("readonly");
  if (flags & kCmdAdmin) out.push_back("admin");
  if (flags & kCmdNoScript) out.push_back("noscript");
  if (flags & kCmdLoading) out.push_back("loading");
  if (flags & kCmdStale) out.push_back("stale");
  if (flags & kCmdSkipMonitor) out.push_back("skip_monitor");
  if (flags & kCmdSkipSlowlog) out.push_back("skip_slowlog");
  if (flags & kCmdFast) out.push_back("fast");
  if (flags & kCmdNoAuth) out.push_back("no_auth");
  if (flags & kCmdDebug) out.push_back("protected");
  if (flags & kCmdPubSub) out.push_back("pubsub");
  if (flags & kCmdNoMulti) out.push_back("no_multi");
  if (flags & kCmdAllowBusy) out.push_back("allow_busy");
  if (flags & kCmdAsking) out.push_back("asking");
  return out;
}

namespace {

void StatusSet(ReplyWriter& w, const std::vector<std::string>& items) {
  w.SetHeader(items.size());
  for (const auto& s : items) w.SimpleString(s);
}

// One key spec of COMMAND INFO / DOCS: flags, begin_search {type, spec}, find_keys {type, spec}.
void OneKeySpec(ReplyWriter& w, const CommandSpec& spec, std::string_view search_type,
                const std::vector<std::pair<std::string_view, int64_t>>& search,
                std::string_view search_keyword, std::string_view find_type,
                const std::vector<std::pair<std::string_view, int64_t>>& find) {
  w.MapHeader(3);
  w.Bulk("flags");
  StatusSet(w, {(spec.flags & kCmdWrite) ? "RW" : "RO"});
  w.Bulk("begin_search");
  w.MapHeader(2);
  w.Bulk("type");
  w.Bulk(search_type);
  w.Bulk("spec");
  w.MapHeader(search.size() + (search_keyword.empty() ? 0 : 1));
  if (!search_keyword.empty()) {
    w.Bulk("keyword");
    w.Bulk(search_keyword);
  }
  for (const auto& [name, value] : search) {
    w.Bulk(name);
    w.Integer(value);
  }
  w.Bulk("find_keys");
  w.MapHeader(2);
  w.Bulk("type");
  w.Bulk(find_type);
  w.Bulk("spec");
  w.MapHeader(find.size());
  for (const auto& [name, value] : find) {
    w.Bulk(name);
    w.Integer(value);
  }
}

// Redis 7's key specs for a row: a range from `first` (and, for MIGRATE, the keys after its
// keyword), or EVAL's and FCALL's count of keys.
void KeySpecs(ReplyWriter& w, const CommandSpec& spec) {
  const KeySpec& keys = spec.keys;
  if (keys.numkeys > 0) {
    w.ArrayHeader(1);
    return OneKeySpec(w, spec, "index", {{"index", keys.numkeys}}, "", "keynum",
                      {{"keynumidx", 0}, {"firstkey", 1}, {"keystep", 1}});
  }
  if (keys.first <= 0) return w.ArrayHeader(0);
  w.ArrayHeader(keys.keyword.empty() ? 1 : 2);
  OneKeySpec(w, spec, "index", {{"index", keys.first}}, "", "range",
             {{"lastkey", keys.last < 0 ? keys.last : keys.last - keys.first},
              {"keystep", keys.step},
              {"limit", 0}});
  if (!keys.keyword.empty()) {
    OneKeySpec(w, spec, "keyword", {{"startfrom", -2}}, keys.keyword, "range",
               {{"lastkey", -1}, {"keystep", 1}, {"limit", 0}});
  }
}

}  // namespace

void WriteCommandInfo(ReplyWriter& w, const CommandSpec& spec, uint32_t inherited_flags) {
  w.ArrayHeader(10);
  w.Bulk(spec.full_name);
  w.Integer(spec.arity);
  std::vector<std::string> flags = FlagNames(spec.flags | inherited_flags);
  // Keys a client cannot find from first/last/step alone: it asks COMMAND GETKEYS.
  if (spec.keys.numkeys > 0 || !spec.keys.keyword.empty()) flags.push_back("movablekeys");
  StatusSet(w, flags);
  w.Integer(spec.keys.first);
  w.Integer(spec.keys.last);
  w.Integer(spec.keys.step);
  StatusSet(w, AclCategoryList(spec));
  w.SetHeader(0);  // tips
  KeySpecs(w, spec);
  w.ArrayHeader(spec.subcommands.size());
  for (const CommandSpec& sub : spec.subcommands) {
    WriteCommandInfo(w, sub, spec.flags & kCmdDebug);
  }
}

namespace {

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

}  // namespace

void WriteCommandDocs(ReplyWriter& w, const CommandSpec& spec) {
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
      w.Bulk(sub.full_name);
      WriteCommandDocs(w, sub);
    }
  }
}

namespace {

// One argument in HELP's style.
std::string HelpArg(const ArgSpec& arg) {
  std::string out;
  if (arg.type == ArgType::kOneOf) {
    for (const ArgSpec& child : arg.children) {
      if (!out.empty()) out += '|';
      out += HelpArg(child);
    }
    if (!arg.optional) out = "(" + out + ")";
  } else if (arg.type == ArgType::kBlock) {
    for (const ArgSpec& child : arg.children) {
      if (!out.empty()) out += ' ';
      out += HelpArg(child);
    }
  } else if (arg.type == ArgType::kPureToken) {
    out = AsciiUpper(arg.token);
  } else {
    if (!arg.token.empty()) out = AsciiUpper(arg.token) + " ";
    out += "<" + std::string(arg.name) + ">";
  }
  if (arg.multiple) out += " [" + out + " ...]";
  // A block or a choice introduced by a keyword names it once, before its parts.
  const bool grouped = arg.type == ArgType::kOneOf || arg.type == ArgType::kBlock;
  if (grouped && !arg.token.empty()) out = AsciiUpper(arg.token) + " " + out;
  if (arg.optional) out = "[" + out + "]";
  return out;
}

// One argument as the Redis documentation writes it.
std::string SynopsisArg(const ArgSpec& arg) {
  std::string out;
  if (arg.type == ArgType::kOneOf || arg.type == ArgType::kBlock) {
    const char* sep = arg.type == ArgType::kOneOf ? " | " : " ";
    if (!arg.token.empty()) out = std::string(arg.token) + " ";
    std::string inner;
    for (const ArgSpec& child : arg.children) {
      if (!inner.empty()) inner += sep;
      inner += SynopsisArg(child);
    }
    inner = (arg.type == ArgType::kOneOf && !arg.optional) ? "<" + inner + ">" : inner;
    if (arg.multiple && !arg.multiple_token && !arg.token.empty()) {
      // SETTINGS name value [name value ...]: the token once
      out += inner + " [" + inner + " ...]";
      if (arg.optional) out = "[" + out + "]";
      return out;
    }
    out += inner;
  } else if (arg.type == ArgType::kPureToken) {
    out = std::string(arg.token);
  } else {
    out = arg.name;
    if (arg.multiple && !arg.multiple_token) {
      out += " [" + out + " ...]";  // KEYS key [key ...]: the token once
    }
    if (!arg.token.empty()) out = std::string(arg.token) + " " + out;
    if (arg.multiple && arg.multiple_token) out += " [" + out + " ...]";
    if (arg.optional) out = "[" + out + "]";
    return out;
  }
  if (arg.multiple) out += " [" + out + " ...]";
  if (arg.optional) out = "[" + out + "]";
  return out;
}

void AppendIndented(std::string_view text, std::vector<std::string>* lines) {
  while (true) {
    const size_t nl = text.find('\n');
    lines->push_back("    " + std::string(text.substr(0, nl)));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
}

void AppendHelpEntries(const CommandSpec& spec, std::vector<std::string>* lines) {
  if (spec.help.empty()) {
    lines->push_back(HelpUsage(spec));
    AppendIndented(spec.summary, lines);
    return;
  }
  for (const HelpEntry& entry : spec.help) {
    lines->push_back(entry.usage.empty() ? HelpUsage(spec) : std::string(entry.usage));
    AppendIndented(entry.text.empty() ? spec.summary : entry.text, lines);
  }
}

void ExecuteHelp(CommandContext& ctx, const NoOptions&) {
  ReplyHelp(ctx.reply, *ctx.server.commands().Find(ctx.args[0]));
}

}  // namespace

std::string HelpUsage(const CommandSpec& spec) {
  std::string out = AsciiUpper(spec.name);
  for (const ArgSpec& arg : spec.arguments) out += " " + HelpArg(arg);
  return out;
}

std::vector<std::string> HelpLines(const CommandSpec& container) {
  std::vector<std::string> lines = {AsciiUpper(container.name) +
                                    " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"};
  if (container.handler != nullptr && !container.help.empty()) {
    AppendHelpEntries(container, &lines);
  }
  for (const CommandSpec& sub : container.subcommands) AppendHelpEntries(sub, &lines);
  return lines;
}

void ReplyHelp(ReplyWriter& reply, const CommandSpec& container) {
  const std::vector<std::string> lines = HelpLines(container);
  reply.ArrayHeader(lines.size());
  for (const std::string& line : lines) reply.SimpleString(line);
}

std::string Synopsis(const CommandSpec& spec, std::string_view container) {
  std::string out = container.empty() ? AsciiUpper(spec.name)
                                      : AsciiUpper(container) + " " + AsciiUpper(spec.name);
  for (const ArgSpec& arg : spec.arguments) out += " " + SynopsisArg(arg);
  return out;
}

namespace {

constexpr std::string_view kCommandsBegin = "<!-- begin: generated from the command rows -->";
constexpr std::string_view kOptionsBegin = "<!-- begin: generated from the option table -->";
constexpr std::string_view kBlockEnd = "<!-- end of generated block -->";

// Markdown table cells: '|' escaped.
std::string Cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string CommandReference(const CommandTable& table) {
  std::string out = "| command | group | flags | summary |\n|---|---|---|---|\n";
  auto row = [&out](const CommandSpec& spec, std::string_view container) {
    std::string flags;
    for (const std::string& f : FlagNames(spec.flags)) flags += (flags.empty() ? "" : " ") + f;
    out += "| `" + Cell(Synopsis(spec, container)) + "` | " + std::string(spec.group) + " | " +
           flags + " | " + Cell(spec.summary) + " |\n";
  };
  for (const auto& [name, spec] : table.rows()) {
    if (spec.handler != nullptr || spec.subcommands.empty()) row(spec, {});
    for (const CommandSpec& sub : spec.subcommands) row(sub, spec.name);
  }
  return out;
}

std::string OptionReference(const ConfigRegistry& registry) {
  std::string out = "| option | default | CONFIG SET | meaning |\n|---|---|---|---|\n";
  for (const ConfigRegistry::OptionInfo& o : registry.Options()) {
    const std::string default_text = o.default_text.empty() ? "\"\"" : o.default_text;
    out += "| `" + o.name + "` | `" + Cell(default_text) + "` | " +
           (o.mutable_at_runtime ? "yes" : "no") + " | " + Cell(o.doc) + " |\n";
  }
  return out;
}

std::string UpdateGeneratedReference(std::string_view doc, const CommandTable& table,
                                     const ConfigRegistry& registry) {
  std::string out;
  std::string_view skipping_to;  // inside a block: its old lines are dropped
  while (!doc.empty()) {
    const size_t nl = doc.find('\n');
    const std::string_view line = doc.substr(0, nl == std::string_view::npos ? doc.size() : nl);
    doc.remove_prefix(nl == std::string_view::npos ? doc.size() : nl + 1);
    if (!skipping_to.empty()) {
      if (line != skipping_to) continue;
      skipping_to = {};
    } else if (line == kCommandsBegin || line == kOptionsBegin) {
      out.append(line);
      out += "\n\n";
      out += line == kCommandsBegin ? CommandReference(table) : OptionReference(registry);
      out += "\n";
      skipping_to = kBlockEnd;
      continue;
    }
    out.append(line);
    out += '\n';
  }
  return out;
}

CommandSpec HelpSubcommand(std::string_view group, std::string_view summary, uint32_t flags,
                           std::string_view since) {
  return {.name = "help",
          .arity = 2,
          .flags = flags,
          .group = group,
          .since = since,
          .summary = summary,
          .help = {{.text = "Print this help."}},
          .handler = Handler<ParseNothing, ExecuteHelp>};
}

}  // namespace ebb::server
