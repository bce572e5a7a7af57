#include "server/core/errors.h"

#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>

#include "common/strings.h"

namespace ebb::server {
namespace {

// Like printf's "%.*s": at most n bytes, stopping at a NUL byte.
std::string_view Prefix(std::string_view s, size_t n) {
  s = s.substr(0, std::min(s.size(), n));
  return s.substr(0, s.find('\0'));
}

std::string Concat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out.append(p);
  return out;
}

}  // namespace

std::string SubscriberModeError(std::string_view name) {
  std::string out = "ERR Can't execute '";
  out += name;
  out +=
      "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this "
      "context";
  return out;
}

std::string WrongArgsError(std::string_view name) {
  std::string out = "ERR wrong number of arguments for '";
  out += name;
  out += "' command";
  return out;
}

std::string UnknownCommandError(std::string_view name, std::span<const std::string_view> args) {
  // Redis: for (i=1; i<argc && sdslen(args)<128; i++) args += "'%.*s' " with 128-sdslen(args).
  std::string list;
  for (size_t i = 0; i < args.size() && list.size() < 128; ++i) {
    size_t room = 128 - list.size();
    list += '\'';
    list += Prefix(args[i], room);
    list += "' ";
  }
  std::string out = "ERR unknown command '";
  out += Prefix(name, 128);
  out += "', with args beginning with: ";
  out += list;
  return out;
}

std::string UnknownSubcommandError(std::string_view container, std::string_view sub) {
  std::string out = "ERR unknown subcommand '";
  out += Prefix(sub, 128);
  out += "'. Try ";
  out += AsciiUpper(container);
  out += " HELP.";
  return out;
}

std::string InvalidExpireTimeError(std::string_view cmd) {
  std::string out = "ERR invalid expire time in '";
  out += cmd;
  out += "' command";
  return out;
}

std::string InvalidDurationError(std::string_view text) {
  std::string out = "ERR invalid duration '";
  out += text;
  out += "'";
  return out;
}

std::string OriginLogBehindStreamed(uint64_t applied, std::string_view new_id) {
  return "ERR this node's log lost deltas up to origin offset " + std::to_string(applied) +
         " that it had streamed: it is now node " + std::string(new_id) + ", reconnect";
}

std::string OriginIdChanged(std::string_view new_id) {
  return "ERR this node is now node " + std::string(new_id) + ", reconnect";
}

std::string PeerSettingsDiffer(std::string_view option, std::string_view theirs,
                               std::string_view ours) {
  return std::string(kPeerSettingsDifferPrefix) + ": '" + std::string(option) + "' is '" +
         std::string(theirs) + "' on the peer and '" + std::string(ours) + "' here";
}

std::string SubcommandSyntaxError(std::string_view container, std::string_view sub) {
  std::string out = "ERR unknown subcommand or wrong number of arguments for '";
  out += Prefix(sub, 128);
  out += "'. Try ";
  out += AsciiUpper(container);
  out += " HELP.";
  return out;
}

std::string EngineError(std::string_view status_text) { return Concat({"ERR ", status_text}); }

std::string UnsupportedOptionError(std::string_view option) {
  return Concat({"ERR Unsupported option ", option});
}

std::string HelloOptionError(std::string_view option) {
  return Concat({"ERR Syntax error in HELLO option '", option, "'"});
}

std::string UnrecognizedOptionError(std::string_view option) {
  return Concat({"ERR Unrecognized option '", option, "'"});
}

std::string ClientInfoInvalidError(std::string_view attribute) {
  return Concat({"ERR ", attribute, " cannot contain spaces, newlines or special characters."});
}

std::string UnknownClientTypeError(std::string_view type) {
  return Concat({"ERR Unknown client type '", type, "'"});
}

std::string NoSuchUserError(std::string_view user) {
  return Concat({"ERR No such user '", user, "'"});
}

std::string ConfigUnknownOptionError(std::string_view name) {
  return Concat({"ERR Unknown option or number of arguments for CONFIG SET - '", name, "'"});
}

std::string ConfigSetFailedError(std::string_view name, std::string_view reason) {
  return Concat({"ERR CONFIG SET failed (possibly related to argument '", name, "') - ", reason});
}

std::string ConfigRewriteError(std::string_view reason) {
  return Concat({"ERR Rewriting config file: ", reason});
}

std::string ConfigFileOpenError(std::string_view path) {
  return Concat({"can't open config file '", path, "'"});
}

std::string ConfigFileLineError(std::string_view path, int line, std::string_view problem) {
  return fmt::format("{}:{}: {}", path, line, problem);
}

std::string ConfigLineUnknownOption(std::string_view option) {
  return Concat({"unknown option '", option, "'"});
}

std::string ConfigLineArgumentCount(std::string_view option) {
  return Concat({"wrong number of arguments for '", option, "'"});
}

std::string ConfigLineInvalidValue(std::string_view values, std::string_view option,
                                   std::string_view reason) {
  return Concat({"invalid value '", values, "' for '", option, "': ", reason});
}

std::string ConfigOptionUnbalancedQuotes(std::string_view argument) {
  return Concat({"unbalanced quotes in option '", argument, "'"});
}

std::string ConfigUnexpectedArgument(std::string_view argument) {
  return Concat({"unexpected argument '", argument, "' (options start with --)"});
}

std::string NoLatencySamplesError(std::string_view event) {
  return Concat({"ERR No samples available for event '", event, "'"});
}

std::string MigrateTargetError(std::string_view target_error) {
  return Concat({"ERR Target instance replied with error: ", target_error});
}

std::string GenericError(std::string_view message) { return Concat({"ERR ", message}); }

std::string UnknownOptionGivenError(std::string_view option) {
  return Concat({"ERR Unknown option given: ", option});
}

std::string UnknownArgumentError(std::string_view argument) {
  return Concat({"ERR Unknown argument ", argument});
}

std::string UnexpectedShebangEngineError(std::string_view engine) {
  return Concat({"ERR Unexpected engine in script shebang: ", engine});
}

std::string UnknownShebangOptionError(std::string_view option) {
  return Concat({"ERR Unknown lua shebang option: ", option});
}

std::string UnexpectedShebangFlagError(std::string_view flag) {
  return Concat({"ERR Unexpected flag in script shebang: ", flag});
}

std::string ScriptRunError(std::string_view name, std::string_view message) {
  return Concat({"ERR Error running script ", name, ", ", message.substr(0, 100)});
}

std::string InvalidMetadataValueError(std::string_view value) {
  return Concat({"ERR Invalid metadata value given: ", value});
}

std::string EngineNotFoundError(std::string_view engine) {
  return Concat({"ERR Engine '", engine, "' not found"});
}

std::string LibraryExistsQuotedError(std::string_view name) {
  return Concat({"ERR Library '", name, "' already exists"});
}

std::string LibraryExistsError(std::string_view name) {
  return Concat({"ERR Library ", name, " already exists"});
}

std::string FunctionExistsError(std::string_view name) {
  return Concat({"ERR Function ", name, " already exists"});
}

std::string RegisteringFunctionsError(std::string_view message) {
  return Concat({"ERR Error registering functions: ", message});
}

std::string ScriptCompileError(std::string_view message) {
  return Concat({"ERR Error compiling script (new function): ", message});
}

std::string FunctionCompileError(std::string_view message) {
  return Concat({"ERR Error compiling function: ", message});
}

std::string NoPermCommandError(std::string_view command) {
  return Concat({"NOPERM this user has no permissions to run the '", command, "' command"});
}

std::string AclSetUserError(std::string_view rule, std::string_view reason) {
  if (rule.empty()) return Concat({"ERR ", reason});
  return Concat({"ERR Error in ACL SETUSER modifier '", rule, "': ", reason});
}

std::string AclUserDeclarationError(std::string_view rule, std::string_view reason) {
  return Concat({"Error in user declaration '", rule, "': ", reason});
}

std::string AclUnmatchedParenthesisError(std::string_view argument) {
  return Concat({"Unmatched parenthesis in acl selector starting at '", argument, "'."});
}

std::string UnknownAclCategoryError(std::string_view category) {
  return Concat({"ERR Unknown category '", category, "'"});
}

std::string AclUserNotFoundError(std::string_view user) {
  return Concat({"ERR User '", user, "' not found"});
}

std::string AclCommandNotFoundError(std::string_view command) {
  return Concat({"ERR Command '", command, "' not found"});
}

std::string MovedOrAskError(bool ask, int slot, std::string_view host, int port) {
  return fmt::format("{} {} {}:{}", ask ? "ASK" : "MOVED", slot, host, port);
}

std::string InvalidBasePortError(std::string_view port) {
  return Concat({"ERR Invalid TCP base port specified: ", port});
}

std::string InvalidBusPortError(std::string_view port) {
  return Concat({"ERR Invalid TCP bus port specified: ", port});
}

std::string InvalidNodeAddressError(std::string_view ip, int port) {
  return fmt::format("ERR Invalid node address specified: {}:{}", ip, port);
}

std::string SlotRangeOrderError(int first, int last) {
  return fmt::format("ERR start slot number {} is greater than end slot number {}", first, last);
}

std::string SlotUnassignedError(int slot) {
  return fmt::format("ERR Slot {} is already unassigned", slot);
}

std::string SlotBusyError(int slot) { return fmt::format("ERR Slot {} is already busy", slot); }

std::string SlotRepeatedError(int slot) {
  return fmt::format("ERR Slot {} specified multiple times", slot);
}

std::string ClusterConfigSaveError(std::string_view reason) {
  return Concat({"ERR error saving the cluster node config: ", reason});
}

std::string NodesConfCorruptError(std::string_view what) {
  return Concat({"Unrecoverable error: corrupted cluster config file ", what});
}

std::string NodesConfLineError(std::string_view line, int number) {
  return fmt::format("\"{}\" (line {})", line, number);
}

std::string NodesConfFieldError(int number, std::string_view problem) {
  return fmt::format("(line {}: {})", number, problem);
}

std::string NodesConfUnwritableError(std::string_view reason) {
  return Concat({"Can't write the cluster config file: ", reason});
}

std::string BusListenError(std::string_view reason) { return Concat({"Cluster bus: ", reason}); }

std::string UnknownNodeError(std::string_view node) { return Concat({"ERR Unknown node ", node}); }

std::string NotSlotOwnerError(int slot) {
  return fmt::format("ERR I'm not the owner of hash slot {}", slot);
}

std::string AlreadySlotOwnerError(int slot) {
  return fmt::format("ERR I'm already the owner of hash slot {}", slot);
}

std::string NodeNotKnownError(std::string_view node) {
  return Concat({"ERR I don't know about node ", node});
}

std::string SlotHasKeysError(int slot) {
  return fmt::format(
      "ERR Can't assign hashslot {} to a different node while I still hold keys for this hash "
      "slot.",
      slot);
}

std::string InvalidConfigEpochError(int64_t epoch) {
  return fmt::format("ERR Invalid config epoch specified: {}", epoch);
}

std::string UnrecognizedReplconfOptionError(std::string_view option) {
  return Concat({"ERR Unrecognized REPLCONF option: ", option});
}

std::string NoPeerError(std::string_view host, int64_t port) {
  return fmt::format("ERR no peer {}:{}", host, port);
}

std::string PeerLinkedError(std::string_view peer) {
  return Concat({"ERR peer ", peer, " is already linked"});
}

std::string ActiveActiveRefusedError(std::string_view name) {
  return Concat({"ERR '", name,
                 "' is not allowed in active-active mode: it has no convergent merge between "
                 "peers"});
}

std::string ClockSkewError(std::string_view timestamp, int64_t max_clock_skew_ms) {
  return fmt::format(
      "ERR timestamp {} is more than max-clock-skew ({} ms) ahead of this node's clock", timestamp,
      max_clock_skew_ms);
}

std::string ConditionalSetError(std::string_view option) {
  return Concat({"ERR SET ", option,
                 " is not allowed in active-active mode: its condition reads a state other nodes "
                 "change concurrently"});
}

std::string NotInBatchError(std::string_view name) {
  return Concat({"ERR ", name, " cannot run inside a batch in active-active mode"});
}

std::string FormNotAllowedError(std::string_view name) {
  return Concat({"ERR this form of '", name, "' is not allowed in active-active mode"});
}

std::string ExecAbortBecauseError(std::string_view reason) {
  return Concat({"EXECABORT Transaction discarded because of: ", reason});
}

std::string AclFileOpenError(std::string_view path, std::string_view reason) {
  return Concat({"Error loading ACLs, opening file '", path, "': ", reason});
}

std::string AclFileNoUserKeyword(std::string_view where) {
  return Concat({where, " should start with user keyword followed by the username. "});
}

std::string AclFileDuplicateUser(std::string_view user, int line) {
  return fmt::format("WARNING: Duplicate user '{}' found on line {}. ", user, line);
}

std::string AclFileUnmatchedParenthesis(std::string_view where) {
  return Concat({where, ": Unmatched parenthesis in selector definition."});
}

std::string AclFileRuleError(std::string_view where, std::string_view rule,
                             std::string_view reason) {
  return Concat({where, ": Error in applying operation '", rule, "': ", reason, ". "});
}

std::string TlsCertKeyRequiredError(std::string_view options) {
  return Concat({"tls-cert-file and tls-key-file are required with ", options});
}

std::string TlsCertificateLoadError(std::string_view file_reason) {
  return Concat({"Failed to load certificate: ", file_reason});
}

std::string TlsKeyLoadError(std::string_view file_reason) {
  return Concat({"Failed to load private key: ", file_reason});
}

std::string TlsProtocolsError(std::string_view value) {
  return Concat({"Invalid tls-protocols value '", value, "'"});
}

std::string TlsCaFileLoadError(std::string_view file_reason) {
  return Concat({"Failed to load CA certificate(s) file: ", file_reason});
}

std::string TlsCaDirLoadError(std::string_view file_reason) {
  return Concat({"Failed to load CA certificate(s) dir: ", file_reason});
}

std::string TlsCiphersError(std::string_view value) {
  return Concat({"Failed to configure ciphers: ", value});
}

std::string TlsCiphersuitesError(std::string_view value) {
  return Concat({"Failed to configure ciphersuites: ", value});
}

std::string TlsCaRequiredForLinksError(std::string_view options) {
  return Concat({"Either tls-ca-cert-file or tls-ca-cert-dir must be specified with ", options,
                 " (the other servers' certificates are verified against them)"});
}

std::string TlsLinkNeedsPortError(std::string_view option) {
  return Concat({option, " requires tls-port (the other servers connect to it)"});
}

std::string ActiveActiveUnreadableError(std::string_view status) {
  return Concat({"Active-active state unreadable: ", status});
}

std::string InvalidBindAddressError(std::string_view address) {
  return Concat({"Invalid bind address '", address, "'"});
}

std::string TcpListenError(std::string_view address, int port, std::string_view reason) {
  return fmt::format(
      "Could not create server TCP listening socket {}:{}: {}. Failed listening on port {} (tcp), "
      "aborting.",
      address, port, reason, port);
}

}  // namespace ebb::server
