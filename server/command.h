// The command table: every command ebb serves is one row of data.
//
// A row names the command, its arity in Redis's sign convention (N: exactly N arguments counting
// the name; -N: at least N), its flags, where its keys are, its documentation (COMMAND DOCS and
// redis-cli hints are generated from it) and its handler. Container commands (CLIENT, CONFIG,
// TLOG, ...) have subcommand rows instead of a handler; a subcommand's arity counts the container
// name and the subcommand name.
//
// The dispatcher (dispatcher.h) checks arity, authentication and the DEBUG switch once, before a
// handler runs, so handlers index ctx.args within their arity without checking. Each area
// registers its rows at the bottom of server/commands/<area>.cc:
//
//   void RegisterStringCommands(CommandTable& table) {
//     table.Add({.name = "get", .arity = 2, .flags = kCmdReadOnly | kCmdFast, .first_key = 1,
//                .last_key = 1, .step = 1, .group = "string", .summary = "...",
//                .arguments = {{.name = "key", .type = ArgType::kKey}}, .handler = GetCommand});
//   }
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ebb::protocol {
class ReplyWriter;
}

namespace ebb::server {

class Client;
class ServerContext;

enum CommandFlag : uint32_t {
  kCmdWrite = 1 << 0,
  kCmdReadOnly = 1 << 1,
  kCmdAdmin = 1 << 2,
  kCmdFast = 1 << 3,
  kCmdNoAuth = 1 << 4,     // allowed before AUTH (AUTH, HELLO, QUIT, RESET)
  kCmdLoading = 1 << 5,
  kCmdStale = 1 << 6,
  kCmdNoScript = 1 << 7,
  kCmdDebug = 1 << 8,      // refused unless enable-debug-command allows it
};

// COMMAND DOCS argument types, as Redis names them.
enum class ArgType { kString, kInteger, kDouble, kKey, kPattern, kUnixTime, kPureToken, kOneOf, kBlock };

struct ArgSpec {
  std::string name;
  ArgType type = ArgType::kString;
  std::string token;               // a literal keyword that introduces the argument ("EX")
  bool optional = false;
  bool multiple = false;
  std::vector<ArgSpec> children;   // for kOneOf / kBlock
};

// What a handler sees: the request, where to write the reply, who asked, and the server.
struct CommandContext {
  std::span<const std::string_view> args;  // args[0] is the command name as the client sent it
  protocol::ReplyWriter& reply;
  Client& client;
  ServerContext& server;
};

using CommandHandler = void (*)(CommandContext& ctx);

struct CommandSpec {
  std::string name;      // lower case; for subcommands just the subcommand ("ins")
  int arity = 0;
  uint32_t flags = 0;
  int first_key = 0;     // 0: no keys
  int last_key = 0;      // -1: the last argument
  int step = 0;
  std::string group;     // "string", "generic", "connection", "server", "tlog", "treg"
  std::string since = "1.0.0";
  std::string summary;
  std::string complexity;
  std::vector<ArgSpec> arguments;
  CommandHandler handler = nullptr;      // nullptr for containers
  std::vector<CommandSpec> subcommands;  // for containers
};

class CommandTable {
 public:
  // REQUIRES: no row with the same name exists.
  void Add(CommandSpec spec);
  // Case-insensitive lookup; nullptr if absent.
  const CommandSpec* Find(std::string_view name) const;
  static const CommandSpec* FindSubcommand(const CommandSpec& container, std::string_view name);
  const std::map<std::string, CommandSpec>& rows() const { return rows_; }

 private:
  std::map<std::string, CommandSpec> rows_;  // by lowercase name, in order for COMMAND LIST
  // The same rows by lowercase name (views of rows_'s keys): Find's one hash lookup.
  std::unordered_map<std::string_view, const CommandSpec*> index_;
};

}  // namespace ebb::server
