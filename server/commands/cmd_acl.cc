// ACL SETUSER|GETUSER|DELUSER|LIST|USERS|WHOAMI|CAT|GENPASS|DRYRUN|LOAD|SAVE|HELP over the
// server's Acl (server/acl/acl.h), with Redis 7's replies.
#include <openssl/rand.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/acl/acl.h"
#include "server/acl/acl_categories.h"
#include "server/commands/register.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/services/command_docs.h"
#include "server/services/server_context.h"

namespace ebb::server {
namespace {

// ACL SETUSER username [rule ...]
struct SetUserOptions {
  std::string_view username;
  std::vector<std::string_view> rules;
};
SetUserOptions ParseSetUser(ArgParser& args) {
  SetUserOptions o;
  o.username = args.Next();
  o.rules = RemainingArgs(args);
  return o;
}

void ExecuteSetUser(CommandContext& ctx, const SetUserOptions& o) {
  const Result<AclCode> set = ctx.server.acl().SetUser(o.username, o.rules);
  if (!set.ok()) return ctx.reply.Error(AclErrorText(set));
  Acl::DisconnectRevokedSubscribers(*ctx.server.acl().Find(o.username), ctx.server.clients());
  ctx.reply.Ok();
}

// ACL GETUSER's commands, keys and channels of one selector, as three map entries.
void DescribeSelector(protocol::ReplyWriter& reply, const AclSelector& selector) {
  reply.Bulk("commands");
  reply.Bulk(selector.CommandRules());
  reply.Bulk("keys");
  reply.Bulk(selector.KeyRules());
  reply.Bulk("channels");
  reply.Bulk(selector.ChannelRules());
}

// ACL GETUSER username
void ExecuteGetUser(CommandContext& ctx, const KeyOptions& o) {
  const AclUser* user = ctx.server.acl().Find(o.key);
  if (user == nullptr) return ctx.reply.Null();
  ctx.reply.MapHeader(6);
  ctx.reply.Bulk("flags");
  const std::vector<std::string_view> flags = user->Flags();
  ctx.reply.SetHeader(flags.size());
  for (std::string_view flag : flags) ctx.reply.Bulk(flag);
  ctx.reply.Bulk("passwords");
  ctx.reply.ArrayHeader(user->password_hashes().size());
  for (const std::string& hash : user->password_hashes()) ctx.reply.Bulk(hash);
  DescribeSelector(ctx.reply, user->root());
  ctx.reply.Bulk("selectors");
  ctx.reply.ArrayHeader(user->selectors().size() - 1);
  for (size_t i = 1; i < user->selectors().size(); i++) {
    ctx.reply.MapHeader(3);
    DescribeSelector(ctx.reply, user->selectors()[i]);
  }
}

// ACL DELUSER username [username ...]
struct UsernamesOptions {
  std::vector<std::string_view> usernames;
};
UsernamesOptions ParseUsernames(ArgParser& args) { return {RemainingArgs(args)}; }

void ExecuteDelUser(CommandContext& ctx, const UsernamesOptions& o) {
  const Result<AclCode, int64_t> deleted =
      ctx.server.acl().DeleteUsers(o.usernames, ctx.server.clients());
  if (!deleted.ok()) return ctx.reply.Error(AclErrorText(deleted.failure()));
  ctx.reply.Integer(*deleted);
}

// ACL LIST: each user as a config line.
void ExecuteList(CommandContext& ctx, const NoOptions&) {
  const auto& users = ctx.server.acl().users();
  ctx.reply.ArrayHeader(users.size());
  for (const auto& [name, user] : users) ctx.reply.Bulk(Acl::ListLine(*user));
}

// ACL USERS
void ExecuteUsers(CommandContext& ctx, const NoOptions&) {
  const auto& users = ctx.server.acl().users();
  ctx.reply.ArrayHeader(users.size());
  for (const auto& [name, user] : users) ctx.reply.Bulk(name);
}

// ACL WHOAMI: an unauthenticated client acts as `default`.
void ExecuteWhoAmI(CommandContext& ctx, const NoOptions&) {
  const AclUser* user = ctx.client.user();
  ctx.reply.Bulk(user != nullptr ? std::string_view(user->name()) : "default");
}

// ACL CAT [category]
struct CatOptions {
  int category = -1;  // -1: none named, list the categories
};
CatOptions ParseCat(ArgParser& args) {
  CatOptions o;
  // Redis's aclCommand answers extra arguments itself.
  if (args.remaining() > 1) {
    args.Fail(SubcommandSyntaxError(args.at(0), args.at(1)));
    return o;
  }
  if (!args.HasMore()) return o;
  const std::string_view name = args.Next();
  o.category = FindAclCategory(name);
  if (o.category < 0) args.Fail(UnknownAclCategoryError(name));
  return o;
}

void ExecuteCat(CommandContext& ctx, const CatOptions& o) {
  if (o.category < 0) {
    const auto names = AclCategoryNames();
    ctx.reply.ArrayHeader(names.size());
    for (std::string_view name : names) ctx.reply.Bulk(name);
    return;
  }
  const int category = o.category;
  std::vector<const CommandSpec*> rows;
  for (const auto& [name, spec] : ctx.server.commands().rows()) {
    if (AclCategoriesOf(spec) & (uint64_t{1} << category)) rows.push_back(&spec);
    for (const CommandSpec& sub : spec.subcommands) {
      if (AclCategoriesOf(sub) & (uint64_t{1} << category)) rows.push_back(&sub);
    }
  }
  ctx.reply.ArrayHeader(rows.size());
  for (const CommandSpec* spec : rows) ctx.reply.Bulk(spec->full_name);
}

// ACL GENPASS [bits]: a random password of `bits` bits (default 256) as hex.
struct GenPassOptions {
  int64_t bits = 256;
};
GenPassOptions ParseGenPass(ArgParser& args) {
  GenPassOptions o;
  if (args.remaining() > 1) {
    args.Fail(WrongArgsError("acl|genpass"));
  } else if (args.HasMore()) {
    o.bits = args.Int64(kAclGenPassBits);
    if (!args.failed() && (o.bits <= 0 || o.bits > 4096)) args.Fail(kAclGenPassBits);
  }
  return o;
}

void ExecuteGenPass(CommandContext& ctx, const GenPassOptions& o) {
  const size_t chars = static_cast<size_t>((o.bits + 3) / 4);
  std::vector<unsigned char> random((chars + 1) / 2);
  if (RAND_bytes(random.data(), static_cast<int>(random.size())) != 1) {
    return ctx.reply.Error(kAclGenPassFailed);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string password;
  for (unsigned char b : random) {
    password.push_back(kHex[b >> 4]);
    password.push_back(kHex[b & 0xf]);
  }
  password.resize(chars);
  ctx.reply.Bulk(password);
}

// ACL DRYRUN username command [arg ...]: +OK, or why the user may not run it (a bulk string).
// The user and the command are looked up by Execute.
struct DryRunOptions {
  std::string_view username;
  std::vector<std::string_view> request;  // command [arg ...]
};
DryRunOptions ParseDryRun(ArgParser& args) {
  DryRunOptions o;
  o.username = args.Next();
  o.request = RemainingArgs(args);
  return o;
}

void ExecuteDryRun(CommandContext& ctx, const DryRunOptions& o) {
  const AclUser* user = ctx.server.acl().Find(o.username);
  if (user == nullptr) {
    return ctx.reply.Error(AclUserNotFoundError(o.username));
  }
  const std::span<const std::string_view> request(o.request);
  const auto [spec, flags, first_arg] = ctx.server.commands().Resolve(request);
  if (spec == nullptr) {
    return ctx.reply.Error(AclCommandNotFoundError(request[0]));
  }
  if (!ArityOk(spec->arity, request.size()))
    return ctx.reply.Error(WrongArgsError(spec->full_name));
  size_t denied = 0;
  const AclVerdict verdict = Acl::Check(*user, *spec, flags, request, &denied);
  if (verdict == AclVerdict::kAllowed) return ctx.reply.Ok();
  ctx.reply.Bulk(AclDryRunDeniedText(verdict, *spec, request[denied]));
}

// ACL LOG [count | RESET]: the newest `count` entries (default 10), or forgets them all.
struct LogOptions {
  int64_t count = 10;
  bool reset = false;
};
LogOptions ParseLog(ArgParser& args) {
  LogOptions o;
  if (args.remaining() > 1) {
    args.Fail(SubcommandSyntaxError(args.at(0), args.at(1)));
  } else if (args.Token("RESET")) {
    o.reset = true;
  } else if (args.HasMore()) {
    o.count = args.Int64();
  }
  return o;
}

void ExecuteLog(CommandContext& ctx, const LogOptions& o) {
  AclLog& log = ctx.server.acl().log();
  if (o.reset) {
    log.Reset();
    return ctx.reply.Ok();
  }
  const size_t shown =
      std::min(static_cast<size_t>(std::max<int64_t>(o.count, 0)), log.entries().size());
  const int64_t now_ms = ctx.server.clock().NowMs();
  ctx.reply.ArrayHeader(shown);
  for (size_t i = 0; i < shown; i++) {
    const AclLogEntry& e = log.entries()[i];
    ctx.reply.MapHeader(7);
    ctx.reply.Bulk("count");
    ctx.reply.Integer(static_cast<int64_t>(e.count));
    ctx.reply.Bulk("reason");
    ctx.reply.Bulk(AclLogReasonName(e.reason));
    ctx.reply.Bulk("context");
    ctx.reply.Bulk(AclLogContextName(e.context));
    ctx.reply.Bulk("object");
    ctx.reply.Bulk(e.object);
    ctx.reply.Bulk("username");
    ctx.reply.Bulk(e.username);
    ctx.reply.Bulk("age-seconds");
    ctx.reply.Double(static_cast<double>(now_ms - e.time_ms) / 1000);
    ctx.reply.Bulk("client-info");
    ctx.reply.Bulk(e.client_info);
  }
}

// ACL LOAD: the aclfile's users replace the current ones, all or nothing.
void ExecuteLoad(CommandContext& ctx, const NoOptions&) {
  const std::string& path = ctx.server.config().aclfile;
  if (path.empty()) return ctx.reply.Error(kNoAclFile);
  const Result<AclCode> loaded = ctx.server.acl().LoadFile(path, &ctx.server.clients());
  if (!loaded.ok()) return ctx.reply.Error(GenericError(AclErrorText(loaded)));
  ctx.reply.Ok();
}

// ACL SAVE: the users into the aclfile, atomically.
void ExecuteSave(CommandContext& ctx, const NoOptions&) {
  const std::string& path = ctx.server.config().aclfile;
  if (path.empty()) return ctx.reply.Error(kNoAclFile);
  const Result<AclCode> saved = ctx.server.acl().SaveFile(path);
  if (!saved.ok()) {
    spdlog::warn("ACL SAVE: {}", saved.detail());
    return ctx.reply.Error(AclErrorText(saved));
  }
  ctx.reply.Ok();
}

constexpr uint32_t kAdmin = kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale;
constexpr uint32_t kSelf = kCmdNoScript | kCmdLoading | kCmdStale;

}  // namespace

std::vector<CommandSpec> AclCommands() {
  return {{
      .name = "acl",
      .arity = -2,
      .group = "server",
      .since = "6.0.0",
      .summary = "A container for Access List Control commands.",
      .complexity = "Depends on subcommand.",
      .subcommands =
          {{.name = "setuser",
            .arity = -3,
            .flags = kAdmin,
            .group = "server",
            .summary = "Creates and modifies an ACL user and its rules.",
            .complexity = "O(N). Where N is the number of rules provided.",
            .arguments = {{.name = "username"},
                          {.name = "rule", .optional = true, .multiple = true}},
            .help = {{.usage = "SETUSER <username> <attribs> ...",
                      .text = "Create or modify a user with the specified attributes."}},
            .handler = Handler<ParseSetUser, ExecuteSetUser>},
           {.name = "getuser",
            .arity = 3,
            .flags = kAdmin,
            .group = "server",
            .summary = "Lists the ACL rules of a user.",
            .complexity = "O(N). Where N is the number of password, command and pattern rules "
                          "that the user has.",
            .arguments = {{.name = "username"}},
            .help = {{.usage = "GETUSER <username>", .text = "Get the user's details."}},
            .handler = Handler<ParseKey, ExecuteGetUser>},
           {.name = "deluser",
            .arity = -3,
            .flags = kAdmin,
            .group = "server",
            .summary = "Deletes ACL users, and terminates their connections.",
            .complexity = "O(1) amortized time considering the typical user.",
            .arguments = {{.name = "username", .multiple = true}},
            .help = {{.usage = "DELUSER <username> [<username> ...]",
                      .text = "Delete a list of users."}},
            .handler = Handler<ParseUsernames, ExecuteDelUser>},
           {.name = "list",
            .arity = 2,
            .flags = kAdmin,
            .group = "server",
            .summary = "Dumps the effective rules in ACL file format.",
            .complexity = "O(N). Where N is the number of configured users.",
            .help = {{.text = "List all users in ACL format."}},
            .handler = Handler<ParseNothing, ExecuteList>},
           {.name = "users",
            .arity = 2,
            .flags = kAdmin,
            .group = "server",
            .summary = "Lists all ACL users.",
            .complexity = "O(N). Where N is the number of configured users.",
            .help = {{.text = "List all usernames."}},
            .handler = Handler<ParseNothing, ExecuteUsers>},
           {.name = "whoami",
            .arity = 2,
            .flags = kSelf,
            .group = "server",
            .summary = "Returns the authenticated username of the current connection.",
            .help = {{.text = "Return the current connection username."}},
            .handler = Handler<ParseNothing, ExecuteWhoAmI>},
           {.name = "cat",
            .arity = -2,
            .flags = kSelf,
            .group = "server",
            .summary = "Lists the ACL categories, or the commands inside a category.",
            .complexity = "O(1) since the categories and commands are a fixed set.",
            .arguments = {{.name = "category", .optional = true}},
            .help = {{.usage = "CAT [<category>]",
                      .text = "List all commands that belong to <category>, or all command "
                              "categories\nwhen no category is specified."}},
            .handler = Handler<ParseCat, ExecuteCat>},
           {.name = "genpass",
            .arity = -2,
            .flags = kSelf,
            .group = "server",
            .summary = "Generates a pseudorandom, secure password that can be used to identify "
                       "ACL users.",
            .arguments = {{.name = "bits", .type = ArgType::kInteger, .optional = true}},
            .help = {{.usage = "GENPASS [<bits>]",
                      .text = "Generate a secure 256-bit user password. The optional `bits` "
                              "argument can\nbe used to specify a different size."}},
            .handler = Handler<ParseGenPass, ExecuteGenPass>},
           {.name = "dryrun",
            .arity = -4,
            .flags = kAdmin,
            .group = "server",
            .since = "7.0.0",
            .summary = "Simulates the execution of a command by a user, without executing the "
                       "command.",
            .arguments = {{.name = "username"},
                          {.name = "command"},
                          {.name = "arg", .optional = true, .multiple = true}},
            .help = {{.usage = "DRYRUN <username> <command> [<arg> ...]",
                      .text = "Returns whether the user can execute the given command without "
                              "executing the command."}},
            .handler = Handler<ParseDryRun, ExecuteDryRun>},
           {.name = "log",
            .arity = -2,
            .flags = kAdmin,
            .group = "server",
            .since = "6.0.0",
            .summary = "Lists recent security events generated due to ACL rules.",
            .complexity = "O(N) with N being the number of entries shown.",
            .arguments =
                {{.name = "operation",
                  .type = ArgType::kOneOf,
                  .optional = true,
                  .children = {{.name = "count", .type = ArgType::kInteger},
                               {.name = "reset", .type = ArgType::kPureToken, .token = "RESET"}}}},
            .help = {{.usage = "LOG [<count> | RESET]", .text = "Show the ACL log entries."}},
            .handler = Handler<ParseLog, ExecuteLog>},
           {.name = "load",
            .arity = 2,
            .flags = kAdmin,
            .group = "server",
            .summary = "Reloads the rules from the configured ACL file.",
            .help = {{.text = "Reload users from the ACL file."}},
            .handler = Handler<ParseNothing, ExecuteLoad>},
           {.name = "save",
            .arity = 2,
            .flags = kAdmin,
            .group = "server",
            .summary = "Saves the effective ACL rules in the configured ACL file.",
            .help = {{.text = "Save the current config to the ACL file."}},
            .handler = Handler<ParseNothing, ExecuteSave>},
           HelpSubcommand("server", "Returns helpful text about the different subcommands.",
                          kCmdLoading | kCmdStale)},
  }};
}

}  // namespace ebb::server
