// Replication's commands: REPLCONF, PSYNC, WAIT (the master side), REPLICAOF / SLAVEOF (the
// replica side), ROLE and FAILOVER (docs/replication.md). Redis 7's wording and reply shapes.
#include <spdlog/spdlog.h>

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "common/strings.h"
#include "common/wall_clock.h"
#include "protocol/reply_writer.h"
#include "server/active_active/active_active.h"
#include "server/commands/register.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/replication/failover.h"
#include "server/replication/master.h"
#include "server/replication/replica.h"
#include "server/services/server_context.h"

namespace ebb::server {

namespace {

// REPLCONF <option> <value> [<option> <value> ...]: a replica's facts and acknowledgements.
// ACK answers nothing (a replica never reads replies on its link); GETACK, which Redis's master
// sends its replicas as a command, travels on ebb's stream as a control record
// (storage/replication_record.h): sent to a server as a command it is ignored, as Redis's master
// ignores it; every other known option answers +OK.
// Parse reads the options up to the first that ends the request (ACK, GETACK, a wrong one);
// Execute applies them in order, as Redis does, so a wrong option is answered after the ones
// before it took effect.
struct ReplconfOptions {
  struct Option {
    enum class Kind { kListeningPort, kAck, kGetAck, kAccepted, kWrong } kind = Kind::kAccepted;
    int64_t port = 0;                // kListeningPort
    std::optional<uint64_t> offset;  // kAck: none when not a number (then ignored)
    std::string error;               // kWrong: the reply
  };
  std::vector<Option> options;
};
ReplconfOptions ParseReplconf(ArgParser& args) {
  using Kind = ReplconfOptions::Option::Kind;
  ReplconfOptions o;
  if (args.remaining() % 2 != 0) {
    args.SyntaxError();
    return o;
  }
  while (args.HasMore()) {
    const std::string_view option = args.Next();
    const std::string_view value = args.Next();
    ReplconfOptions::Option& parsed = o.options.emplace_back();
    int64_t number = 0;
    if (EqualsIgnoreCase(option, "listening-port")) {
      parsed.kind = Kind::kListeningPort;
      if (!ParseInt64(value, &number) || number < 0 || number > 65535) {
        parsed.kind = Kind::kWrong;
        parsed.error = std::string(kNotInteger);
      }
      parsed.port = number;
    } else if (EqualsIgnoreCase(option, "ack")) {
      parsed.kind = Kind::kAck;
      if (ParseInt64(value, &number) && number >= 0) parsed.offset = static_cast<uint64_t>(number);
    } else if (EqualsIgnoreCase(option, "getack")) {
      parsed.kind = Kind::kGetAck;
    } else if (!EqualsIgnoreCase(option, "capa") && !EqualsIgnoreCase(option, "ip-address") &&
               !EqualsIgnoreCase(option, "rdb-only") &&
               !EqualsIgnoreCase(option, "rdb-filter-only")) {
      parsed.kind = Kind::kWrong;
      parsed.error = UnrecognizedReplconfOptionError(option);
    }
    if (parsed.kind != Kind::kListeningPort && parsed.kind != Kind::kAccepted) break;
  }
  while (args.HasMore()) args.Next();  // past the option that ends the request: not read
  return o;
}

void ExecuteReplconf(CommandContext& ctx, const ReplconfOptions& o) {
  using Kind = ReplconfOptions::Option::Kind;
  ReplicationMaster* master = ctx.server.replication_master();
  for (const ReplconfOptions::Option& option : o.options) {
    switch (option.kind) {
      case Kind::kListeningPort:
        if (master != nullptr) master->SetListeningPort(ctx.client, static_cast<int>(option.port));
        break;
      case Kind::kAck:
        if (master != nullptr && option.offset) master->Ack(ctx.client, *option.offset, WallMs());
        return;  // no reply
      case Kind::kGetAck:
        return;
      case Kind::kWrong:
        return ctx.reply.Error(option.error);
      case Kind::kAccepted:
        break;
    }
  }
  ctx.reply.SimpleString("OK");
}

struct PsyncOptions {
  std::string_view replid;
  int64_t offset = 0;
  bool failover = false;
};
PsyncOptions ParsePsync(ArgParser& args) {
  PsyncOptions o;
  o.replid = args.Next();
  o.offset = args.Int64();
  // Redis looks at the third argument only for FAILOVER and ignores any other.
  if (args.HasMore()) o.failover = EqualsIgnoreCase(args.Next(), "failover");
  while (args.HasMore()) args.Next();
  return o;
}

// PSYNC <replid> <offset> [FAILOVER]: +CONTINUE or +FULLRESYNC, then the stream
// (server/replication/master.h). FAILOVER: a master failing over to this replica asks it to
// promote itself first (server/replication/failover.h); its replid must be this one's.
void ExecutePsync(CommandContext& ctx, const PsyncOptions& o) {
  ReplicationMaster* master = ctx.server.replication_master();
  ReplicaLink* link = ctx.server.replica_link();
  if (master == nullptr || link == nullptr) {
    return ctx.reply.Error(kReplicationNeedsKeyspace);
  }
  if (ctx.client.is_replica()) return;  // Redis ignores PSYNC on a replica's link
  if (const ActiveActive* aa = ctx.server.active_active(); aa != nullptr && aa->enabled()) {
    spdlog::warn("Replica {} asked for synchronization: refused in active-active mode",
                 ctx.client.addr());
    return ctx.reply.Error(kReplicaOfPeerNode);
  }
  if (o.failover) {
    spdlog::warn("Failover request received for replid {}.", o.replid);
    if (!link->is_replica()) return ctx.reply.Error(kPsyncFailoverToMaster);
    if (o.replid != master->ids().replid) {
      return ctx.reply.Error(kPsyncFailoverReplid);
    }
    link->Promote("failover request from '" + ctx.client.addr() + "'");
  }
  const Failover* failover = ctx.server.failover();
  if (failover != nullptr && failover->state() != Failover::State::kNone) {
    return ctx.reply.Error(kSyncWhileFailingOver);
  }
  if (link->is_replica() && !link->link_up()) {
    return ctx.reply.Error(kSyncWithoutMasterLink);
  }
  master->Psync(ctx.client, ctx.reply, o.replid, o.offset);
}

struct ReplicaOfOptions {
  std::string_view host;
  std::string_view port;
};
ReplicaOfOptions ParseReplicaOf(ArgParser& args) {
  ReplicaOfOptions o;
  o.host = args.Next();
  o.port = args.Next();
  return o;
}

// REPLICAOF host port | NO ONE (and SLAVEOF): follow a master, or stop following one and keep
// the data (server/replication/replica.h).
void ExecuteReplicaOf(CommandContext& ctx, const ReplicaOfOptions& o) {
  if (ctx.server.config().cluster_enabled) {
    return ctx.reply.Error(kReplicaOfInCluster);
  }
  ReplicaLink* link = ctx.server.replica_link();
  if (link == nullptr) return ctx.reply.Error(kReplicationNeedsKeyspace);
  if (ctx.client.is_replica()) {
    return ctx.reply.Error(kCommandFromReplica);
  }
  if (const Failover* failover = ctx.server.failover();
      failover != nullptr && failover->state() != Failover::State::kNone) {
    return ctx.reply.Error(kReplicaOfWhileFailingOver);
  }
  if (const ActiveActive* aa = ctx.server.active_active();
      aa != nullptr && aa->enabled() && !EqualsIgnoreCase(o.host, "no")) {
    // A replica's engine is replaced by its master's: the origin log and the vector with it.
    return ctx.reply.Error(kReplicaOfInActiveActive);
  }
  if (EqualsIgnoreCase(o.host, "no") && EqualsIgnoreCase(o.port, "one")) {
    link->Promote();
    return ctx.reply.Ok();
  }
  int64_t port = 0;
  if (!ParseInt64(o.port, &port)) return ctx.reply.Error(kNotInteger);
  if (port < 0 || port > 65535) return ctx.reply.Error(kInvalidMasterPort);
  if (link->is_replica() && EqualsIgnoreCase(link->host(), o.host) && link->port() == port) {
    return ctx.reply.SimpleString("OK Already connected to specified master");
  }
  link->ReplicateFrom(std::string(o.host), static_cast<int>(port));
  ctx.reply.Ok();
}

// ROLE, as a master: ["master", offset, [[ip, port, ack offset], ...]]; as a replica: ["slave",
// master host, master port, link state, offset applied (-1 while not connected)].
void ExecuteRole(CommandContext& ctx, const NoOptions&) {
  if (ReplicaLink* link = ctx.server.replica_link(); link != nullptr && link->is_replica()) {
    ctx.reply.ArrayHeader(5);
    ctx.reply.Bulk("slave");
    ctx.reply.Bulk(link->host());
    ctx.reply.Integer(link->port());
    ctx.reply.Bulk(link->StateName());
    ctx.reply.Integer(link->link_up() ? static_cast<int64_t>(link->offset()) : -1);
    return;
  }
  ReplicationMaster* master = ctx.server.replication_master();
  ctx.reply.ArrayHeader(3);
  ctx.reply.Bulk("master");
  ctx.reply.Integer(master ? static_cast<int64_t>(master->end_offset()) : 0);
  if (master == nullptr) return ctx.reply.ArrayHeader(0);
  const auto& replicas = master->replicas();
  ctx.reply.ArrayHeader(replicas.size());
  for (const auto& replica : replicas) {
    ctx.reply.ArrayHeader(3);
    ctx.reply.Bulk(replica.ip);
    ctx.reply.Bulk(std::to_string(replica.listening_port));
    ctx.reply.Bulk(std::to_string(replica.ack_offset));
  }
}

struct WaitOptions {
  int64_t replicas = 0;
  int64_t timeout_ms = 0;
};
WaitOptions ParseWait(ArgParser& args) {
  WaitOptions o;
  o.replicas = args.Int64();
  o.timeout_ms = args.Int64(kTimeoutNotInteger);
  if (!args.failed() && o.timeout_ms < 0) args.Fail(kTimeoutNegative);
  return o;
}

// WAIT numreplicas timeout: the number of replicas that acknowledged every data byte of the
// stream produced before the WAIT (its pings and GETACKs need no acknowledgement), once
// numreplicas have or the timeout (ms; 0: none) passes. Inside MULTI, and when the request
// cannot wait, it answers at once.
void ExecuteWait(CommandContext& ctx, const WaitOptions& o) {
  if (ctx.server.is_replica()) {
    return ctx.reply.Error(kWaitOnReplica);
  }
  ReplicationMaster* master = ctx.server.replication_master();
  Client::PendingWait& wait = ctx.client.pending_wait();
  const int64_t now = WallMs();
  const bool first_run = !wait.active;  // it runs again at every acknowledgement while it waits
  if (first_run && o.timeout_ms > std::numeric_limits<int64_t>::max() - now) {
    return ctx.reply.Error(kTimeoutOutOfRange);  // its deadline would pass INT64_MAX, as Redis
  }
  if (first_run) {
    wait.active = true;
    wait.offset = master ? master->data_end_offset() : 0;
    wait.deadline_ms = o.timeout_ms > 0 ? now + o.timeout_ms : 0;
  }
  const int64_t acked = master ? master->CountAcked(wait.offset) : 0;
  const bool timed_out = wait.deadline_ms > 0 && now >= wait.deadline_ms;
  if (acked >= o.replicas || timed_out || !ctx.may_defer || master == nullptr) {
    wait.active = false;
    return ctx.reply.Integer(acked);
  }
  // Ask the replicas where they are now rather than wait for their next one-second ACK (the
  // requests of one turn share one GETACK). Once: asking at every run would make each answer
  // ask again.
  if (first_run) master->RequestAck();
  ctx.defer = true;
}

struct FailoverOptions {
  bool abort = false;
  Failover::Request request;
};
// FAILOVER [TO host port [FORCE]] [TIMEOUT ms] | FAILOVER ABORT, parsed as Redis does: each
// option at most once (a repeat is a syntax error), ABORT only alone.
FailoverOptions ParseFailover(ArgParser& args) {
  FailoverOptions o;
  if (args.remaining() == 1 && EqualsIgnoreCase(args.Peek(), "abort")) {
    args.Next();
    o.abort = true;
    return o;
  }
  bool has_timeout = false, has_to = false;
  while (args.HasMore()) {
    const std::string_view word = args.Next();
    if (EqualsIgnoreCase(word, "timeout") && args.remaining() >= 1 && !has_timeout) {
      has_timeout = true;
      o.request.timeout_ms = args.Int64();
      if (!args.failed() && o.request.timeout_ms <= 0) {
        args.Fail(kFailoverTimeoutNotPositive);
      }
    } else if (EqualsIgnoreCase(word, "to") && args.remaining() >= 2 && !has_to) {
      has_to = true;
      o.request.host = std::string(args.Next());
      const int64_t port = args.Int64();
      o.request.port = static_cast<int>(port);
    } else if (EqualsIgnoreCase(word, "force") && !o.request.force) {
      o.request.force = true;
    } else {
      args.Fail(kSyntaxError);
    }
  }
  return o;
}

// FAILOVER: hands the master's role to a replica (server/replication/failover.h).
void ExecuteFailover(CommandContext& ctx, const FailoverOptions& o) {
  Failover* failover = ctx.server.failover();
  if (failover == nullptr) return ctx.reply.Error(kReplicationNeedsKeyspace);
  if (o.abort) {
    if (!failover->Abort("Failover manually aborted")) {
      return ctx.reply.Error(kNoFailoverInProgress);
    }
    return ctx.reply.Ok();
  }
  if (Result<ReplicationCode> r = failover->Start(o.request, WallMs()); !r.ok()) {
    return ctx.reply.Error(ReplicationErrorText(r));
  }
  ctx.reply.Ok();
}

// REPLICAOF and its old name SLAVEOF: one command under two names.
CommandSpec ReplicaOfRow(std::string_view name, std::string_view since, std::string_view summary) {
  return {.name = name,
          .arity = 3,
          .flags = kCmdAdmin | kCmdNoScript | kCmdStale,
          .group = "server",
          .since = since,
          .summary = summary,
          .arguments = {{.name = "host"}, {.name = "port"}},
          .handler = Handler<ParseReplicaOf, ExecuteReplicaOf>};
}

}  // namespace

std::vector<CommandSpec> ReplicationCommands() {
  return {
      {.name = "replconf",
       .arity = -1,
       .flags = kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale | kCmdAllowBusy,
       .group = "server",
       .since = "3.0.0",
       .summary = "An internal command for configuring the replication stream.",
       .arguments = {{.name = "option", .multiple = true}},
       .handler = Handler<ParseReplconf, ExecuteReplconf>},
      {.name = "psync",
       .arity = -3,
       .flags = kCmdAdmin | kCmdNoScript | kCmdNoMulti,
       .group = "server",
       .since = "2.8.0",
       .summary = "An internal command used in replication.",
       .arguments = {{.name = "replicationid"}, {.name = "offset", .type = ArgType::kInteger}},
       .handler = Handler<ParsePsync, ExecutePsync>},
      ReplicaOfRow("replicaof", "5.0.0",
                   "Configures a server as replica of another, or promotes it to a master."),
      ReplicaOfRow("slaveof", "1.0.0",
                   "Sets a Redis server as a replica of another, or promotes it to being a "
                   "master. (REPLICAOF's old name.)"),
      {.name = "failover",
       .arity = -1,
       .flags = kCmdAdmin | kCmdNoScript | kCmdStale,
       .group = "server",
       .since = "6.2.0",
       .summary = "Starts a coordinated failover from a server to one of its replicas.",
       .arguments =
           {{.name = "target",
             .type = ArgType::kBlock,
             .token = "TO",
             .optional = true,
             .children = {{.name = "host"},
                          {.name = "port", .type = ArgType::kInteger},
                          {.name = "force",
                           .type = ArgType::kPureToken,
                           .token = "FORCE",
                           .optional = true}}},
            {.name = "abort", .type = ArgType::kPureToken, .token = "ABORT", .optional = true},
            {.name = "milliseconds",
             .type = ArgType::kInteger,
             .token = "TIMEOUT",
             .optional = true}},
       .handler = Handler<ParseFailover, ExecuteFailover>},
      {.name = "role",
       .arity = 1,
       .flags = kCmdNoScript | kCmdLoading | kCmdStale | kCmdFast,
       .group = "server",
       .since = "2.8.12",
       .summary = "Returns the replication role.",
       .handler = Handler<ParseNothing, ExecuteRole>},
      {.name = "wait",
       .arity = 3,
       .flags = kCmdNoScript,
       .group = "generic",
       .since = "3.0.0",
       .summary = "Blocks until the asynchronous replication of all preceding write commands "
                  "sent by the connection are completed.",
       .arguments = {{.name = "numreplicas", .type = ArgType::kInteger},
                     {.name = "timeout", .type = ArgType::kInteger}},
       .handler = Handler<ParseWait, ExecuteWait>},
  };
}

}  // namespace ebb::server
