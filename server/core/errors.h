// Every error text ebb replies with, in one place, worded exactly as Redis 7 words it
// (docs/commands.md, "Errors"). Handlers reply with `ctx.reply.Error(kSyntaxError)`, one of the
// formatting functions below, or ReplyError (server/services/reply.h) for a data type's outcome;
// nothing else in server/ spells an error text.
//
// Texts include their code ("ERR ...", "WRONGTYPE ...") and no leading '-' or trailing CRLF.
// Thread-safety: constants and pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace ebb::server {

inline constexpr std::string_view kSyntaxError = "ERR syntax error";
// A node in active-active mode has no replicas: a promoted replica would write outside the origin
// log, under its old master's node id and offsets (docs/active-active.md, "Status").
inline constexpr std::string_view kReplicaOfPeerNode =
    "ERR replicas are not allowed in active-active mode";
inline constexpr std::string_view kPeersOfNodeWithReplicas =
    "ERR a node with replicas cannot have active-active peers";
inline constexpr std::string_view kNotInteger = "ERR value is not an integer or out of range";
// Redis getRangeLongFromObjectOrReply for int arguments (SELECT, ...).
inline constexpr std::string_view kNotInt32 =
    "ERR value is out of range, value must between -2147483648 and 2147483647";
inline constexpr std::string_view kNotFloat = "ERR value is not a valid float";
inline constexpr std::string_view kSlowlogCountRange =
    "ERR count should be greater than or equal to -1";
inline constexpr std::string_view kNanOrInfinity = "ERR increment would produce NaN or Infinity";
inline constexpr std::string_view kBitOffset = "ERR bit offset is not an integer or out of range";
inline constexpr std::string_view kBitValue = "ERR bit is not an integer or out of range";
inline constexpr std::string_view kBitposBit = "ERR The bit argument must be 1 or 0.";
inline constexpr std::string_view kBitopNotSingle =
    "ERR BITOP NOT must be called with a single source key.";
inline constexpr std::string_view kBitfieldType =
    "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but "
    "i64 is.";
inline constexpr std::string_view kBitfieldOverflowType = "ERR Invalid OVERFLOW type specified";
inline constexpr std::string_view kBitfieldReadOnly =
    "ERR BITFIELD_RO only supports the GET subcommand";
inline constexpr std::string_view kLcsNotStrings =
    "ERR The specified keys must contain string values";
inline constexpr std::string_view kLcsLenAndIdx =
    "ERR If you want both the length and indexes, please just use IDX.";
inline constexpr std::string_view kLcsTooLong = "ERR String too long for LCS";
inline constexpr std::string_view kLcsTooMuchMemory =
    "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len";
inline constexpr std::string_view kNoLfuPolicy =
    "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that "
    "when switching between policies at runtime LRU and LFU data will take some time to adjust.";
inline constexpr std::string_view kOverflow = "ERR increment or decrement would overflow";
inline constexpr std::string_view kMustBePositive = "ERR value is out of range, must be positive";
inline constexpr std::string_view kWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
inline constexpr std::string_view kNoAuth = "NOAUTH Authentication required.";
// A write on a replica under replica-read-only yes.
inline constexpr std::string_view kReadOnlyReplica =
    "READONLY You can't write against a read only replica.";
// A write on a master with fewer good replicas than min-replicas-to-write.
inline constexpr std::string_view kNoReplicas = "NOREPLICAS Not enough good replicas to write.";
// A data command on a replica whose master link is down, under replica-serve-stale-data no.
inline constexpr std::string_view kMasterDown =
    "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.";
// Transactions (Redis's multi.c).
inline constexpr std::string_view kExecAbort =
    "EXECABORT Transaction discarded because of previous errors.";
inline constexpr std::string_view kExecWithoutMulti = "ERR EXEC without MULTI";
inline constexpr std::string_view kDiscardWithoutMulti = "ERR DISCARD without MULTI";
inline constexpr std::string_view kMultiNested = "ERR MULTI calls can not be nested";
inline constexpr std::string_view kWatchInsideMulti = "ERR WATCH inside MULTI is not allowed";
inline constexpr std::string_view kNotAllowedInMulti =
    "ERR Command not allowed inside a transaction";
// A write that adds data while the memory maxmemory bounds is above it (Redis's text).
inline constexpr std::string_view kOomError =
    "OOM command not allowed when used memory > 'maxmemory'.";
inline constexpr std::string_view kWrongPass =
    "WRONGPASS invalid username-password pair or user is disabled.";
inline constexpr std::string_view kAuthNotConfigured =
    "ERR AUTH <password> called without any password configured for the default user. Are you "
    "sure your configuration is correct?";
inline constexpr std::string_view kNoProto = "NOPROTO unsupported protocol version";
inline constexpr std::string_view kDbIndexOutOfRange = "ERR DB index is out of range";
inline constexpr std::string_view kMaxClients = "ERR max number of clients reached";
inline constexpr std::string_view kNoSuchClient = "ERR No such client";
// Sent to a non-loopback client while protected-mode is on and no password is set (Redis's text).
inline constexpr std::string_view kProtectedModeDenied =
    "DENIED Redis is running in protected mode because protected mode is enabled and no password "
    "is set for the default user. In this mode connections are only accepted from the loopback "
    "interface. If you want to connect from external computers to Redis you may adopt one of the "
    "following solutions: 1) Just disable protected mode sending the command 'CONFIG SET "
    "protected-mode no' from the loopback interface by connecting to Redis from the same host the "
    "server is running, however MAKE SURE Redis is not publicly accessible from internet if you do "
    "so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively you can just disable "
    "the protected mode by editing the Redis configuration file, and setting the protected mode "
    "option to 'no', and then restarting the server. 3) If you started the server manually just "
    "for testing, restart it with the '--protected-mode no' option. 4) Set up an authentication "
    "password for the default user. NOTE: You only need to do one of the above things in order "
    "for the server to start accepting connections from the outside.";
inline constexpr std::string_view kClientNameInvalid =
    "ERR Client names cannot contain spaces, newlines or special characters.";
inline constexpr std::string_view kDebugNotAllowed =
    "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you "
    "can run it from a local connection, otherwise you need to set this option in the "
    "configuration file, and then restart the server.";
inline constexpr std::string_view kNoSuchKey = "ERR no such key";
inline constexpr std::string_view kSameObject = "ERR source and destination objects are the same";
// Redis Cluster: the routing refusals (server/dispatch/cluster_redirect.h formats MOVED and ASK)
// and the commands a cluster node refuses.
inline constexpr std::string_view kCrossSlot =
    "CROSSSLOT Keys in request don't hash to the same slot";
inline constexpr std::string_view kTryAgain =
    "TRYAGAIN Multiple keys request during rehashing of slot";
inline constexpr std::string_view kClusterDown = "CLUSTERDOWN The cluster is down";
inline constexpr std::string_view kClusterDownReadOnly =
    "CLUSTERDOWN The cluster is down and only accepts read commands";
inline constexpr std::string_view kSlotNotServed = "CLUSTERDOWN Hash slot not served";
inline constexpr std::string_view kClusterDisabled =
    "ERR This instance has cluster support disabled";
inline constexpr std::string_view kSelectInCluster = "ERR SELECT is not allowed in cluster mode";
inline constexpr std::string_view kMoveInCluster = "ERR MOVE is not allowed in cluster mode";
inline constexpr std::string_view kCopyDbInCluster =
    "ERR Copying to another database is not allowed in cluster mode";
inline constexpr std::string_view kInvalidSlot = "ERR Invalid slot";
inline constexpr std::string_view kInvalidSlotOrCount = "ERR Invalid slot or number of keys";
// A script's call refused by routing (scripts prefix them with ERR, as Redis's scriptCall).
inline constexpr std::string_view kScriptNonLocalKey =
    "Script attempted to access a non local key in a cluster node";
inline constexpr std::string_view kScriptCrossSlot =
    "Script attempted to access keys that do not hash to the same slot";
inline constexpr std::string_view kScriptClusterDown =
    "Script attempted to execute a command while the cluster is down";
inline constexpr std::string_view kScriptClusterDownReadOnly =
    "Script attempted to execute a write command while the cluster is down and readonly";
inline constexpr std::string_view kTimeoutNotInteger =
    "ERR timeout is not an integer or out of range";
inline constexpr std::string_view kShutdownFailed = "ERR Errors trying to SHUTDOWN. Check logs.";
inline constexpr std::string_view kNoShutdownInProgress = "ERR No shutdown in progress.";
// While a script (EVAL...) or a function (FCALL) runs past busy-reply-threshold.
inline constexpr std::string_view kBusyScriptError =
    "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
inline constexpr std::string_view kBusyFunctionError =
    "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";
// EXEC, for a queued command the ACL refuses when the transaction runs (Redis 7's execCommand):
// the prefix, then one of the three reasons (Redis's getAclErrorMessage).
inline constexpr std::string_view kExecAclChanged =
    "NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC "
    "call. This command is no longer allowed for the following reason: ";
inline constexpr std::string_view kAclReasonCommand =
    "no permission to execute the command or subcommand";
inline constexpr std::string_view kAclReasonKeys = "no permission to touch the specified keys";
inline constexpr std::string_view kAclReasonChannels =
    "no permission to access one of the channels used as arguments";
inline constexpr std::string_view kAclReasonUnknown = "no permission";
// ebb's own bounds on a script (docs/security.md, "Scripts"): its result converts to more than
// kMaxReplyElements values or kMaxReplyBytes bytes (server/scripting/lua_values.h), or its Lua
// heap would pass lua-memory-limit (the script's name follows).
inline constexpr std::string_view kScriptReplyTooLarge =
    "ERR Script reply too large: more than 16777216 values or 536870912 bytes";
inline constexpr std::string_view kScriptOutOfMemory =
    "ERR Script exceeded lua-memory-limit (not enough memory), script: ";
inline constexpr std::string_view kInvalidCursor = "ERR invalid cursor";
inline constexpr std::string_view kStringTooLong =
    "ERR string exceeds maximum allowed size (proto-max-bulk-len)";
inline constexpr std::string_view kOffsetOutOfRange = "ERR offset is out of range";
inline constexpr std::string_view kDecrementOverflow = "ERR decrement would overflow";
inline constexpr std::string_view kExpireNxAndOthers =
    "ERR NX and XX, GT or LT options at the same time are not compatible";
inline constexpr std::string_view kExpireGtAndLt =
    "ERR GT and LT options at the same time are not compatible";
inline constexpr std::string_view kNoConfigFile = "ERR The server is running without a config file";
inline constexpr std::string_view kHelloNoAuth =
    "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO "
    "<proto> AUTH <user> <pass> option can be used to authenticate the client and select the "
    "RESP protocol version at the same time";
inline constexpr std::string_view kProtocolVersionNotInteger =
    "ERR Protocol version is not an integer or out of range";
inline constexpr std::string_view kInvalidClientId = "ERR Invalid client ID";
inline constexpr std::string_view kClientIdNotPositive = "ERR client-id should be greater than 0";
inline constexpr std::string_view kDiskFaultsUnavailable = "ERR disk faults are not available";
inline constexpr std::string_view kBlockReaderUnavailable =
    "ERR this server reads no blocks for waiting commands";
inline constexpr std::string_view kClockBackwards = "ERR the clock only moves forward";

// Redis 7 refuses write commands (and PING) with "-MISCONF Errors writing to the AOF file:
// <strerror>" while its last AOF write failed; ebb says the same of its data directory (WAL,
// table and manifest files): "MISCONF Errors writing to the data directory: No space left on
// device". `storage_error` is the engine's error message ("write <path>: <os error>"); the OS
// error is the text after its last ": " (all of it if there is none).
inline std::string MisconfError(std::string_view storage_error) {
  const size_t colon = storage_error.rfind(": ");
  const std::string_view os_error =
      colon == std::string_view::npos ? storage_error : storage_error.substr(colon + 2);
  std::string text = "MISCONF Errors writing to the data directory: ";
  text.append(os_error);
  return text;
}

// "ERR wrong number of arguments for '<name>' command"; `name` is lower case, subcommands as
// "config|get".
std::string WrongArgsError(std::string_view name);

// "ERR unknown command '<name>', with args beginning with: '<a1>' '<a2>' " with Redis's
// truncation: the name to 128 bytes; arguments appended while the list is shorter than 128
// bytes, each cut so the list stays within 128 bytes. `args` excludes the name.
std::string UnknownCommandError(std::string_view name, std::span<const std::string_view> args);

// "ERR unknown subcommand '<sub>'. Try <CMD> HELP." (<sub> cut to 128 bytes, <CMD> upper case).
std::string UnknownSubcommandError(std::string_view container, std::string_view sub);

// "ERR invalid expire time in '<cmd>' command" (cmd lower case).
std::string InvalidExpireTimeError(std::string_view cmd);

// "ERR invalid duration '<text>'".
std::string InvalidDurationError(std::string_view text);

// "ERR unknown subcommand or wrong number of arguments for '<sub>'. Try <CMD> HELP." — not used
// by the dispatcher (which reports arity itself) but by handlers that take free-form tails.
std::string SubcommandSyntaxError(std::string_view container, std::string_view sub);
inline constexpr std::string_view kNotInActiveActiveMode =
    "ERR this node is not in active-active mode";
// PEER SYNC from a peer that applied deltas of this node which its log no longer holds as they
// were: this node took a new node id (`new_id`); the peer reconnects and asks it anew.
std::string OriginLogBehindStreamed(uint64_t applied, std::string_view new_id);
// PEER SYNC for an id this node no longer has (it took a new one since the peer asked PEER ID).
std::string OriginIdChanged(std::string_view new_id);
// PEER SYNC from a peer whose `option` (one of the settings every node of a mesh must share,
// docs/active-active.md "Settings") is `theirs` where this node's is `ours`.
inline constexpr std::string_view kPeerSettingsDifferPrefix = "ERR active-active settings differ";
std::string PeerSettingsDiffer(std::string_view option, std::string_view theirs,
                               std::string_view ours);

// "ERR <engine status>" for a storage engine failure (e.g. "ERR IO error: write ...").
std::string EngineError(std::string_view status_text);
// The reply to a read that came back Incomplete (it needs a table block not in memory). The
// dispatcher withdraws it and runs the command again once the block is read, so no client sees
// it (server/dispatch/dispatcher.h, "Restartable commands").
inline constexpr std::string_view kWaitingForDisk = "ERR waiting for a table block";

// A RESP2 subscriber's refused command: "ERR Can't execute '<cmd>': only (P|S)SUBSCRIBE /
// (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context".
std::string SubscriberModeError(std::string_view name);

// LATENCY GRAPH's "ERR No samples available for event '<event>'" (the event as given).
std::string NoLatencySamplesError(std::string_view event);

// EXPIRE's "ERR Unsupported option <arg>".
std::string UnsupportedOptionError(std::string_view option);
// HELLO's "ERR Syntax error in HELLO option '<arg>'".
std::string HelloOptionError(std::string_view option);
// CLIENT SETINFO's "ERR Unrecognized option '<attr>'".
std::string UnrecognizedOptionError(std::string_view option);
// CLIENT SETINFO's "ERR <lib-name|lib-ver> cannot contain spaces, newlines or special
// characters.".
std::string ClientInfoInvalidError(std::string_view attribute);
// CLIENT LIST/KILL's "ERR Unknown client type '<type>'".
std::string UnknownClientTypeError(std::string_view type);
// CLIENT KILL USER's "ERR No such user '<user>'".
std::string NoSuchUserError(std::string_view user);
// CONFIG SET's "ERR Unknown option or number of arguments for CONFIG SET - '<name>'".
std::string ConfigUnknownOptionError(std::string_view name);
// CONFIG SET's "ERR CONFIG SET failed (possibly related to argument '<name>') - <reason>".
std::string ConfigSetFailedError(std::string_view name, std::string_view reason);
// CONFIG REWRITE's "ERR Rewriting config file: <reason>".
std::string ConfigRewriteError(std::string_view reason);
// The configuration at start (ConfigRegistry::LoadFile, ParseCommandLine), as ebb-server prints
// it before exiting. `option` is as the source names it: "--port" on the command line.
std::string ConfigFileOpenError(std::string_view path);  // "can't open config file '<path>'"
// A file's line: "<path>:<line>: <problem>".
std::string ConfigFileLineError(std::string_view path, int line, std::string_view problem);
inline constexpr std::string_view kConfigLineUnbalancedQuotes =
    "unbalanced quotes in configuration line";
std::string ConfigLineUnknownOption(std::string_view option);  // "unknown option '<option>'"
// "wrong number of arguments for '<option>'".
std::string ConfigLineArgumentCount(std::string_view option);
// "invalid value '<values>' for '<option>': <reason>".
std::string ConfigLineInvalidValue(std::string_view values, std::string_view option,
                                   std::string_view reason);
// "unbalanced quotes in option '<argument>'".
std::string ConfigOptionUnbalancedQuotes(std::string_view argument);
// "unexpected argument '<argument>' (options start with --)".
std::string ConfigUnexpectedArgument(std::string_view argument);

// DUMP and RESTORE.
inline constexpr std::string_view kBusyKey = "BUSYKEY Target key name already exists.";
inline constexpr std::string_view kInvalidTtl = "ERR Invalid TTL value, must be >= 0";
inline constexpr std::string_view kInvalidIdleTime = "ERR Invalid IDLETIME value, must be >= 0";
inline constexpr std::string_view kInvalidFreq = "ERR Invalid FREQ value, must be >= 0 and <= 255";
inline constexpr std::string_view kBadDumpPayload =
    "ERR DUMP payload version or checksum are wrong";
inline constexpr std::string_view kBadDataFormat = "ERR Bad data format";

// COMMAND GETKEYS.
inline constexpr std::string_view kInvalidCommandSpecified = "ERR Invalid command specified";
inline constexpr std::string_view kCommandHasNoKeys = "ERR The command has no key arguments";
inline constexpr std::string_view kGetKeysBadArity =
    "ERR Invalid number of arguments specified for command";
inline constexpr std::string_view kGetKeysBadArguments =
    "ERR Invalid arguments specified for command";

// MIGRATE.
inline constexpr std::string_view kMigrateKeysNeedsEmptyKey =
    "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string";
inline constexpr std::string_view kMigrateConnectError =
    "IOERR error or timeout connecting to the client";
inline constexpr std::string_view kMigrateWriteError =
    "IOERR error or timeout writing to target instance";
inline constexpr std::string_view kMigrateReadError =
    "IOERR error or timeout reading to target instance";
// "ERR Target instance replied with error: <its error>".
std::string MigrateTargetError(std::string_view target_error);

// DEBUG.
inline constexpr std::string_view kDeltaNotApplied =
    "ERR the delta was not applied (the server log says why)";
inline constexpr std::string_view kNotANodeId =
    "ERR an origin id is 40 hexadecimal digits (PEER ID)";
inline constexpr std::string_view kResp2NotSupported = "ERR RESP2 is not supported by this command";
inline constexpr std::string_view kDebugProtocolType =
    "ERR Wrong protocol type name. Please use one of the following: "
    "string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false";

// Scripting: EVAL, FCALL, SCRIPT and FUNCTION (Redis's eval.c, function_lua.c, functions.c).
// "ERR <message>" for a message without a code of its own (a Lua error's text, ...).
std::string GenericError(std::string_view message);
inline constexpr std::string_view kNoScript = "NOSCRIPT No matching script. Please use EVAL.";
inline constexpr std::string_view kNotBusy = "NOTBUSY No scripts in execution right now.";
inline constexpr std::string_view kUnkillable =
    "UNKILLABLE Sorry the script already executed write commands against the dataset. You can "
    "either wait the script termination or kill the server in a hard way using the SHUTDOWN "
    "NOSAVE command.";
inline constexpr std::string_view kNumKeysTooLarge =
    "ERR Number of keys can't be greater than number of args";
inline constexpr std::string_view kNumKeysNegative = "ERR Number of keys can't be negative";
inline constexpr std::string_view kFcallBadNumKeys = "ERR Bad number of keys provided";
inline constexpr std::string_view kScriptFlushOption =
    "ERR SCRIPT FLUSH only support SYNC|ASYNC option";
inline constexpr std::string_view kFunctionFlushOption =
    "ERR FUNCTION FLUSH only supports SYNC|ASYNC option";
inline constexpr std::string_view kFunctionCodeMissing = "ERR Function code is missing";
inline constexpr std::string_view kUnknownArgumentWithCode = "ERR Unknown argument withcode";
inline constexpr std::string_view kUnknownArgumentLibraryName = "ERR Unknown argument libraryname";
inline constexpr std::string_view kLibraryNameNotGiven = "ERR library name argument was not given";
inline constexpr std::string_view kRestorePolicy =
    "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.";
// FUNCTION LOAD's "ERR Unknown option given: <arg>".
std::string UnknownOptionGivenError(std::string_view option);
// FUNCTION LIST's "ERR Unknown argument <arg>".
std::string UnknownArgumentError(std::string_view argument);
// A script's shebang line ("#!lua flags=...").
inline constexpr std::string_view kInvalidScriptShebang = "ERR Invalid script shebang";
inline constexpr std::string_view kInvalidShebangEngine = "ERR Invalid engine in script shebang";
std::string UnexpectedShebangEngineError(std::string_view engine);
std::string UnknownShebangOptionError(std::string_view option);
std::string UnexpectedShebangFlagError(std::string_view flag);
// A script's flags against the server's state.
inline constexpr std::string_view kScriptMasterDown =
    "MASTERDOWN Link with MASTER is down, replica-serve-stale-data is set to 'no' and "
    "'allow-stale' flag is not set on the script.";
inline constexpr std::string_view kScriptReadOnlyReplica =
    "READONLY Can not run script with write flag on readonly replica";
inline constexpr std::string_view kScriptWriteInReadOnlyCall =
    "ERR Can not execute a script with write flag using *_ro command.";
inline constexpr std::string_view kScriptOom =
    "OOM allow-oom flag is not set on the script, can not run it when used memory > "
    "'maxmemory'";
// A script that failed with a non-table error: "ERR Error running script <name>, <message>"
// (the message cut to 100 bytes).
std::string ScriptRunError(std::string_view name, std::string_view message);
// A script's error table without an "err" field.
inline constexpr std::string_view kScriptUnknownError = "ERR unknown error";
inline constexpr std::string_view kLuaStackLimit = "ERR reached lua stack limit";
// A function library's metadata line ("#!lua name=<library>") and its loading.
inline constexpr std::string_view kMissingLibraryMetadata = "ERR Missing library metadata";
inline constexpr std::string_view kInvalidLibraryMetadata = "ERR Invalid library metadata";
inline constexpr std::string_view kLibraryNameTwice =
    "ERR Invalid metadata value, name argument was given multiple times";
std::string InvalidMetadataValueError(std::string_view value);
inline constexpr std::string_view kLibraryNameMissing = "ERR Library name was not given";
inline constexpr std::string_view kInvalidLibraryName =
    "ERR Library names can only contain letters, numbers, or underscores(_) and must be at "
    "least one character long";
std::string EngineNotFoundError(std::string_view engine);
// FUNCTION LOAD's "ERR Library '<name>' already exists".
std::string LibraryExistsQuotedError(std::string_view name);
// FUNCTION RESTORE's "ERR Library <name> already exists".
std::string LibraryExistsError(std::string_view name);
std::string FunctionExistsError(std::string_view name);
// "ERR Error registering functions: <message>" (the message carries its own code).
std::string RegisteringFunctionsError(std::string_view message);
inline constexpr std::string_view kNoFunctionsRegistered = "ERR No functions registered";
inline constexpr std::string_view kLibraryNotFound = "ERR Library not found";
inline constexpr std::string_view kFunctionNotFound = "ERR Function not found";
// A script or library that does not compile: "ERR Error compiling script (new function):
// <Lua's message>", "ERR Error compiling function: <Lua's message>".
std::string ScriptCompileError(std::string_view message);
std::string FunctionCompileError(std::string_view message);
// What redis.call and redis.pcall refuse (the script's error table: "ERR " is added to them).
inline constexpr std::string_view kScriptCallOutsideScript =
    "redis.call/pcall can only be called inside a script invocation";
inline constexpr std::string_view kScriptCallNoArguments =
    "Please specify at least one argument for this redis lib call";
inline constexpr std::string_view kScriptCallBadArguments =
    "Lua redis lib command arguments must be strings or integers";
inline constexpr std::string_view kScriptUnknownCommand =
    "Unknown Redis command called from script";
inline constexpr std::string_view kScriptWrongArity =
    "Wrong number of args calling Redis command from script";
inline constexpr std::string_view kScriptCommandNotAllowed =
    "This Redis command is not allowed from script";
inline constexpr std::string_view kScriptStaleReplica =
    "Can not execute the command on a stale replica";
inline constexpr std::string_view kScriptWriteFromReadOnly =
    "Write commands are not allowed from read-only scripts.";
// The error a killed script ends with (SCRIPT KILL and FUNCTION KILL alike, as Redis).
inline constexpr std::string_view kScriptKilled = "Script killed by user with SCRIPT KILL...";

// ACL (Redis's acl.c). A refused command: "NOPERM this user has no permissions to ...".
// `command` is the command's full name ("config|get").
std::string NoPermCommandError(std::string_view command);
inline constexpr std::string_view kNoPermKeys =
    "NOPERM this user has no permissions to access one of the keys used as arguments";
inline constexpr std::string_view kNoPermChannels =
    "NOPERM this user has no permissions to access one of the channels used as arguments";
inline constexpr std::string_view kNoPerm = "NOPERM no permission";
// A script's call the ACL refuses (the script's error, Redis's scriptCall words).
inline constexpr std::string_view kAclScriptCommand =
    "The user executing the script can't run this command or subcommand";
inline constexpr std::string_view kAclScriptKeys =
    "The user executing the script can't access at least one of the keys mentioned in the "
    "command arguments";
inline constexpr std::string_view kAclScriptChannel =
    "The user executing the script can't publish to the channel mentioned in the command";
inline constexpr std::string_view kAclScriptUnknown =
    "The user executing the script lacking the permissions for the command";
// ACL SETUSER's refusal: "ERR <reason>" for the user as a whole, "ERR Error in ACL SETUSER
// modifier '<rule>': <reason>" for one rule.
std::string AclSetUserError(std::string_view rule, std::string_view reason);
// The users of the config file: "Error in user declaration '<rule>': <reason>".
std::string AclUserDeclarationError(std::string_view rule, std::string_view reason);
// Why an ACL rule or user name is refused (the reason of the texts above).
inline constexpr std::string_view kAclSyntaxError = "Syntax error";
inline constexpr std::string_view kAclUnknownName = "Unknown command or category name in ACL";
inline constexpr std::string_view kAclFirstArgOfSubcommand =
    "Allowing first-arg of a subcommand is not supported";
inline constexpr std::string_view kAclKeyPatternAfterAll =
    "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have "
    "any effect. Try 'resetkeys' to start with an empty list of patterns";
inline constexpr std::string_view kAclChannelPatternAfterAll =
    "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not "
    "have any effect. Try 'resetchannels' to start with an empty list of channels";
inline constexpr std::string_view kAclBadHash =
    "The password hash must be exactly 64 characters and contain only lowercase hexadecimal "
    "characters";
inline constexpr std::string_view kAclNoSuchPassword =
    "The password you are trying to remove from the user does not exist";
inline constexpr std::string_view kAclUserNameSpaces =
    "Usernames can't contain spaces or null characters";
// "Unmatched parenthesis in acl selector starting at '<argument>'.".
std::string AclUnmatchedParenthesisError(std::string_view argument);
inline constexpr std::string_view kAclDeleteDefault = "ERR The 'default' user cannot be removed";
inline constexpr std::string_view kNoAclFile =
    "ERR This Redis instance is not configured to use an ACL file. You may want to specify users "
    "via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis "
    "configuration file set) in order to store users in the Redis configuration.";
inline constexpr std::string_view kAclGenPassBits =
    "ERR ACL GENPASS argument must be the number of bits for the output password, a positive "
    "number up to 4096";
inline constexpr std::string_view kAclGenPassFailed = "ERR Cannot generate a random password";
inline constexpr std::string_view kAclSaveFailed =
    "ERR There was an error trying to save the ACLs. Please check the server logs for more "
    "information";
// ACL CAT's "ERR Unknown category '<name>'".
std::string UnknownAclCategoryError(std::string_view category);
// ACL DRYRUN's "ERR User '<name>' not found".
std::string AclUserNotFoundError(std::string_view user);
// ACL DRYRUN's "ERR Command '<name>' not found".
std::string AclCommandNotFoundError(std::string_view command);
// ACL LOAD's refusal (GenericError adds "ERR "): the aclfile's problems, each after its
// "<path>:<line>", then kAclLoadNoChange.
std::string AclFileOpenError(std::string_view path, std::string_view reason);
std::string AclFileNoUserKeyword(std::string_view where);
std::string AclFileDuplicateUser(std::string_view user, int line);
std::string AclFileUnmatchedParenthesis(std::string_view where);
std::string AclFileRuleError(std::string_view where, std::string_view rule,
                             std::string_view reason);
inline constexpr std::string_view kAclLoadNoChange =
    "WARNING: ACL errors detected, no change to the previously active ACL rules was performed";

// Redis Cluster: the CLUSTER subcommands that change the node table and the slots (Redis's
// cluster.c and cluster_legacy.c).
// "MOVED <slot> <host>:<port>" or "ASK <slot> <host>:<port>".
std::string MovedOrAskError(bool ask, int slot, std::string_view host, int port);
inline constexpr std::string_view kBadSlot = "ERR Invalid or out of range slot";
inline constexpr std::string_view kClusterMeetArity =
    "ERR Unknown subcommand or wrong number of arguments for 'meet'. Try CLUSTER HELP.";
std::string InvalidBasePortError(std::string_view port);
std::string InvalidBusPortError(std::string_view port);
std::string InvalidNodeAddressError(std::string_view ip, int port);
std::string SlotRangeOrderError(int first, int last);
std::string SlotUnassignedError(int slot);
std::string SlotBusyError(int slot);
std::string SlotRepeatedError(int slot);
inline constexpr std::string_view kFlushSlotsNotEmpty =
    "ERR DB must be empty to perform CLUSTER FLUSHSLOTS.";
inline constexpr std::string_view kSetSlotOnReplica = "ERR Please use SETSLOT only with masters.";
inline constexpr std::string_view kSetSlotSyntax =
    "ERR Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP";
std::string ClusterConfigSaveError(std::string_view reason);
// "ERR Unknown node <name>".
std::string UnknownNodeError(std::string_view node);
inline constexpr std::string_view kNodeNotMaster = "ERR The specified node is not a master";
std::string NotSlotOwnerError(int slot);
std::string AlreadySlotOwnerError(int slot);
// "ERR I don't know about node <name>".
std::string NodeNotKnownError(std::string_view node);
inline constexpr std::string_view kTargetNotMaster = "ERR Target node is not a master";
std::string SlotHasKeysError(int slot);
std::string InvalidConfigEpochError(int64_t epoch);
inline constexpr std::string_view kConfigEpochWithOtherNodes =
    "ERR The user can assign a config epoch only when the node does not know any other node.";
inline constexpr std::string_view kConfigEpochNonZero = "ERR Node config epoch is already non-zero";
inline constexpr std::string_view kResetWithKeys =
    "ERR CLUSTER RESET can't be called with master nodes containing keys";
inline constexpr std::string_view kForgetMyself = "ERR I tried hard but I can't forget myself...";
inline constexpr std::string_view kForgetMyMaster = "ERR Can't forget my master!";
inline constexpr std::string_view kReplicateMyself = "ERR Can't replicate myself";
inline constexpr std::string_view kReplicateReplica =
    "ERR I can only replicate a master, not a replica.";
inline constexpr std::string_view kReplicateNotEmpty =
    "ERR To set a master the node must be empty and without assigned slots.";
inline constexpr std::string_view kClusterFailoverOnMaster =
    "ERR You should send CLUSTER FAILOVER to a replica";
inline constexpr std::string_view kClusterFailoverNoMaster =
    "ERR I'm a replica but my master is unknown to me";
inline constexpr std::string_view kClusterFailoverMasterDown =
    "ERR Master is down or failed, please use CLUSTER FAILOVER FORCE";
// The cluster node at start (Cluster::Load, Cluster::Listen), as the server logs it before exiting.
// "Unrecoverable error: corrupted cluster config file <what>": `what` is "\"<line>\" (line <n>)",
// "(line <n>: <problem>)" or kNodesConfNoMyself.
std::string NodesConfCorruptError(std::string_view what);
std::string NodesConfLineError(std::string_view line, int number);
std::string NodesConfFieldError(int number, std::string_view problem);
inline constexpr std::string_view kNodesConfNoMyself = "(no 'myself' node)";
// "Can't write the cluster config file: <reason>".
std::string NodesConfUnwritableError(std::string_view reason);
inline constexpr std::string_view kBusPortTooHigh =
    "Redis port number too high. Cluster communication port is 10,000 port numbers higher than "
    "your Redis port. Your Redis port number must be 55535 or less.";
// "Cluster bus: <why the listener failed>".
std::string BusListenError(std::string_view reason);
inline constexpr std::string_view kBusNoAddress = "No address to listen on for the cluster bus";

// Replication: REPLICAOF, PSYNC, REPLCONF, WAIT and FAILOVER (Redis's replication.c).
inline constexpr std::string_view kReplicationNeedsKeyspace =
    "ERR replication needs a server with a keyspace";
std::string UnrecognizedReplconfOptionError(std::string_view option);
inline constexpr std::string_view kPsyncFailoverToMaster =
    "ERR PSYNC FAILOVER can't be sent to a master.";
inline constexpr std::string_view kPsyncFailoverReplid =
    "ERR PSYNC FAILOVER replid must match my replid.";
inline constexpr std::string_view kReplicaOfInCluster =
    "ERR REPLICAOF not allowed in cluster mode.";
inline constexpr std::string_view kCommandFromReplica =
    "ERR Command is not valid when client is a replica.";
inline constexpr std::string_view kReplicaOfWhileFailingOver =
    "ERR REPLICAOF not allowed while failing over.";
inline constexpr std::string_view kReplicaOfInActiveActive =
    "ERR REPLICAOF is not allowed in active-active mode";
inline constexpr std::string_view kInvalidMasterPort = "ERR Invalid master port";
inline constexpr std::string_view kTimeoutNegative = "ERR timeout is negative";
inline constexpr std::string_view kTimeoutOutOfRange = "ERR timeout is out of range";
inline constexpr std::string_view kWaitOnReplica =
    "ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a "
    "replica is configured to be writable (which is not the default) writes to replicas are just "
    "local and are not propagated.";
inline constexpr std::string_view kFailoverTimeoutNotPositive =
    "ERR FAILOVER timeout must be greater than 0";
inline constexpr std::string_view kNoFailoverInProgress = "ERR No failover in progress.";
inline constexpr std::string_view kFailoverInProgress = "ERR FAILOVER already in progress.";
inline constexpr std::string_view kFailoverOnReplica =
    "ERR FAILOVER is not valid when server is a replica.";
inline constexpr std::string_view kFailoverNoReplicas = "ERR FAILOVER requires connected replicas.";
inline constexpr std::string_view kFailoverForceArguments =
    "ERR FAILOVER with force option requires both a timeout and target HOST and IP.";
inline constexpr std::string_view kFailoverTargetNotReplica =
    "ERR FAILOVER target HOST and PORT is not a replica.";
inline constexpr std::string_view kFailoverTargetNotOnline =
    "ERR FAILOVER target replica is not online.";
// A master's reply to a replica's PING before AUTH (older servers); the replica goes on to AUTH.
inline constexpr std::string_view kOperationNotPermitted = "ERR operation not permitted";
// PSYNC refused while this server fails over, or while it is a replica without its master's link.
inline constexpr std::string_view kSyncWhileFailingOver =
    "NOMASTERLINK Can't SYNC while failing over";
inline constexpr std::string_view kSyncWithoutMasterLink =
    "NOMASTERLINK Can't SYNC while not connected with my master";

// Active-active mode (docs/active-active.md): PEER, DEBUG's peer subcommands and the refusals
// of commands without a convergent merge.
inline constexpr std::string_view kActiveActiveNeedsKeyspace =
    "ERR active-active needs a server with a keyspace";
inline constexpr std::string_view kInvalidPeerPort = "ERR Invalid peer port";
// "ERR no peer <host>:<port>".
std::string NoPeerError(std::string_view host, int64_t port);
// "ERR peer <host>:<port> is already linked" (`peer`: "<host>:<port>").
std::string PeerLinkedError(std::string_view peer);
inline constexpr std::string_view kPeersOfReplica = "ERR a replica cannot have active-active peers";
inline constexpr std::string_view kPeersInCluster =
    "ERR active-active peers are not available in cluster mode";
// A command refused in active-active mode: "ERR '<name>' is not allowed in active-active mode:
// it has no convergent merge between peers".
std::string ActiveActiveRefusedError(std::string_view name);
// A write whose timestamp is ahead of this node's clock by more than max-clock-skew.
std::string ClockSkewError(std::string_view timestamp, int64_t max_clock_skew_ms);
inline constexpr std::string_view kTregSetWithTtl =
    "ERR TREG SET on a key a ttl-rule or default-ttl gives a TTL is not allowed in active-active "
    "mode: the TTL would be renewed from each node's own clock";
// SET's NX, XX, GET or KEEPTTL in active-active mode (`option` in lower case).
std::string ConditionalSetError(std::string_view option);
// A command of a transaction or script batch that has no active-active write form.
std::string NotInBatchError(std::string_view name);
// A form of a command (an option) active-active mode has no merge for.
std::string FormNotAllowedError(std::string_view name);
// The `peer` option refused at start (the server's start-up error, not a reply).
inline constexpr std::string_view kPeerOptionInCluster =
    "active-active peers are not available in cluster mode (peer and cluster-enabled)";
inline constexpr std::string_view kPeerOptionOnReplica =
    "a replica cannot have active-active peers (replicaof and peer)";
// The start refused: counter state and the observed-remove rule never meet on a node
// (docs/active-active.md, "The string rule").
inline constexpr std::string_view kCountersUnderOrRule =
    "active-active-string-rule observed-remove is not allowed on a node that holds counters "
    "(keys written by INCR and its family in active-active mode): start it with the timestamp rule";
// INCR, INCRBY, DECR, DECRBY or INCRBYFLOAT under the observed-remove rule.
inline constexpr std::string_view kIncrUnderOrRule =
    "ERR INCR and its family are not allowed in active-active mode under "
    "active-active-string-rule observed-remove: a counter has no merge with that rule";
// A TS write on a series that compaction rules feed or that feeds them (rules are refused in the
// mode: a destination would be each node's own).
inline constexpr std::string_view kSeriesRulesInActiveActive =
    "ERR TS writes to a series with compaction rules are not allowed in active-active mode";
// A TS sample at or before a whole-key delete of its key in the mode: dropped on every node.
inline constexpr std::string_view kSeriesSampleDeleted =
    "ERR the sample's timestamp is at or before a delete of the key in active-active mode";
// A TS write to a compaction rule's destination in the mode: every node computes its samples
// from the rule's source.
inline constexpr std::string_view kSeriesDestinationInActiveActive =
    "ERR TS writes to a compaction rule's destination are not allowed in active-active mode";

// The dispatcher's refusal of a command inside MULTI that ends the transaction at EXEC:
// "EXECABORT Transaction discarded because of: <reason>" (the reason without its "ERR ").
std::string ExecAbortBecauseError(std::string_view reason);
// The code prefix of a generic error ("ERR ").
inline constexpr std::string_view kErrPrefix = "ERR ";

// TLOG RANGE ... AGGREGATION (server/commands/cmd_tlog.cc).
inline constexpr std::string_view kTlogUnknownAggregator =
    "ERR unknown TLOG aggregator: use count, first or last";
inline constexpr std::string_view kTlogBucketZero =
    "ERR TLOG bucket duration must be greater than zero";

// Time series (server/commands/cmd_series.cc): RedisTimeSeries' words.
inline constexpr std::string_view kTsKeyMissing = "ERR TSDB: the key does not exist";
inline constexpr std::string_view kTsKeyExists = "ERR TSDB: key already exists";
inline constexpr std::string_view kTsNotTsdbKey = "ERR TSDB: the key is not a TSDB key";
inline constexpr std::string_view kTsInvalidTimestamp = "ERR TSDB: invalid timestamp";
inline constexpr std::string_view kTsNegativeTimestamp =
    "ERR TSDB: invalid timestamp, must be a nonnegative integer";
inline constexpr std::string_view kTsInvalidValue = "ERR TSDB: invalid value";
inline constexpr std::string_view kTsTooOld = "ERR TSDB: Timestamp is older than retention";
inline constexpr std::string_view kTsDuplicateBlocked =
    "ERR TSDB: Error at upsert, update is not supported when DUPLICATE_POLICY is set to BLOCK "
    "mode";
inline constexpr std::string_view kTsIncrBelowNewest =
    "ERR TSDB: timestamp must be equal to or higher than the maximum existing timestamp";
inline constexpr std::string_view kTsIncrNaN = "ERR TSDB: cannot increment/decrement NaN value";
inline constexpr std::string_view kTsInvalidIncrement = "ERR TSDB: invalid increase/decrease value";
inline constexpr std::string_view kTsBadRetention = "ERR TSDB: Couldn't parse RETENTION";
inline constexpr std::string_view kTsBadChunkSize = "ERR TSDB: Couldn't parse CHUNK_SIZE";
inline constexpr std::string_view kTsChunkSizeRange =
    "ERR TSDB: CHUNK_SIZE value must be a multiple of 8 in the range [48 .. 1048576]";
inline constexpr std::string_view kTsBadEncoding = "ERR TSDB: unknown ENCODING parameter";
inline constexpr std::string_view kTsBadDuplicatePolicy =
    "ERR TSDB: Couldn't parse DUPLICATE_POLICY";
inline constexpr std::string_view kTsUnknownDuplicatePolicy = "ERR TSDB: Unknown DUPLICATE_POLICY";
inline constexpr std::string_view kTsBadLabels = "ERR TSDB: Couldn't parse LABELS";
inline constexpr std::string_view kTsWrongFrom = "ERR TSDB: wrong fromTimestamp";
inline constexpr std::string_view kTsWrongTo = "ERR TSDB: wrong toTimestamp";
inline constexpr std::string_view kTsCountMissing = "ERR TSDB: COUNT argument is missing";
inline constexpr std::string_view kTsBadCount = "ERR TSDB: Couldn't parse COUNT";
inline constexpr std::string_view kTsInvalidCount = "ERR TSDB: Invalid COUNT value";
inline constexpr std::string_view kTsFilterByTsMissing =
    "ERR TSDB: FILTER_BY_TS one or more arguments are missing";
inline constexpr std::string_view kTsFilterByValueMissing =
    "ERR TSDB: FILTER_BY_VALUE one or more arguments are missing";
inline constexpr std::string_view kTsBadMin = "ERR TSDB: Couldn't parse MIN";
inline constexpr std::string_view kTsBadMax = "ERR TSDB: Couldn't parse MAX";
inline constexpr std::string_view kTsBadAggregation = "ERR TSDB: Couldn't parse AGGREGATION";
inline constexpr std::string_view kTsUnknownAggregation = "ERR TSDB: Unknown aggregation type";
inline constexpr std::string_view kTsBucketDuration =
    "ERR TSDB: bucketDuration must be greater than zero";
inline constexpr std::string_view kTsAlignWithoutAggregation =
    "ERR TSDB: ALIGN parameter can only be used with AGGREGATION";
inline constexpr std::string_view kTsBadAlign = "ERR TSDB: unknown ALIGN parameter";
inline constexpr std::string_view kTsAlignStartUnbounded =
    "ERR TSDB: start alignment can only be used with explicit start timestamp";
inline constexpr std::string_view kTsAlignEndUnbounded =
    "ERR TSDB: end alignment can only be used with explicit end timestamp";
inline constexpr std::string_view kTsBadBucketTimestamp =
    "ERR TSDB: unknown BUCKETTIMESTAMP parameter";
// More empty buckets than one reply may hold (EMPTY over a wide gap; ebb's own limit).
inline constexpr std::string_view kTsTooManyBuckets =
    "ERR TSDB: the reply would hold more than 10000000 buckets: narrow the range or widen the "
    "buckets";
// Compaction rules (server/commands/cmd_series_rules.cc).
inline constexpr std::string_view kTsRuleSameKey =
    "ERR TSDB: the source key and destination key should be different";
inline constexpr std::string_view kTsRuleDestHasSource =
    "ERR TSDB: the destination key already has a src rule";
inline constexpr std::string_view kTsRuleMissing = "ERR TSDB: compaction rule does not exist";
inline constexpr std::string_view kTsBadAlignTimestamp = "ERR TSDB: Couldn't parse alignTimestamp";
inline constexpr std::string_view kTsNegativeAlignTimestamp =
    "ERR TSDB: alignTimestamp should be greater or equal to 0";
// ebb's own: rules chain, but never in a circle, and at most 16 series long.
inline constexpr std::string_view kTsRuleCycle =
    "ERR TSDB: the destination key feeds the source key: the rule would make a cycle";
inline constexpr std::string_view kTsRuleChainTooLong =
    "ERR TSDB: a chain of compaction rules holds at most 16 series";
// TS.QUERYINDEX, TS.MGET, TS.MRANGE (server/commands/cmd_series_query.cc).
inline constexpr std::string_view kTsBadFilter = "ERR TSDB: failed parsing labels";
inline constexpr std::string_view kTsNoMatcher = "ERR TSDB: please provide at least one matcher";
inline constexpr std::string_view kTsFilterMissing = "ERR TSDB: missing FILTER argument";
inline constexpr std::string_view kTsFilterEmpty = "ERR TSDB: missing labels for filter argument";
inline constexpr std::string_view kTsGroupByBeforeFilter =
    "ERR TSDB: GROUPBY should always come after filter";
inline constexpr std::string_view kTsInvalidReducer = "ERR TSDB: Invalid reducer type";
inline constexpr std::string_view kTsLabelsConflict =
    "ERR TSDB: cannot accept WITHLABELS and SELECT_LABELS together";
inline constexpr std::string_view kTsSelectedLabelsEmpty =
    "ERR TSDB: SELECT_LABELS should have at least 1 parameter";
inline constexpr std::string_view kTsSelectedLabelsTooMany =
    "ERR TSDB: reached max size for SELECT_LABELS";
inline constexpr std::string_view kTsNoReadPermission =
    "NOPERM TSDB: current user doesn't have read permission to one or more keys that match the "
    "specified filter";

// Starting to serve (server/io/tls.h, server/net/server.h): why the server cannot, as it logs it
// before exiting. A `file_reason` is "<path>: <OpenSSL's reason>".
// "tls-cert-file and tls-key-file are required with <options>" (tls-port, or the link options).
std::string TlsCertKeyRequiredError(std::string_view options);
std::string TlsCertificateLoadError(
    std::string_view file_reason);                          // "Failed to load certificate: "
std::string TlsKeyLoadError(std::string_view file_reason);  // "Failed to load private key: "
std::string TlsProtocolsError(std::string_view value);      // "Invalid tls-protocols value '<v>'"
std::string TlsCaFileLoadError(std::string_view file_reason);
std::string TlsCaDirLoadError(std::string_view file_reason);
std::string TlsCiphersError(std::string_view value);
std::string TlsCiphersuitesError(std::string_view value);
inline constexpr std::string_view kTlsCaRequiredForClients =
    "Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-auth-clients is yes or "
    "optional";
// A CA is required with the link options `options` on.
std::string TlsCaRequiredForLinksError(std::string_view options);
// "<option> requires tls-port (the other servers connect to it)".
std::string TlsLinkNeedsPortError(std::string_view option);
inline constexpr std::string_view kTlsClientCertKeyApart =
    "tls-client-cert-file and tls-client-key-file must be given together";
inline constexpr std::string_view kNoAddressToListenOn = "No address to listen on";
// Listening on `bind` (server/io/listen.h): "Invalid bind address '<address>'", and Redis's two
// lines for an address it cannot listen on (tools that start a server, Redis's test harness
// among them, look for the second to try another port).
std::string InvalidBindAddressError(std::string_view address);
std::string TcpListenError(std::string_view address, int port, std::string_view reason);
// "Active-active state unreadable: <status>".
std::string ActiveActiveUnreadableError(std::string_view status);

}  // namespace ebb::server
