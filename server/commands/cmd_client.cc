// CLIENT ID|SETNAME|GETNAME|SETINFO|LIST|INFO|KILL|HELP: the calling client's identity and the
// list of connected clients (ClientRegistry).
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "common/strings.h"
#include "common/wall_clock.h"
#include "protocol/reply_writer.h"
#include "server/acl/acl_user.h"
#include "server/commands/register.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/services/command_docs.h"
#include "server/services/server_context.h"

namespace ebb::server {
namespace {

void ExecuteId(CommandContext& ctx, const NoOptions&) {
  ctx.reply.Integer(static_cast<int64_t>(ctx.client.id()));
}

struct NameOptions {
  std::string_view name;
};

// CLIENT SETNAME connection-name
NameOptions ParseSetName(ArgParser& args) {
  NameOptions o{args.Next()};
  if (!args.failed() && !IsValidClientName(o.name)) args.Fail(kClientNameInvalid);
  return o;
}

void ExecuteSetName(CommandContext& ctx, const NameOptions& o) {
  ctx.client.set_name(o.name);
  ctx.reply.Ok();
}

struct ReplyOptions {
  Client::ReplyMode mode = Client::ReplyMode::kOn;
};

// CLIENT REPLY ON|OFF|SKIP
ReplyOptions ParseReply(ArgParser& args) {
  ReplyOptions o;
  const int mode = args.Choice({"ON", "OFF", "SKIP"});
  if (mode < 0) args.SyntaxError();
  o.mode = mode == 1   ? Client::ReplyMode::kOff
           : mode == 2 ? Client::ReplyMode::kSkipNext
                       : Client::ReplyMode::kOn;
  return o;
}

// OFF and SKIP reply nothing. ON replies OK even while replies were off: pushed, since the
// connection silences the reply of a command that starts silenced.
void ExecuteReply(CommandContext& ctx, const ReplyOptions& o) {
  ctx.client.set_reply_mode(o.mode);
  if (o.mode == Client::ReplyMode::kOn) ctx.client.Push("+OK\r\n");
}

void ExecuteGetName(CommandContext& ctx, const NoOptions&) {
  if (ctx.client.name().empty()) return ctx.reply.Null();
  ctx.reply.Bulk(ctx.client.name());
}

struct SetInfoOptions {
  bool lib_name = false;  // else lib-ver
  std::string_view value;
};

// CLIENT SETINFO LIB-NAME|LIB-VER value
SetInfoOptions ParseSetInfo(ArgParser& args) {
  SetInfoOptions o;
  const std::string_view attribute = args.Peek();  // the arity guarantees it
  const int which = args.Choice({"LIB-NAME", "LIB-VER"});
  if (which < 0) args.Fail(UnrecognizedOptionError(attribute));
  o.lib_name = which == 0;
  o.value = args.Next();
  if (!args.failed() && !IsValidClientName(o.value)) {
    args.Fail(ClientInfoInvalidError(o.lib_name ? "lib-name" : "lib-ver"));
  }
  return o;
}

void ExecuteSetInfo(CommandContext& ctx, const SetInfoOptions& o) {
  if (o.lib_name) {
    ctx.client.set_lib_name(o.value);
  } else {
    ctx.client.set_lib_ver(o.value);
  }
  ctx.reply.Ok();
}

// Client types as CLIENT LIST/KILL TYPE names them (Redis's getClientType): the link to this
// replica's master, a replica of this server, a client in subscriber mode, or normal.
enum class ClientType { kAny, kNormal, kPubSub, kMaster, kReplica, kNone };

ClientType TypeOf(const Client& c) {
  if (c.is_master_link()) return ClientType::kMaster;
  if (c.is_replica()) return ClientType::kReplica;
  return c.in_subscriber_mode() ? ClientType::kPubSub : ClientType::kNormal;
}
bool TypeMatches(ClientType wanted, const Client& c) {
  return wanted == ClientType::kAny || wanted == TypeOf(c);
}

// The value of CLIENT LIST/KILL TYPE (`slave`, Redis's old name of replica, for KILL only); any
// other word latches "Unknown client type".
ClientType ParseClientType(ArgParser& args, bool allow_slave) {
  if (!args.HasMore()) {
    args.SyntaxError();
    return ClientType::kNone;
  }
  const std::string_view type = args.Peek();
  const int known = allow_slave ? args.Choice({"normal", "master", "replica", "pubsub", "slave"})
                                : args.Choice({"normal", "master", "replica", "pubsub"});
  if (known < 0) args.Fail(UnknownClientTypeError(type));
  switch (known) {
    case 0:
      return ClientType::kNormal;
    case 1:
      return ClientType::kMaster;
    case 2:
    case 4:
      return ClientType::kReplica;
    case 3:
      return ClientType::kPubSub;
    default:
      return ClientType::kNone;
  }
}

struct ListOptions {
  std::vector<uint64_t> ids;  // empty: every client
  ClientType type = ClientType::kAny;
};

// CLIENT LIST [TYPE normal|master|replica|pubsub] [ID id [id ...]]
ListOptions ParseList(ArgParser& args) {
  ListOptions o;
  while (args.HasMore()) {
    if (args.Token("TYPE")) {
      o.type = ParseClientType(args, /*allow_slave=*/false);
    } else if (args.Token("ID")) {
      if (!args.HasMore()) args.SyntaxError();
      while (args.HasMore()) {
        const int64_t id = args.Int64(kInvalidClientId);
        if (!args.failed() && id <= 0) args.Fail(kInvalidClientId);
        o.ids.push_back(static_cast<uint64_t>(id));
      }
    } else {
      args.SyntaxError();
    }
  }
  return o;
}

void ExecuteList(CommandContext& ctx, const ListOptions& o) {
  const int64_t now = WallMs();
  std::string text;
  for (const auto& [id, client] : ctx.server.clients().all()) {
    if (!o.ids.empty() && std::find(o.ids.begin(), o.ids.end(), id) == o.ids.end()) continue;
    if (!TypeMatches(o.type, *client)) continue;
    text += client->InfoLine(now, ClientUserName(*client));
    text += '\n';
  }
  ctx.reply.Verbatim("txt", text);
}

void ExecuteInfo(CommandContext& ctx, const NoOptions&) {
  ctx.reply.Verbatim("txt", ctx.client.InfoLine(WallMs(), ClientUserName(ctx.client)) + "\n");
}

struct KillOptions {
  std::optional<std::string_view> old_form_addr;  // CLIENT KILL addr:port
  uint64_t id = 0;                                // 0: any
  std::string_view addr, laddr, user;             // empty: any
  ClientType type = ClientType::kAny;
  bool skipme = true;
};

// CLIENT KILL addr:port, or CLIENT KILL [ID id] [ADDR a] [LADDR a] [USER u] [TYPE t]
// [SKIPME yes|no] (filters and'ed).
KillOptions ParseKill(ArgParser& args) {
  KillOptions o;
  if (args.remaining() == 1) {
    o.old_form_addr = args.Next();
    return o;
  }
  while (args.HasMore()) {
    if (args.remaining() < 2) {
      args.SyntaxError();
    } else if (args.Token("ID")) {
      const int64_t id = args.Int64(kClientIdNotPositive);
      if (!args.failed() && id <= 0) args.Fail(kClientIdNotPositive);
      o.id = static_cast<uint64_t>(id);
    } else if (args.Token("ADDR")) {
      o.addr = args.Next();
    } else if (args.Token("LADDR")) {
      o.laddr = args.Next();
    } else if (args.Token("USER")) {
      o.user = args.Next();
    } else if (args.Token("TYPE")) {
      o.type = ParseClientType(args, /*allow_slave=*/true);
    } else if (args.Token("SKIPME")) {
      const int yes_no = args.Choice({"yes", "no"});
      if (yes_no < 0) args.SyntaxError();
      o.skipme = yes_no == 0;
    } else {
      args.SyntaxError();
    }
  }
  return o;
}

void ExecuteKill(CommandContext& ctx, const KillOptions& o) {
  ClientRegistry& registry = ctx.server.clients();
  if (o.old_form_addr) {
    for (const auto& [id, client] : registry.all()) {
      if (client->addr() == *o.old_form_addr) {
        client->RequestClose();
        return ctx.reply.Ok();
      }
    }
    return ctx.reply.Error(kNoSuchClient);
  }
  if (!o.user.empty() && o.user != "default") return ctx.reply.Error(NoSuchUserError(o.user));
  std::vector<Client*> victims;
  for (const auto& [id, client] : registry.all()) {
    if (!TypeMatches(o.type, *client)) continue;
    if (o.id != 0 && id != o.id) continue;
    if (!o.addr.empty() && client->addr() != o.addr) continue;
    if (!o.laddr.empty() && client->laddr() != o.laddr) continue;
    if (o.skipme && client == &ctx.client) continue;
    victims.push_back(client);
  }
  for (Client* c : victims) c->RequestClose();
  ctx.reply.Integer(static_cast<int64_t>(victims.size()));
}

constexpr uint32_t kConn = kCmdNoScript | kCmdLoading | kCmdStale;

CommandSpec Sub(CommandSpec spec) {
  spec.group = "connection";
  spec.since = "2.4.0";
  return spec;
}

ArgSpec Token(std::string_view token, std::string_view name, ArgType type, bool optional = true,
              bool multiple = false) {
  return {.name = name, .type = type, .token = token, .optional = optional, .multiple = multiple};
}

}  // namespace

std::vector<CommandSpec> ClientCommands() {
  return {
      {.name = "client",
       .arity = -2,
       .group = "connection",
       .summary = "A container for client connection commands.",
       .complexity = "Depends on subcommand.",
       .subcommands = {
           Sub({.name = "getname",
                .arity = 2,
                .flags = kConn,
                .summary = "Returns the name of the connection.",
                .help = {{.text = "Return the name of the current connection."}},
                .handler = Handler<ParseNothing, ExecuteGetName>}),
           Sub({.name = "id",
                .arity = 2,
                .flags = kConn,
                .summary = "Returns the unique client ID of the connection.",
                .help = {{.text = "Return the ID of the current connection."}},
                .handler = Handler<ParseNothing, ExecuteId>}),
           Sub({.name = "info",
                .arity = 2,
                .flags = kConn,
                .summary = "Returns information about the connection.",
                .help = {{.text = "Return information about the current client connection."}},
                .handler = Handler<ParseNothing, ExecuteInfo>}),
           Sub({.name = "kill",
                .arity = -3,
                .flags = kConn | kCmdAdmin,
                .summary = "Terminates open connections.",
                .arguments =
                    {{.name = "filter",
                      .type = ArgType::kOneOf,
                      .children = {{.name = "old-format"},
                                   {.name = "new-format",
                                    .type = ArgType::kOneOf,
                                    .multiple = true,
                                    .children = {Token("ID", "client-id", ArgType::kInteger),
                                                 Token("ADDR", "ip:port", ArgType::kString),
                                                 Token("LADDR", "ip:port", ArgType::kString),
                                                 Token("SKIPME", "yes/no", ArgType::kString)}}}}},
                .help = {{.usage = "KILL <ip:port>",
                          .text = "Kill connection made from <ip:port>."},
                         {.usage = "KILL <option> <value> [<option> <value> [...]]",
                          .text = "Kill connections. Options are: ID <client-id>, ADDR <ip:port>, "
                                  "LADDR <ip:port>,\nTYPE normal, USER default, SKIPME (YES|NO)."}},
                .handler = Handler<ParseKill, ExecuteKill>}),
           Sub({.name = "list",
                .arity = -2,
                .flags = kConn | kCmdAdmin,
                .summary = "Lists open connections.",
                .arguments = {Token("TYPE", "client-type", ArgType::kString),
                              Token("ID", "client-id", ArgType::kInteger, true, true)},
                .help = {{.usage = "LIST [TYPE normal] [ID <id> [<id> ...]]",
                          .text = "Return information about client connections."}},
                .handler = Handler<ParseList, ExecuteList>}),
           Sub({.name = "setinfo",
                .arity = 4,
                .flags = kConn,
                .summary = "Sets information specific to the client.",
                .arguments = {{.name = "attr",
                               .type = ArgType::kOneOf,
                               .children = {Token("LIB-NAME", "libname", ArgType::kString, false),
                                            Token("LIB-VER", "libver", ArgType::kString, false)}}},
                .help = {{.usage = "SETINFO <LIB-NAME|LIB-VER> <value>",
                          .text = "Set client library name or version."}},
                .handler = Handler<ParseSetInfo, ExecuteSetInfo>}),
           Sub({.name = "reply",
                .arity = 3,
                .flags = kConn,
                .summary = "Instructs the server whether to reply to commands.",
                .arguments =
                    {{.name = "action",
                      .type = ArgType::kOneOf,
                      .children =
                          {{.name = "on", .type = ArgType::kPureToken, .token = "ON"},
                           {.name = "off", .type = ArgType::kPureToken, .token = "OFF"},
                           {.name = "skip", .type = ArgType::kPureToken, .token = "SKIP"}}}},
                .help = {{.usage = "REPLY (ON|OFF|SKIP)",
                          .text = "Control the replies sent to the current connection."}},
                .handler = Handler<ParseReply, ExecuteReply>}),
           Sub({.name = "setname",
                .arity = 3,
                .flags = kConn,
                .summary = "Sets the connection name.",
                .arguments = {{.name = "connection-name"}},
                .help = {{.usage = "SETNAME <name>",
                          .text = "Assign the name <name> to the current connection."}},
                .handler = Handler<ParseSetName, ExecuteSetName>}),
           HelpSubcommand("connection", "Returns helpful text.", kCmdLoading | kCmdStale, "2.4.0"),
       }}};
}

}  // namespace ebb::server
