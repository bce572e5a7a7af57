// The option table: every option ebb has, one row each, built by config_option_builders.h.
#include <algorithm>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "server/config/config_option.h"
#include "server/config/config_option_builders.h"

namespace ebb::server {

namespace {

// What CONFIG SET may change only for clients enable-protected-configs admits: who may connect
// and how they authenticate, and the limits that bound the server's memory and connections.
constexpr std::string_view kProtectedOptions[] = {
    "protected-mode",
    "requirepass",
    "maxclients",
    "proto-max-bulk-len",
    "client-query-buffer-limit",
    "client-output-buffer-limit",
    "maxmemory",
};

}  // namespace

std::vector<ConfigRegistry::Option> BuildOptionTable() {
  using namespace option_rows;  // NOLINT(google-build-using-namespace): the rows read as a table
  constexpr bool kMutable = true, kImmutable = false;
  std::vector<Option> t;
  t.push_back(
      Bind("bind", "addresses to listen on (one or more IPv4/IPv6 addresses)", &Config::bind));
  t.push_back(
      Integer("port", "TCP port to listen on (0: none)", kImmutable, &Config::port, 0, 65535));
  t.push_back(String("aclfile", "file of ACL users (ACL LOAD/SAVE, loaded at startup; \"\": none)",
                     kImmutable, &Config::aclfile));
  t.push_back(Users());
  t.push_back(Enum("acl-pubsub-default",
                   "the channels a new ACL user, or one given `reset`, starts with: "
                   "resetchannels (none) or allchannels",
                   kMutable, &Config::acl_pubsub_default, {"allchannels", "resetchannels"}));
  t.push_back(Integer("tls-port", "TCP port for TLS connections (0: none)", kImmutable,
                      &Config::tls_port, 0, 65535));
  t.push_back(String("tls-cert-file", "the server's X.509 certificate (PEM)", kImmutable,
                     &Config::tls_cert_file));
  t.push_back(String("tls-key-file", "the private key of tls-cert-file (PEM)", kImmutable,
                     &Config::tls_key_file));
  t.push_back(String("tls-key-file-pass", "the passphrase of tls-key-file, if it has one",
                     kImmutable, &Config::tls_key_file_pass));
  t.push_back(String("tls-ca-cert-file", "CA certificates that sign client certificates (PEM)",
                     kImmutable, &Config::tls_ca_cert_file));
  t.push_back(String("tls-ca-cert-dir", "a directory of CA certificates (OpenSSL's hashed names)",
                     kImmutable, &Config::tls_ca_cert_dir));
  t.push_back(Enum("tls-auth-clients",
                   "client certificates: yes (required), optional (checked if given), no",
                   kImmutable, &Config::tls_auth_clients, {"yes", "no", "optional"}));
  t.push_back(String("tls-protocols",
                     "TLS versions to accept, e.g. \"TLSv1.2 TLSv1.3\" (\"\": both)", kImmutable,
                     &Config::tls_protocols));
  t.push_back(String("tls-ciphers", "TLSv1.2 cipher list (OpenSSL syntax; \"\": OpenSSL's default)",
                     kImmutable, &Config::tls_ciphers));
  t.push_back(String("tls-ciphersuites",
                     "TLSv1.3 cipher suites (OpenSSL syntax; \"\": OpenSSL's default)", kImmutable,
                     &Config::tls_ciphersuites));
  t.push_back(String("tls-client-cert-file",
                     "the certificate links to other servers present (\"\": tls-cert-file)",
                     kImmutable, &Config::tls_client_cert_file));
  t.push_back(String("tls-client-key-file", "the private key of tls-client-cert-file", kImmutable,
                     &Config::tls_client_key_file));
  t.push_back(String("tls-client-key-file-pass",
                     "the passphrase of tls-client-key-file, if it has one", kImmutable,
                     &Config::tls_client_key_file_pass));
  t.push_back(Bool("tls-replication", "a replica connects to its master over TLS", kImmutable,
                   &Config::tls_replication));
  t.push_back(Bool("tls-cluster",
                   "the cluster bus speaks TLS and nodes announce their tls-port to clients",
                   kImmutable, &Config::tls_cluster));
  t.push_back(Bool("tls-peers", "active-active peer links connect over TLS, to the peers' tls-port",
                   kImmutable, &Config::tls_peers));
  t.push_back(Integer("metrics-port", "HTTP port serving Prometheus metrics at /metrics (0: none)",
                      kImmutable, &Config::metrics_port, 0, 65535));
  t.push_back(Bind("metrics-bind", "addresses metrics-port listens on (read as bind)",
                   &Config::metrics_bind));
  t.push_back(Bool("protected-mode",
                   "while the default user is nopass, accept clients from loopback addresses only",
                   kMutable, &Config::protected_mode));
  t.push_back(String("requirepass", "password clients must AUTH with (empty: none)", kMutable,
                     &Config::requirepass));
  // At most 256: the database number is one byte of every engine key (docs/key-encoding.md).
  t.push_back(Integer("databases", "number of databases (SELECT 0..n-1)", kImmutable,
                      &Config::databases, 1, 256));
  t.push_back(String("dir", "directory holding the data files", kImmutable, &Config::dir));
  t.push_back(Integer("maxclients", "maximum number of connected clients", kMutable,
                      &Config::maxclients, 1, INT_MAX));
  t.push_back(Integer("timeout", "close a client idle for this many seconds (0: never)", kMutable,
                      &Config::timeout_s, 0, INT_MAX));
  t.push_back(Integer("tcp-keepalive", "TCP keepalive interval in seconds (0: off)", kMutable,
                      &Config::tcp_keepalive_s, 0, INT_MAX));
  t.push_back(Integer("io-poll-us",
                      "after serving requests, poll this many microseconds for more before "
                      "sleeping (0: sleep at once)",
                      kMutable, &Config::io_poll_us, 0, 1000000));
  t.push_back(Integer("busy-reply-threshold",
                      "milliseconds a script runs before other clients get -BUSY and SCRIPT KILL "
                      "may stop it (alias lua-time-limit)",
                      kMutable, &Config::busy_reply_threshold_ms, 0, INT64_MAX));
  t.push_back(Memory("lua-memory-limit",
                     "bytes the Lua heap may reach while a script or function runs; past it the "
                     "script fails with an error (0: no bound)",
                     kMutable, &Config::lua_memory_limit, 0));
  t.push_back(Memory("proto-max-bulk-len", "largest bulk string a request may carry", kMutable,
                     &Config::proto_max_bulk_len, 1024 * 1024, INT64_MAX));
  t.push_back(Memory("client-query-buffer-limit",
                     "largest unprocessed input a client may accumulate", kMutable,
                     &Config::client_query_buffer_limit, 1024 * 1024, INT64_MAX));
  t.push_back(Memory("repl-backlog-size",
                     "bytes of the replication stream kept so a replica that lost its link "
                     "resumes with a partial resynchronisation",
                     kMutable, &Config::repl_backlog_size, 16 * 1024, INT64_MAX));
  t.push_back(Integer("repl-backlog-ttl",
                      "seconds after its last replica left that a master frees its backlog (0: "
                      "never)",
                      kMutable, &Config::repl_backlog_ttl_s, 0, INT_MAX));
  t.push_back(Integer("repl-timeout",
                      "seconds without an acknowledgement before a master drops a replica, and "
                      "without data or ping before a replica drops its master's link",
                      kMutable, &Config::repl_timeout_s, 1, INT_MAX));
  t.push_back(Integer("repl-ping-replica-period",
                      "seconds between the pings a master sends its replicas on the stream",
                      kMutable, &Config::repl_ping_replica_period_s, 1, INT_MAX));
  t.push_back(Integer("min-replicas-to-write",
                      "a master refuses writes while fewer replicas are good (0: never)", kMutable,
                      &Config::min_replicas_to_write, 0, INT_MAX));
  t.push_back(Integer("min-replicas-max-lag",
                      "seconds since its last acknowledgement within which a replica is good",
                      kMutable, &Config::min_replicas_max_lag_s, 0, INT_MAX));
  t.push_back(ReplicaOf());
  t.push_back(Peers());
  t.push_back(Integer("max-clock-skew",
                      "ms a write's timestamp may be ahead of the clock in active-active mode "
                      "(0: no check)",
                      kMutable, &Config::max_clock_skew_ms, 0, INT64_MAX));
  t.push_back(Enum("max-clock-skew-action",
                   "what a write too far ahead gets: refuse (an error) or flag (counted in INFO "
                   "peers)",
                   kMutable, &Config::max_clock_skew_action, {"refuse", "flag"}));
  t.push_back(Enum("active-active-string-rule",
                   "how client writes of string keys merge in active-active mode: timestamp "
                   "(last writer wins) or observed-remove (a DEL removes what its node had "
                   "observed; INCR and its family refused)",
                   kImmutable, &Config::active_active_string_rule,
                   {"timestamp", "observed-remove"}));
  t.push_back(
      Integer("peer-backlog-size",
              "deltas of this node's origin log kept for its active-active peers (one further "
              "behind gets a snapshot)",
              kMutable, &Config::peer_backlog_size, 1, INT64_MAX));
  t.push_back(Memory("peer-output-limit",
                     "output a peer's stream may hold before the peer is dropped (it resumes)",
                     kMutable, &Config::peer_output_limit, 1024 * 1024, INT64_MAX));
  t.push_back(String("masterauth", "password a replica gives its master's AUTH", kMutable,
                     &Config::masterauth));
  t.push_back(String("masteruser", "user a replica gives its master's AUTH (empty: none)", kMutable,
                     &Config::masteruser));
  t.push_back(Bool("replica-read-only", "a replica refuses writes from its clients (-READONLY)",
                   kMutable, &Config::replica_read_only));
  t.push_back(Bool("replica-serve-stale-data",
                   "a replica whose master link is down still answers data commands", kMutable,
                   &Config::replica_serve_stale_data));
  t.push_back(Bool("cluster-enabled", "whether this server is a Redis Cluster node", kImmutable,
                   &Config::cluster_enabled));
  t.push_back(String("cluster-config-file",
                     "the cluster node's own state file, in the dir (written by ebb)", kImmutable,
                     &Config::cluster_config_file));
  t.push_back(Integer("cluster-node-timeout",
                      "milliseconds a node may be unreachable before it is failing", kMutable,
                      &Config::cluster_node_timeout_ms, 1, INT64_MAX));
  t.push_back(Integer("cluster-port", "TCP port of the cluster bus (0: port + 10000)", kImmutable,
                      &Config::cluster_port, 0, 65535));
  t.push_back(String("cluster-announce-ip", "the address other nodes and clients are given",
                     kMutable, &Config::cluster_announce_ip));
  t.push_back(Integer("cluster-announce-port", "the client port announced (0: port)", kMutable,
                      &Config::cluster_announce_port, 0, 65535));
  t.push_back(Integer("cluster-announce-tls-port",
                      "with tls-cluster, the TLS client port announced (0: tls-port)", kMutable,
                      &Config::cluster_announce_tls_port, 0, 65535));
  t.push_back(Integer("cluster-announce-bus-port", "the bus port announced (0: cluster-port)",
                      kMutable, &Config::cluster_announce_bus_port, 0, 65535));
  t.push_back(Bool("cluster-require-full-coverage",
                   "whether the cluster stops serving when any slot has no node", kMutable,
                   &Config::cluster_require_full_coverage));
  t.push_back(Bool("cluster-allow-reads-when-down",
                   "whether reads are served while the cluster is down", kMutable,
                   &Config::cluster_allow_reads_when_down));
  t.push_back(Integer("cluster-replica-validity-factor",
                      "a replica disconnected longer than node-timeout x this does not fail over "
                      "(0: always may)",
                      kMutable, &Config::cluster_replica_validity_factor, 0, INT32_MAX));
  t.push_back(
      Integer("cluster-migration-barrier",
              "replicas a master keeps before one may migrate to an orphaned master (accepted; "
              "ebb does not migrate replicas)",
              kMutable, &Config::cluster_migration_barrier, 0, INT32_MAX));
  t.push_back(Bool("cluster-allow-replica-migration",
                   "whether a master left without slots becomes a replica of their new owner",
                   kMutable, &Config::cluster_allow_replica_migration));
  t.push_back(Bool("cluster-replica-no-failover",
                   "whether this replica never starts an automatic failover", kMutable,
                   &Config::cluster_replica_no_failover));
  t.push_back(Integer("replica-priority",
                      "the replica's priority for promotion by Sentinel (lower first, 0: never)",
                      kMutable, &Config::replica_priority, 0, INT_MAX));
  t.push_back(String("replica-announce-ip", "the address a replica gives its master", kMutable,
                     &Config::replica_announce_ip));
  t.push_back(Integer("replica-announce-port",
                      "the port a replica gives its master (0: its own port)", kMutable,
                      &Config::replica_announce_port, 0, 65535));
  t.push_back(Bool("replica-announced", "whether Sentinel lists this replica", kMutable,
                   &Config::replica_announced));
  t.push_back(OutputBufferLimit());
  t.push_back(NotifyKeyspaceEvents());
  t.push_back(Bool("latency-tracking", "record each command's latency for INFO latencystats",
                   kMutable, &Config::latency_tracking));
  t.push_back(LatencyPercentiles());
  t.push_back(Integer("slowlog-log-slower-than",
                      "SLOWLOG keeps commands that ran at least this many microseconds (-1: none, "
                      "0: every command)",
                      kMutable, &Config::slowlog_log_slower_than_us, -1, INT64_MAX));
  t.push_back(Integer("slowlog-max-len", "the most entries SLOWLOG keeps", kMutable,
                      &Config::slowlog_max_len, 0, INT64_MAX));
  t.push_back(Integer("acllog-max-len", "the most entries ACL LOG keeps", kMutable,
                      &Config::acllog_max_len, 0, INT64_MAX));
  t.push_back(Integer("latency-monitor-threshold",
                      "LATENCY samples events that take at least this many milliseconds (0: "
                      "the latency monitor is off)",
                      kMutable, &Config::latency_monitor_threshold_ms, 0, INT64_MAX));
  t.push_back(ProtectedAction("enable-debug-command",
                              "allow DEBUG: no, yes, or local (only from loopback clients)",
                              &Config::enable_debug_command));
  t.push_back(ProtectedAction("enable-protected-configs",
                              "allow CONFIG SET of protected options (requirepass, protected-mode, "
                              "limits): no, yes, or local (only from loopback clients)",
                              &Config::enable_protected_configs));
  t.push_back(Enum("loglevel", "log verbosity: debug, verbose, notice, warning", kMutable,
                   &Config::loglevel, {"debug", "verbose", "notice", "warning"}));
  t.push_back(
      String("logfile", "log file path (empty: standard output)", kImmutable, &Config::logfile));
  t.push_back(Enum("wal-fsync", "when the WAL is fsynced: always, everysec, no", kMutable,
                   &Config::wal_fsync, {"always", "everysec", "no"}));
  t.push_back(Integer("wal-sync-delay-us",
                      "under wal-fsync always, how long a sync shared by several clients waits "
                      "for more writes to join it (0: none)",
                      kMutable, &Config::wal_sync_delay_us, 0, 1000000));
  t.push_back(Memory("maxmemory",
                     "bound on memtables, table index and filter blocks, the TLOG cache and client "
                     "buffers together: above it, writes that add data get -OOM (0: none)",
                     kMutable, &Config::maxmemory, 0));
  t.push_back(Memory("memtable-size", "memtable size that triggers a flush to an SST file",
                     kImmutable, &Config::memtable_size, 1024));
  t.push_back(Memory("block-cache-size", "capacity of the SST block cache", kImmutable,
                     &Config::block_cache_size, 0));
  t.push_back(Bool("use-direct-reads",
                   "read SST files with O_DIRECT (the block cache is their only cache); "
                   "align new ones' blocks to pages",
                   kImmutable, &Config::use_direct_reads));
  t.push_back(Memory("tlog-cache-size", "memory for the newest entries of recently read logs",
                     kImmutable, &Config::tlog_cache_size, 0));
  t.push_back(Memory("block-size", "target size of an SST data block", kImmutable,
                     &Config::block_size, 256, 16 << 20));
  t.push_back(Enum("compression", "SST block compression: none, lz4, zstd", kImmutable,
                   &Config::compression, {"none", "lz4", "zstd"}));
  t.push_back(Bool("expiration",
                   "master switch: off freezes expiry (what has expired stays gone, nothing "
                   "more expires; expiry times are still recorded)",
                   kMutable, &Config::expiration, /*on_off=*/true));
  t.push_back(Duration("default-ttl", "TTL of writes that give none and match no ttl-rule",
                       kMutable, &Config::default_ttl_ms, /*allow_unlimited=*/true,
                       /*allow_zero=*/false));
  t.push_back(TtlRules());
  t.push_back(Duration("default-retrieval-grace", "GRACE of reads that give none (0: none)",
                       kMutable, &Config::default_retrieval_grace_ms,
                       /*allow_unlimited=*/false));
  t.push_back(Bool("expiry-whole-file",
                   "delete SST files whose rows have all expired without rewriting them", kMutable,
                   &Config::expiry_whole_file));
  t.push_back(Duration("expiry-purge-deadline",
                       "expired data is physically removed within this long (unlimited: no "
                       "deadline)",
                       kMutable, &Config::expiry_purge_deadline_ms, /*allow_unlimited=*/true));
  for (Option& opt : t) {
    opt.is_protected = std::find(std::begin(kProtectedOptions), std::end(kProtectedOptions),
                                 opt.name) != std::end(kProtectedOptions);
  }
  return t;
}

}  // namespace ebb::server
