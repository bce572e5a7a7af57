#include "server/dispatch/dispatcher.h"

#include <spdlog/spdlog.h>

#include "common/cycle_clock.h"
#include "protocol/reply_writer.h"
#include "server/acl/acl.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/core/key_positions.h"
#include "server/core/transaction.h"
#include "server/dispatch/cluster_redirect.h"
#include "server/dispatch/write_planner.h"
#include "server/services/server_context.h"
#include "storage/table/block_fetch.h"
#include "types/keyspace.h"

namespace ebb::server {
namespace {

// True when a run of `spec` must first note which of its keys are absent: a write while class n
// ("new" events) is selected (server/services/keyspace_events.h). Inline, as every command asks.
bool NotesNewKeys(const ServerContext& server, const CommandSpec& spec) {
  return (spec.flags & kCmdWrite) && (server.config().notify_keyspace_events & kNotifyNew);
}

}  // namespace

std::optional<std::string> Dispatcher::DiskErrorRefusal() {
  if (!server_->has_keyspace()) return std::nullopt;
  const storage::Status error = server_->keyspace().db().BackgroundError();
  if (error.ok()) {
    if (refusing_writes_) spdlog::warn("The data directory is writable again: writes accepted");
    refusing_writes_ = false;
    return std::nullopt;
  }
  if (!refusing_writes_) {
    spdlog::warn("Refusing writes until the disk error clears: {}", error.ToString());
  }
  refusing_writes_ = true;
  return MisconfError(error.message());
}

bool Dispatcher::MayWrite(const CommandSpec& spec, uint32_t flags, const Client& client) {
  if (flags & kCmdWrite) return true;
  // A script may write (the read-only variants cannot); an EXEC writes what it queued.
  if (spec.full_name == "eval" || spec.full_name == "evalsha" || spec.full_name == "fcall") {
    return true;
  }
  if (spec.full_name != "exec") return false;
  for (const QueuedCommand& queued : client.multi().queued) {
    if (MayWrite(*queued.spec, queued.spec->flags, client)) return true;
  }
  return false;
}

bool Dispatcher::HeldByWriteStall(protocol::ReplyWriter& reply, bool* deferred) {
  if (!server_->has_keyspace()) return false;
  const storage::Status stall = server_->keyspace().db().CheckWriteStall();
  if (stall.ok()) return false;
  if (stall.IsBusy()) {
    *deferred = true;
    return true;
  }
  // The stall cannot end by itself: a disk error is Redis's MISCONF, anything else (a damaged
  // table compaction cannot read) says what it is.
  reply.Error(stall.IsIOError() ? MisconfError(stall.message()) : EngineError(stall.ToString()));
  return true;
}

[[gnu::always_inline]] inline bool Dispatcher::NeedsNoChecks(const CommandSpec& spec,
                                                             uint32_t flags, size_t argc,
                                                             const Client& client) {
  if (spec.handler == nullptr || !spec.subcommands.empty() || !ArityOk(spec.arity, argc) ||
      (flags & kCmdDebug) || spec.name == "ping") {
    return false;
  }
  const AclUser* user = server_->acl().UserOf(client);
  if (user == nullptr || !user->unrestricted() || client.multi().active ||
      client.in_subscriber_mode() || client.asking()) {
    return false;
  }
  ServerContext& server = *server_;
  const Config& config = server.config();
  if (server.cluster() != nullptr || server.is_replica() || config.min_replicas_to_write != 0 ||
      config.maxmemory != 0 || !server.busy_error().empty() || server.writes_paused() ||
      !server.monitors().empty() ||
      (config.notify_keyspace_events & (kNotifyNew | kNotifyKeyMiss)) != 0 ||
      !server.has_keyspace()) {
    return false;
  }
  if (const WritePlanner* planner = server.write_planner();
      planner != nullptr && planner->enabled()) {
    return false;
  }
  // A write meets the engine's state as the checked path would: a disk error (or the first
  // write accepted after one, which DiskErrorRefusal logs) or a write stall sends it that way.
  // CheckWriteStall answers both from two atomics while neither holds (storage/db.h).
  if (flags & kCmdWrite) {
    if (refusing_writes_ || !server.keyspace().db().CheckWriteStall().ok()) return false;
  }
  return true;
}

Dispatcher::Result Dispatcher::Dispatch(std::span<const std::string_view> args, Client& client,
                                        protocol::ReplyWriter& reply,
                                        const ResolvedCommand* resolved) {
  const size_t start = reply.size();
  const auto [spec, flags, first_arg] =
      resolved != nullptr ? *resolved : server_->commands().Resolve(args);
  if (spec != nullptr && NeedsNoChecks(*spec, flags, args.size(), client)) [[likely]] {
    Result result = RunRequest(*spec, flags, first_arg, args, client, reply);
    if (result.incomplete || result.deferred) return result;
    // Only an error reply has anything to count beyond what the run counted.
    if (const std::string_view replied = reply.Since(start);
        !replied.empty() && replied.front() == '-') {
      CountReply(result.command, true, replied, result.error_counted);
    }
    return result;
  }
  Result result = Route(args, client, reply);
  if (!result.incomplete && !result.deferred) {
    CountReply(result.command != nullptr ? result.command : result.refused,
               result.command != nullptr, reply.Since(start), result.error_counted);
    // ASKING lasts for the next command, or the transaction it is sent before or in.
    if (client.asking() && !client.multi().active &&
        (result.command == nullptr || result.command->full_name != "asking")) {
      client.set_asking(false);
    }
  }
  return result;
}

cluster::Route Dispatcher::RouteKeys(std::span<const cluster::RoutedCommand> commands,
                                     uint32_t flags, const Client& client) {
  const cluster::RouteFlags route_flags{
      .asking = client.asking() || (flags & kCmdAsking) != 0,
      .readonly = client.cluster_readonly(),
      .write = (flags & kCmdWrite) != 0,
      .allow_reads_when_down = server_->config().cluster_allow_reads_when_down};
  return cluster::RouteRequest(*server_->cluster(), commands, route_flags,
                               server_->has_keyspace() ? &server_->keyspace() : nullptr,
                               &key_positions_scratch_);
}

std::optional<std::string_view> Dispatcher::ScriptCallRefusal(
    const CommandSpec& spec, uint32_t flags, std::span<const std::string_view> args,
    bool allow_cross_slot, Client& caller) {
  if (caller.is_master_link() || !cluster::RoutesByKeys(spec)) return std::nullopt;
  const cluster::RoutedCommand command{&spec, args};
  const cluster::Route route = RouteKeys(std::span(&command, 1), flags, caller);
  switch (route.redirect) {
    case cluster::Redirect::kNone:
      break;
    case cluster::Redirect::kDown:
      return kScriptClusterDown;
    case cluster::Redirect::kDownReadOnly:
      return kScriptClusterDownReadOnly;
    default:
      return kScriptNonLocalKey;
  }
  if (route.slot == -1 || allow_cross_slot) return std::nullopt;
  if (caller.cluster_slot() == -1) {
    caller.set_cluster_slot(route.slot);
  } else if (caller.cluster_slot() != route.slot) {
    return kScriptCrossSlot;
  }
  return std::nullopt;
}

std::optional<std::string> Dispatcher::ClusterRedirect(const CommandSpec& spec, uint32_t flags,
                                                       std::span<const std::string_view> args,
                                                       bool exec, Client& client) {
  const cluster::RoutedCommand one{&spec, args};
  std::span<const cluster::RoutedCommand> commands(&one, 1);
  if (exec) {
    std::vector<cluster::RoutedCommand>& queue = routed_scratch_;
    queue.clear();
    // Views of the queued arguments, all made before any span into them is taken.
    std::vector<std::string_view>& views = exec_views_scratch_;
    views.clear();
    for (const QueuedCommand& queued : client.multi().queued) {
      if (!cluster::RoutesByKeys(*queued.spec)) continue;
      views.insert(views.end(), queued.args.begin(), queued.args.end());
    }
    size_t at = 0;
    for (const QueuedCommand& queued : client.multi().queued) {
      if (!cluster::RoutesByKeys(*queued.spec)) continue;
      queue.push_back({queued.spec, std::span(views).subspan(at, queued.args.size())});
      at += queued.args.size();
    }
    commands = queue;
  }
  const cluster::Route route = RouteKeys(commands, flags, client);
  client.set_cluster_slot(route.slot);
  if (route.redirect == cluster::Redirect::kNone) return std::nullopt;
  return cluster::RedirectError(route, client.tls());
}

void Dispatcher::CountReply(const CommandSpec* spec, bool ran, std::string_view reply,
                            bool error_counted) {
  const bool error = !reply.empty() && reply.front() == '-';
  if (error && !error_counted) {
    server_->stats().total_error_replies++;
    server_->command_stats().CountError(reply);
  }
  if (spec == nullptr) return;
  if (!ran) {
    server_->command_stats().row(spec->id).rejected_calls++;
  } else if (error) {
    server_->command_stats().row(spec->id).failed_calls++;
  }
}

void Dispatcher::CountScriptRefusal(const CommandSpec* spec, std::string_view error) {
  CountReply(spec, false, error.starts_with('-') ? std::string(error) : '-' + GenericError(error));
}

[[gnu::always_inline]] inline bool Dispatcher::Routing::IsExec() const {
  return client.multi().active && (flags & kCmdNoQueue) && spec->full_name == "exec";
}

void Dispatcher::Reject(Routing& r, std::string_view error, const CommandSpec* spec) {
  r.result.refused = spec;
  MultiState& multi = r.client.multi();
  if (!multi.active) return r.reply.Error(error);
  multi.dirty_exec = true;
  if (spec == nullptr || spec->full_name != "exec") return r.reply.Error(error);
  DiscardTransaction(server_->watches(), r.client);
  // Redis words a formatted refusal without its "ERR " (rejectCommandFormat) and keeps the
  // code of any other (NOAUTH, MISCONF).
  if (error.starts_with(kErrPrefix)) error.remove_prefix(kErrPrefix.size());
  r.reply.Error(ExecAbortBecauseError(error));
}

[[gnu::always_inline]] inline bool Dispatcher::FindRow(Routing& r) {
  const std::span<const std::string_view> args = r.args;
  const CommandSpec* spec = server_->commands().Find(args[0]);
  if (spec == nullptr) {
    Reject(r, UnknownCommandError(args[0], args.subspan(1)), nullptr);
    return false;
  }
  r.flags = spec->flags;
  if (!spec->subcommands.empty()) {
    if (args.size() < 2) {
      // A container with its own handler (COMMAND) runs bare; others are reported by their
      // own arity, as Redis does ("at least 2").
      if (spec->handler == nullptr) {
        Reject(r, WrongArgsError(spec->full_name), spec);
        return false;
      }
    } else {
      const CommandSpec* sub = CommandTable::FindSubcommand(*spec, args[1]);
      if (sub == nullptr) {
        Reject(r, UnknownSubcommandError(args[0], args[1]), spec);
        return false;
      }
      spec = sub;
      r.flags |= sub->flags;
      r.first_arg = 2;
    }
  }
  r.spec = spec;
  if (!ArityOk(spec->arity, args.size())) {
    Reject(r, WrongArgsError(spec->full_name), spec);
    return false;
  }
  if (r.IsExec()) {
    // EXEC is refused as its queue would be (Redis's processCommand): as a write when a queued
    // command writes, past maxmemory when one uses memory, on a stale replica when one reads.
    for (const QueuedCommand& queued : r.client.multi().queued) {
      r.flags |= queued.spec->flags & (kCmdWrite | kCmdDenyOom);
      if (!(queued.spec->flags & kCmdStale)) r.flags &= ~kCmdStale;
    }
  }
  return true;
}

[[gnu::always_inline]] inline bool Dispatcher::AdmitClient(Routing& r) {
  const CommandSpec& spec = *r.spec;
  const uint32_t flags = r.flags;
  Client& client = r.client;
  if (flags & kCmdDebug) {
    if (!AllowsProtectedAction(server_->config().enable_debug_command, client.is_local())) {
      Reject(r, kDebugNotAllowed, &spec);
      return false;
    }
  }
  const AclUser* user = server_->acl().UserOf(client);
  if (user == nullptr && !(flags & kCmdNoAuth)) {
    Reject(r, kNoAuth, &spec);
    return false;
  }
  const bool in_multi = client.multi().active;
  if (in_multi && (flags & kCmdNoMulti)) {
    Reject(r, kNotAllowedInMulti, &spec);
    return false;
  }
  if (user != nullptr && !user->unrestricted()) {
    const AclVerdict verdict = server_->acl().CheckAndLog(
        client, *user, spec, flags, r.args,
        in_multi ? AclLogContext::kMulti : AclLogContext::kToplevel, server_->clock().NowMs());
    if (verdict != AclVerdict::kAllowed) {
      Reject(r, AclDeniedError(verdict, spec), &spec);
      return false;
    }
  }
  return true;
}

[[gnu::always_inline]] inline bool Dispatcher::ServedByThisNode(Routing& r) {
  if (server_->cluster() == nullptr || r.client.is_master_link()) return true;
  // Redis Cluster (Redis's processCommand: after the ACL, before everything else): a request
  // whose keys this node does not serve is redirected. A refused EXEC discards its transaction
  // and answers the redirection itself (no EXECABORT), as Redis does.
  const CommandSpec& spec = *r.spec;
  const bool exec = r.IsExec();
  // Most requests name one key of a slot this node serves: one CRC16 and the slot table.
  int slot = -1;
  if (!exec && cluster::RoutesByKeys(spec)) {
    slot = cluster::StableLocalSlot(*server_->cluster(), spec, r.args);
  }
  r.client.set_cluster_slot(slot);
  if (slot >= 0 || !(exec || cluster::RoutesByKeys(spec))) return true;
  std::optional<std::string> redirect = ClusterRedirect(spec, r.flags, r.args, exec, r.client);
  if (!redirect) return true;
  if (exec) {
    DiscardTransaction(server_->watches(), r.client);
    r.result.refused = &spec;
    r.reply.Error(*redirect);
  } else {
    Reject(r, *redirect, &spec);
  }
  return false;
}

[[gnu::always_inline]] inline bool Dispatcher::ServerStateAllows(Routing& r) {
  const CommandSpec& spec = *r.spec;
  const uint32_t flags = r.flags;
  const Client& client = r.client;
  if (client.in_subscriber_mode() && client.resp() == 2 && !(flags & kCmdSubscriberOk)) {
    Reject(r, SubscriberModeError(spec.full_name), &spec);
    return false;
  }
  // A replica (Redis's processCommand order: read-only, then stale data).
  if ((flags & kCmdWrite) && server_->RefusesWrites(client)) {
    Reject(r, kReadOnlyReplica, &spec);
    return false;
  }
  if ((flags & kCmdWrite) && server_->RefusesWritesForReplicas()) {
    Reject(r, kNoReplicas, &spec);
    return false;
  }
  if (!(flags & kCmdStale) && server_->RefusesStaleData()) {
    Reject(r, kMasterDown, &spec);
    return false;
  }
  if ((flags & kCmdWrite) || spec.name == "ping") {
    if (std::optional<std::string> refusal = DiskErrorRefusal()) {
      Reject(r, *refusal, &spec);
      return false;
    }
  }
  if ((flags & kCmdDenyOom) && server_->OverMaxmemory()) {
    Reject(r, kOomError, &spec);
    return false;
  }
  if (!server_->busy_error().empty() && !(flags & kCmdAllowBusy)) {
    Reject(r, server_->busy_error(), &spec);
    return false;
  }
  return true;
}

[[gnu::always_inline]] inline bool Dispatcher::HeldBack(Routing& r) {
  const CommandSpec& spec = *r.spec;
  if (server_->writes_paused() && !r.client.is_replica() && MayWrite(spec, r.flags, r.client)) {
    r.result.deferred = true;  // FAILOVER: run it once the pause lifts
    r.result.refused = &spec;
    return true;
  }
  if ((r.flags & kCmdWrite) && HeldByWriteStall(r.reply, &r.result.deferred)) {
    r.result.refused = &spec;
    return true;
  }
  return false;
}

[[gnu::always_inline]] inline bool Dispatcher::Queued(Routing& r) {
  MultiState& multi = r.client.multi();
  if (!multi.active || (r.flags & kCmdNoQueue)) return false;
  multi.queued.push_back(
      {r.spec, r.first_arg, std::vector<std::string>(r.args.begin(), r.args.end())});
  r.reply.SimpleString("QUEUED");
  return true;
}

Dispatcher::Result Dispatcher::Route(std::span<const std::string_view> args, Client& client,
                                     protocol::ReplyWriter& reply) {
  Routing r{.args = args, .client = client, .reply = reply};
  if (!FindRow(r) || !AdmitClient(r) || !ServedByThisNode(r) || !ServerStateAllows(r) ||
      HeldBack(r)) {
    return r.result;
  }
  const CommandSpec& spec = *r.spec;
  if (spec.handler == nullptr) {  // a container row without subcommands: not served
    Reject(r, UnknownCommandError(args[0], args.subspan(1)), &spec);
    return r.result;
  }
  if (Queued(r)) return r.result;
  if (WritePlanner* planner = server_->write_planner(); planner != nullptr && planner->enabled()) {
    bool handled = false;
    Result planned = RoutePlannedWrite(*planner, spec, r.first_arg, args, client, reply, &handled);
    if (handled) return planned;
  }
  return RunRequest(spec, r.flags, r.first_arg, args, client, reply);
}

template <typename Body>
void Dispatcher::RunCounted(const Accounted& as, Client& client, Body&& run) {
  const uint64_t began = CycleClock::Now();
  server_->stats().total_commands_processed++;
  if (NotesNewKeys(*server_, as.spec)) {
    BeginKeyEvents(*server_, as.spec, client.db_index(), as.args);
  }
  FeedMonitors(as.spec, as.args, client, /*from_script=*/false, /*before_run=*/true);
  run();
  if (!server_->key_events().empty()) EndKeyEvents(*server_, true);
  OfferToSlowLog(as.spec, as.args, client, CountCall(as.spec, began));
  FeedMonitors(as.spec, as.args, client, /*from_script=*/false, /*before_run=*/false);
}

// Inlined: where a request runs as itself (RunRequest) the counted request is the run's.
[[gnu::always_inline]] inline bool Dispatcher::RunHandler(
    const CommandSpec& spec, CommandContext& ctx, const CommandSpec& counted_spec,
    std::span<const std::string_view> counted_args) {
  const Accounted as{counted_spec, counted_args};
  if (!server_->has_keyspace()) {
    RunCounted(as, ctx.client, [&] { Invoke(spec, ctx); });
    return true;
  }
  ServerStats& stats = server_->stats();
  const uint64_t began = CycleClock::Now();
  types::Keyspace& keyspace = server_->keyspace();
  storage::BlockFetch& fetch = ctx.client.block_fetch();
  const bool restartable = !(spec.flags & kCmdNoRestart);
  const bool cache_only =
      restartable && fetch.rounds() < kMaxRounds && fetch.pinned_bytes() < kMaxPinnedBytes;
  if (restartable && !cache_only) stats.disk_wait_fallbacks++;
  fetch.BeginPass(cache_only);
  // Only the counters a handler moves, to withdraw if the run comes back incomplete; copying all
  // of ServerStats per command would cost more than the command.
  const ServerStats::HandlerCounts counts = stats.handler_counts();
  const size_t reply_size = ctx.reply.size();
  const uint64_t inline_reads = fetch.inline_reads();
  if (NotesNewKeys(*server_, as.spec)) {
    BeginKeyEvents(*server_, as.spec, ctx.client.db_index(), as.args);
  }
  // A command shown before it runs never restarts (EVAL, FCALL: kCmdNoRestart).
  FeedMonitors(as.spec, as.args, ctx.client, /*from_script=*/false, /*before_run=*/true);
  keyspace.set_block_fetch(&fetch);
  Invoke(spec, ctx);
  keyspace.set_block_fetch(nullptr);
  if (!server_->key_events().empty()) EndKeyEvents(*server_, !fetch.incomplete());
  if (fetch.incomplete()) {
    // Nothing was written (the engine refused it); withdraw the reply and the counts.
    stats.Withdraw(counts);
    stats.disk_waits++;
    ctx.reply.Truncate(reply_size);
    return false;
  }
  stats.total_commands_processed++;
  // Reads after the command's first write (a run past the bound reads inline by design).
  if (cache_only) stats.inline_block_reads += fetch.inline_reads() - inline_reads;
  fetch.EndRequest();
  OfferToSlowLog(as.spec, as.args, ctx.client, CountCall(as.spec, began));
  FeedMonitors(as.spec, as.args, ctx.client, /*from_script=*/false, /*before_run=*/false);
  return true;
}

[[gnu::always_inline]] inline Dispatcher::Result Dispatcher::RunRequest(
    const CommandSpec& spec, uint32_t flags, size_t first_arg,
    std::span<const std::string_view> args, Client& client, protocol::ReplyWriter& reply) {
  Result result;
  client.set_last_command(spec.full_name);
  CommandContext ctx{args, first_arg, reply, client, *server_};
  ctx.dispatcher = this;
  ctx.may_defer = true;
  if (!RunHandler(spec, ctx)) {
    result.incomplete = true;
    return result;
  }
  if (ctx.defer) {
    result.deferred = true;
    return result;
  }
  result.command = &spec;
  result.is_write = (flags & kCmdWrite) != 0 || ctx.wrote;
  result.error_counted = ctx.error_counted;
  return result;
}

Dispatcher::Result Dispatcher::RoutePlannedWrite(WritePlanner& planner, const CommandSpec& spec,
                                                 size_t first_arg,
                                                 std::span<const std::string_view> args,
                                                 Client& client, protocol::ReplyWriter& reply,
                                                 bool* handled) {
  Result result;
  *handled = false;
  using Kind = WritePlanner::Kind;
  const WritePlanner::Plan plan = planner.PlanWrite(spec, first_arg, args, client);
  if (plan.kind == Kind::kPass) return result;
  *handled = true;
  types::Keyspace& keyspace = server_->keyspace();
  if (plan.kind == Kind::kRefuse || keyspace.in_batch()) {
    result.refused = &spec;
    if (plan.kind == Kind::kRefuse) {
      reply.Error(plan.error);
    } else {
      reply.Error(NotInBatchError(spec.full_name));
    }
    return result;
  }
  client.set_last_command(spec.full_name);
  result.command = &spec;
  result.is_write = true;
  // Whatever form runs, the run is counted as the client's request (commandstats, SLOWLOG,
  // MONITOR), as outside the mode.
  const Accounted as{spec, args};
  if (plan.kind == Kind::kReplyOk) {  // a string version that loses: nothing to write
    RunCounted(as, client, [&reply] { reply.Ok(); });
    return result;
  }
  // Its events wait for Finish: a run the planner drops, or whose commit fails, published none.
  HoldKeyEvents(*server_);
  if (plan.kind == Kind::kRunHere) {  // a whole-key delete, or a write meeting its marker
    const size_t start = reply.size();
    keyspace.BeginBatch();
    bool wrote = false;
    RunCounted(as, client, [&] { wrote = planner.RunHere(client, reply); });
    FinishPlannedWrite(planner, wrote && !reply.Since(start).starts_with('-'), start, reply);
    return result;
  }
  const CommandSpec* run_spec = &spec;
  std::span<const std::string_view> run_args = args;
  if (plan.kind == Kind::kRun) {
    const ResolvedCommand run_row = server_->commands().Resolve(plan.args);
    run_spec = run_row.spec;
    first_arg = run_row.first_arg;
    run_args = plan.args;
  }
  const size_t start = reply.size();
  keyspace.BeginBatch();
  CommandContext ctx{run_args, first_arg, reply, client, *server_};
  ctx.dispatcher = this;
  if (!RunHandler(*run_spec, ctx, as.spec, as.args)) {
    keyspace.DiscardBatch();
    ReleaseKeyEvents(*server_, false);
    result.incomplete = true;
    return result;
  }
  const bool failed = reply.Since(start).starts_with('-');
  if (plan.kind == Kind::kValidate) {
    // Run only for its error; a form the plan did not understand is refused, never shipped.
    keyspace.DiscardBatch();
    ReleaseKeyEvents(*server_, false);
    if (!failed) {
      reply.Truncate(start);
      reply.Error(FormNotAllowedError(spec.full_name));
    }
  } else {
    FinishPlannedWrite(planner, !failed, start, reply);
  }
  result.error_counted = ctx.error_counted;
  return result;
}

void Dispatcher::FinishPlannedWrite(WritePlanner& planner, bool succeeded, size_t reply_start,
                                    protocol::ReplyWriter& reply) {
  bool dropped = false;
  const storage::Status s = planner.Finish(succeeded, &dropped);
  ReleaseKeyEvents(*server_, succeeded && s.ok() && !dropped);
  if (!s.ok()) {
    reply.Truncate(reply_start);
    reply.Error(EngineError(s.ToString()));
  }
}

bool Dispatcher::Run(const CommandSpec& spec, size_t first_arg,
                     std::span<const std::string_view> args, Client& client,
                     protocol::ReplyWriter& reply, Caller caller) {
  CommandContext ctx{args, first_arg, reply, client, *server_};
  ctx.dispatcher = this;
  if (caller == Caller::kPlanned || caller == Caller::kPeer) {  // counted nowhere (Caller)
    Invoke(spec, ctx);
    // A peer's run publishes no event (docs/active-active.md, "Keyspace notifications"): its key
    // misses go. A planned run's are its client's request's, published after that.
    if (caller == Caller::kPeer && !server_->key_events().empty()) EndKeyEvents(*server_, false);
    return (spec.flags & kCmdWrite) != 0 || ctx.wrote;
  }
  client.set_last_command(spec.full_name);
  server_->stats().total_commands_processed++;
  const size_t start = reply.size();
  const uint64_t began = CycleClock::Now();
  const bool from_script = caller == Caller::kScript;
  FeedMonitors(spec, args, client, from_script, /*before_run=*/true);
  if (NotesNewKeys(*server_, spec)) BeginKeyEvents(*server_, spec, client.db_index(), args);
  Invoke(spec, ctx);
  if (!server_->key_events().empty()) EndKeyEvents(*server_, true);
  const uint64_t ticks = CountCall(spec, began);
  if (caller == Caller::kClient) OfferToSlowLog(spec, args, client, ticks);
  FeedMonitors(spec, args, client, from_script, /*before_run=*/false);
  CountReply(&spec, true, reply.Since(start), ctx.error_counted);
  return (spec.flags & kCmdWrite) != 0 || ctx.wrote;
}

std::optional<std::string_view> Dispatcher::ModeRefusal(uint32_t flags) const {
  if ((flags & kCmdNeedsClusterEnabled) && !server_->config().cluster_enabled) {
    return kClusterDisabled;
  }
  if ((flags & kCmdNeedsClusterNode) && !server_->cluster_is_node()) {
    return kClusterDisabled;
  }
  if ((flags & kCmdNeedsPeers) && server_->active_active() == nullptr) {
    return kActiveActiveNeedsKeyspace;
  }
  return std::nullopt;
}

void Dispatcher::ReplyModeRefusal(CommandContext& ctx, std::string_view error) {
  ctx.reply.Error(error);
}

[[gnu::always_inline]] inline uint64_t Dispatcher::CountCall(const CommandSpec& spec,
                                                             uint64_t began) {
  CommandCallStats& row = server_->command_stats().row(spec.id);
  const uint64_t ticks = CycleClock::Now() - began;
  row.calls++;
  row.ticks += ticks;
  const Config& config = server_->config();
  if (config.latency_tracking) row.RecordLatency(ticks);
  if (server_->latency().CommandReaches(ticks, config.latency_monitor_threshold_ms)) {
    // Redis's call(): a row flagged fast is a `fast-command` event, any other a `command`.
    const auto ms = static_cast<uint64_t>(static_cast<double>(ticks) /
                                          CycleClock::TicksPerMicrosecond() / 1000);
    server_->latency().AddIfNeeded((spec.flags & kCmdFast) ? "fast-command" : "command", ms,
                                   server_->clock().NowMs() / 1000,
                                   config.latency_monitor_threshold_ms);
  }
  return ticks;
}

void Dispatcher::FeedMonitors(const CommandSpec& spec, std::span<const std::string_view> args,
                              const Client& client, bool from_script, bool before_run) {
  Monitors& monitors = server_->monitors();
  if (monitors.empty() || before_run != ((spec.flags & kCmdSkipMonitor) != 0)) return;
  monitors.Feed(server_->clients(), spec, args, client, from_script);
}

[[gnu::always_inline]] inline void Dispatcher::OfferToSlowLog(
    const CommandSpec& spec, std::span<const std::string_view> args, const Client& client,
    uint64_t ticks) {
  const Config& config = server_->config();
  SlowLog& slowlog = server_->slowlog();
  if ((spec.flags & kCmdSkipSlowlog) || !slowlog.IsSlow(ticks, config.slowlog_log_slower_than_us)) {
    return;
  }
  slowlog.Add(spec, args, client, ticks, server_->clock().NowMs() / 1000,
              static_cast<size_t>(config.slowlog_max_len));
}

ResolvedCommand Dispatcher::AppendKeysOf(std::span<const std::string_view> args,
                                         std::vector<std::string_view>* keys) {
  if (args.empty()) return {};
  const ResolvedCommand row = server_->commands().Resolve(args);
  const CommandSpec* spec = row.spec;
  if (keys == nullptr || spec == nullptr || !ArityOk(spec->arity, args.size()) ||
      (row.flags & kCmdPubSub)) {
    return row;
  }
  key_positions_scratch_.clear();
  if (!FindKeyPositions(spec->keys, args, &key_positions_scratch_)) return row;
  for (const size_t position : key_positions_scratch_) keys->push_back(args[position]);
  return row;
}

bool Dispatcher::Lookahead(std::span<const std::string_view> args, Client& client) {
  if (!server_->has_keyspace() || args.empty()) return false;
  const auto [spec, flags, first_arg] = server_->commands().Resolve(args);
  if (spec == nullptr || spec->handler == nullptr || !ArityOk(spec->arity, args.size())) {
    return false;
  }
  // Point reads: they name their keys (not DBSIZE, which counts them all).
  if ((flags & (kCmdReadOnly | kCmdFast)) != (kCmdReadOnly | kCmdFast) || spec->keys.first == 0) {
    return false;
  }
  // Only for clients the ACL lets run anything: a refused command must not even touch the disk.
  const AclUser* user = server_->acl().UserOf(client);
  if (user == nullptr || !user->unrestricted()) return false;
  std::string discarded;
  protocol::ReplyWriter reply(&discarded, client.resp());
  CommandContext ctx{args, first_arg, reply, client, *server_};
  ServerStats& stats = server_->stats();
  const ServerStats::HandlerCounts counts = stats.handler_counts();
  storage::BlockFetch& fetch = client.block_fetch();
  fetch.BeginLookahead();
  server_->keyspace().set_block_fetch(&fetch);
  Invoke(*spec, ctx);
  server_->keyspace().set_block_fetch(nullptr);
  stats.Withdraw(counts);  // the real run counts them and publishes its events
  if (!server_->key_events().empty()) EndKeyEvents(*server_, false);
  return true;
}

}  // namespace ebb::server
