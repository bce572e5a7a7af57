// The metrics of the engine and ebb's own counters (server/metrics/metrics.h).
#include <limits>
#include <string>
#include <vector>

#include "server/io/block_reader.h"
#include "server/metrics/metrics.h"
#include "server/metrics/prometheus_text.h"
#include "server/services/latency_monitor.h"
#include "server/services/server_context.h"
#include "storage/db.h"
#include "storage/stats.h"
#include "types/keyspace.h"
#include "types/tlog_head_cache.h"

namespace ebb::server {
namespace {

using enum MetricType;

void Levels(const storage::Stats& s, PrometheusText* out) {
  out->Single("ebb_levels", kGauge, "Levels of the LSM tree.", uint64_t{s.levels.size()});
  auto level = [](size_t i) { return std::vector<MetricLabel>{{"level", std::to_string(i)}}; };
  out->Family("ebb_level_files", kGauge, "Table files per level.");
  for (size_t i = 0; i < s.levels.size(); ++i) {
    out->Sample("ebb_level_files", level(i), s.levels[i].files);
  }
  out->Family("ebb_level_bytes", kGauge, "Bytes of the table files per level.");
  for (size_t i = 0; i < s.levels.size(); ++i) {
    out->Sample("ebb_level_bytes", level(i), s.levels[i].bytes);
  }
  out->Family("ebb_level_entries", kGauge, "Rows of every kind in the table files per level.");
  for (size_t i = 0; i < s.levels.size(); ++i) {
    out->Sample("ebb_level_entries", level(i), s.levels[i].entries);
  }
}

void Caches(ServerContext& ctx, const storage::Stats& s, PrometheusText* out) {
  out->Single("ebb_memtable_bytes", kGauge, "Bytes of the active and frozen memtables.",
              s.memtable_bytes);
  out->Single("ebb_block_cache_capacity_bytes", kGauge, "The block cache's capacity.",
              s.block_cache_capacity);
  out->Single("ebb_block_cache_bytes", kGauge, "Bytes of blocks in the block cache.",
              s.block_cache_bytes);
  out->Single("ebb_block_cache_hits_total", kCounter, "Block reads served by the block cache.",
              s.block_cache_hits);
  out->Single("ebb_block_cache_misses_total", kCounter, "Block reads the block cache missed.",
              s.block_cache_misses);
  out->Single("ebb_open_tables", kGauge, "Table files open (the table cache).", s.open_tables);
  out->Single("ebb_open_tables_direct", kGauge, "Open table files read with direct I/O.",
              s.open_tables_direct);
  out->Single("ebb_table_index_bytes", kGauge, "Index blocks of the open tables.",
              s.table_index_bytes);
  out->Single("ebb_table_filter_bytes", kGauge, "Bloom filters of the open tables.",
              s.table_filter_bytes);
  const types::TlogHeadCache& heads = ctx.keyspace().tlog_heads();
  out->Single("ebb_tlog_cache_bytes", kGauge, "Bytes of the TLOG head cache.",
              uint64_t{heads.bytes()});
  out->Single("ebb_tlog_cache_hits_total", kCounter, "TLOG head lookups the cache served.",
              heads.hits());
  out->Single("ebb_tlog_cache_misses_total", kCounter, "TLOG head lookups the cache missed.",
              heads.misses());
}

void Work(const storage::Stats& s, PrometheusText* out) {
  out->Single("ebb_flushes_total", kCounter, "Memtables written to level-0 tables.", s.flushes);
  out->Single("ebb_flush_written_bytes_total", kCounter, "Bytes those flushes wrote.",
              s.flush_bytes_written);
  out->Single("ebb_compactions_total", kCounter, "Compactions run.", s.compactions);
  out->Single("ebb_compaction_read_bytes_total", kCounter, "Bytes compactions read.",
              s.compaction_bytes_read);
  out->Single("ebb_compaction_written_bytes_total", kCounter, "Bytes compactions wrote.",
              s.compaction_bytes_written);
  out->Single("ebb_files_moved_total", kCounter,
              "Level-0 tables moved down whole, unread (a separate key range's own files).",
              s.files_moved);
  out->Single("ebb_compaction_errors_total", kCounter,
              "Compactions that failed (their inputs stay as they were).", s.compaction_errors);
  out->Single("ebb_compaction_failing", kGauge,
              "1 while compactions fail on an I/O error and are retried.",
              s.compaction_error.empty() ? 0 : 1);
  out->Single("ebb_damaged_tables", kGauge, "Tables compaction found damaged and leaves alone.",
              uint64_t{s.damaged_tables.size()});
  out->Single("ebb_compaction_pending_bytes", kGauge,
              "Compaction debt: bytes compaction must still move to bring every level within its "
              "target size (level 0's bytes once it reaches its compaction trigger, then each "
              "level's excess over its target, the excess moved down from above included).",
              s.compaction_pending_bytes);
  out->Single("ebb_write_stalls_total", kCounter,
              "Times writes began to wait for a flush or compaction.", s.write_stalls);
  out->Single("ebb_wal_syncs_total", kCounter, "WAL syncs (fdatasync).", s.wal_syncs);
  out->Single("ebb_wal_written_bytes_total", kCounter, "Bytes written to the WAL.", s.wal_bytes);
  out->Single("ebb_last_sequence", kGauge, "The engine's last write sequence number.",
              s.last_sequence);
  out->Single("ebb_iterator_trees_built_total", kCounter, "Iterator trees built.",
              s.iterator_trees_built);
  out->Single("ebb_iterator_trees_reused_total", kCounter, "Spare iterator trees reused.",
              s.iterator_trees_reused);
}

void Expiry(const storage::Stats& s, PrometheusText* out) {
  out->Single("ebb_expired_rows_dropped_total", kCounter,
              "Expired rows compaction dropped or turned to tombstones (rewritten away).",
              s.expired_rows_dropped);
  out->Single("ebb_filter_rows_dropped_total", kCounter,
              "Rows the data types' compaction filter dropped.", s.filter_rows_dropped);
  out->Single("ebb_dead_versions_collected_total", kCounter,
              "Dead versions kept for active-active peers that compaction collected.",
              s.dead_versions_collected);
  out->Single("ebb_dead_rows_in_tables", kGauge,
              "Dead rows (tombstones, wipes) in the table files: kept dead versions and those no "
              "compaction has reached yet.",
              s.dead_rows_in_tables);
  out->Single("ebb_files_expired_whole_total", kCounter,
              "Table files deleted whole because every row in them expired.",
              s.files_expired_whole);
  out->Single("ebb_expired_whole_file_bytes_total", kCounter,
              "Bytes reclaimed by deleting fully expired files, without a rewrite.",
              s.bytes_expired_whole);
  out->Single("ebb_expired_rewritten_bytes_total", kCounter,
              "Key and value bytes of the expired rows compaction dropped or turned to "
              "tombstones: bytes reclaimed by rewriting.",
              s.expired_rewritten_bytes);
  out->Single("ebb_expired_pending_bytes", kGauge,
              "Sizes of the table files holding at least one row already expired by the "
              "engine's expiry clock (whole files: an upper bound on the expired bytes awaiting "
              "purge; memtables not counted).",
              s.expired_pending_bytes);
  out->Single("ebb_oldest_expired_age_seconds", kGauge,
              "How long ago the earliest expiry among those files passed, on the expiry clock "
              "(0: no file holds an expired row); compare with ebb_expiry_purge_deadline_seconds.",
              static_cast<double>(s.oldest_expired_age_ms) / 1000);
  out->Single("ebb_expiry_purge_deadline_seconds", kGauge,
              "expiry-purge-deadline: expired rows are physically removed within this long of "
              "their expiry (+Inf: unlimited, no deadline).",
              s.purge_deadline_ms < 0 ? std::numeric_limits<double>::infinity()
                                      : static_cast<double>(s.purge_deadline_ms) / 1000);
  out->Single("ebb_range_deletions_total", kCounter, "Key ranges deleted.", s.range_deletions);
  out->Single("ebb_range_deletions_pending", kGauge,
              "Range deletions not yet applied to every file.", s.range_deletions_pending);
  out->Single("ebb_files_deleted_by_range_total", kCounter,
              "Table files deleted whole because a range deletion covers them.",
              s.files_deleted_by_range);
  out->Single("ebb_deleted_by_range_bytes_total", kCounter, "Bytes of those files.",
              s.bytes_deleted_by_range);
  out->Single("ebb_versions_deleted_total", kCounter,
              "Versions compaction dropped under a wipe or range deletion.", s.versions_deleted);
  out->Single("ebb_purge_hints_pending", kGauge, "Purge hints not yet applied.",
              s.purge_hints_pending);
}

void DiskReadLatency(const storage::Stats& s, PrometheusText* out) {
  const storage::DiskReadHistogram& h = s.disk_read_latency;
  std::vector<double> bounds;
  bounds.reserve(h.bounds_us.size());
  for (uint64_t us : h.bounds_us) bounds.push_back(static_cast<double>(us) / 1e6);
  out->Histogram("ebb_disk_read_duration_seconds",
                 "Reads of table data blocks that missed the block cache, by how long they took: "
                 "the block reader's (from its Read call to the read's completion) and the "
                 "engine's inline reads; not readahead nor table opens.",
                 bounds, h.counts, static_cast<double>(h.sum_ns) / 1e9);
}

void ServerCounters(ServerContext& ctx, PrometheusText* out) {
  const ServerStats& s = ctx.stats();
  out->Family("ebb_dead_on_arrival_writes_total", kCounter,
              "Writes answered OK that were already expired, by where the expiry came from.");
  out->Sample("ebb_dead_on_arrival_writes_total", {{"reason", "own_expiry"}},
              s.dead_on_arrival_own_expiry);
  out->Sample("ebb_dead_on_arrival_writes_total", {{"reason", "ttl_rule"}},
              s.dead_on_arrival_ttl_rule);
  out->Sample("ebb_dead_on_arrival_writes_total", {{"reason", "default_ttl"}},
              s.dead_on_arrival_default_ttl);
  out->Sample("ebb_dead_on_arrival_writes_total", {{"reason", "tlog_cutoff"}},
              s.dead_on_arrival_tlog_cutoff);
  out->Sample("ebb_dead_on_arrival_writes_total", {{"reason", "tlog_retention"}},
              s.dead_on_arrival_tlog_retention);
  out->Single("ebb_wal_group_commits_total", kCounter,
              "WAL syncs made for a batch of writes under wal-fsync always.", s.wal_group_commits);
  const BlockReader* reader = ctx.block_reader();
  out->Single("ebb_disk_waits_total", kCounter,
              "Command runs that waited for table blocks read off the command thread.",
              s.disk_waits);
  out->Single("ebb_disk_reads_total", kCounter, "Blocks read off the command thread.",
              s.disk_reads);
  out->Single("ebb_disk_read_bytes_total", kCounter, "Bytes those reads asked the device for.",
              s.disk_read_bytes);
  out->Single("ebb_disk_read_errors_total", kCounter, "Those reads that failed.",
              s.disk_read_errors);
  out->Single("ebb_disk_reads_in_flight", kGauge, "Block reads under way.",
              uint64_t{reader ? reader->reads_in_flight() : 0});
  out->Single("ebb_disk_wait_fallbacks_total", kCounter,
              "Runs that read inline after reaching the bound on rounds or pinned bytes.",
              s.disk_wait_fallbacks);
  out->Single("ebb_inline_block_reads_total", kCounter,
              "Blocks read inline on the command thread after a command's first write.",
              s.inline_block_reads);
}

// LATENCY's events (latency-monitor-threshold > 0): the latest sample and the all-time max.
void LatencyEvents(ServerContext& ctx, PrometheusText* out) {
  ctx.CollectLatencySamples();  // as LATENCY does before it reads the table
  const auto& events = ctx.latency().events();
  out->Family("ebb_latency_event_last_seconds", kGauge,
              "Per LATENCY event: its latest sample (events at least latency-monitor-threshold "
              "long; wal-fsync, memtable-flush, compaction, purge-compaction, file-drop, command, "
              "...).");
  for (const auto& [name, series] : events) {
    if (series.samples.empty()) continue;
    out->Sample("ebb_latency_event_last_seconds", {{"event", name}},
                static_cast<double>(series.samples.back().latency_ms) / 1000);
  }
  out->Family("ebb_latency_event_max_seconds", kGauge,
              "Per LATENCY event: the longest sample since its last LATENCY RESET.");
  for (const auto& [name, series] : events) {
    out->Sample("ebb_latency_event_max_seconds", {{"event", name}},
                static_cast<double>(series.max_ms) / 1000);
  }
}

}  // namespace

void AppendEngineMetrics(ServerContext& ctx, PrometheusText* out) {
  ServerCounters(ctx, out);
  LatencyEvents(ctx, out);
  if (!ctx.has_keyspace()) return;
  storage::Status error = ctx.keyspace().db().BackgroundError();
  out->Single("ebb_wal_last_write_ok", kGauge,
              "0 while the engine refuses writes after a failed write (MISCONF), else 1.",
              error.ok() ? 1 : 0);
  const storage::Stats s = ctx.keyspace().db().GetStats();
  Levels(s, out);
  Caches(ctx, s, out);
  Work(s, out);
  Expiry(s, out);
  DiskReadLatency(s, out);
}

}  // namespace ebb::server
