// The metrics endpoint's scrape: every numeric figure INFO reports and the engine's own
// counters, as Prometheus metric families (docs/operations.md, "Prometheus metrics", lists each
// name, type and meaning).
//
// Values come from where INFO reads them (ServerStats, CommandStats, MemoryReport, the
// keyspace's DbStats, the engine's storage::Stats, the replication, cluster and active-active
// objects, the latency monitor), never from INFO's text. Names follow the redis_ prefix for what
// Redis's INFO also has (redis_connected_clients, redis_commands_total{cmd="get"}, ...) and the
// ebb_ prefix for ebb's own (engine, disk reads, peers, dead-on-arrival writes). Counters end in
// _total, units are in the names (_bytes, _seconds); a figure that INFO shows only in some states
// (a replica's link, cluster slots, peers) is present only then.
// Thread-safety: the command (io) thread only, as INFO.
#pragma once

#include <string>

namespace ebb::server {

class PrometheusText;
class ServerContext;

// The whole scrape, in the text format (server/metrics/prometheus_text.h).
std::string RenderMetrics(ServerContext& ctx);

// What Redis's INFO also reports: server, clients, memory, stats, cpu, commandstats,
// errorstats, latencystats, keyspace (redis_metrics.cc).
void AppendRedisMetrics(ServerContext& ctx, PrometheusText* out);
// Replication, both sides; the cluster's slot states; the active-active peers
// (link_metrics.cc).
void AppendLinkMetrics(ServerContext& ctx, PrometheusText* out);
// The engine and ebb's own counters: levels, caches, flushes and compactions, expiry,
// WAL, write stalls, disk reads, dead-on-arrival writes, latency events (engine_metrics.cc).
void AppendEngineMetrics(ServerContext& ctx, PrometheusText* out);

}  // namespace ebb::server
