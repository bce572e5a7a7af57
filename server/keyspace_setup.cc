#include "server/keyspace_setup.h"

#include <spdlog/spdlog.h>

#include "server/active_active/active_active.h"
#include "server/active_active/mode_rows.h"
#include "server/replication/master.h"
#include "server/services/server_context.h"
#include "storage/disk_read_latency.h"
#include "storage/engine_latency.h"
#include "types/keyspace.h"
#include "types/series_index.h"

namespace ebb::server {
namespace {

storage::WalFsync WalFsyncFrom(const std::string& text) {
  if (text == "always") return storage::WalFsync::kAlways;
  if (text == "no") return storage::WalFsync::kNo;
  return storage::WalFsync::kEverySec;
}

storage::Compression CompressionFrom(const std::string& text) {
  if (text == "none") return storage::Compression::kNone;
  if (text == "zstd") return storage::Compression::kZstd;
  return storage::Compression::kLz4;
}

}  // namespace

storage::Options EngineOptions(const Config& config, std::shared_ptr<storage::Clock> clock) {
  storage::Options options;
  options.clock = std::move(clock);
  options.memtable_size = config.memtable_size;
  options.block_size = config.block_size;
  options.block_cache_size = config.block_cache_size;
  options.use_direct_reads = config.use_direct_reads;
  options.compression = CompressionFrom(config.compression);
  options.wal_fsync = WalFsyncFrom(config.wal_fsync);
  options.expiration_enabled = config.expiration;
  options.whole_file_expiry = config.expiry_whole_file;
  options.purge_deadline_ms = config.expiry_purge_deadline_ms;
  options.engine_latency = std::make_shared<storage::EngineLatency>();
  // Shared by every DB the keyspace opens and by the block reader (server/net/server.cc).
  options.disk_read_latency = std::make_shared<storage::DiskReadLatency>();
  // The origin log's rows are written in offset order and leave the oldest first: in files of
  // their own they move down unread and leave whole (docs/active-active.md, "The origin log").
  options.separate_file_prefixes = {types::Keyspace::SystemRowKey(kLogRowPrefix)};
  return options;
}

void ApplyTypeSettings(const Config& config, types::Keyspace* ks) {
  ks->set_ttl_policy(types::TtlPolicy(config.default_ttl_ms, config.ttl_rules));
  ks->set_default_retrieval_grace(config.default_retrieval_grace_ms);
  ks->set_defer_sync(config.wal_fsync == "always");  // group commit
}

bool IndexSeriesLabels(const Config& config, types::Keyspace* ks) {
  if (!config.replicaof_host.empty()) return true;
  bool ready = false;
  storage::Status s = types::SeriesIndexReady(*ks, &ready);
  if (s.ok() && ready) return true;
  if (s.ok()) spdlog::debug("Indexing the series' labels (a data directory without the index)");
  types::SeriesIndexBuild build;
  if (s.ok()) s = types::BuildSeriesIndex(*ks, &build);
  if (!s.ok()) {
    spdlog::warn("Cannot index the series' labels (queries walk the keys instead): {}",
                 s.ToString());
    return false;
  }
  if (build.series > 0 || build.skipped > 0) {  // a new, empty directory says nothing
    spdlog::info("Indexed the labels of {} series ({} index rows){}", build.series, build.rows,
                 build.skipped > 0
                     ? fmt::format("; {} series with unreadable metadata left out", build.skipped)
                     : std::string());
  }
  return true;
}

void ApplyRuntimeChange(std::string_view name, const Config& config, ServerContext* ctx) {
  if (!ctx->has_keyspace()) return;
  types::Keyspace& ks = ctx->keyspace();
  ApplyTypeSettings(config, &ks);
  if (name == "wal-fsync") {
    ks.SetWalFsync(WalFsyncFrom(config.wal_fsync));
  } else if (name == "expiration") {
    // The switch is recorded in the manifest (the frozen expiry clock); if that write fails the
    // engine keeps running with the switch set and says why here.
    storage::Status s = ks.SetExpirationEnabled(config.expiration);
    if (!s.ok()) spdlog::warn("expiration {}: {}", config.expiration ? "on" : "off", s.ToString());
  } else if (name == "expiry-whole-file") {
    ks.SetWholeFileExpiry(config.expiry_whole_file);
  } else if (name == "expiry-purge-deadline") {
    ks.SetPurgeDeadline(config.expiry_purge_deadline_ms);
  } else if (name == "repl-backlog-size") {
    if (ReplicationMaster* master = ctx->replication_master()) {
      master->ResizeBacklog(config.repl_backlog_size);
    }
  } else if (name == "notify-keyspace-events") {
    ctx->expiry_events().Poll();  // builds (or drops) the expiry index now, before keys expire
  }
}

}  // namespace ebb::server
