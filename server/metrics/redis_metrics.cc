// The metrics of what Redis's INFO also reports (server/metrics/metrics.h).
#include <fmt/format.h>
#include <sys/resource.h>

#include <string>
#include <vector>

#include "common/cycle_clock.h"
#include "common/wall_clock.h"
#include "server/core/command.h"
#include "server/core/command_stats.h"
#include "server/io/block_reader.h"
#include "server/metrics/memory_report.h"
#include "server/metrics/metrics.h"
#include "server/metrics/prometheus_text.h"
#include "server/replication/replica.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"

namespace ebb::server {
namespace {

using enum MetricType;

double Seconds(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

void ServerAndClients(ServerContext& ctx, PrometheusText* out) {
  out->Single("redis_up", kGauge, "1 while the server answers scrapes.", 1);
  const ReplicaLink* link = ctx.replica_link();
  const bool replica = link != nullptr && link->is_replica();
  out->Family("redis_instance_info", kGauge, "Always 1; the labels describe the server.");
  out->Sample("redis_instance_info",
              {{"redis_version", "7.0.0"},
               {"ebb_version", ctx.version()},
               {"redis_mode", ctx.config().cluster_enabled ? "cluster" : "standalone"},
               {"role", replica ? "slave" : "master"},
               {"run_id", ctx.run_id()},
               {"tcp_port", std::to_string(ctx.config().port)}},
              1);
  out->Single("redis_start_time_seconds", kGauge, "When the server started, unix seconds.",
              static_cast<double>(ctx.start_time_ms()) / 1000);
  out->Single("redis_uptime_in_seconds", kGauge, "Seconds since the server started.",
              (WallMs() - ctx.start_time_ms()) / 1000);
  out->Single("redis_connected_clients", kGauge, "Client connections open.",
              uint64_t{ctx.clients().size()});
  out->Single("redis_max_clients", kGauge, "The maxclients option.", ctx.config().maxclients);
  const BlockReader* reader = ctx.block_reader();
  out->Single("ebb_clients_waiting_for_disk", kGauge,
              "Clients whose command waits for table blocks read off the command thread.",
              uint64_t{reader ? reader->waiting() : 0});
}

void Memory(ServerContext& ctx, PrometheusText* out) {
  const MemoryReport r = ReadMemoryReport(ctx);
  out->Single("redis_memory_used_bytes", kGauge, "Bytes the program holds from the allocator.",
              r.used);
  out->Single("redis_memory_used_rss_bytes", kGauge, "Resident set size of the process.", r.rss);
  out->Single("redis_memory_used_peak_bytes", kGauge,
              "Largest redis_memory_used_bytes seen since start or CONFIG RESETSTAT.", r.peak);
  out->Single("redis_memory_used_startup_bytes", kGauge,
              "redis_memory_used_bytes when the server began serving.", r.startup);
  out->Single("redis_memory_max_bytes", kGauge, "The maxmemory option (0: no bound).",
              ctx.config().maxmemory);
  out->Single("redis_memory_used_lua_bytes", kGauge, "The Lua heap of scripts and functions.",
              r.lua);
  out->Single("redis_memory_used_scripts_bytes", kGauge, "Source of the cached scripts.",
              r.script_cache);
  out->Single("redis_number_of_cached_scripts", kGauge, "Scripts cached by EVAL and SCRIPT LOAD.",
              r.cached_scripts);
  const ServerContext::Memory bounded = ctx.MemoryNow();
  out->Family("ebb_memory_bounded_bytes", kGauge,
              "What maxmemory bounds, by part: memtables, table_metadata (open tables' index and "
              "filter blocks), tlog_cache, clients (their buffers).");
  out->Sample("ebb_memory_bounded_bytes", {{"part", "memtables"}}, bounded.memtables);
  out->Sample("ebb_memory_bounded_bytes", {{"part", "table_metadata"}}, bounded.table_metadata);
  out->Sample("ebb_memory_bounded_bytes", {{"part", "tlog_cache"}}, bounded.tlog_cache);
  out->Sample("ebb_memory_bounded_bytes", {{"part", "clients"}}, bounded.clients);
}

void Stats(ServerContext& ctx, PrometheusText* out) {
  const ServerStats& s = ctx.stats();
  out->Single("redis_connections_received_total", kCounter, "Client connections accepted.",
              s.total_connections_received);
  out->Single("redis_rejected_connections_total", kCounter,
              "Connections refused because of maxclients.", s.rejected_connections);
  out->Single("redis_commands_processed_total", kCounter, "Commands run.",
              s.total_commands_processed);
  out->Single("redis_net_input_bytes_total", kCounter, "Bytes read from clients.",
              s.total_net_input_bytes);
  out->Single("redis_net_output_bytes_total", kCounter, "Bytes written to clients.",
              s.total_net_output_bytes);
  out->Single("redis_keyspace_hits_total", kCounter, "Key lookups that found the key.",
              s.keyspace_hits);
  out->Single("redis_keyspace_misses_total", kCounter, "Key lookups that did not find the key.",
              s.keyspace_misses);
  out->Single("redis_expired_keys_total", kCounter, "Keys a command found expired.",
              ctx.has_keyspace() ? ctx.keyspace().expired_keys() : 0);
  out->Single("redis_total_error_replies_total", kCounter, "Error replies sent.",
              s.total_error_replies);
  out->Single("redis_client_query_buffer_limit_disconnections_total", kCounter,
              "Clients closed for exceeding client-query-buffer-limit.",
              s.client_query_buffer_limit_disconnections);
  out->Single("redis_client_output_buffer_limit_disconnections_total", kCounter,
              "Clients closed for exceeding client-output-buffer-limit.",
              s.client_output_buffer_limit_disconnections);
  out->Family("redis_errors_total", kCounter, "Error replies by error code (errorstats).");
  for (const auto& [code, count] : ctx.command_stats().errors()) {
    out->Sample("redis_errors_total", {{"err", code}}, count);
  }
}

void Cpu(PrometheusText* out) {
  rusage self{}, children{}, thread{};
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  getrusage(RUSAGE_THREAD, &thread);  // the command thread, which serves scrapes
  out->Single("redis_cpu_sys_seconds_total", kCounter, "System CPU of the process.",
              Seconds(self.ru_stime));
  out->Single("redis_cpu_user_seconds_total", kCounter, "User CPU of the process.",
              Seconds(self.ru_utime));
  out->Single("redis_cpu_sys_children_seconds_total", kCounter,
              "System CPU of waited-for child processes.", Seconds(children.ru_stime));
  out->Single("redis_cpu_user_children_seconds_total", kCounter,
              "User CPU of waited-for child processes.", Seconds(children.ru_utime));
  out->Single("redis_cpu_sys_main_thread_seconds_total", kCounter,
              "System CPU of the command thread.", Seconds(thread.ru_stime));
  out->Single("redis_cpu_user_main_thread_seconds_total", kCounter,
              "User CPU of the command thread.", Seconds(thread.ru_utime));
}

// Calls a function for each command row with counts, subcommands after their command.
template <typename F>
void ForEachCountedRow(ServerContext& ctx, F f) {
  const CommandStats& stats = ctx.command_stats();
  auto visit = [&](const CommandSpec& spec) {
    const CommandCallStats* row = stats.find(spec.id);
    if (row == nullptr || (row->calls == 0 && row->rejected_calls == 0 && row->failed_calls == 0)) {
      return;
    }
    f(spec, *row);
  };
  for (const auto& [name, spec] : ctx.commands().rows()) {
    visit(spec);
    for (const CommandSpec& sub : spec.subcommands) visit(sub);
  }
}

void Commands(ServerContext& ctx, PrometheusText* out) {
  const double ticks_per_us = CycleClock::TicksPerMicrosecond();
  auto usec = [ticks_per_us](uint64_t ticks) { return static_cast<double>(ticks) / ticks_per_us; };
  out->Family("redis_commands_total", kCounter, "Calls of each command that ran to completion.");
  ForEachCountedRow(ctx, [&](const CommandSpec& spec, const CommandCallStats& row) {
    out->Sample("redis_commands_total", {{"cmd", spec.full_name}}, row.calls);
  });
  out->Family("redis_commands_duration_seconds_total", kCounter,
              "Time each command's calls took to run.");
  ForEachCountedRow(ctx, [&](const CommandSpec& spec, const CommandCallStats& row) {
    out->Sample("redis_commands_duration_seconds_total", {{"cmd", spec.full_name}},
                usec(row.ticks) / 1e6);
  });
  out->Family("redis_commands_rejected_calls_total", kCounter,
              "Calls refused before the command ran (arity, NOAUTH, OOM, ...).");
  ForEachCountedRow(ctx, [&](const CommandSpec& spec, const CommandCallStats& row) {
    out->Sample("redis_commands_rejected_calls_total", {{"cmd", spec.full_name}},
                row.rejected_calls);
  });
  out->Family("redis_commands_failed_calls_total", kCounter,
              "Calls that ran and replied an error.");
  ForEachCountedRow(ctx, [&](const CommandSpec& spec, const CommandCallStats& row) {
    out->Sample("redis_commands_failed_calls_total", {{"cmd", spec.full_name}}, row.failed_calls);
  });
  // latencystats: the latency-tracking-info-percentiles of each command with recorded calls.
  const std::vector<double>& percentiles = ctx.config().latency_tracking_info_percentiles;
  out->Family("redis_latency_percentiles_usec", MetricType::kSummary,
              "Per command: latency percentiles in microseconds (latency-tracking), with the "
              "calls' total microseconds (_sum) and count (_count).");
  ForEachCountedRow(ctx, [&](const CommandSpec& spec, const CommandCallStats& row) {
    const LatencyHistogram* histogram = row.latency.get();
    if (histogram == nullptr || histogram->total() == 0) return;
    for (double p : percentiles) {
      out->Sample("redis_latency_percentiles_usec",
                  {{"cmd", spec.full_name}, {"quantile", fmt::format("{:.6g}", p / 100)}},
                  usec(histogram->ValueAtPercentile(p)));
    }
    out->Sample("redis_latency_percentiles_usec_sum", {{"cmd", spec.full_name}}, usec(row.ticks));
    out->Sample("redis_latency_percentiles_usec_count", {{"cmd", spec.full_name}}, row.calls);
  });
}

void Keyspace(ServerContext& ctx, PrometheusText* out) {
  if (!ctx.has_keyspace()) return;
  std::vector<std::pair<int, types::DbStats>> dbs;
  for (int db = 0; db < ctx.config().databases; ++db) {
    types::DbStats s = ctx.keyspace().GetDbStats(db);
    // Databases with keys, as INFO keyspace, and db0 always (a dashboard's query finds a 0).
    if (s.keys != 0 || db == 0) dbs.emplace_back(db, s);
  }
  auto name = [](int db) { return "db" + std::to_string(db); };
  out->Family("redis_db_keys", kGauge,
              "Live keys per database (an estimate in a large database, as INFO keyspace).");
  for (const auto& [db, s] : dbs) out->Sample("redis_db_keys", {{"db", name(db)}}, s.keys);
  out->Family("redis_db_keys_expiring", kGauge, "Live keys with an expiry per database.");
  for (const auto& [db, s] : dbs) {
    out->Sample("redis_db_keys_expiring", {{"db", name(db)}}, s.expires);
  }
  out->Family("redis_db_avg_ttl_seconds", kGauge,
              "Mean remaining TTL of the keys with an expiry per database (0: none).");
  for (const auto& [db, s] : dbs) {
    out->Sample("redis_db_avg_ttl_seconds", {{"db", name(db)}},
                static_cast<double>(s.avg_ttl_ms) / 1000);
  }
}

}  // namespace

void AppendRedisMetrics(ServerContext& ctx, PrometheusText* out) {
  ServerAndClients(ctx, out);
  Memory(ctx, out);
  Stats(ctx, out);
  Cpu(out);
  Commands(ctx, out);
  Keyspace(ctx, out);
}

std::string RenderMetrics(ServerContext& ctx) {
  PrometheusText out;
  AppendRedisMetrics(ctx, &out);
  AppendLinkMetrics(ctx, &out);
  AppendEngineMetrics(ctx, &out);
  return out.Take();
}

}  // namespace ebb::server
