// Connection commands: PING, ECHO, HELLO, AUTH, SELECT, QUIT, RESET.
// They change only the calling client's state (protocol, database, name, authentication).
#include <string>

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

constexpr std::string_view kHelloNoAuth =
    "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO "
    "<proto> AUTH <user> <pass> option can be used to authenticate the client and select the "
    "RESP protocol version at the same time";

// Redis's default user: "nopass" when requirepass is empty.
bool CheckCredentials(const Config& config, std::string_view user, std::string_view pass) {
  if (user != "default") return false;
  return config.requirepass.empty() || pass == config.requirepass;
}

bool Authenticated(const CommandContext& ctx) {
  return ctx.server.config().requirepass.empty() || ctx.client.authenticated();
}

// Redis validateClientName: printable ASCII without spaces.
bool ValidClientName(std::string_view name) {
  for (char c : name) {
    if (c < '!' || c > '~') return false;
  }
  return true;
}

void PingCommand(CommandContext& ctx) {
  if (ctx.args.size() > 2) return ctx.reply.Error(WrongArgsError("ping"));
  if (ctx.args.size() == 1) return ctx.reply.SimpleString("PONG");
  ctx.reply.Bulk(ctx.args[1]);
}

void EchoCommand(CommandContext& ctx) { ctx.reply.Bulk(ctx.args[1]); }

void HelloCommand(CommandContext& ctx) {
  int64_t version = 0;
  if (ctx.args.size() >= 2) {
    if (!ParseInt64(ctx.args[1], &version)) {
      return ctx.reply.Error("ERR Protocol version is not an integer or out of range");
    }
    if (version < 2 || version > 3) return ctx.reply.Error(kNoProto);
  }
  std::string_view user, pass, name;
  bool has_auth = false, has_name = false;
  for (size_t j = 2; j < ctx.args.size(); ++j) {
    size_t more = ctx.args.size() - 1 - j;
    if (EqualsIgnoreCase(ctx.args[j], "AUTH") && more >= 2) {
      user = ctx.args[j + 1];
      pass = ctx.args[j + 2];
      has_auth = true;
      j += 2;
    } else if (EqualsIgnoreCase(ctx.args[j], "SETNAME") && more >= 1) {
      name = ctx.args[j + 1];
      has_name = true;
      j += 1;
    } else {
      return ctx.reply.Error("ERR Syntax error in HELLO option '" + std::string(ctx.args[j]) + "'");
    }
  }
  if (has_auth) {
    if (!CheckCredentials(ctx.server.config(), user, pass)) return ctx.reply.Error(kWrongPass);
    ctx.client.set_authenticated(true);
  }
  if (!Authenticated(ctx)) return ctx.reply.Error(kHelloNoAuth);
  if (has_name) {
    if (!ValidClientName(name)) return ctx.reply.Error(kClientNameInvalid);
    ctx.client.set_name(name);
  }
  if (version != 0) {
    ctx.client.set_resp(static_cast<int>(version));
    ctx.reply.set_protocol(static_cast<int>(version));
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

void AuthCommand(CommandContext& ctx) {
  if (ctx.args.size() > 3) return ctx.reply.Error(kSyntaxError);
  const Config& config = ctx.server.config();
  std::string_view user = "default";
  std::string_view pass;
  if (ctx.args.size() == 2) {
    if (config.requirepass.empty()) return ctx.reply.Error(kAuthNotConfigured);
    pass = ctx.args[1];
  } else {
    user = ctx.args[1];
    pass = ctx.args[2];
  }
  if (!CheckCredentials(config, user, pass)) return ctx.reply.Error(kWrongPass);
  ctx.client.set_authenticated(true);
  ctx.reply.Ok();
}

void SelectCommand(CommandContext& ctx) {
  int64_t db = 0;
  if (!ParseInt64(ctx.args[1], &db)) return ctx.reply.Error(kNotInteger);
  if (db < INT32_MIN || db > INT32_MAX) return ctx.reply.Error(kNotInt32);
  if (db < 0 || db >= ctx.server.config().databases) return ctx.reply.Error(kDbIndexOutOfRange);
  ctx.client.set_db_index(static_cast<int>(db));
  ctx.reply.Ok();
}

void QuitCommand(CommandContext& ctx) {
  ctx.reply.Ok();
  ctx.client.RequestClose();
}

void ResetCommand(CommandContext& ctx) {
  ctx.client.set_db_index(0);
  ctx.client.set_resp(2);
  ctx.reply.set_protocol(2);
  ctx.client.set_name("");
  ctx.client.set_authenticated(false);
  ctx.reply.SimpleString("RESET");
}

}  // namespace

void RegisterConnectionCommands(CommandTable& table) {
  CommandSpec ping;
  ping.name = "ping";
  ping.arity = -1;
  ping.flags = kCmdFast;
  ping.group = "connection";
  ping.summary = "Returns the server's liveliness response.";
  ping.complexity = "O(1)";
  ping.arguments = {Optional(Arg("message"))};
  ping.handler = PingCommand;
  table.Add(ping);

  CommandSpec echo;
  echo.name = "echo";
  echo.arity = 2;
  echo.flags = kCmdFast;
  echo.group = "connection";
  echo.summary = "Returns the given string.";
  echo.complexity = "O(1)";
  echo.arguments = {Arg("message")};
  echo.handler = EchoCommand;
  table.Add(echo);

  CommandSpec hello;
  hello.name = "hello";
  hello.arity = -1;
  hello.flags = kCmdNoAuth | kCmdFast | kCmdLoading | kCmdStale | kCmdNoScript;
  hello.group = "connection";
  hello.since = "6.0.0";
  hello.summary = "Handshakes with the server.";
  hello.complexity = "O(1)";
  ArgSpec protover = Arg("protover", ArgType::kInteger);
  ArgSpec auth;
  auth.name = "auth";
  auth.type = ArgType::kBlock;
  auth.token = "AUTH";
  auth.optional = true;
  auth.children = {Arg("username"), Arg("password")};
  ArgSpec setname = Optional(Arg("clientname"));
  setname.token = "SETNAME";
  ArgSpec args;
  args.name = "arguments";
  args.type = ArgType::kBlock;
  args.optional = true;
  args.children = {protover, auth, setname};
  hello.arguments = {args};
  hello.handler = HelloCommand;
  table.Add(hello);

  CommandSpec auth_cmd;
  auth_cmd.name = "auth";
  auth_cmd.arity = -2;
  auth_cmd.flags = kCmdNoAuth | kCmdFast | kCmdLoading | kCmdStale | kCmdNoScript;
  auth_cmd.group = "connection";
  auth_cmd.summary = "Authenticates the connection.";
  auth_cmd.complexity = "O(N) where N is the number of passwords defined for the user";
  auth_cmd.arguments = {Optional(Arg("username")), Arg("password")};
  auth_cmd.handler = AuthCommand;
  table.Add(auth_cmd);

  CommandSpec select;
  select.name = "select";
  select.arity = 2;
  select.flags = kCmdFast | kCmdLoading | kCmdStale;
  select.group = "connection";
  select.summary = "Changes the selected database.";
  select.complexity = "O(1)";
  select.arguments = {Arg("index", ArgType::kInteger)};
  select.handler = SelectCommand;
  table.Add(select);

  CommandSpec quit;
  quit.name = "quit";
  quit.arity = -1;
  quit.flags = kCmdNoAuth | kCmdFast | kCmdLoading | kCmdStale | kCmdNoScript;
  quit.group = "connection";
  quit.summary = "Closes the connection.";
  quit.complexity = "O(1)";
  quit.handler = QuitCommand;
  table.Add(quit);

  CommandSpec reset;
  reset.name = "reset";
  reset.arity = 1;
  reset.flags = kCmdNoAuth | kCmdFast | kCmdLoading | kCmdStale | kCmdNoScript;
  reset.group = "connection";
  reset.since = "6.2.0";
  reset.summary = "Resets the connection.";
  reset.complexity = "O(1)";
  reset.handler = ResetCommand;
  table.Add(reset);
}

}  // namespace ebb::server
