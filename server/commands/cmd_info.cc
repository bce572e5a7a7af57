// INFO [section ...]: Redis 7's sections and field names where the concept matches (server,
// clients, memory, persistence, stats, replication, cpu, modules, commandstats, errorstats,
// latencystats, cluster, keyspace) plus `peers` (active-active) and `storage` for the engine.
// Several sections may be named in one call, in any case; `default` (or no argument) is every
// section but commandstats and latencystats, `all` and `everything` are every section; a name INFO
// does not know adds nothing. Sections come in Redis's order, each once. RESP3 replies are a
// verbatim "txt" string, RESP2 a bulk string.
#include <fmt/format.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "common/strings.h"
#include "common/wall_clock.h"
#include "protocol/reply_writer.h"
#include "server/active_active/active_active.h"
#include "server/commands/info_sections.h"
#include "server/commands/register.h"
#include "server/core/command.h"
#include "server/io/block_reader.h"
#include "server/metrics/memory_report.h"
#include "server/replication/info_replication.h"
#include "server/replication/master.h"
#include "server/scripting/script_engine.h"
#include "server/services/server_context.h"
#include "storage/stats.h"
#include "types/keyspace.h"

namespace ebb::server {
namespace {

std::string Human(uint64_t bytes) {
  const char* units[] = {"B", "K", "M", "G", "T"};
  double v = static_cast<double>(bytes);
  int i = 0;
  while (v >= 1024 && i < 4) {
    v /= 1024;
    ++i;
  }
  return i == 0 ? fmt::format("{}B", bytes) : fmt::format("{:.2f}{}", v, units[i]);
}

}  // namespace

void InfoServer(ServerContext& ctx, std::string* out) {
  utsname un{};
  uname(&un);
  int64_t uptime_s = (WallMs() - ctx.start_time_ms()) / 1000;
  *out += fmt::format(
      "# Server\r\nredis_version:7.0.0\r\nebb_version:{}\r\nredis_mode:standalone\r\n"
      "os:{} {} {}\r\narch_bits:{}\r\nmultiplexing_api:epoll\r\nprocess_id:{}\r\n"
      "run_id:{}\r\ntcp_port:{}\r\nserver_time_usec:{}\r\nuptime_in_seconds:{}\r\n"
      "uptime_in_days:{}\r\nexecutable:ebb-server\r\nconfig_file:{}\r\n",
      ctx.version(), un.sysname, un.release, un.machine, sizeof(void*) * 8,
      static_cast<int>(getpid()), ctx.run_id(), ctx.config().port, WallMs() * 1000, uptime_s,
      uptime_s / 86400, ctx.config_registry().config_file());
}

void InfoClients(ServerContext& ctx, std::string* out) {
  const BlockReader* reader = ctx.block_reader();
  *out += fmt::format(
      "# Clients\r\nconnected_clients:{}\r\nmaxclients:{}\r\nblocked_clients:0\r\n"
      "clients_waiting_for_disk:{}\r\n",
      ctx.clients().size(), ctx.config().maxclients, reader ? reader->waiting() : 0);
}

void InfoMemory(ServerContext& ctx, std::string* out) {
  const MemoryReport r = ReadMemoryReport(ctx);
  const uint64_t used = r.used;
  const uint64_t rss = r.rss;
  // The engine's memory: memtables, cached blocks, and the index and filter of every open table.
  const uint64_t engine =
      r.engine_memtables + r.engine_block_cache + r.engine_table_index + r.engine_table_filter;
  // What maxmemory bounds, by part (ServerContext::Memory), and the bound.
  const ServerContext::Memory bounded = ctx.MemoryNow();
  const uint64_t maxmemory = ctx.config().maxmemory;
  *out += fmt::format(
      "# Memory\r\nused_memory:{}\r\nused_memory_human:{}\r\nused_memory_rss:{}\r\n"
      "used_memory_rss_human:{}\r\nused_memory_peak:{}\r\nused_memory_peak_human:{}\r\n"
      "used_memory_startup:{}\r\nused_memory_engine:{}\r\nused_memory_engine_human:{}\r\n"
      "engine_memtable_bytes:{}\r\nengine_block_cache_bytes:{}\r\n"
      "engine_block_cache_capacity:{}\r\nengine_table_index_bytes:{}\r\n"
      "engine_table_filter_bytes:{}\r\nused_memory_bounded:{}\r\n"
      "used_memory_bounded_human:{}\r\nused_memory_memtables:{}\r\n"
      "used_memory_table_metadata:{}\r\nused_memory_tlog_cache:{}\r\nused_memory_clients:{}\r\n"
      "maxmemory:{}\r\nmaxmemory_human:{}\r\nmaxmemory_policy:noeviction\r\n"
      "mem_allocator:libc\r\n",
      used, Human(used), rss, Human(rss), r.peak, Human(r.peak), r.startup, engine, Human(engine),
      r.engine_memtables, r.engine_block_cache, r.engine_block_cache_capacity, r.engine_table_index,
      r.engine_table_filter, bounded.total(), Human(bounded.total()), bounded.memtables,
      bounded.table_metadata, bounded.tlog_cache, bounded.clients, maxmemory, Human(maxmemory));
  ctx.scripts().AppendMemoryInfo(out);
}

void InfoPersistence(ServerContext& ctx, std::string* out) {
  *out += fmt::format(
      "# Persistence\r\nloading:0\r\nasync_loading:0\r\nrdb_changes_since_last_save:0\r\n"
      "rdb_bgsave_in_progress:0\r\naof_enabled:0\r\nwal_fsync:{}\r\n",
      ctx.config().wal_fsync);
  // Like Redis's aof_last_write_status: "err" while the engine refuses writes (MISCONF).
  storage::Status error;
  if (ctx.has_keyspace()) error = ctx.keyspace().db().BackgroundError();
  *out += fmt::format("wal_last_write_status:{}\r\nwal_last_write_error:{}\r\n",
                      error.ok() ? "ok" : "err", error.ok() ? "" : error.message());
}

void InfoStats(ServerContext& ctx, std::string* out) {
  const ServerStats& s = ctx.stats();
  uint64_t expired = ctx.has_keyspace() ? ctx.keyspace().expired_keys() : 0;
  const ReplicationMaster::SyncCounts syncs = ctx.replication_master()
                                                  ? ctx.replication_master()->sync_counts()
                                                  : ReplicationMaster::SyncCounts{};
  *out += fmt::format(
      "# Stats\r\ntotal_connections_received:{}\r\ntotal_commands_processed:{}\r\n"
      "total_net_input_bytes:{}\r\ntotal_net_output_bytes:{}\r\nrejected_connections:{}\r\n"
      "sync_full:{}\r\nsync_partial_ok:{}\r\nsync_partial_err:{}\r\n"
      "expired_keys:{}\r\nevicted_keys:0\r\nkeyspace_hits:{}\r\nkeyspace_misses:{}\r\n"
      // MIGRATE keeps no connection between calls (server/commands/cmd_migrate.cc).
      "migrate_cached_sockets:0\r\n"
      "total_error_replies:{}\r\nclient_query_buffer_limit_disconnections:{}\r\n"
      "client_output_buffer_limit_disconnections:{}\r\nwal_group_commits:{}\r\n",
      s.total_connections_received, s.total_commands_processed, s.total_net_input_bytes,
      s.total_net_output_bytes, s.rejected_connections, syncs.full, syncs.partial_ok,
      syncs.partial_err, expired, s.keyspace_hits, s.keyspace_misses, s.total_error_replies,
      s.client_query_buffer_limit_disconnections, s.client_output_buffer_limit_disconnections,
      s.wal_group_commits);
  *out += fmt::format(
      "dead_on_arrival_own_expiry:{}\r\ndead_on_arrival_ttl_rule:{}\r\n"
      "dead_on_arrival_default_ttl:{}\r\ndead_on_arrival_tlog_cutoff:{}\r\n"
      "dead_on_arrival_tlog_retention:{}\r\n",
      s.dead_on_arrival_own_expiry, s.dead_on_arrival_ttl_rule, s.dead_on_arrival_default_ttl,
      s.dead_on_arrival_tlog_cutoff, s.dead_on_arrival_tlog_retention);
  // Commands that waited for table blocks (server/dispatch/dispatcher.h, "Restartable commands").
  const BlockReader* reader = ctx.block_reader();
  *out += fmt::format(
      "disk_reader:{}\r\ndisk_waits:{}\r\ndisk_reads:{}\r\ndisk_read_bytes:{}\r\n"
      "disk_read_errors:{}\r\ndisk_reads_in_flight:{}\r\ndisk_wait_fallbacks:{}\r\n"
      "inline_block_reads:{}\r\n",
      reader ? reader->backend_name() : "none", s.disk_waits, s.disk_reads, s.disk_read_bytes,
      s.disk_read_errors, reader ? reader->reads_in_flight() : 0, s.disk_wait_fallbacks,
      s.inline_block_reads);
}

void InfoKeyspace(ServerContext& ctx, std::string* out) {
  *out += "# Keyspace\r\n";
  if (!ctx.has_keyspace()) return;
  for (int db = 0; db < ctx.config().databases; ++db) {
    types::DbStats s = ctx.keyspace().GetDbStats(db);
    if (s.keys == 0) continue;
    // A large database's figures are estimates (Keyspace::GetDbStats), and the line says so.
    *out += fmt::format("db{}:keys={},expires={},avg_ttl={}{}\r\n", db, s.keys, s.expires,
                        s.avg_ttl_ms, s.estimated ? ",estimated=1" : "");
  }
}

void InfoStorage(ServerContext& ctx, std::string* out) {
  *out += "# Storage\r\n";
  if (!ctx.has_keyspace()) return;
  storage::Stats s = ctx.keyspace().db().GetStats();
  int files = 0;
  uint64_t bytes = 0;
  for (const storage::LevelStats& l : s.levels) {
    files += l.files;
    bytes += l.bytes;
  }
  *out += fmt::format(
      "levels:{}\r\nfiles:{}\r\nbytes:{}\r\nmemtable_bytes:{}\r\nblock_cache_capacity:{}\r\n"
      "block_cache_bytes:{}\r\nblock_cache_hits:{}\r\nblock_cache_misses:{}\r\n"
      "block_cache_hit_rate:{:.4f}\r\nopen_tables:{}\r\nopen_tables_direct:{}\r\n"
      "table_index_bytes:{}\r\ntable_filter_bytes:{}\r\nflushes:{}\r\nflush_bytes_written:{}\r\n"
      "compactions:{}\r\ncompaction_bytes_read:{}\r\ncompaction_bytes_written:{}\r\n"
      "files_moved:{}\r\nexpired_rows_dropped:{}\r\nfilter_rows_dropped:{}\r\nfiles_expired_whole:{"
      "}\r\n"
      "wal_syncs:{}\r\nwal_bytes:{}\r\nwrite_stalls:{}\r\nlast_sequence:{}\r\n",
      s.levels.size(), files, bytes, s.memtable_bytes, s.block_cache_capacity, s.block_cache_bytes,
      s.block_cache_hits, s.block_cache_misses,
      static_cast<double>(s.block_cache_hits) /
          static_cast<double>(std::max<uint64_t>(s.block_cache_hits + s.block_cache_misses, 1)),
      s.open_tables, s.open_tables_direct, s.table_index_bytes, s.table_filter_bytes, s.flushes,
      s.flush_bytes_written, s.compactions, s.compaction_bytes_read, s.compaction_bytes_written,
      s.files_moved, s.expired_rows_dropped, s.filter_rows_dropped, s.files_expired_whole,
      s.wal_syncs, s.wal_bytes, s.write_stalls, s.last_sequence);
  uint64_t entries = 0;
  for (const storage::LevelStats& l : s.levels) entries += l.entries;
  *out += fmt::format(
      "entries:{}\r\nbytes_expired_whole:{}\r\nrange_deletions:{}\r\n"
      "range_deletions_pending:{}\r\nfiles_deleted_by_range:{}\r\nbytes_deleted_by_range:{}\r\n"
      "versions_deleted:{}\r\npurge_hints_pending:{}\r\n",
      entries, s.bytes_expired_whole, s.range_deletions, s.range_deletions_pending,
      s.files_deleted_by_range, s.bytes_deleted_by_range, s.versions_deleted,
      s.purge_hints_pending);
  // Expiry and purge progress, compaction debt, and the disk reads' latency distribution:
  // per bucket "<upper bound in us>=<reads that took at most that long>" (cumulative), then
  // "inf=<all reads>".
  const storage::DiskReadHistogram& reads = s.disk_read_latency;
  std::string buckets;
  uint64_t cumulative = 0;
  for (size_t i = 0; i < reads.counts.size(); ++i) {
    cumulative += reads.counts[i];
    buckets += i < reads.bounds_us.size() ? fmt::format("{}={},", reads.bounds_us[i], cumulative)
                                          : fmt::format("inf={}", cumulative);
  }
  *out += fmt::format(
      "expired_rewritten_bytes:{}\r\nexpired_pending_bytes:{}\r\noldest_expired_age_ms:{}\r\n"
      "expiry_purge_deadline_ms:{}\r\ncompaction_pending_bytes:{}\r\ndisk_reads_timed:{}\r\n"
      "disk_read_time_us:{}\r\ndisk_read_latency_us:{}\r\n",
      s.expired_rewritten_bytes, s.expired_pending_bytes, s.oldest_expired_age_ms,
      s.purge_deadline_ms, s.compaction_pending_bytes, reads.count, reads.sum_ns / 1000, buckets);
  // A compaction that keeps failing (a full disk: compaction_error) or tables it found damaged,
  // which it leaves alone (the engine logs each with what it found).
  std::string damaged;
  for (const std::string& what : s.damaged_tables) damaged += (damaged.empty() ? "" : "; ") + what;
  *out += fmt::format("compaction_errors:{}\r\ncompaction_error:{}\r\ndamaged_tables:{}\r\n",
                      s.compaction_errors, s.compaction_error, damaged);
  const types::TlogHeadCache& heads = ctx.keyspace().tlog_heads();
  *out += fmt::format("tlog_cache_bytes:{}\r\ntlog_cache_hits:{}\r\ntlog_cache_misses:{}\r\n",
                      heads.bytes(), heads.hits(), heads.misses());
  for (size_t i = 0; i < s.levels.size(); ++i) {
    *out += fmt::format("level{}:files={},bytes={}\r\n", i, s.levels[i].files, s.levels[i].bytes);
  }
}

void InfoModules(ServerContext&, std::string* out) { *out += "# Modules\r\n"; }

void InfoCluster(ServerContext& ctx, std::string* out) {
  *out += ctx.config().cluster_enabled ? "# Cluster\r\ncluster_enabled:1\r\n"
                                       : "# Cluster\r\ncluster_enabled:0\r\n";
}

namespace {

// INFO peers: active-active mode and each peer's link (server/active_active/active_active.h).
void InfoPeers(ServerContext& ctx, std::string* out) {
  if (ActiveActive* aa = ctx.active_active()) return aa->AppendInfo(out);
  *out += "# Peers\r\nactive_active:no\r\n";
}

struct Section {
  const char* name;
  bool in_default;
  void (*fill)(ServerContext&, std::string*);
};

constexpr Section kSections[] = {
    {"server", true, InfoServer},
    {"clients", true, InfoClients},
    {"memory", true, InfoMemory},
    {"persistence", true, InfoPersistence},
    {"stats", true, InfoStats},
    {"replication", true, AppendReplicationInfo},
    {"peers", true, InfoPeers},  // active-active
    {"cpu", true, InfoCpu},
    {"modules", true, InfoModules},
    {"commandstats", false, InfoCommandStats},
    {"errorstats", true, InfoErrorStats},
    {"latencystats", false, InfoLatencyStats},
    {"cluster", true, InfoCluster},
    {"keyspace", true, InfoKeyspace},
    {"storage", true, InfoStorage},
};

struct InfoOptions {
  std::set<std::string, std::less<>> sections;  // lower case, as named
  bool all = false;
  bool defaults = false;
};

InfoOptions ParseInfo(ArgParser& args) {
  InfoOptions o;
  o.defaults = !args.HasMore();
  while (args.HasMore()) {
    std::string name = AsciiLower(args.Next());
    if (name == "all" || name == "everything") {
      o.all = true;
    } else if (name == "default") {
      o.defaults = true;
    } else {
      o.sections.insert(std::move(name));
    }
  }
  return o;
}

void ExecuteInfo(CommandContext& ctx, const InfoOptions& o) {
  std::string text;
  for (const Section& section : kSections) {
    const bool wanted = o.all || (o.defaults && section.in_default) ||
                        o.sections.find(std::string_view(section.name)) != o.sections.end();
    if (!wanted) continue;
    if (!text.empty()) text += "\r\n";
    section.fill(ctx.server, &text);
  }
  ctx.reply.Verbatim("txt", text);
}

}  // namespace

std::vector<CommandSpec> InfoCommands() {
  return {{.name = "info",
           .arity = -1,
           .flags = kCmdLoading | kCmdStale,
           .group = "server",
           .summary = "Returns information and statistics about the server.",
           .arguments = {{.name = "section", .optional = true, .multiple = true}},
           .handler = Handler<ParseInfo, ExecuteInfo>}};
}

}  // namespace ebb::server
