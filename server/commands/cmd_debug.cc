// DEBUG OBJECT|SLEEP|CLOCK|FLUSH-MEMTABLE|COMPACT|DIGEST|DIGEST-LOGICAL|PEER-LINK|PEER-APPLY|
// PEER-COLLECT|DISK-FAULT|POWER-CUT|BLOCK-READ-DELAY|PROTOCOL|HELP:
// test hooks, refused unless enable-debug-command allows them (the dispatcher checks kCmdDebug).
// DEBUG DIGEST names the data's visible content in 40 hex digits, so a test compares a master
// and its replicas (docs/replication.md, "Comparing a replica with its master").
// DEBUG CLOCK moves the server's clock so TTL tests never sleep; DEBUG DISK-FAULT makes the data
// directory's writes and fsyncs fail so tests see MISCONF without filling a disk, or holds new
// table files so tests see write stalls; DEBUG POWER-CUT leaves the data directory as a power
// failure would and kills the process, for the power-cut tests; DEBUG BLOCK-READ-DELAY holds
// commands that wait for the disk for a while, so tests can act while they wait; DEBUG PROTOCOL
// answers one sample of each RESP type, as Redis's test suites ask for them. DEBUG OBJECT
// describes a key in Redis's `field:value` line, with the fields ebb can answer: refcount (1),
// encoding (OBJECT ENCODING's), serializedlength (its DUMP payload's size) and lru_seconds_idle
// (OBJECT IDLETIME's); Redis's object address and LRU clock have no counterpart here.
//
// As in Redis, DEBUG is one command whose subcommands it dispatches itself (COMMAND INFO shows
// no subcommands, and a bad one is "unknown subcommand or wrong number of arguments"); they are
// rows all the same, which its HELP is generated from.
#include <fmt/format.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/active_active/active_active.h"
#include "server/active_active/logical_digest.h"
#include "server/commands/object_info.h"
#include "server/commands/register.h"
#include "server/core/command.h"
#include "server/core/digest.h"
#include "server/core/errors.h"
#include "server/io/block_reader.h"
#include "server/services/command_docs.h"
#include "server/services/expiry_events.h"
#include "server/services/reply.h"
#include "server/services/server_context.h"
#include "storage/env/fault_injection_file_system.h"
#include "types/keyspace.h"
#include "types/or_context.h"

namespace ebb::server {
namespace {

void ReplyStatus(CommandContext& ctx, const storage::Status& s) {
  ReplyOkOrError(ctx, types::OpResult<void>(s));
}

// DEBUG OBJECT key
void ExecuteObject(CommandContext& ctx, const KeyOptions& o) {
  std::optional<types::KeyMetaRow> meta;
  if (!ReadMetaOrReply(ctx, o.key, &meta)) return;
  if (!meta) return ctx.reply.Error(kNoSuchKey);
  types::OpResult<std::optional<std::string>> payload =
      ctx.server.keyspace().DumpKey(ctx.client.db_index(), o.key);
  if (!payload.ok()) return ReplyError(ctx, payload);
  if (!*payload) return ctx.reply.Error(kNoSuchKey);  // expired between the two reads
  ctx.reply.SimpleString(fmt::format(
      "refcount:1 encoding:{} serializedlength:{} lru_seconds_idle:{}", ObjectEncoding(*meta),
      (*payload)->size(), IdleSeconds(*meta, ctx.server.clock().NowMs())));
}

struct SleepOptions {
  double seconds = 0;
};

// DEBUG SLEEP seconds (decimals allowed, at most an hour)
SleepOptions ParseSleep(ArgParser& args) {
  SleepOptions o;
  if (!ParseDouble(args.Next(), &o.seconds) || o.seconds < 0 || o.seconds > 3600) {
    args.Fail(kNotFloat);
  }
  return o;
}

void ExecuteSleep(CommandContext& ctx, const SleepOptions& o) {
  std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int64_t>(o.seconds * 1e6)));
  ctx.reply.Ok();
}

struct ClockOptions {
  enum class Op { kGet, kSet, kAdvance } op = Op::kGet;
  int64_t ms = 0;
};

// DEBUG CLOCK GET | SET unix-ms | ADVANCE ms
ClockOptions ParseClock(ArgParser& args) {
  ClockOptions o;
  const int op = args.Choice({"GET", "SET", "ADVANCE"});
  if (op < 0 || (op == 0) != (args.remaining() == 0) || args.remaining() > 1) {
    args.Fail(SubcommandSyntaxError("debug", "clock"));
    return o;
  }
  o.op = static_cast<ClockOptions::Op>(op);
  if (o.op != ClockOptions::Op::kGet) o.ms = args.Int64();
  if (!args.failed() && o.op == ClockOptions::Op::kAdvance && o.ms < 0) args.Fail(kClockBackwards);
  return o;
}

void ExecuteClock(CommandContext& ctx, const ClockOptions& o) {
  storage::PinnableClock& clock = ctx.server.clock();
  switch (o.op) {
    case ClockOptions::Op::kGet:
      return ctx.reply.Integer(clock.NowMs());
    case ClockOptions::Op::kSet:
      clock.Pin(o.ms);
      break;
    case ClockOptions::Op::kAdvance:
      clock.Advance(o.ms);
      break;
  }
  ctx.reply.Ok();
  // Expiries the move made due fire now, so tests of expired events are exact.
  ctx.server.expiry_events().Poll();
}

void ExecuteFlushMemtable(CommandContext& ctx, const NoOptions&) {
  ReplyStatus(ctx, ctx.server.keyspace().db().FlushMemtable());
}

void ExecuteCompact(CommandContext& ctx, const NoOptions&) {
  ReplyStatus(ctx, ctx.server.keyspace().db().CompactAll());
}

// DEBUG DIGEST: compacts the engine whole (the types' compaction filter then has dropped every
// row no read can see: TLOG entries below a cutoff, expired rows), then chains the SHA-1 of
// every row a read at retrieval grace 0 and then at full grace returns — key, value, timestamp,
// expire_at — in key order. Two servers with equal digests answer every read alike. 40 zeros
// for an empty engine, as Redis. Reads wait for the disk inline: a test hook, not for large data.
void ExecuteDigest(CommandContext& ctx, const NoOptions&) {
  storage::DB& db = ctx.server.keyspace().db();
  storage::Status s = db.CompactAll();
  if (!s.ok()) return ReplyStatus(ctx, s);
  std::string digest;
  std::string row;
  for (int64_t grace : {int64_t{0}, int64_t{1} << 60}) {
    storage::ReadOptions options;
    options.retrieval_grace_ms = grace;
    auto it = db.NewIterator(options);
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      const storage::RowMeta meta = it->meta();
      row = digest;
      row += std::to_string(it->key().size()) + ":" + std::string(it->key()) + "=" +
             std::to_string(it->value().size()) + ":" + std::string(it->value()) + "@" +
             std::to_string(meta.timestamp_ms.value_or(-1)) + "/" +
             std::to_string(meta.expire_at_ms.value_or(-1)) + ";" + std::to_string(grace);
      digest = Sha1Hex(row);
    }
    if (!it->status().ok()) return ReplyStatus(ctx, it->status());
  }
  ctx.reply.Bulk(digest.empty() ? std::string(40, '0') : digest);
}

// DEBUG DIGEST-LOGICAL: the digest active-active nodes compare (server/active_active/
// logical_digest.h).
void ExecuteDigestLogical(CommandContext& ctx, const NoOptions&) {
  std::string hex;
  storage::Status s = LogicalDigest(ctx.server.keyspace(), ctx.server.config().databases, &hex);
  if (!s.ok()) return ReplyStatus(ctx, s);
  ctx.reply.Bulk(hex);
}

struct PeerLinkOptions {
  std::string host;
  int64_t port = 0;
  bool up = true;
};
PeerLinkOptions ParsePeerLink(ArgParser& args) {
  PeerLinkOptions o;
  o.host = std::string(args.Next());
  o.port = args.Int64InRange(1, 65535, kInvalidPeerPort);
  const std::string_view state = args.Next();
  if (EqualsIgnoreCase(state, "down")) {
    o.up = false;
  } else if (!EqualsIgnoreCase(state, "up")) {
    args.Fail(kSyntaxError);
  }
  return o;
}

// DEBUG PEER-LINK host port up|down: a test's partition — the link from this node to that peer
// closes and stays closed until up (server/active_active/peer_link.h).
void ExecutePeerLink(CommandContext& ctx, const PeerLinkOptions& o) {
  ActiveActive* aa = ctx.server.active_active();
  if (aa == nullptr || !aa->SetLinkPaused(o.host, static_cast<int>(o.port), !o.up).ok()) {
    return ctx.reply.Error(NoPeerError(o.host, o.port));
  }
  ctx.reply.Ok();
}

struct PeerApplyOptions {
  std::string origin;
  int db = 0;
  uint64_t offset = 0;  // the delta's origin offset; 0: none given
  std::vector<std::string> delta;
};
PeerApplyOptions ParsePeerApply(ArgParser& args) {
  PeerApplyOptions o;
  o.origin = std::string(args.Next());
  o.db = static_cast<int>(args.Int64InRange(0, INT32_MAX, kDbIndexOutOfRange));
  if (args.Token("OFFSET")) {
    o.offset = static_cast<uint64_t>(args.Int64InRange(1, INT64_MAX, kOffsetOutOfRange));
  }
  while (args.HasMore()) o.delta.emplace_back(args.Next());
  return o;
}

// DEBUG PEER-APPLY origin-id db [OFFSET n] op [arg ...]: applies one canonical delta as if it had
// come from origin `origin-id` at its offset n (a string delta with a context needs one: its
// write's dot) — through the merge gate, in one engine write, the applied vector untouched —
// so a test can give one node every write of a mesh in an order of its choosing.
void ExecutePeerApply(CommandContext& ctx, const PeerApplyOptions& o) {
  ActiveActive* aa = ctx.server.active_active();
  if (aa == nullptr || !aa->enabled()) {
    return ctx.reply.Error(kNotInActiveActiveMode);
  }
  if (o.db >= ctx.server.config().databases) return ctx.reply.Error(kDbIndexOutOfRange);
  PeerDelta delta{.offset = o.offset, .db = o.db, .args = o.delta};
  PeerDelta* const run[] = {&delta};
  // A malformed delta is skipped and counted, not applied.
  const uint64_t malformed = aa->malformed_deltas();
  size_t applied = 0;
  if (!aa->ApplySnapshot(o.origin, run, std::nullopt, &applied, ActiveActive::Arrival::kStream) ||
      applied != 1 || aa->malformed_deltas() != malformed) {
    return ctx.reply.Error(kDeltaNotApplied);
  }
  ctx.reply.Ok();
}

struct PeerCollectOptions {
  types::OrContext stable;
};
PeerCollectOptions ParsePeerCollect(ArgParser& args) {
  PeerCollectOptions o;
  while (args.HasMore()) {
    const std::optional<types::OriginId> origin = types::OriginId::FromHex(args.Next());
    const auto offset = static_cast<uint64_t>(args.Int64InRange(0, INT64_MAX, kOffsetOutOfRange));
    if (!origin) {
      args.Fail(kNotANodeId);
    } else if (offset > 0) {
      o.stable.Raise(*origin, offset);
    }
  }
  return o;
}

// DEBUG PEER-COLLECT [origin-id offset ...]: this node logs a `collect` at once, its C its last
// joined with the pairs given (server/active_active/collect.h) — a test's stand-in for the mesh's
// stable vector, so a test without links can make collects; the test promises that every node
// has applied every delta the pairs name.
void ExecutePeerCollect(CommandContext& ctx, const PeerCollectOptions& o) {
  ActiveActive* aa = ctx.server.active_active();
  if (aa == nullptr || !aa->enabled()) {
    return ctx.reply.Error(kNotInActiveActiveMode);
  }
  const storage::Status s = aa->LogCollect(o.stable);
  if (!s.ok()) return ctx.reply.Error(EngineError(s.ToString()));
  ctx.reply.Ok();
}

struct DiskFaultOptions {
  enum class Op { kOn, kOff, kHold } op = Op::kOn;
  int error = ENOSPC;
};

// DEBUG DISK-FAULT ON [ENOSPC|EIO] | HOLD | OFF
DiskFaultOptions ParseDiskFault(ArgParser& args) {
  DiskFaultOptions o;
  const int op = args.Choice({"ON", "OFF", "HOLD"});
  o.op = op == 2   ? DiskFaultOptions::Op::kHold
         : op == 1 ? DiskFaultOptions::Op::kOff
                   : DiskFaultOptions::Op::kOn;
  if (op == 0 && args.HasMore()) {
    const int error = args.Choice({"ENOSPC", "EIO"});
    if (error < 0) args.SyntaxError();
    o.error = error == 1 ? EIO : ENOSPC;
  }
  if (op < 0 || args.HasMore()) args.Fail(SubcommandSyntaxError("debug", "disk-fault"));
  return o;
}

void ExecuteDiskFault(CommandContext& ctx, const DiskFaultOptions& o) {
  storage::FaultInjectionFileSystem* faults = ctx.server.disk_faults();
  if (faults == nullptr) return ctx.reply.Error(kDiskFaultsUnavailable);
  if (o.op == DiskFaultOptions::Op::kOn) {
    faults->SetFaultErrno(o.error);
    faults->SetFailNewFiles(true);
    faults->SetFailSyncs(true);
    faults->SetFailFlushes(true);  // appends still fill the buffers, as on a full disk
    return ctx.reply.Ok();
  }
  if (o.op == DiskFaultOptions::Op::kHold) {
    faults->SetHoldNewFiles(".sst");  // flushes and compactions wait; then writes stall
    return ctx.reply.Ok();
  }
  faults->SetHoldNewFiles("");
  faults->SetFailFlushes(false);
  faults->SetFailSyncs(false);
  faults->SetFailNewFiles(false);
  // The engine would resume by itself within about a second; do it now.
  ReplyStatus(ctx, ctx.server.keyspace().db().Resume());
}

struct PowerCutOptions {
  uint64_t seed = 0;
};

// DEBUG POWER-CUT [seed]
PowerCutOptions ParsePowerCut(ArgParser& args) {
  PowerCutOptions o;
  if (args.HasMore()) o.seed = args.Uint64();
  return o;
}

// The data directory as a power failure leaves it, then SIGKILL: no reply.
void ExecutePowerCut(CommandContext& ctx, const PowerCutOptions& o) {
  storage::FaultInjectionFileSystem* faults = ctx.server.disk_faults();
  if (faults == nullptr) return ctx.reply.Error(kDiskFaultsUnavailable);
  faults->Freeze();  // waits for the writes under way; none starts after it
  storage::FaultInjectionFileSystem::DropOptions drop;
  drop.torn_pages = true;
  drop.seed = o.seed;
  drop.directory_entries = true;
  const storage::Status s = faults->DropUnsyncedData(drop);
  const auto lost = faults->last_drop();
  spdlog::warn(
      "DEBUG POWER-CUT: {} unsynced bytes lost, {} files and {} renames undone ({}); dying now",
      lost.bytes_lost, lost.files_removed, lost.renames_undone, s.ToString());
  spdlog::default_logger()->flush();
  ::kill(::getpid(), SIGKILL);
}

struct ReadDelayOptions {
  int64_t ms = 0;
};

// DEBUG BLOCK-READ-DELAY ms (0..60000)
ReadDelayOptions ParseReadDelay(ArgParser& args) {
  return {args.Int64InRange(0, 60000, kNotInteger)};
}

void ExecuteReadDelay(CommandContext& ctx, const ReadDelayOptions& o) {
  BlockReader* reader = ctx.server.block_reader();
  if (reader == nullptr) return ctx.reply.Error(kBlockReaderUnavailable);
  reader->set_completion_delay(std::chrono::milliseconds(o.ms));
  ctx.reply.Ok();
}

// DEBUG PROTOCOL type: one reply of each RESP type, as Redis's test suites ask for them.
struct ProtocolOptions {
  std::string_view type;
};

ProtocolOptions ParseProtocol(ArgParser& args) { return {args.Next()}; }

void ExecuteProtocol(CommandContext& ctx, const ProtocolOptions& o) {
  protocol::ReplyWriter& r = ctx.reply;
  const std::string type = AsciiLower(o.type);
  if (type == "string") return r.Bulk("Hello World");
  if (type == "integer") return r.Integer(12345);
  if (type == "double") return r.Double(3.141);
  if (type == "bignum") return r.BigNumber("1234567999999999999999999999999999999");
  if (type == "null") return r.Null();
  if (type == "true" || type == "false") return r.Bool(type == "true");
  if (type == "verbatim") return r.Verbatim("txt", "This is a verbatim\nstring");
  if (type == "array" || type == "set") {
    type == "array" ? r.ArrayHeader(3) : r.SetHeader(3);
    for (int i = 0; i < 3; i++) r.Integer(i);
    return;
  }
  if (type == "map") {
    r.MapHeader(3);
    for (int i = 0; i < 3; i++) {
      r.Integer(i);
      r.Bool(i == 1);
    }
    return;
  }
  if (type == "attrib") {
    // An attribute is not a reply: a real one follows it (and alone is sent to RESP2).
    if (r.protocol() >= 3) {
      r.AttributeHeader(1);
      r.Bulk("key-popularity");
      r.ArrayHeader(2);
      r.Bulk("key:123");
      r.Integer(90);
    }
    return r.Bulk("Some real reply following the attribute");
  }
  if (type == "push") {
    if (r.protocol() < 3) return r.Error(kResp2NotSupported);
    r.PushHeader(2);
    r.Bulk("server-cpu-usage");
    r.Integer(42);
    return r.Bulk("Some real reply following the push reply");
  }
  r.Error(kDebugProtocolType);
}

const CommandSpec& DebugTable();

// DEBUG HELP: the sub-table's entries.
void ExecuteHelp(CommandContext& ctx, const NoOptions&) { ReplyHelp(ctx.reply, DebugTable()); }

// DEBUG's subcommands, as the rows of a container named "debug" (arities count "DEBUG" and the
// subcommand). The table is DEBUG's own, not the command table's: Redis shows DEBUG as one
// command, and answers an unknown subcommand or a wrong arity with its subcommand syntax error.
const CommandSpec& DebugTable() {
  static const CommandSpec* const kDebug = new CommandSpec{
      .name = "debug",
      .subcommands = {
          {.name = "object",
           .arity = 3,
           .arguments = {{.name = "key", .type = ArgType::kKey}},
           .help = {{.usage = "OBJECT <key>",
                     .text = "Show low level info about the <key> and its value: encoding, "
                             "serialized length, idle seconds."}},
           .handler = Handler<ParseKey, ExecuteObject>},
          {.name = "sleep",
           .arity = 3,
           .arguments = {{.name = "seconds"}},
           .help = {{.text = "Stop the server for <seconds>. Decimals allowed."}},
           .handler = Handler<ParseSleep, ExecuteSleep>},
          {.name = "clock",
           .arity = -3,
           .help = {{.usage = "CLOCK GET", .text = "Return the server clock in unix milliseconds."},
                    {.usage = "CLOCK SET <unix-ms>",
                     .text = "Pin the server clock at <unix-ms>; it then moves only by DEBUG "
                             "CLOCK."},
                    {.usage = "CLOCK ADVANCE <ms>",
                     .text = "Move the server clock forward by <ms> (pinning it first)."}},
           .handler = Handler<ParseClock, ExecuteClock>},
          {.name = "flush-memtable",
           .arity = 2,
           .help = {{.text = "Write the memtable to a new table file."}},
           .handler = Handler<ParseNothing, ExecuteFlushMemtable>},
          {.name = "compact",
           .arity = 2,
           .help = {{.text = "Compact every level down to the last, applying expiry."}},
           .handler = Handler<ParseNothing, ExecuteCompact>},
          {.name = "digest",
           .arity = 2,
           .help = {{.text = "Compact the data, then return a digest of every row a read can "
                             "see (key, value, timestamp, expire_at): equal on a master and its "
                             "replicas once they hold the same data."}},
           .handler = Handler<ParseNothing, ExecuteDigest>},
          {.name = "digest-logical",
           .arity = 2,
           .help = {{.text = "Return a digest of every key a read can see, in the terms every "
                             "active-active node shares (value, timestamps, TLOG entries and "
                             "cutoff, expiry): equal on peers that converged."}},
           .handler = Handler<ParseNothing, ExecuteDigestLogical>},
          {.name = "peer-link",
           .arity = 5,
           .help = {{.usage = "PEER-LINK <host> <port> UP|DOWN",
                     .text = "Close the link to an active-active peer and keep it closed (DOWN) "
                             "until UP."}},
           .handler = Handler<ParsePeerLink, ExecutePeerLink>},
          {.name = "peer-apply",
           .arity = -5,
           .help = {{.usage = "PEER-APPLY <origin-id> <db> [OFFSET <n>] <op> [<arg> ...]",
                     .text = "Apply one active-active delta as if it came from <origin-id> at "
                             "its offset <n>, through the merge gate, without moving the applied "
                             "vector."}},
           .handler = Handler<ParsePeerApply, ExecutePeerApply>},
          {.name = "peer-collect",
           .arity = -2,
           .help = {{.usage = "PEER-COLLECT [<origin-id> <offset> ...]",
                     .text = "Log an active-active collect at once, as if the mesh's stable "
                             "vector were the offsets given."}},
           .handler = Handler<ParsePeerCollect, ExecutePeerCollect>},
          {.name = "disk-fault",
           .arity = -3,
           .help = {{.usage = "DISK-FAULT ON [ENOSPC|EIO]",
                     .text = "Fail every write-out, fsync and file creation in the data "
                             "directory (default ENOSPC)."},
                    {.usage = "DISK-FAULT HOLD",
                     .text = "Make new table files wait, as on a disk that cannot keep up: "
                             "flushes and compactions wait, and writes stall once the "
                             "memtables are full."},
                    {.usage = "DISK-FAULT OFF",
                     .text = "Stop failing or holding them, and resume writes at once."}},
           .handler = Handler<ParseDiskFault, ExecuteDiskFault>},
          {.name = "power-cut",
           .arity = -2,
           .arguments = {{.name = "seed", .optional = true}},
           .help = {{.usage = "POWER-CUT [<seed>]",
                     .text = "Act out a power failure, then die without a reply: nothing more "
                             "reaches the disk, writes not fsynced are lost (a seeded half of "
                             "their pages torn in, the rest zeros), file creations and renames "
                             "no directory fsync covered are undone."}},
           .handler = Handler<ParsePowerCut, ExecutePowerCut>},
          {.name = "block-read-delay",
           .arity = 3,
           .arguments = {{.name = "ms", .type = ArgType::kInteger}},
           .help = {{.text = "Make every command that waits for table blocks wait at least "
                             "<ms> (0: no delay)."}},
           .handler = Handler<ParseReadDelay, ExecuteReadDelay>},
          {.name = "protocol",
           .arity = 3,
           .arguments = {{.name = "type"}},
           .help = {{.usage = "PROTOCOL <type>",
                     .text = "Reply with a sample of a RESP type: string, integer, double, "
                             "bignum, null, array, set, map, attrib, push, verbatim, true or "
                             "false."}},
           .handler = Handler<ParseProtocol, ExecuteProtocol>},
          {.name = "help",
           .arity = 2,
           .help = {{.text = "Print this help."}},
           .handler = Handler<ParseNothing, ExecuteHelp>},
      }};
  return *kDebug;
}

// DEBUG <subcommand> [arg ...]
void DebugCommand(CommandContext& ctx) {
  const CommandSpec& debug = DebugTable();
  const CommandSpec* sub = CommandTable::FindSubcommand(debug, ctx.args[1]);
  if (sub == nullptr || !ArityOk(sub->arity, ctx.args.size())) {
    return ctx.reply.Error(SubcommandSyntaxError(ctx.args[0], ctx.args[1]));
  }
  CommandContext sub_ctx{ctx.args, 2, ctx.reply, ctx.client, ctx.server};
  sub->handler(sub_ctx);
}

}  // namespace

// DEBUG runs once (kCmdNoRestart): its reads wait for the disk inline. DEBUG PEER-APPLY applies a
// delta as a peer's link does, which never reruns one: a rerun after a read came back Incomplete
// would repeat whatever the first run changed outside the engine (the mode's state in memory).
std::vector<CommandSpec> DebugCommands() {
  return {
      {.name = "debug",
       .arity = -2,
       .flags = kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale | kCmdDebug | kCmdNoRestart,
       .group = "server",
       .summary = "A container for debugging commands.",
       .complexity = "Depends on subcommand.",
       .arguments = {{.name = "subcommand"}, {.name = "arg", .optional = true, .multiple = true}},
       .handler = DebugCommand}};
}

}  // namespace ebb::server
