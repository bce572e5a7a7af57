// Documentation generated from the command rows: HELP replies, COMMAND INFO and COMMAND DOCS
// entries (Redis 7's shapes, so redis-cli shows argument hints for ebb's own commands), and the
// command reference in docs/commands.md (checked against the rows by a test).
// Thread-safety: pure functions of the rows.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "server/config/config.h"
#include "server/core/command.h"

namespace ebb::protocol {
class ReplyWriter;
}

namespace ebb::server {

// A row's usage in HELP's style: the upper-case name, then its arguments as "<key>", "[<count>]",
// "TOKEN <value>", "<a> [<a> ...]", "[A|B]" ("INS <key> <value> <timestamp>").
std::string HelpUsage(const CommandSpec& spec);

// The lines of `container`'s HELP reply: "<CMD> <subcommand> [<arg> [value] [opt] ...].
// Subcommands are:", then the container's own help entries (its bare form, if it runs bare),
// then each subcommand's, in row order. An entry is its usage line (given, or HelpUsage) and its
// text (given, or the summary) indented by four spaces.
std::vector<std::string> HelpLines(const CommandSpec& container);

// Replies `container`'s HELP lines as an array of simple strings.
void ReplyHelp(protocol::ReplyWriter& reply, const CommandSpec& container);

// The HELP subcommand row of a container; its handler replies the container's HelpLines.
CommandSpec HelpSubcommand(std::string_view group, std::string_view summary, uint32_t flags,
                           std::string_view since = "1.0.0");

// A row's synopsis as the Redis documentation writes it ("SET key value [NX | XX] [GET]
// [EX seconds | PX milliseconds | ...]"); subcommands as "TLOG INS key value timestamp".
std::string Synopsis(const CommandSpec& spec, std::string_view container = {});

// COMMAND INFO's flag names of a row (its ACL categories: server/acl/acl_categories.h).
std::vector<std::string> FlagNames(uint32_t flags);

// One COMMAND INFO entry (10 fields, subcommands nested) / one COMMAND DOCS map.
void WriteCommandInfo(protocol::ReplyWriter& w, const CommandSpec& spec,
                      uint32_t inherited_flags = 0);
void WriteCommandDocs(protocol::ReplyWriter& w, const CommandSpec& spec);

// docs/commands.md carries two generated blocks, each between a begin line and an end line:
// the command table (one row per command and subcommand: synopsis, group, flags, summary, in name
// order) and the option table (name, default, CONFIG SET at run time, meaning, in table order).
// `build/ebb-command-reference docs/commands.md` (make command-docs) rewrites them; a test fails
// when the file differs from what the rows generate.
std::string CommandReference(const CommandTable& table);
std::string OptionReference(const ConfigRegistry& registry);
// `doc` with both generated blocks replaced by the current ones. Lines outside the blocks are
// kept; a block whose begin line is missing is left out.
std::string UpdateGeneratedReference(std::string_view doc, const CommandTable& table,
                                     const ConfigRegistry& registry);

}  // namespace ebb::server
