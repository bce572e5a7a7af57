// CLIENT ID|SETNAME|GETNAME|SETINFO|LIST|INFO|KILL|HELP: the calling client's identity and the
// list of connected clients (ClientRegistry).
#include <algorithm>
#include <chrono>
#include <iterator>
#include <string>
#include <vector>

#include "protocol/reply_writer.h"
#include "server/client.h"
#include "server/command.h"
#include "server/commands/arg_parser.h"
#include "server/commands/command_rows.h"
#include "server/commands/register.h"
#include "server/errors.h"
#include "server/server_context.h"

namespace ebb::server {
namespace {

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool Printable(std::string_view s) {
  for (char c : s) {
    if (c < '!' || c > '~') return false;
  }
  return true;
}

void ClientId(CommandContext& ctx) { ctx.reply.Integer(static_cast<int64_t>(ctx.client.id())); }

void ClientSetName(CommandContext& ctx) {
  if (!Printable(ctx.args[2])) return ctx.reply.Error(kClientNameInvalid);
  ctx.client.set_name(ctx.args[2]);
  ctx.reply.Ok();
}

void ClientGetName(CommandContext& ctx) {
  if (ctx.client.name().empty()) return ctx.reply.Null();
  ctx.reply.Bulk(ctx.client.name());
}

void ClientSetInfo(CommandContext& ctx) {
  std::string_view attr = ctx.args[2];
  std::string_view value = ctx.args[3];
  bool is_name = EqualsIgnoreCase(attr, "lib-name");
  if (!is_name && !EqualsIgnoreCase(attr, "lib-ver")) {
    return ctx.reply.Error("ERR Unrecognized option '" + std::string(attr) + "'");
  }
  if (!Printable(value)) {
    return ctx.reply.Error(std::string("ERR ") + (is_name ? "lib-name" : "lib-ver") +
                           " cannot contain spaces, newlines or special characters.");
  }
  if (is_name) {
    ctx.client.set_lib_name(value);
  } else {
    ctx.client.set_lib_ver(value);
  }
  ctx.reply.Ok();
}

void ClientList(CommandContext& ctx) {
  std::vector<uint64_t> ids;
  ArgParser p(ctx.args, 2);
  while (p.HasMore()) {
    if (p.Token("TYPE")) {
      std::string_view type = p.Next();
      if (!p.Failed() && !EqualsIgnoreCase(type, "normal") && !EqualsIgnoreCase(type, "master") &&
          !EqualsIgnoreCase(type, "replica") && !EqualsIgnoreCase(type, "pubsub")) {
        p.Fail("ERR Unknown client type '" + std::string(type) + "'");
      }
      if (!p.Failed() && !EqualsIgnoreCase(type, "normal")) ids.push_back(0);  // none match
    } else if (p.Token("ID")) {
      if (!p.HasMore()) p.SyntaxError();
      while (p.HasMore()) {
        int64_t id = 0;
        if (!ParseInt64(p.Next(), &id) || id <= 0) {
          p.Fail("ERR Invalid client ID");
          break;
        }
        ids.push_back(static_cast<uint64_t>(id));
      }
    } else {
      p.SyntaxError();
    }
  }
  if (p.Failed()) return p.ReplyError(ctx.reply);
  int64_t now = WallMs();
  std::string text;
  for (const auto& [id, client] : ctx.server.clients().all()) {
    if (!ids.empty() && std::find(ids.begin(), ids.end(), id) == ids.end()) continue;
    text += client->InfoLine(now);
    text += '\n';
  }
  ctx.reply.Verbatim("txt", text);
}

void ClientInfo(CommandContext& ctx) {
  ctx.reply.Verbatim("txt", ctx.client.InfoLine(WallMs()) + "\n");
}

// CLIENT KILL addr:port (old form: +OK or "No such client") or
// CLIENT KILL [ID id] [ADDR a] [LADDR a] [USER u] [TYPE t] [SKIPME yes|no] (count of killed).
void ClientKill(CommandContext& ctx) {
  ClientRegistry& registry = ctx.server.clients();
  if (ctx.args.size() == 3) {
    for (const auto& [id, client] : registry.all()) {
      if (client->addr() == ctx.args[2]) {
        client->RequestClose();
        return ctx.reply.Ok();
      }
    }
    return ctx.reply.Error(kNoSuchClient);
  }
  uint64_t want_id = 0;
  std::string_view addr, laddr, user;
  bool type_matches = true;
  bool skipme = true;
  ArgParser p(ctx.args, 2);
  while (p.HasMore()) {
    if (p.remaining() < 2) {
      p.SyntaxError();
    } else if (p.Token("ID")) {
      int64_t id = 0;
      if (!ParseInt64(p.Next(), &id) || id <= 0) {
        p.Fail("ERR client-id should be greater than 0");
      }
      want_id = static_cast<uint64_t>(id);
    } else if (p.Token("ADDR")) {
      addr = p.Next();
    } else if (p.Token("LADDR")) {
      laddr = p.Next();
    } else if (p.Token("USER")) {
      user = p.Next();
    } else if (p.Token("TYPE")) {
      std::string_view type = p.Next();
      if (EqualsIgnoreCase(type, "normal")) {
        type_matches = true;
      } else if (EqualsIgnoreCase(type, "master") || EqualsIgnoreCase(type, "replica") ||
                 EqualsIgnoreCase(type, "slave") || EqualsIgnoreCase(type, "pubsub")) {
        type_matches = false;
      } else {
        p.Fail("ERR Unknown client type '" + std::string(type) + "'");
      }
    } else if (p.Token("SKIPME")) {
      std::string_view v = p.Next();
      if (EqualsIgnoreCase(v, "yes")) {
        skipme = true;
      } else if (EqualsIgnoreCase(v, "no")) {
        skipme = false;
      } else {
        p.SyntaxError();
      }
    } else {
      p.SyntaxError();
    }
  }
  if (p.Failed()) return p.ReplyError(ctx.reply);
  if (!user.empty() && user != "default") {
    return ctx.reply.Error("ERR No such user '" + std::string(user) + "'");
  }
  int64_t killed = 0;
  std::vector<Client*> victims;
  for (const auto& [id, client] : registry.all()) {
    if (!type_matches) break;
    if (want_id != 0 && id != want_id) continue;
    if (!addr.empty() && client->addr() != addr) continue;
    if (!laddr.empty() && client->laddr() != laddr) continue;
    if (skipme && client == &ctx.client) continue;
    victims.push_back(client);
  }
  for (Client* c : victims) {
    c->RequestClose();
    ++killed;
  }
  ctx.reply.Integer(killed);
}

void ClientHelp(CommandContext& ctx) {
  static const char* kLines[] = {
      "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "GETNAME",
      "    Return the name of the current connection.",
      "ID",
      "    Return the ID of the current connection.",
      "INFO",
      "    Return information about the current client connection.",
      "KILL <ip:port>",
      "    Kill connection made from <ip:port>.",
      "KILL <option> <value> [<option> <value> [...]]",
      "    Kill connections. Options are: ID <client-id>, ADDR <ip:port>, LADDR <ip:port>,",
      "    TYPE normal, USER default, SKIPME (YES|NO).",
      "LIST [TYPE normal] [ID <id> [<id> ...]]",
      "    Return information about client connections.",
      "SETINFO <LIB-NAME|LIB-VER> <value>",
      "    Set client library name or version.",
      "SETNAME <name>",
      "    Assign the name <name> to the current connection.",
      "HELP",
      "    Print this help."};
  ctx.reply.ArrayHeader(std::size(kLines));
  for (const char* line : kLines) ctx.reply.SimpleString(line);
}

}  // namespace

void RegisterClientCommands(CommandTable& table) {
  CommandSpec client;
  client.name = "client";
  client.arity = -2;
  client.group = "connection";
  client.summary = "A container for client connection commands.";
  client.complexity = "Depends on subcommand.";
  const uint32_t kConn = kCmdNoScript | kCmdLoading | kCmdStale;
  client.subcommands = {
      Row("id", 2, kConn, "connection", "Returns the unique client ID of the connection.",
          ClientId),
      Row("setname", 3, kConn, "connection", "Sets the connection name.", ClientSetName,
          {Arg("connection-name")}),
      Row("getname", 2, kConn, "connection", "Returns the name of the connection.", ClientGetName),
      Row("setinfo", 4, kConn, "connection", "Sets information specific to the client.",
          ClientSetInfo,
          {OneOf("attr", {TokenArg("LIB-NAME", "libname", ArgType::kString),
                          TokenArg("LIB-VER", "libver", ArgType::kString)})}),
      Row("list", -2, kConn | kCmdAdmin, "connection", "Lists open connections.", ClientList,
          {Optional(TokenArg("TYPE", "client-type", ArgType::kString)),
           Optional(Multiple(TokenArg("ID", "client-id", ArgType::kInteger)))}),
      Row("info", 2, kConn, "connection", "Returns information about the connection.", ClientInfo),
      Row("kill", -3, kConn | kCmdAdmin, "connection", "Terminates open connections.", ClientKill,
          {OneOf("filter",
                 {Arg("old-format"),
                  Multiple(OneOf("new-format",
                                 {Optional(TokenArg("ID", "client-id", ArgType::kInteger)),
                                  Optional(TokenArg("ADDR", "ip:port", ArgType::kString)),
                                  Optional(TokenArg("LADDR", "ip:port", ArgType::kString)),
                                  Optional(TokenArg("SKIPME", "yes/no", ArgType::kString))}))})}),
      Row("help", 2, kCmdLoading | kCmdStale, "connection", "Returns helpful text.", ClientHelp),
  };
  for (auto& sub : client.subcommands) sub.since = "2.4.0";
  table.Add(client);
}

}  // namespace ebb::server
