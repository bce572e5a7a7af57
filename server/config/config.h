// Config and ConfigRegistry: ebb's options, one table driving the config file, the command line,
// CONFIG GET/SET/REWRITE and conf/ebb.conf.
//
// Config holds the typed values; ConfigRegistry owns the option table (name, parser, formatter,
// default, mutability, doc) and the current Config. Every option name is Redis's where Redis has
// the concept. Values are printed by Get() as follows:
//   booleans     "yes" / "no"
//   sizes        plain bytes ("67108864")
//   durations    FormatDuration(): "unlimited", "0", "1500ms", "2d7h32m"
//   seconds      plain integers (timeout, tcp-keepalive), as Redis
//   lists        bind: addresses separated by spaces; ttl-rule: its rules separated by spaces,
//                each "<glob> <duration>" followed by "expiration off" / "mode per-item|whole-file"
//                when set (in the file, one `ttl-rule ...` line per rule)
//   client-output-buffer-limit: "normal <hard> <soft> <seconds>" as Redis
//
// Thread-safety: none. The server reads and changes it on its event-loop thread only; the change
// hook runs synchronously inside Set().
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/core/result.h"
#include "types/ttl_policy.h"

namespace ebb::server {

// `ttl-rule <glob> <duration> [expiration on|off] [mode per-item|whole-file]`: the types' own
// rule (types/ttl_policy.h).
using TtlRule = types::TtlRule;

// Who may do a protected action (DEBUG, CONFIG SET of a protected option): no one, everyone, or
// only clients on a loopback address (Redis's enable-debug-command values).
enum class DebugCommandPolicy { kNo, kYes, kLocal };

// Redis's allowProtectedAction.
inline bool AllowsProtectedAction(DebugCommandPolicy policy, bool client_is_local) {
  return policy == DebugCommandPolicy::kYes ||
         (policy == DebugCommandPolicy::kLocal && client_is_local);
}

struct ClientOutputBufferLimit {
  uint64_t hard_bytes = 0;
  uint64_t soft_bytes = 0;
  int64_t soft_seconds = 0;
};

// Typed option values; defaults are Redis's where Redis has the option.
struct Config {
  std::vector<std::string> bind = {"127.0.0.1", "-::1"};
  int port = 6379;
  bool protected_mode = true;
  std::string requirepass;
  int databases = 16;
  std::string dir = "./data";
  int maxclients = 10000;
  int64_t timeout_s = 0;
  uint64_t repl_backlog_size = 1ull << 20;  // bytes of the replication stream kept for PSYNC
  int64_t tcp_keepalive_s = 300;
  int64_t io_poll_us = 0;  // how long the io loop polls for work before sleeping (0: not at all)
  // How long a script runs before the server answers others -BUSY (docs/scripting.md).
  int64_t busy_reply_threshold_ms = 5000;
  // Bytes the Lua heap of scripts and functions may reach while one runs (0: no bound).
  uint64_t lua_memory_limit = 256ull << 20;
  uint64_t proto_max_bulk_len = 512ull << 20;
  uint64_t client_query_buffer_limit = 1ull << 30;
  uint64_t maxmemory = 0;                                     // 0: no bound (ServerContext::Memory)
  ClientOutputBufferLimit client_output_buffer_limit_normal;  // "normal 0 0 0"
  ClientOutputBufferLimit client_output_buffer_limit_pubsub{32ull << 20, 8ull << 20, 60};
  ClientOutputBufferLimit client_output_buffer_limit_replica{256ull << 20, 64ull << 20, 60};
  uint32_t notify_keyspace_events = 0;  // NotifyClass bits (server/services/keyspace_events.h)
  bool latency_tracking = true;         // each command's time goes into INFO latencystats
  int64_t slowlog_log_slower_than_us = 10000;  // SLOWLOG: -1 never, 0 every command
  int64_t slowlog_max_len = 128;
  int64_t acllog_max_len = 128;              // ACL LOG's entries (server/acl/acl_log.h)
  int64_t latency_monitor_threshold_ms = 0;  // LATENCY: events this long are sampled (0: off)
  // The percentiles INFO latencystats prints (latency-tracking-info-percentiles).
  std::vector<double> latency_tracking_info_percentiles = {50.0, 99.0, 99.9};
  std::string aclfile;  // "" = users in memory only (server/acl/acl.h)
  // `user <name> <rule> ...` lines (Redis's `user` directive): ACL users made at start, each as
  // given (name first). Not with `aclfile`.
  std::vector<std::vector<std::string>> users;
  // The channels a new ACL user starts with: allchannels|resetchannels (Redis 7's default).
  std::string acl_pubsub_default = "resetchannels";
  int tls_port = 0;  // 0: no TLS listener (server/io/tls.h)
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string tls_key_file_pass;
  std::string tls_ca_cert_file;
  std::string tls_ca_cert_dir;
  std::string tls_auth_clients = "yes";  // yes|no|optional
  std::string tls_protocols;             // "" = TLSv1.2 and TLSv1.3
  std::string tls_ciphers;
  std::string tls_ciphersuites;
  // The certificate outbound links present ("": tls-cert-file's; server/io/tls.h).
  std::string tls_client_cert_file;
  std::string tls_client_key_file;
  std::string tls_client_key_file_pass;
  bool tls_replication = false;  // a replica connects to its master over TLS
  bool tls_cluster = false;      // the cluster bus speaks TLS; the TLS port is announced
  bool tls_peers = false;        // active-active peer links connect over TLS
  // The Prometheus endpoint (server/metrics/metrics_http.h): GET /metrics over HTTP on
  // metrics-port (0: none) at each metrics-bind address, read as `bind` is.
  int metrics_port = 0;
  std::vector<std::string> metrics_bind = {"127.0.0.1"};
  DebugCommandPolicy enable_debug_command = DebugCommandPolicy::kNo;
  // Who may CONFIG SET a protected option. ebb protects more than Redis does (requirepass,
  // protected-mode, limits), so its default admits loopback clients.
  DebugCommandPolicy enable_protected_configs = DebugCommandPolicy::kLocal;
  std::string loglevel = "notice";     // debug|verbose|notice|warning
  std::string logfile;                 // "" = stdout
  std::string wal_fsync = "everysec";  // always|everysec|no
  int64_t wal_sync_delay_us = 50;      // under always, how long a shared sync waits for company
  uint64_t memtable_size = 64 << 20;
  uint64_t block_cache_size = 256 << 20;
  bool use_direct_reads = false;  // SST files read with O_DIRECT
  uint64_t tlog_cache_size = 32 << 20;
  uint64_t block_size = 4096;
  std::string compression = "lz4";  // none|lz4|zstd
  bool expiration = true;
  int64_t default_ttl_ms = -1;     // -1: unlimited
  std::vector<TtlRule> ttl_rules;  // first match wins
  int64_t default_retrieval_grace_ms = 0;
  bool expiry_whole_file = true;
  int64_t expiry_purge_deadline_ms = 86400000;
  // Replication, the replica side (docs/replication.md). replicaof_host empty: a master.
  std::string replicaof_host;
  int replicaof_port = 0;
  std::string masterauth;  // AUTH password for the master ("": none)
  std::string masteruser;  // AUTH user for the master ("": the password alone)
  bool replica_read_only = true;
  bool replica_serve_stale_data = true;
  int replica_priority = 100;
  std::string replica_announce_ip;  // sent as REPLCONF ip-address ("": none)
  int replica_announce_port = 0;    // sent as REPLCONF listening-port instead of port (0: port)
  bool replica_announced = true;
  // A master refuses writes (-NOREPLICAS) while fewer than min_replicas_to_write replicas have
  // acknowledged within min_replicas_max_lag_s seconds (either 0: never).
  int min_replicas_to_write = 0;
  int min_replicas_max_lag_s = 10;
  int64_t repl_backlog_ttl_s = 3600;  // a master frees its backlog this long after its last replica
  // A master drops a replica that has not acknowledged for longer than repl_timeout_s seconds;
  // a replica drops a link its master sent nothing on for longer (then reconnects).
  int64_t repl_timeout_s = 60;
  int64_t repl_ping_replica_period_s = 10;  // a master pings its replicas this often (seconds)
  // Redis Cluster (docs/cluster.md). cluster_port 0: port + 10000.
  bool cluster_enabled = false;
  std::string cluster_config_file = "nodes.conf";
  int64_t cluster_node_timeout_ms = 15000;
  int cluster_port = 0;
  std::string cluster_announce_ip;    // "": the address the bus sees
  int cluster_announce_port = 0;      // 0: port
  int cluster_announce_tls_port = 0;  // with tls-cluster, the TLS port announced (0: tls-port)
  int cluster_announce_bus_port = 0;  // 0: the bus port
  bool cluster_require_full_coverage = true;
  bool cluster_allow_reads_when_down = false;
  // A replica whose data is older than repl-ping-replica-period + node-timeout x factor does
  // not stand for election (0: always stands).
  int64_t cluster_replica_validity_factor = 10;
  int64_t cluster_migration_barrier = 1;
  bool cluster_allow_replica_migration = true;
  bool cluster_replica_no_failover = false;  // never fail over automatically
  // Active-active peers (docs/active-active.md): the nodes this one links to at start.
  std::vector<std::pair<std::string, int>> peers;
  // A write whose timestamp is more than this many ms ahead of the clock is refused or counted
  // (max_clock_skew_action "refuse" | "flag"); 0: no check.
  int64_t max_clock_skew_ms = 0;
  std::string max_clock_skew_action = "refuse";
  // How a string key's client writes merge in active-active mode (docs/active-active.md, "The
  // string rule"): "timestamp" (last writer wins) or "observed-remove" (a DEL removes what its node
  // had observed; the INCR family is refused). Fixed at start.
  std::string active_active_string_rule = "timestamp";
  bool observed_remove_strings() const { return active_active_string_rule == "observed-remove"; }
  uint64_t peer_backlog_size = 1000000;       // deltas of this node's origin log kept
  uint64_t peer_output_limit = 256ull << 20;  // a peer reading slower is dropped (it resumes)
};

// What `ebb-server --version` prints, in redis-server's form: "ebb server v=<version> bits=64".
std::string VersionLine();

// What CONFIG SET, CONFIG REWRITE and reading the configuration at start come to
// (server/core/result.h).
enum class ConfigCode {
  kOk,
  kUnknownOption,     // SET: no option of that name
  kImmutable,         // SET: the option is read at start only
  kProtected,         // SET: a protected option, and the client may not set those
  kUnbalancedQuotes,  // SET: a multi-valued option's value does not split
  kInvalidValue,      // SET: the value is refused; detail: why, in Redis 7's words
  kNoConfigFile,      // REWRITE: the server was started without a file
  kRewriteFailed,     // REWRITE: detail: the I/O failure
  // At start (LoadFile, ParseCommandLine):
  kConfigFileUnreadable,  // detail: the file's path
  kBadConfigLine,         // a line of the file; detail: "<path>:<line>: <problem>"
  kBadCommandLine,        // detail: the problem ("unknown option '--prot'", ...)
};
// The reply to a failed CONFIG SET of option `name` (as the client spelled it) or CONFIG REWRITE:
// "ERR CONFIG SET failed (possibly related to argument '<name>') - <reason>", ...; what
// ebb-server prints for a configuration it cannot start with: "can't open config file '<path>'",
// "conf/ebb.conf:3: invalid value 'x' for 'port': not an integer", ...
std::string ConfigErrorText(const Result<ConfigCode>& result, std::string_view name = {});

class ConfigRegistry {
 public:
  struct OptionInfo {
    std::string name;
    std::string default_text;  // as Get() prints the default
    std::string doc;           // one line
    bool mutable_at_runtime;
    bool listed_by_get;  // false: CONFIG GET never shows it (`user`)
  };

  // Post: config() holds every default; no file is associated.
  ConfigRegistry();
  ~ConfigRegistry();
  ConfigRegistry(const ConfigRegistry&) = delete;
  ConfigRegistry& operator=(const ConfigRegistry&) = delete;

  const Config& config() const { return config_; }

  // Loads a Redis-style file: `name value...` lines, # comments, blank lines, "quoted" and
  // 'quoted' values (sdssplitargs rules), names case-insensitive. Redis's options that have no
  // meaning for ebb are accepted and noted (notices()), `appendfsync` sets `wal-fsync`, and a
  // multi-valued option given one quoted value splits it at spaces, as Redis. `bind` takes one or
  // more addresses; `ttl-rule <glob> <duration> [options]` repeats (the first file line replaces
  // the default list, later ones append). Post on success: values applied, the file remembered for
  // Rewrite(). Refusals: kConfigFileUnreadable, kBadConfigLine ("conf/ebb.conf:12: unknown
  // option 'prot'", "conf/ebb.conf:3: invalid value 'x' for 'port': not an integer"); values from
  // lines before the bad one stay applied.
  Result<ConfigCode> LoadFile(const std::string& path);

  // Parses `ebb-server [conf-file] [--<option> value...]...` as redis-server does: the
  // optional file (a first argument not starting with '-') is loaded first, then the options,
  // as lines appended to it: each "--name" starts a line, and the arguments up to the next
  // "--name" are its values, one each, spaces included; an argument "--name value ..." is a
  // whole line (split as the file's); the argument after a lone "--name" is its value even if
  // it starts with "--", except after `--save` (`--save --port 7000`: save ""). A
  // multi-valued option given one value splits it at spaces (`--client-output-buffer-limit
  // "normal 8mb 4mb 5"`); `--name=value` also works. A repeatable option's first command-line
  // line replaces the file's. On -h/--help (anywhere) prints the help, and on -v/--version as
  // the first argument (as redis-server) the version line (VersionLine), to stdout; both set
  // *exit_now. Refusals: the file's (LoadFile's), or kBadCommandLine.
  Result<ConfigCode> ParseCommandLine(int argc, char** argv, bool* exit_now);

  // What loading the file and the command line noticed for the log (one line per Redis option
  // ebb ignores: server/config/redis_options.h), in order; main logs them once logging is set up.
  const std::vector<std::string>& notices() const { return notices_; }

  // CONFIG GET: (name, value) for every option whose name matches the glob pattern
  // (case-insensitive), in table order.
  std::vector<std::pair<std::string, std::string>> Get(std::string_view pattern) const;

  // CONFIG SET name value (name case-insensitive). Refusals: kUnknownOption, kImmutable,
  // kProtected (a protected option when !may_set_protected: the client is not one
  // enable-protected-configs admits), kUnbalancedQuotes, kInvalidValue (the option's parser or
  // an OnSetCheck said why); ConfigErrorText(result, name) words them as Redis 7.
  // Post on success: the value is applied and every OnChange hook was called with the
  // canonical option name and the new Config. On failure nothing changed.
  Result<ConfigCode> Set(std::string_view name, std::string_view value,
                         bool may_set_protected = true);
  // Records the master the server replicates from (REPLICAOF host port; "" and 0: none) as the
  // `replicaof` option, which CONFIG SET cannot change but CONFIG GET and REWRITE show. No hook
  // runs.
  void SetReplicaOf(std::string host, int port) {
    config_.replicaof_host = std::move(host);
    config_.replicaof_port = port;
  }

  // Records the running active-active peers (PEER ADD / REMOVE) as the `peer` lines, which
  // CONFIG GET and REWRITE show. No hook runs.
  void SetPeers(std::vector<std::pair<std::string, int>> peers) {
    config_.peers = std::move(peers);
  }

  // Records the ACL users as the `user` lines CONFIG REWRITE writes (name first, then the rules).
  // No hook runs.
  void SetUsers(std::vector<std::vector<std::string>> users) { config_.users = std::move(users); }

  // Registers a hook called after each successful Set() (not for LoadFile/ParseCommandLine).
  void OnChange(std::function<void(std::string_view name, const Config&)> hook);
  // Registers a check Set() runs once the new value is parsed, before it takes effect: a
  // non-empty reason refuses the change ("ERR CONFIG SET failed (possibly related to argument
  // '<name>') - <reason>") and leaves the configuration as it was.
  void OnSetCheck(std::function<std::string(std::string_view name, const Config& proposed)> check);

  // CONFIG REWRITE: rewrites the file given to LoadFile() (or on the command line), keeping its
  // comments and order: the lines of an option whose value is still what the file said stay as
  // written; a changed option's first line is replaced in place by its current value (its later
  // lines are dropped); options that differ from their default and have no line are appended.
  // Replaced atomically (ReplaceFileAtomically: fsynced, the original's mode kept, a symbolic
  // link's target rewritten): a crash leaves the old file or the new one. Refusals:
  // kNoConfigFile, kRewriteFailed (with the I/O failure).
  Result<ConfigCode> Rewrite();

  // Every option in table order.
  std::vector<OptionInfo> Options() const;

  // The path given to LoadFile(), or "".
  const std::string& config_file() const { return config_file_; }

  struct Option;  // one row of the option table (config_options.cc)

 private:
  const Option* Find(std::string_view name) const;
  // Where a configuration line comes from: the command line (its option names carry "--"), or
  // the file `path`'s line `line`.
  struct LineSource {
    std::string_view path;  // "" for the command line
    int line = 0;
  };
  // Applies one configuration line, args[0] being the option's name. `seen` holds the repeatable
  // options this source already set. Refusals: kBadConfigLine, kBadCommandLine (by `source`).
  Result<ConfigCode> ApplyLine(std::vector<std::string> args, LineSource source,
                               std::set<std::string>* seen);
  // A line of `source` refused for `problem`.
  static Result<ConfigCode> LineRefused(LineSource source, std::string_view problem);
  // Applies `values` to option `opt`; on failure fills *reason.
  bool Apply(const Option& opt, const std::vector<std::string>& values, bool first_in_source,
             std::string* reason);
  std::vector<std::string> FileLines(const Option& opt) const;
  // Whether `opt`'s value is the one the file gave it when LoadFile() read it (the command line
  // and CONFIG SET have not changed it since).
  bool UnchangedSinceLoad(const Option& opt) const;

  Config config_;
  std::vector<Option> options_;
  std::string config_file_;
  // Each option's value (Option::get) right after LoadFile() read config_file_.
  std::map<std::string, std::string> file_values_;
  std::vector<std::string> notices_;
  std::vector<std::function<void(std::string_view, const Config&)>> hooks_;
  std::vector<std::function<std::string(std::string_view, const Config&)>> set_checks_;
};

}  // namespace ebb::server
