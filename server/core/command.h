// The command table: every command ebb serves is one row of plain data.
//
// A row names the command and says everything the server and its clients need to know about it:
// its arity in Redis's sign convention (N: exactly N arguments counting the name; -N: at least N),
// its flags, where its keys are, its group, its documentation (COMMAND DOCS, HELP and
// docs/commands.md are generated from it) and its handler. A container command (CLIENT, CONFIG,
// TLOG, ...) has subcommand rows; a subcommand's arity counts the container's name and its own.
//
// The dispatcher (dispatcher.h) checks existence, arity, authentication, the DEBUG switch and
// the server mode a row needs (kCmdNeeds...) once, before a handler runs. A handler is two steps
// (Kvrocks's Parse/Execute): Parse turns the arguments into an options struct through one ArgParser
// (arg_parser.h), which latches the first error in Redis's words; Execute runs the options against
// the types and writes the reply. Each command area is one file, server/commands/cmd_<area>.cc,
// whose rows sit together at its bottom:
//
//   struct ReadOptions { std::string_view key; std::optional<int64_t> grace_ms; };
//   ReadOptions ParseRead(ArgParser& args);                        // key [GRACE ms]
//   void ExecuteGet(CommandContext& ctx, const ReadOptions& o);    // reads, replies
//
//   std::vector<CommandSpec> KvCommands() {                        // cmd_kv.cc
//     return {
//         {.name = "get",
//          .arity = -2,
//          .flags = kCmdReadOnly | kCmdFast,
//          .keys = kFirstKey,
//          .group = "string",
//          .summary = "Returns the string value of a key; GRACE resolves out-of-order versions",
//          .arguments = {kKey, kGrace},
//          .handler = Handler<ParseRead, ExecuteGet>},
//         ...
//     };
//   }
//
// and server/commands/register.cc lists the areas. Adding a command is its row, its Parse and
// Execute, its types/ operation and its tests.
//
// Execute reports a data type's failure with ReplyError (server/services/reply.h); a helper that
// may reply an error itself is named ...OrReply and returns true when it did NOT reply (the
// caller goes on) and false after replying (the caller returns), as Redis's ...OrReply do.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "server/core/arg_parser.h"
#include "server/core/write_form.h"

namespace ebb::protocol {
class ReplyWriter;
}

namespace ebb::server {

class Client;
class Dispatcher;
class ServerContext;

enum CommandFlag : uint32_t {
  kCmdWrite = 1 << 0,
  kCmdReadOnly = 1 << 1,
  kCmdAdmin = 1 << 2,
  kCmdFast = 1 << 3,
  kCmdNoAuth = 1 << 4,  // allowed before AUTH (AUTH, HELLO, QUIT, RESET)
  kCmdLoading = 1 << 5,
  kCmdStale = 1 << 6,
  kCmdNoScript = 1 << 7,
  kCmdDebug = 1 << 8,  // refused unless enable-debug-command allows it
  // Runs at once inside MULTI instead of being queued (EXEC, DISCARD, MULTI, WATCH, QUIT, RESET).
  kCmdNoQueue = 1 << 9,
  kCmdPubSub = 1 << 10,  // a Pub/Sub command (COMMAND INFO's "pubsub")
  // Allowed to a RESP2 client in subscriber mode ((P|S)(UN)SUBSCRIBE, PING, QUIT, RESET).
  kCmdSubscriberOk = 1 << 11,
  // Runs once, its reads waiting for the disk inline, never restarted
  // (server/dispatch/dispatcher.h): EXEC, whose queued commands publish, touch watches and write as
  // they go; EVAL and FCALL; MIGRATE, which sends the target its keys before its first write.
  kCmdNoRestart = 1 << 12,
  kCmdNoMulti = 1 << 13,  // refused inside MULTI (SHUTDOWN): "Command not allowed inside ..."
  kCmdDenyOom = 1 << 14,  // adds data: refused with -OOM above maxmemory (Redis's denyoom)
  // Served while a script runs past busy-reply-threshold (Redis's allow_busy): SCRIPT KILL,
  // FUNCTION KILL, FUNCTION STATS, SHUTDOWN, and the connection and transaction commands (AUTH,
  // HELLO, QUIT, RESET, MULTI, DISCARD, WATCH, UNWATCH, REPLCONF); every other command is
  // answered -BUSY (docs/scripting.md, "Busy scripts").
  kCmdAllowBusy = 1 << 15,
  // Runs on a slot this cluster node is importing as if the client had sent ASKING (Redis's
  // CMD_ASKING: RESTORE-ASKING, what MIGRATE sends).
  kCmdAsking = 1 << 16,
  // Never in SLOWLOG (Redis's skip_slowlog): EXEC, whose queued commands are logged one by one.
  kCmdSkipSlowlog = 1 << 17,
  // Shown to MONITOR before it runs rather than after (Redis's skip_monitor: EVAL, FCALL and
  // their variants), so the calls a script makes follow its own line.
  kCmdSkipMonitor = 1 << 18,
  // The server modes a row needs, checked by the dispatcher after every other check and before
  // Parse (Redis checks the mode before the arguments), with the mode's own error:
  // kCmdNeedsClusterEnabled: cluster-enabled yes (CLUSTER KEYSLOT, ASKING, READONLY, ...);
  // kCmdNeedsClusterNode: this server is a cluster node (CLUSTER NODES, MEET, ...);
  // both answer kClusterDisabled (server/core/errors.h).
  kCmdNeedsClusterEnabled = 1 << 19,
  kCmdNeedsClusterNode = 1 << 20,
  // kCmdNeedsPeers: the server can link active-active peers (PEER): it has a keyspace.
  kCmdNeedsPeers = 1 << 21,
};
// Any of the mode flags: one test on a row's flags skips them all.
inline constexpr uint32_t kCmdModeFlags =
    kCmdNeedsClusterEnabled | kCmdNeedsClusterNode | kCmdNeedsPeers;

// COMMAND DOCS argument types, as Redis names them.
enum class ArgType {
  kString,
  kInteger,
  kDouble,
  kKey,
  kPattern,
  kUnixTime,
  kPureToken,
  kOneOf,
  kBlock
};

// One argument as COMMAND DOCS describes it (and HELP and docs/commands.md print it).
struct ArgSpec {
  std::string_view name;
  ArgType type = ArgType::kString;
  std::string_view token;  // a literal keyword that introduces the argument ("EX")
  bool optional = false;
  bool multiple = false;
  bool multiple_token = false;    // with `multiple`: the token repeats with each value
  std::vector<ArgSpec> children;  // for kOneOf / kBlock
};

// Where a command's keys are, counting the name as argument 0 (Redis's legacy key spec, which
// COMMAND INFO, COMMAND GETKEYS and cluster routing read): first (0: no keys), last (-1: the last
// argument) and step. Or, for EVAL and FCALL, whose keys move (COMMAND INFO shows 0 0 0):
// `numkeys`, the argument that counts the keys right after it (Redis's keynum key spec). MIGRATE
// names its keys after a `keyword` among its options (from argument `keyword_from` on) when its
// key argument is empty. server/core/key_positions.h reads a spec against a request.
struct KeySpec {
  int first = 0;
  int last = 0;
  int step = 0;
  int numkeys = 0;
  std::string_view keyword = {};
  int keyword_from = 0;
};
inline constexpr KeySpec kNoKeys{};
inline constexpr KeySpec kFirstKey{1, 1, 1};        // CMD key ...
inline constexpr KeySpec kAllKeys{1, -1, 1};        // CMD key [key ...]
inline constexpr KeySpec kKeyValuePairs{1, -1, 2};  // CMD key value [key value ...]
inline constexpr KeySpec kSubcommandKey{2, 2, 1};   // CONTAINER SUB key ...
inline constexpr KeySpec kNumkeysKeys{0, 0, 0, 2};  // CMD x numkeys key... arg...

// One entry of HELP: a usage line and its description. An empty usage is generated from the
// row's name and arguments; an empty text is the row's summary.
struct HelpEntry {
  std::string_view usage;
  std::string_view text;  // lines separated by '\n'; each printed indented by four spaces
};

// What a handler sees: the request, where to write the reply, who asked, and the server.
struct CommandContext {
  std::span<const std::string_view> args;  // args[0] is the command name as the client sent it
  size_t first_arg;  // index of the first argument after the name (2 for a subcommand)
  protocol::ReplyWriter& reply;
  Client& client;
  ServerContext& server;
  // Set by a handler whose writes must be acknowledged like a write command's although its row
  // is not one (EXEC of a transaction that wrote): the connection then commits the WAL first.
  bool wrote = false;
  // The dispatcher running the command (EXEC runs its queue through it); null in unit tests
  // that call a handler directly.
  Dispatcher* dispatcher = nullptr;
  // True when the handler may answer later instead of now (a request from the connection, not
  // one EXEC runs): it then sets `defer`, replies nothing, and the request stays unconsumed and
  // runs again when the server resumes waiting connections — at a replica's acknowledgement,
  // and at the latest at the next 100 ms cron (WAIT).
  bool may_defer = false;
  bool defer = false;
  // Set by a handler whose error reply passes on an error INFO errorstats already counted (a
  // script's redis.call error): the reply then counts only as the command's failed call.
  bool error_counted = false;
};

using CommandHandler = void (*)(CommandContext& ctx);

// Redis's arity: n >= 0 is exactly n arguments (the name included), -n at least n.
inline bool ArityOk(int arity, size_t argc) {
  if (arity >= 0) return argc == static_cast<size_t>(arity);
  return argc >= static_cast<size_t>(-arity);
}

struct CommandSpec {
  std::string_view name;  // lower case; for a subcommand just its own name ("ins")
  int arity = 0;
  uint32_t flags = 0;
  KeySpec keys;
  std::string_view group;  // "string", "generic", "connection", "server", "tlog", "treg"
  std::string_view since = "1.0.0";
  std::string_view summary;
  std::string_view complexity = "O(1)";
  std::vector<ArgSpec> arguments;
  // HELP's entries for this row (a container's own for its bare form, a subcommand's for itself);
  // none: one generated entry.
  std::vector<HelpEntry> help;
  CommandHandler handler = nullptr;  // nullptr for a container that only has subcommands
  // A write's form in active-active mode (server/core/write_form.h): FormOf<Parse, Form>.
  WriteFormer write_form = nullptr;
  std::vector<CommandSpec> subcommands;  // for containers

  // Set by CommandTable::Add: "name", or "container|sub" for a subcommand.
  std::string full_name;
  // Set by CommandTable::Add: the row's number, 0 .. CommandTable::row_count() - 1, which
  // indexes its counters (server/core/command_stats.h).
  size_t id = 0;
};

// Parse then Execute: the handler of every row.
//   Parse:   Options Parse(ArgParser& args)  — reads ctx.args from ctx.first_arg; or
//            Options Parse(ArgParser& args, const CommandContext& ctx) when a setting of the
//            server bounds an argument (BITFIELD's offsets: proto-max-bulk-len);
//   Execute: void Execute(CommandContext& ctx, const Options& options).
// When Parse latched an error, or left arguments unread (a syntax error), the error is the reply
// and Execute does not run.
template <auto Parse, auto Execute>
void Handler(CommandContext& ctx) {
  ArgParser args(ctx.args, ctx.first_arg);
  const auto options = [&] {
    if constexpr (std::is_invocable_v<decltype(Parse), ArgParser&, const CommandContext&>) {
      return Parse(args, ctx);
    } else {
      return Parse(args);
    }
  }();
  if (!args.Finish()) return args.ReplyError(ctx.reply);
  Execute(ctx, options);
}

// The Parse steps many commands share: no arguments, one key, or a list of keys.
struct NoOptions {};
inline NoOptions ParseNothing(ArgParser&) { return {}; }

struct KeyOptions {
  std::string_view key;
};
inline KeyOptions ParseKey(ArgParser& args) { return {args.Next()}; }

struct KeysOptions {
  std::vector<std::string_view> keys;  // key [key ...]: every argument after the name, in order
};
inline KeysOptions ParseKeys(ArgParser& args) {
  KeysOptions o;
  o.keys.reserve(args.remaining());
  while (args.HasMore()) o.keys.push_back(args.Next());
  return o;
}

// The Parse step of a variadic list (channels, names, SHA1 digests): every remaining argument.
inline std::vector<std::string_view> RemainingArgs(ArgParser& args) {
  std::vector<std::string_view> out;
  out.reserve(args.remaining());
  while (args.HasMore()) out.push_back(args.Next());
  return out;
}

// A request's row as the command table names it (CommandTable::Resolve): the spec (null when
// the table has none), its flags with its container's, and the index of its first argument after
// the name(s). The table does not change once the server runs, so it holds for the same
// arguments until they run.
struct ResolvedCommand {
  const CommandSpec* spec = nullptr;
  uint32_t flags = 0;
  size_t first_arg = 1;
};

class CommandTable {
 public:
  // Adds a row (and its subcommands) and fills their full_name.
  // REQUIRES: no row with the same name exists.
  void Add(CommandSpec spec);
  void Add(std::vector<CommandSpec> specs);
  // Case-insensitive lookup; nullptr if absent.
  const CommandSpec* Find(std::string_view name) const;
  static const CommandSpec* FindSubcommand(const CommandSpec& container, std::string_view name);
  // The row a request names: args[0]'s row, or its subcommand row when the row is a container
  // and args[1] exists; spec is null when the command or subcommand does not exist.
  // REQUIRES: !args.empty().
  ResolvedCommand Resolve(std::span<const std::string_view> args) const;
  const std::map<std::string, CommandSpec, std::less<>>& rows() const { return rows_; }
  // Rows added so far, subcommand rows included (ids are below it).
  size_t row_count() const { return row_count_; }

 private:
  // One slot of index_: a view of a rows_ key (lower case), the key as one word when it has at
  // most 8 bytes (byte i in bits 8i..8i+7; else 0) and its row; spec == nullptr = empty.
  struct IndexSlot {
    std::string_view name;
    uint64_t word = 0;
    const CommandSpec* spec = nullptr;
  };
  void Index(std::string_view name, const CommandSpec* spec);

  std::map<std::string, CommandSpec, std::less<>> rows_;  // by name, in order for COMMAND LIST
  // The same rows by name, open addressing with linear probing, never more than half full and
  // sized a power of two: Find hashes the name case-insensitively as it reads it (no lowered
  // copy; a name of up to 8 bytes lowered into one word, compared as one) and usually compares
  // one slot.
  std::vector<IndexSlot> index_;
  size_t row_count_ = 0;
};

}  // namespace ebb::server
