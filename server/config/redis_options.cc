#include "server/config/redis_options.h"

#include <utility>

namespace ebb::server {
namespace {

struct RedisOnly {
  std::string_view name;
  const char* reason;
};

constexpr const char* kPersistence =
    "ebb persists every write through its WAL and tables (wal-fsync), not RDB or AOF files";
constexpr const char* kEncoding = "ebb stores values in its own engine, not Redis's encodings";
constexpr const char* kRedisTask = "ebb has no such background task";
constexpr const char* kProcess = "ebb-server runs in the foreground under its supervisor";
constexpr const char* kFullSync =
    "ebb's full resynchronisation streams its table files to the replica as they are";
constexpr const char* kNoModules = "ebb loads no modules";

constexpr RedisOnly kRedisOnly[] = {
    // RDB snapshots and the AOF.
    {"save", kPersistence},
    {"appendonly", kPersistence},
    {"appendfilename", kPersistence},
    {"appenddirname", kPersistence},
    {"dbfilename", kPersistence},
    {"rdbcompression", kPersistence},
    {"rdbchecksum", kPersistence},
    {"rdb-del-sync-files", kPersistence},
    {"rdb-save-incremental-fsync", kPersistence},
    {"stop-writes-on-bgsave-error", kPersistence},
    {"no-appendfsync-on-rewrite", kPersistence},
    {"auto-aof-rewrite-percentage", kPersistence},
    {"auto-aof-rewrite-min-size", kPersistence},
    {"aof-load-truncated", kPersistence},
    {"aof-use-rdb-preamble", kPersistence},
    {"aof-rewrite-incremental-fsync", kPersistence},
    {"aof-timestamp-enabled", kPersistence},
    // Redis's in-memory encodings and allocator.
    {"hash-max-listpack-entries", kEncoding},
    {"hash-max-listpack-value", kEncoding},
    {"hash-max-ziplist-entries", kEncoding},
    {"hash-max-ziplist-value", kEncoding},
    {"list-max-listpack-size", kEncoding},
    {"list-max-ziplist-size", kEncoding},
    {"list-compress-depth", kEncoding},
    {"set-max-intset-entries", kEncoding},
    {"zset-max-listpack-entries", kEncoding},
    {"zset-max-listpack-value", kEncoding},
    {"zset-max-ziplist-entries", kEncoding},
    {"zset-max-ziplist-value", kEncoding},
    {"hll-sparse-max-bytes", kEncoding},
    {"stream-node-max-bytes", kEncoding},
    {"stream-node-max-entries", kEncoding},
    {"activerehashing", kEncoding},
    {"jemalloc-bg-thread", kEncoding},
    {"activedefrag", kEncoding},
    // Redis's background work.
    {"hz", kRedisTask},
    {"dynamic-hz", kRedisTask},
    {"lazyfree-lazy-eviction", kRedisTask},
    {"lazyfree-lazy-expire", kRedisTask},
    {"lazyfree-lazy-server-del", kRedisTask},
    {"lazyfree-lazy-user-del", kRedisTask},
    {"lazyfree-lazy-user-flush", kRedisTask},
    {"replica-lazy-flush", kRedisTask},
    // Redis's RDB transfer to replicas.
    {"repl-diskless-sync", kFullSync},
    {"repl-diskless-sync-delay", kFullSync},
    {"repl-diskless-sync-max-replicas", kFullSync},
    {"repl-diskless-load", kFullSync},
    // Modules.
    {"enable-module-command", kNoModules},
    // The process.
    {"daemonize", kProcess},
    {"supervised", kProcess},
    {"pidfile", kProcess},
    {"always-show-logo", kProcess},
    {"set-proc-title", kProcess},
    {"proc-title-template", kProcess},
};

}  // namespace

const char* RedisOnlyOption(std::string_view name) {
  for (const RedisOnly& option : kRedisOnly) {
    if (option.name == name) return option.reason;
  }
  return nullptr;
}

std::string_view MapRedisOptionName(std::string_view name) {
  // Redis's older names of the replication options (slave-read-only, slaveof, ...).
  static constexpr std::pair<std::string_view, std::string_view> kAliases[] = {
      {"appendfsync", "wal-fsync"},
      {"lua-time-limit", "busy-reply-threshold"},
      {"slaveof", "replicaof"},
      {"slave-read-only", "replica-read-only"},
      {"slave-serve-stale-data", "replica-serve-stale-data"},
      {"slave-priority", "replica-priority"},
      {"slave-announce-ip", "replica-announce-ip"},
      {"slave-announce-port", "replica-announce-port"},
      {"slave-announced", "replica-announced"},
      {"min-slaves-to-write", "min-replicas-to-write"},
      {"min-slaves-max-lag", "min-replicas-max-lag"},
      {"repl-ping-slave-period", "repl-ping-replica-period"},
  };
  for (const auto& [alias, name_now] : kAliases) {
    if (name == alias) return name_now;
  }
  return name;
}

}  // namespace ebb::server
