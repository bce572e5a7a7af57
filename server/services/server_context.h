// ServerContext: the process-wide state a command handler may use — configuration, the
// keyspace, the clock, stats, the command table and the connected clients.
//
// One instance lives for the whole process (server/main.cc builds it); handlers reach it as
// CommandContext::server. Unit tests build one without a keyspace to exercise the dispatcher.
// Owns: the stats, the slow log, latency events, monitors, the client and watch registries,
// Pub/Sub, the expiry index, the ACL and the script engine (both made on first use; the engine
// by the factory main installs). Borrows, installed by main and the server: the keyspace, the
// replication, cluster and active-active objects (nullptr when absent). Being in services/, it
// names the layers above only by forward declarations.
// Thread-safety: none; used only on the command (io) thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "server/config/config.h"
#include "server/core/client.h"
#include "server/core/command_stats.h"
#include "server/core/pubsub.h"
#include "server/core/server_stats.h"
#include "server/core/transaction.h"
#include "server/services/expiry_events.h"
#include "server/services/keyspace_events.h"
#include "server/services/latency_monitor.h"
#include "server/services/monitor.h"
#include "server/services/slowlog.h"
#include "storage/clock.h"

namespace ebb::types {
class Keyspace;
}
namespace ebb::storage {
class FaultInjectionFileSystem;
}

namespace ebb::server {

class Acl;
class ActiveActive;
class BlockReader;
class CommandTable;
class Failover;
class ReplicationMaster;
class ReplicaLink;
class WritePlanner;
namespace scripting {
class ScriptEngine;
}
namespace cluster {
class SlotOwnership;
}

class ServerContext {
 public:
  // REQUIRES: registry, commands and clock outlive the context.
  ServerContext(ConfigRegistry* registry, const CommandTable* commands,
                storage::PinnableClock* clock);
  ~ServerContext();

  const Config& config() const { return registry_->config(); }
  ConfigRegistry& config_registry() { return *registry_; }
  // The data types over the engine; its settings follow the options (server/main.cc).
  // REQUIRES: set_keyspace was called (always true inside ebb-server).
  types::Keyspace& keyspace() { return *keyspace_; }
  bool has_keyspace() const { return keyspace_ != nullptr; }
  void set_keyspace(types::Keyspace* keyspace) { keyspace_ = keyspace; }
  storage::PinnableClock& clock() { return *clock_; }
  ServerStats& stats() { return stats_; }
  // INFO commandstats and errorstats (server/core/command_stats.h).
  CommandStats& command_stats() { return command_stats_; }
  SlowLog& slowlog() { return slowlog_; }
  // LATENCY's events (server/services/latency_monitor.h).
  LatencyMonitor& latency() { return latency_; }
  // Moves what the engine's threads and the block reader noted into latency(), as samples of
  // the clock's current second: every cron, and before LATENCY reads the table.
  void CollectLatencySamples();
  Monitors& monitors() { return monitors_; }
  const CommandTable& commands() const { return *commands_; }
  ClientRegistry& clients() { return clients_; }
  // Which clients WATCH which keys (server/core/transaction.h).
  WatchRegistry& watches() { return watches_; }
  // Channels, patterns and their subscribers (server/core/pubsub.h).
  PubSub& pubsub() { return pubsub_; }
  // The Lua scripts and their interpreter (server/scripting/script_engine.h), made on first use
  // by the factory main (or the test runner) installs: scripting/ is a layer above this one.
  // REQUIRES: set_script_engine_factory was called before the first use.
  scripting::ScriptEngine& scripts();
  using ScriptEngineFactory =
      std::function<std::shared_ptr<scripting::ScriptEngine>(ServerContext*)>;
  void set_script_engine_factory(ScriptEngineFactory factory) {
    script_engine_factory_ = std::move(factory);
  }
  // The ACL users (server/acl/acl.h), made on first use from the full command table;
  // `requirepass` keeps the default user's password. Inline: the dispatcher asks it for every
  // request.
  Acl& acl() { return acl_ != nullptr ? *acl_ : MakeAcl(); }
  // The index of upcoming expiries behind on-time `expired` events
  // (server/services/expiry_events.h).
  ExpiryEvents& expiry_events() { return expiry_events_; }
  // The running command's notes for the "new" and "keymiss" events
  // (server/services/keyspace_events.h).
  KeyEventScratch& key_events() { return key_events_; }

  // True under `wal-fsync always` (the keyspace's group-commit setting): the types write with
  // WriteOptions::defer_sync = true and the connection syncs the WAL once per read batch before
  // sending its replies.
  bool defer_sync() const;

  // Asks the server to shut down (SHUTDOWN, SIGTERM): it stops accepting, flushes the replies
  // already produced, closes the keyspace and exits 0. The hook is installed by the server.
  void RequestShutdown();
  bool shutdown_requested() const { return shutdown_requested_; }
  void set_shutdown_hook(std::function<void()> hook) { shutdown_hook_ = std::move(hook); }

  // A busy script (docs/scripting.md, "Busy scripts"). While a script runs past
  // busy-reply-threshold, busy_error() is the -BUSY error (without its '-') the dispatcher answers
  // every command not flagged kCmdAllowBusy; empty otherwise. The script's hook calls
  // ServeWhileBusy now and then: it serves every other client's requests once, without waiting
  // (the server installs it; the caller's own connection is left alone).
  std::string_view busy_error() const { return busy_error_; }
  // REQUIRES: `error` is a constant (it is kept as a view).
  void set_busy_error(std::string_view error) { busy_error_ = error; }
  void ServeWhileBusy(const Client& caller) {
    if (busy_hook_) busy_hook_(caller);
  }
  void set_busy_hook(std::function<void(const Client&)> hook) { busy_hook_ = std::move(hook); }

  // ebb's version (HELLO, INFO); main sets it from the build's EBB_VERSION.
  const std::string& version() const { return version_; }
  void set_version(std::string v) { version_ = std::move(v); }

  // The fault layer under the engine's files (DEBUG DISK-FAULT), or nullptr. main installs it
  // only when enable-debug-command allows DEBUG.
  storage::FaultInjectionFileSystem* disk_faults() const { return disk_faults_; }
  void set_disk_faults(storage::FaultInjectionFileSystem* fs) { disk_faults_ = fs; }

  // The server's reader of table blocks for waiting commands (INFO, DEBUG BLOCK-READ-DELAY), or
  // nullptr (no server, or no keyspace). The server installs it.
  BlockReader* block_reader() const { return block_reader_; }
  void set_block_reader(BlockReader* reader) { block_reader_ = reader; }

  // The master side of replication (server/replication/master.h), or nullptr (no server or no
  // keyspace). The server installs it.
  ReplicationMaster* replication_master() const { return replication_master_; }
  void set_replication_master(ReplicationMaster* master) { replication_master_ = master; }
  // The replica side (server/replication/replica.h), or nullptr (no server or no keyspace).
  ReplicaLink* replica_link() const { return replica_link_; }
  void set_replica_link(ReplicaLink* link) { replica_link_ = link; }
  // FAILOVER (server/replication/failover.h), or nullptr (no server or no keyspace).
  Failover* failover() const { return failover_; }
  void set_failover(Failover* failover) { failover_ = failover; }
  // The cluster node's slot routing (server/dispatch/slot_ownership.h) with cluster-enabled yes;
  // nullptr otherwise. The server installs it, with `is_node` true for its cluster node (tests
  // install a fake slot table).
  cluster::SlotOwnership* cluster() const { return cluster_; }
  void set_cluster(cluster::SlotOwnership* cluster, bool is_node = false) {
    cluster_ = cluster;
    cluster_is_node_ = cluster != nullptr && is_node;
  }
  // True when cluster() is a real cluster node (server/cluster/cluster.h): the commands flagged
  // kCmdNeedsClusterNode (CLUSTER NODES, MEET, ...) run only then.
  bool cluster_is_node() const { return cluster_is_node_; }
  // The active-active peers (server/active_active/active_active.h), or nullptr (no server or no
  // keyspace). The server installs it.
  ActiveActive* active_active() const { return active_active_; }
  void set_active_active(ActiveActive* aa) { active_active_ = aa; }
  // The mode that plans clients' writes (server/dispatch/write_planner.h: active-active's), or
  // nullptr. The server installs it with the active-active peers.
  WritePlanner* write_planner() const { return write_planner_; }
  void set_write_planner(WritePlanner* planner) { write_planner_ = planner; }
  // True while a FAILOVER holds the clients' writes back (the dispatcher defers them until it
  // ends); the failover sets it.
  bool writes_paused() const { return writes_paused_; }
  void set_writes_paused(bool paused) { writes_paused_ = paused; }
  // True when this server is a replica (REPLICAOF host port); the link sets it.
  bool is_replica() const { return is_replica_; }
  void set_is_replica(bool replica) { is_replica_ = replica; }
  // What the checks below ask of the master side and of the replica link, which the server
  // installs with them (unset: no replicas, no link). `good_replicas(now_ms, max_lag_s)` counts
  // the replicas that acknowledged within max_lag_s seconds; `master_link_up` is true while the
  // replica's link to its master is up.
  struct ReplicationProbes {
    std::function<int64_t(int64_t now_ms, int64_t max_lag_s)> good_replicas;
    std::function<bool()> master_link_up;
  };
  void set_replication_probes(ReplicationProbes probes) { replication_probes_ = std::move(probes); }
  // The dispatcher's checks, inline: every command pays for them.
  // True when `client`'s writes are refused with -READONLY: this server is a replica under
  // replica-read-only yes (the master's link never runs commands).
  bool RefusesWrites(const Client& client) const {
    return is_replica_ && config().replica_read_only && !client.is_master_link();
  }
  // True when writes are refused with -NOREPLICAS: a master with min-replicas-to-write and
  // min-replicas-max-lag set and fewer good replicas than that.
  bool RefusesWritesForReplicas() const {
    return config().min_replicas_to_write != 0 && TooFewGoodReplicas();
  }
  // True when data commands are refused with -MASTERDOWN: a replica whose link is down under
  // replica-serve-stale-data no.
  bool RefusesStaleData() const {
    return is_replica_ && !config().replica_serve_stale_data && MasterLinkDown();
  }

  // Wall-clock ms when the server started (INFO uptime).
  int64_t start_time_ms() const { return start_time_ms_; }
  // The memory allocated when the server began serving (MEMORY STATS startup.allocated).
  uint64_t startup_memory() const { return startup_memory_; }
  void set_startup_memory(uint64_t bytes) { startup_memory_ = bytes; }
  // 40 random hex characters chosen when the server starts (INFO's run_id): Redis Sentinel
  // tells a restart of an instance from a reconnection by its change.
  const std::string& run_id() const { return run_id_; }

  // What `maxmemory` bounds (INFO memory): the engine's memtables and the index and filter
  // blocks of its open tables, the TLOG head cache, and every client's buffers. The block
  // cache is not counted: it is a cache with a capacity of its own.
  struct Memory {
    uint64_t memtables = 0;
    uint64_t table_metadata = 0;
    uint64_t tlog_cache = 0;
    uint64_t clients = 0;
    uint64_t total() const { return memtables + table_metadata + tlog_cache + clients; }
  };
  Memory MemoryNow();
  // The keys of every database (one in cluster mode): DbSize's count, exact in a small database
  // and estimated in a large one; 0 without a keyspace.
  uint64_t KeyCount();
  // True when `maxmemory` is set and the memory it bounds is above it, from a figure at most
  // 100 ms old (writes that add data are then refused with -OOM).
  bool OverMaxmemory();

 private:
  Acl& MakeAcl();
  bool TooFewGoodReplicas() const;
  bool MasterLinkDown() const;

  ConfigRegistry* registry_;
  const CommandTable* commands_;
  storage::PinnableClock* clock_;
  types::Keyspace* keyspace_ = nullptr;
  storage::FaultInjectionFileSystem* disk_faults_ = nullptr;
  BlockReader* block_reader_ = nullptr;
  ReplicationMaster* replication_master_ = nullptr;
  ReplicaLink* replica_link_ = nullptr;
  Failover* failover_ = nullptr;
  cluster::SlotOwnership* cluster_ = nullptr;
  bool cluster_is_node_ = false;
  ActiveActive* active_active_ = nullptr;
  WritePlanner* write_planner_ = nullptr;
  bool writes_paused_ = false;
  bool is_replica_ = false;
  ReplicationProbes replication_probes_;
  ServerStats stats_;
  CommandStats command_stats_;
  SlowLog slowlog_;
  LatencyMonitor latency_;
  Monitors monitors_;
  ClientRegistry clients_;
  WatchRegistry watches_;
  PubSub pubsub_;
  ExpiryEvents expiry_events_{this};
  KeyEventScratch key_events_;
  // Shared only so that this layer need not see the engine's type to destroy it: the context is
  // its one owner.
  std::shared_ptr<scripting::ScriptEngine> scripts_;
  ScriptEngineFactory script_engine_factory_;
  std::unique_ptr<Acl> acl_;
  bool shutdown_requested_ = false;
  std::function<void()> shutdown_hook_;
  std::string_view busy_error_;
  std::function<void(const Client&)> busy_hook_;
  int64_t start_time_ms_;
  uint64_t startup_memory_ = 0;
  std::string run_id_;
  std::string version_ = "unknown";
  uint64_t memory_checked_ns_ = 0;  // steady clock of OverMaxmemory's last figure
  uint64_t memory_total_ = 0;
};

}  // namespace ebb::server
