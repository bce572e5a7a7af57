// Connection commands: PING, ECHO, HELLO, AUTH, SELECT, QUIT, RESET. They change only the
// calling client's state (protocol, database, name, authentication).
#include <cstdint>
#include <string_view>
#include <vector>

#include "protocol/reply_writer.h"
#include "server/acl/acl.h"
#include "server/commands/register.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/core/transaction.h"
#include "server/services/server_context.h"

namespace ebb::server {
namespace {

struct MessageOptions {
  std::optional<std::string_view> message;
};

// PING [message]
MessageOptions ParsePing(ArgParser& args) {
  MessageOptions o;
  if (args.remaining() > 1) {
    args.Fail(WrongArgsError("ping"));
  } else if (args.HasMore()) {
    o.message = args.Next();
  }
  return o;
}

void ExecutePing(CommandContext& ctx, const MessageOptions& o) {
  if (ctx.client.in_subscriber_mode() && ctx.client.resp() == 2) {
    // A RESP2 subscriber reads every reply as a message: ["pong", message or ""].
    ctx.reply.ArrayHeader(2);
    ctx.reply.Bulk("pong");
    return ctx.reply.Bulk(o.message.value_or(""));
  }
  if (!o.message) return ctx.reply.SimpleString("PONG");
  ctx.reply.Bulk(*o.message);
}

// ECHO message
MessageOptions ParseEcho(ArgParser& args) { return {args.Next()}; }

void ExecuteEcho(CommandContext& ctx, const MessageOptions& o) { ctx.reply.Bulk(*o.message); }

struct HelloOptions {
  int version = 0;                                                    // 0: unchanged
  std::optional<std::pair<std::string_view, std::string_view>> auth;  // user, password
  std::optional<std::string_view> name;
};

// HELLO [protover [AUTH username password] [SETNAME clientname]]
HelloOptions ParseHello(ArgParser& args) {
  HelloOptions o;
  if (!args.HasMore()) return o;
  const int64_t version = args.Int64(kProtocolVersionNotInteger);
  if (!args.failed() && (version < 2 || version > 3)) args.Fail(kNoProto);
  o.version = static_cast<int>(version);
  while (args.HasMore()) {
    const std::string_view option = args.Peek();
    if (args.remaining() >= 3 && args.Token("AUTH")) {
      const std::string_view user = args.Next();
      o.auth.emplace(user, args.Next());
    } else if (args.remaining() >= 2 && args.Token("SETNAME")) {
      o.name = args.Next();
    } else {
      args.Fail(HelloOptionError(option));
    }
  }
  return o;
}

void ExecuteHello(CommandContext& ctx, const HelloOptions& o) {
  Acl& acl = ctx.server.acl();
  if (o.auth) {
    const AclUser* user = acl.Authenticate(o.auth->first, o.auth->second);
    if (user == nullptr) {
      acl.LogAuthFailure(ctx.client, o.auth->first, ctx.args[0], ctx.server.clock().NowMs());
      return ctx.reply.Error(kWrongPass);
    }
    ctx.client.set_user(user);
  }
  if (acl.UserOf(ctx.client) == nullptr) {
    return ctx.reply.Error(kHelloNoAuth);
  }
  if (o.name) {
    if (!IsValidClientName(*o.name)) return ctx.reply.Error(kClientNameInvalid);
    ctx.client.set_name(*o.name);
  }
  if (o.version != 0) {
    ctx.client.set_resp(o.version);
    ctx.reply.set_protocol(o.version);
  }
  ctx.reply.MapHeader(7);
  ctx.reply.Bulk("server");
  ctx.reply.Bulk("ebb");
  ctx.reply.Bulk("version");
  ctx.reply.Bulk(ctx.server.version());
  ctx.reply.Bulk("proto");
  ctx.reply.Integer(ctx.client.resp());
  ctx.reply.Bulk("id");
  ctx.reply.Integer(static_cast<int64_t>(ctx.client.id()));
  ctx.reply.Bulk("mode");
  ctx.reply.Bulk("standalone");
  ctx.reply.Bulk("role");
  ctx.reply.Bulk("master");
  ctx.reply.Bulk("modules");
  ctx.reply.ArrayHeader(0);
}

struct AuthOptions {
  std::optional<std::string_view> user;  // nullopt: AUTH password (the default user)
  std::string_view password;
};

// AUTH [username] password
AuthOptions ParseAuth(ArgParser& args) {
  AuthOptions o;
  if (args.remaining() > 2) {
    args.SyntaxError();
  } else if (args.remaining() == 2) {
    o.user = args.Next();
  }
  o.password = args.Next();
  return o;
}

void ExecuteAuth(CommandContext& ctx, const AuthOptions& o) {
  Acl& acl = ctx.server.acl();
  if (!o.user && acl.default_user().nopass()) return ctx.reply.Error(kAuthNotConfigured);
  const AclUser* user = acl.Authenticate(o.user.value_or("default"), o.password);
  if (user == nullptr) {
    acl.LogAuthFailure(ctx.client, o.user.value_or("default"), ctx.args[0],
                       ctx.server.clock().NowMs());
    return ctx.reply.Error(kWrongPass);
  }
  ctx.client.set_user(user);
  ctx.reply.Ok();
}

struct SelectOptions {
  int64_t db = 0;
};

// SELECT index
SelectOptions ParseSelect(ArgParser& args) {
  return {args.Int64InRange(INT32_MIN, INT32_MAX, kNotInt32)};
}

void ExecuteSelect(CommandContext& ctx, const SelectOptions& o) {
  // A cluster node has one database.
  if (ctx.server.config().cluster_enabled && o.db != 0) return ctx.reply.Error(kSelectInCluster);
  if (o.db < 0 || o.db >= ctx.server.config().databases) {
    return ctx.reply.Error(kDbIndexOutOfRange);
  }
  ctx.client.set_db_index(static_cast<int>(o.db));
  ctx.reply.Ok();
}

// QUIT takes (and ignores) any arguments.
NoOptions ParseAnything(ArgParser& args) {
  while (args.HasMore()) args.Next();
  return {};
}

void ExecuteQuit(CommandContext& ctx, const NoOptions&) {
  ctx.reply.Ok();
  ctx.client.RequestClose();
}

void ExecuteReset(CommandContext& ctx, const NoOptions&) {
  DiscardTransaction(ctx.server.watches(), ctx.client);
  ctx.server.pubsub().Forget(&ctx.client);
  ctx.server.monitors().Remove(ctx.client.id());
  ctx.client.set_monitor(false);
  ctx.client.set_db_index(0);
  ctx.client.set_resp(2);
  ctx.reply.set_protocol(2);
  ctx.client.set_name("");
  ctx.client.set_user(ctx.server.acl().anonymous());  // `default` again if it needs no password
  ctx.client.set_asking(false);
  ctx.client.set_cluster_readonly(false);
  ctx.reply.SimpleString("RESET");
}

constexpr uint32_t kSession =
    kCmdNoAuth | kCmdFast | kCmdLoading | kCmdStale | kCmdNoScript | kCmdAllowBusy;
// QUIT and RESET also run at once inside MULTI and for a RESP2 subscriber.
constexpr uint32_t kEndSession = kSession | kCmdNoQueue | kCmdSubscriberOk;

}  // namespace

std::vector<CommandSpec> ConnectionCommands() {
  return {
      {.name = "ping",
       .arity = -1,
       .flags = kCmdFast | kCmdSubscriberOk,
       .group = "connection",
       .summary = "Returns the server's liveliness response.",
       .arguments = {{.name = "message", .optional = true}},
       .handler = Handler<ParsePing, ExecutePing>},
      {.name = "echo",
       .arity = 2,
       .flags = kCmdFast,
       .group = "connection",
       .summary = "Returns the given string.",
       .arguments = {{.name = "message"}},
       .handler = Handler<ParseEcho, ExecuteEcho>},
      {.name = "hello",
       .arity = -1,
       .flags = kSession,
       .group = "connection",
       .since = "6.0.0",
       .summary = "Handshakes with the server.",
       .arguments = {{.name = "arguments",
                      .type = ArgType::kBlock,
                      .optional = true,
                      .children = {{.name = "protover", .type = ArgType::kInteger},
                                   {.name = "auth",
                                    .type = ArgType::kBlock,
                                    .token = "AUTH",
                                    .optional = true,
                                    .children = {{.name = "username"}, {.name = "password"}}},
                                   {.name = "clientname", .token = "SETNAME", .optional = true}}}},
       .handler = Handler<ParseHello, ExecuteHello>},
      {.name = "auth",
       .arity = -2,
       .flags = kSession,
       .group = "connection",
       .summary = "Authenticates the connection.",
       .complexity = "O(N) where N is the number of passwords defined for the user",
       .arguments = {{.name = "username", .optional = true}, {.name = "password"}},
       .handler = Handler<ParseAuth, ExecuteAuth>},
      {.name = "select",
       .arity = 2,
       .flags = kCmdFast | kCmdLoading | kCmdStale,
       .group = "connection",
       .summary = "Changes the selected database.",
       .arguments = {{.name = "index", .type = ArgType::kInteger}},
       .handler = Handler<ParseSelect, ExecuteSelect>},
      {.name = "quit",
       .arity = -1,
       .flags = kEndSession,
       .group = "connection",
       .summary = "Closes the connection.",
       .handler = Handler<ParseAnything, ExecuteQuit>},
      {.name = "reset",
       .arity = 1,
       .flags = kEndSession,
       .group = "connection",
       .since = "6.2.0",
       .summary = "Resets the connection.",
       .handler = Handler<ParseNothing, ExecuteReset>},
  };
}

}  // namespace ebb::server
