// Dispatcher: runs one parsed request against the command table.
//
// It checks, once and in Redis 7's order (server.c processCommand), everything a handler may
// then take for granted: the command exists (else "unknown command" with Redis's truncation),
// a container's subcommand exists ("unknown subcommand ... Try CMD HELP."), the arity in Redis's
// sign convention ("wrong number of arguments for 'cmd' command", subcommands as "cmd|sub"),
// the DEBUG switch (enable-debug-command), and authentication (NOAUTH when requirepass is set,
// the client has not authenticated and the command lacks kCmdNoAuth), and disk errors: while
// the engine is in its error state (storage/db.h, "Disk faults") write commands and PING get
// "MISCONF Errors writing to the data directory: <os error>" (Redis 7's writeCommandsDenied-
// ByDiskError check); reads are served; a RESP2 client in subscriber mode may only run the
// commands flagged kCmdSubscriberOk; while a script runs past busy-reply-threshold
// (ServerContext::busy_error) only the commands flagged kCmdAllowBusy run, the others get -BUSY.
// A write command that would have to wait for the engine (a
// write stall: storage/db.h, CheckWriteStall) is not run: Dispatch returns `deferred` with no
// reply, and the connection runs it again once the engine's stall listener fires (the event loop
// never waits); one whose wait could not end (a compaction that keeps failing) is refused with
// the cause. While a FAILOVER pauses writes (ServerContext::writes_paused) every request that
// may write (MayWrite) is deferred the same way, replicas' excepted. Inside MULTI a command that
// passed every check is queued (+QUEUED) unless flagged
// kCmdNoQueue, and a refusal marks the transaction aborted (server/core/transaction.h). Then it
// runs the handler.
//
// The fast path. Most requests meet a server and a client none of those checks can apply to:
// no cluster, not a replica, no min-replicas-to-write, no maxmemory, no busy script, no FAILOVER
// pause, no active-active write planner, no MONITOR client, keyspace classes n and m off; a client
// authenticated as a user with every permission, not in MULTI, not subscribed, not ASKING; a row
// with a handler, arity met, not DEBUG-flagged and not PING (whose disk-error refusal reads its
// name). Dispatch then runs the handler at once (NeedsNoChecks): a write still asks the engine
// for its disk error and write stall first, and falls back to the checked path if either holds.
// Everything a run counts or records is the same on both paths (INFO stats, commandstats,
// errorstats, latencystats, LATENCY, SLOWLOG, keyspace hits and misses, restarts).
//
// Owns: nothing but its scratch buffers and the disk-error flag; every request's state is the
// client's. It asks the modes beside other servers only through interfaces of its own layer, which
// they implement from above: the cluster's slot table (SlotOwnership, slot_ownership.h; the pure
// RouteRequest of cluster_redirect.h) and whether the routing is a real cluster node
// (ServerContext::cluster_is_node), and the mode that plans clients' writes (WritePlanner,
// write_planner.h: active-active's). It includes nothing of distribution/ or above.
//
// Restartable commands. The command thread never waits for the disk to read a table block; a
// handler may instead run more than once for one request. While a handler runs, the keyspace's
// reads and writes carry the client's BlockFetch (Client::block_fetch, storage/table/
// block_fetch.h): a read that needs a block not in memory comes back Incomplete (an engine
// error to the handler) and wants the block, and the engine refuses every write after such a
// read. When a run comes back incomplete, Dispatch withdraws whatever it replied, undoes its
// counters (INFO stats) and returns `incomplete`; the caller reads every wanted block (the
// connection parks and reads them off the thread, together: server/io/block_reader.h), fills
// them into the fetch, and dispatches the same request again, which finds them in memory.
//
// The contract that makes this safe — every handler keeps it: a handler reads before it
// writes, and nothing it does before its first write has an effect a rerun could see (the
// engine's refusal enforces it for writes; replies and counters are undone here). A handler
// may go on reading after an Incomplete read, so that one run asks for everything it needs
// (MGET reads every key). Reads after a command's first write would wait for the disk on the
// command thread (INFO inline_block_reads counts them; restart_test.cc checks there are none).
// Retries are bounded: the fetched blocks stay pinned for the reruns, so each round gets further,
// and once a request has waited kMaxRounds times or pinned kMaxPinnedBytes (a scan of a large
// range) its next run reads inline (disk_wait_fallbacks). tests/commands/restart_test.cc runs the
// commands through reruns. A row flagged kCmdNoRestart (EXEC, whose queued commands publish,
// touch watches and write as they go; MIGRATE, which sends the target its keys before it writes)
// runs once, its reads waiting for the disk inline.
//
// Lookahead. A client that pipelines would wait for the disk at each request that needs a
// block; so before the blocks of an incomplete request are read, the caller may hand Lookahead
// the requests queued behind it. A point read among them (a command flagged readonly and fast
// that names its keys: GET, MGET, EXISTS, TTL, TREG GET, ...) runs once as a dry run, before the
// requests ahead of it have run, so what it reads may be stale: its reads add their wants to the
// same round, its reply and counters are dropped, and its blocks stay pinned until it runs for
// real, in its turn. Thread-safety: none; the command (io) thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/core/command.h"
#include "server/dispatch/cluster_redirect.h"

namespace ebb::protocol {
class ReplyWriter;
}

namespace ebb::server {

class Client;
class ServerContext;
class WritePlanner;
struct CommandContext;
struct CommandSpec;

class Dispatcher {
 public:
  // REQUIRES: server outlives the dispatcher.
  explicit Dispatcher(ServerContext* server) : server_(server) {}

  // Runs of one request that may come back incomplete before one reads inline.
  static constexpr size_t kMaxRounds = 8;
  // Bytes of fetched blocks one request may pin before its next run reads inline.
  static constexpr size_t kMaxPinnedBytes = 16 << 20;

  struct Result {
    const CommandSpec* command = nullptr;  // the row that ran; nullptr if the request was refused
    bool is_write = false;                 // the row has kCmdWrite
    // A write stall: nothing ran and nothing was replied; run the request again later.
    bool deferred = false;
    // The run needs blocks that are not in memory: nothing was replied and nothing changed.
    // Read client.block_fetch().wants(), Fill them, and dispatch the same request again.
    bool incomplete = false;
    // The row refused before its handler ran (arity, NOAUTH, OOM, ...), when there was one.
    const CommandSpec* refused = nullptr;
    // The reply's error was counted already (CommandContext::error_counted).
    bool error_counted = false;
  };

  // Counts a command a script called that was refused before it ran, as Redis's scriptCall
  // does: INFO errorstats (its code, or ERR when `error` does not start with "-CODE") and the
  // row's rejected_calls when `spec` is known.
  void CountScriptRefusal(const CommandSpec* spec, std::string_view error);

  // Lookahead (above): dry-runs `args` if it is a point read the client may run, adding its
  // block wants to client.block_fetch(). False for any other request: look no further. Nothing
  // is replied or changed (the fetch is incomplete: the engine refuses writes). REQUIRES: the
  // client's last Dispatch came back incomplete.
  bool Lookahead(std::span<const std::string_view> args, Client& client);

  // Appends to *keys the keys `args` names (views into it, as COMMAND GETKEYS finds them), when it
  // is a command this server knows, of the right arity; else nothing (and nothing when `keys` is
  // null). Runs nothing. Returns the row it resolved, which Dispatch of the same `args` may be
  // given.
  ResolvedCommand AppendKeysOf(std::span<const std::string_view> args,
                               std::vector<std::string_view>* keys);

  // Runs `args` (args[0] is the command name) for `client`, appending exactly one reply (or none
  // for commands that reply nothing, e.g. after QUIT closes) to `reply` — or nothing, when the
  // result is incomplete. `resolved`: AppendKeysOf's row for these `args`, or null to look it
  // up. REQUIRES: !args.empty(); the previous request of `client` did not come back incomplete,
  // or `args` is that request again.
  Result Dispatch(std::span<const std::string_view> args, Client& client,
                  protocol::ReplyWriter& reply, const ResolvedCommand* resolved = nullptr);

  // On whose behalf Run runs a command: a client's own (EXEC's queued commands), a script's
  // redis.call, a peer's delta, or the canonical form an active-active plan runs for a client's
  // write (kPlanned). As in Redis, SLOWLOG gets the clients' and MONITOR the clients' and the
  // scripts'. A peer's delta and a kPlanned run are counted nowhere (commandstats, SLOWLOG,
  // MONITOR): a delta is no request of this node's clients (INFO peers counts them), and the
  // client's request a kPlanned run stands for is counted as itself (RoutePlannedWrite).
  enum class Caller { kClient, kScript, kPeer, kPlanned };
  // Runs a command's handler on its checked arguments from inside another command: EXEC's
  // queued commands, a script's redis.call, a peer's delta, a planned write's canonical form
  // (whose runs do not restart: their reads wait for the disk inline). Returns true when the
  // command wrote.
  bool Run(const CommandSpec& spec, size_t first_arg, std::span<const std::string_view> args,
           Client& client, protocol::ReplyWriter& reply, Caller caller);

  // On a cluster node, why a script running for `caller` may not call `spec` with `args`, in
  // Redis's words (scriptVerifyClusterState): a key another node serves (or the cluster down),
  // or, unless `allow_cross_slot`, keys of another slot than the script's declared keys or its
  // earlier calls. Nothing when it may; the caller's cluster_slot then holds the slot its calls
  // are bound to.
  // REQUIRES: the server has a cluster (ServerContext::cluster()).
  std::optional<std::string_view> ScriptCallRefusal(const CommandSpec& spec, uint32_t flags,
                                                    std::span<const std::string_view> args,
                                                    bool allow_cross_slot, Client& caller);

  // The MISCONF error a write is refused with while the engine has a disk error, or nothing;
  // logs the first refusal and the first write accepted again. Also asked before a script that
  // may write runs.
  std::optional<std::string> DiskErrorRefusal();

 private:
  // True when the request may write (FAILOVER's write pause holds it back, as Redis's pause
  // holds its may-replicate commands): a write command, EVAL, EVALSHA, FCALL, or an EXEC whose
  // queue holds one.
  static bool MayWrite(const CommandSpec& spec, uint32_t flags, const Client& client);
  // For a write command: true (and *deferred, with no reply) while the engine's write stall
  // lasts; true with an error reply if the write is refused; false to run it.
  bool HeldByWriteStall(protocol::ReplyWriter& reply, bool* deferred);
  // The fast path's test (above): true when no check of Route's could refuse, defer, queue,
  // redirect or plan `spec` (flags `flags`, the container's included) for `client` with `argc`
  // arguments. False sends the request through Route, which answers it as it always has.
  bool NeedsNoChecks(const CommandSpec& spec, uint32_t flags, size_t argc, const Client& client);
  // Dispatch's checks and run, without the counting: the checks below in Redis's order, then
  // the MULTI queue, the write planner's plan, or the handler.
  Result Route(std::span<const std::string_view> args, Client& client,
               protocol::ReplyWriter& reply);
  // One request while Route checks it: the row found (a subcommand's for a container), the
  // flags of the row and its container (an EXEC's widened by its queue), where its arguments
  // begin, and the result so far.
  struct Routing {
    std::span<const std::string_view> args;
    Client& client;
    protocol::ReplyWriter& reply;
    Result result;
    const CommandSpec* spec = nullptr;
    uint32_t flags = 0;
    size_t first_arg = 1;
    // An EXEC that ends the client's transaction (rather than one refused outside MULTI).
    bool IsExec() const;
  };
  // Route's checks. Each returns false (or HeldBack true) when it answered the request: it
  // replied the refusal (Reject) or deferred it, and Route returns r.result.
  // The row: the command, its subcommand, the arity; EXEC's flags take its queue's.
  bool FindRow(Routing& r);
  // Whether the client may run it: DEBUG's switch, authentication, MULTI, the ACL.
  bool AdmitClient(Routing& r);
  // Redis Cluster: whether this node serves the request's keys; else the redirection.
  bool ServedByThisNode(Routing& r);
  // The server's state: subscriber mode, a replica's refusals, the disk error, OOM, a busy
  // script.
  bool ServerStateAllows(Routing& r);
  // FAILOVER's write pause or the engine's write stall defers it (true), or a stall that cannot
  // end refuses it (true).
  bool HeldBack(Routing& r);
  // Inside MULTI: queues it and replies +QUEUED (true).
  bool Queued(Routing& r);
  // A refusal (Redis's rejectCommand) of the request as `spec`: inside MULTI it aborts the
  // transaction; a refused EXEC ends it with EXECABORT and the reason.
  void Reject(Routing& r, std::string_view error, const CommandSpec* spec);
  // Runs a checked request's handler for the client (Restartable commands).
  Result RunRequest(const CommandSpec& spec, uint32_t flags, size_t first_arg,
                    std::span<const std::string_view> args, Client& client,
                    protocol::ReplyWriter& reply);
  // Counts a finished request's reply (INFO stats and errorstats, and commandstats's
  // rejected_calls or failed_calls of `spec` when there is a row): `ran` says the handler ran;
  // an error already counted (CommandContext::error_counted) counts only as a failed call.
  void CountReply(const CommandSpec* spec, bool ran, std::string_view reply,
                  bool error_counted = false);
  // Counts one completed run of `spec`'s handler that began at `began` (commandstats, and a
  // LATENCY `command` / `fast-command` sample when it took latency-monitor-threshold) and
  // returns how long it took. `began` and the result are CycleClock ticks.
  uint64_t CountCall(const CommandSpec& spec, uint64_t began);
  // Adds the run to SLOWLOG when it took at least slowlog-log-slower-than
  // (server/services/slowlog.h).
  void OfferToSlowLog(const CommandSpec& spec, std::span<const std::string_view> args,
                      const Client& client, uint64_t ticks);
  // Sends the run to the MONITOR clients, if any (server/services/monitor.h): called before and
  // after each run, it sends a kCmdSkipMonitor command's line before (`before_run`) and any other's
  // after.
  void FeedMonitors(const CommandSpec& spec, std::span<const std::string_view> args,
                    const Client& client, bool from_script, bool before_run);
  // The request a run is counted as — INFO commandstats, SLOWLOG, MONITOR, the `new` key
  // events: the run's own, or the client's request an active-active plan runs in another form.
  struct Accounted {
    const CommandSpec& spec;
    std::span<const std::string_view> args;
  };
  // Runs `spec`'s handler once (Restartable commands), counted as the request `counted_spec`
  // and `counted_args` (an Accounted's two parts passed apart, so that the request path's calls
  // keep them in registers; by default the run itself); false when the run came back incomplete.
  bool RunHandler(const CommandSpec& spec, CommandContext& ctx) {
    return RunHandler(spec, ctx, spec, ctx.args);
  }
  bool RunHandler(const CommandSpec& spec, CommandContext& ctx, const CommandSpec& counted_spec,
                  std::span<const std::string_view> counted_args);
  // Calls run() counted as `as` for `client`, as RunHandler counts a run, where no read waits
  // for the disk in its place (the reads of run() are inline).
  template <typename Body>
  void RunCounted(const Accounted& as, Client& client, Body&& run);
  // Calls `spec`'s handler, or replies the error of the server mode the row needs and the
  // server is not in (kCmdModeFlags): the last check, so it comes after arity and the refusals
  // and before Parse. One test of the row's flags for a row that needs no mode.
  void Invoke(const CommandSpec& spec, CommandContext& ctx) {
    if ((spec.flags & kCmdModeFlags) != 0) [[unlikely]] {
      if (std::optional<std::string_view> refusal = ModeRefusal(spec.flags)) {
        return ReplyModeRefusal(ctx, *refusal);
      }
    }
    spec.handler(ctx);
  }
  // The error of the first mode in `flags` the server is not in; nothing when it is in all.
  std::optional<std::string_view> ModeRefusal(uint32_t flags) const;
  static void ReplyModeRefusal(CommandContext& ctx, std::string_view error);
  // A mode that plans clients' writes (server/dispatch/write_planner.h; active-active): the
  // request runs as `planner` plans it (its canonical form inside a keyspace batch that also
  // logs it for the peers), or is refused. REQUIRES: planner.enabled(). *handled false: the
  // request is none of its concern, Route runs it as usual.
  Result RoutePlannedWrite(WritePlanner& planner, const CommandSpec& spec, size_t first_arg,
                           std::span<const std::string_view> args, Client& client,
                           protocol::ReplyWriter& reply, bool* handled);
  // The end of a planned write's run (its reply from `reply_start`): the planner logs and commits
  // it (or drops it), the held keyspace events go out if it stands, and a failed commit replaces
  // the reply with its error.
  void FinishPlannedWrite(WritePlanner& planner, bool succeeded, size_t reply_start,
                          protocol::ReplyWriter& reply);

  // Redis Cluster routing (server/dispatch/cluster_redirect.h) of a request that names keys, or
  // with `exec` of the client's transaction queue: the redirection error to answer, or nothing to
  // run it here (the client's cluster_slot then holds its keys' slot, -1 for none).
  std::optional<std::string> ClusterRedirect(const CommandSpec& spec, uint32_t flags,
                                             std::span<const std::string_view> args, bool exec,
                                             Client& client);
  // Routes `commands` for `client`; `flags` are the request's (kCmdWrite, kCmdAsking).
  cluster::Route RouteKeys(std::span<const cluster::RoutedCommand> commands, uint32_t flags,
                           const Client& client);

  ServerContext* server_;
  bool refusing_writes_ = false;
  // Reused by ClusterRedirect, so routing a command allocates nothing.
  std::vector<cluster::RoutedCommand> routed_scratch_;
  std::vector<size_t> key_positions_scratch_;
  std::vector<std::string_view> exec_views_scratch_;  // the last check saw the engine's error state
};

}  // namespace ebb::server
