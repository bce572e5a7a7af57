// The metrics of replication (both sides), the cluster's slot states and the active-active
// peers (server/metrics/metrics.h).
#include <algorithm>
#include <string>
#include <vector>

#include "common/wall_clock.h"
#include "server/active_active/active_active.h"
#include "server/cluster/cluster.h"
#include "server/metrics/metrics.h"
#include "server/metrics/prometheus_text.h"
#include "server/replication/backlog.h"
#include "server/replication/master.h"
#include "server/replication/replica.h"
#include "server/services/server_context.h"

namespace ebb::server {
namespace {

using enum MetricType;

// This server as a replica: its link to the master.
void ReplicaSide(const ReplicaLink& link, int64_t now_ms, PrometheusText* out) {
  out->Single("redis_master_link_up", kGauge, "1 while the link to the master is up.",
              link.link_up() ? 1 : 0);
  out->Single("redis_master_last_io_seconds_ago", kGauge,
              "Seconds since the master last sent something (-1: no link).",
              link.LastIoSecondsAgo(now_ms));
  const bool syncing =
      link.state() == ReplicaLink::State::kTransfer || link.state() == ReplicaLink::State::kLoading;
  out->Single("redis_master_sync_in_progress", kGauge,
              "1 while a full resynchronisation's snapshot is transferred or loaded.",
              syncing ? 1 : 0);
  out->Single("redis_slave_repl_offset", kGauge, "Replication stream bytes applied here.",
              link.offset());
  out->Single("redis_slave_read_repl_offset", kGauge, "Replication stream bytes received here.",
              link.read_offset());
  out->Single("ebb_replica_unapplied_bytes", kGauge,
              "Replication stream bytes received but not yet applied.",
              link.read_offset() - std::min(link.offset(), link.read_offset()));
  if (syncing) {
    out->Single("redis_master_sync_total_bytes", kGauge,
                "Bytes of the snapshot being transferred (-1: not yet known).",
                link.sync_total_bytes());
    out->Single("redis_master_sync_read_bytes", kGauge, "Bytes of the snapshot read so far.",
                link.sync_read_bytes());
  }
  if (!link.link_up()) {
    out->Single("redis_master_link_down_since_seconds", kGauge,
                "Seconds since the link to the master went down (-1: never up).",
                link.DownSinceSeconds(now_ms));
  }
}

// This server as a master: its replicas and backlog.
void MasterSide(ServerContext& ctx, ReplicationMaster& master, int64_t now_ms,
                PrometheusText* out) {
  const auto& replicas = master.replicas();
  out->Single("redis_connected_slaves", kGauge, "Replicas attached.", uint64_t{replicas.size()});
  const uint64_t end = master.end_offset();
  out->Single("redis_master_repl_offset", kGauge, "Replication stream bytes produced.", end);
  const ReplicationMaster::SyncCounts& syncs = master.sync_counts();
  out->Single("redis_replica_resyncs_full_total", kCounter, "Full resynchronisations served.",
              syncs.full);
  out->Single("redis_replica_partial_resync_accepted_total", kCounter,
              "Partial resynchronisations accepted.", syncs.partial_ok);
  out->Single("redis_replica_partial_resync_denied_total", kCounter,
              "Partial resynchronisations refused (a full one followed).", syncs.partial_err);
  const Config& config = ctx.config();
  if (config.min_replicas_to_write > 0 && config.min_replicas_max_lag_s > 0) {
    out->Single("redis_min_slaves_good_slaves", kGauge,
                "Replicas acknowledging within min-replicas-max-lag.",
                master.CountGood(now_ms, config.min_replicas_max_lag_s));
  }
  auto labels = [](const ReplicationMaster::Replica& r) {
    return std::vector<MetricLabel>{
        {"slave_ip", r.ip},
        {"slave_port", std::to_string(r.listening_port)},
        {"slave_state", std::string(ReplicationMaster::ReplicaStateName(r.state))}};
  };
  out->Family("redis_connected_slave_offset_bytes", kGauge,
              "Per replica: the stream offset it last acknowledged.");
  for (const auto& r : replicas) {
    out->Sample("redis_connected_slave_offset_bytes", labels(r), r.ack_offset);
  }
  out->Family("redis_connected_slave_lag_seconds", kGauge,
              "Per replica: seconds since its last acknowledgement.");
  for (const auto& r : replicas) {
    out->Sample("redis_connected_slave_lag_seconds", labels(r),
                static_cast<double>(std::max<int64_t>(0, now_ms - r.ack_time_ms)) / 1000);
  }
  out->Family("ebb_replica_lag_bytes", kGauge,
              "Per replica: stream bytes produced here that it has not acknowledged.");
  for (const auto& r : replicas) {
    out->Sample("ebb_replica_lag_bytes", labels(r), end - std::min(end, r.ack_offset));
  }
  const ReplicationBacklog* backlog = master.backlog();
  out->Single("redis_repl_backlog_is_active", kGauge, "1 while the backlog exists.",
              backlog ? 1 : 0);
  if (backlog) {
    out->Single("redis_repl_backlog_size_bytes", kGauge, "The backlog's capacity.",
                uint64_t{backlog->capacity()});
    out->Single("redis_repl_backlog_first_byte_offset", kGauge,
                "Stream offset of the backlog's first byte.", backlog->first_offset());
    out->Single("redis_repl_backlog_history_bytes", kGauge, "Stream bytes the backlog holds.",
                backlog->histlen());
  }
}

void ClusterSlots(ServerContext& ctx, PrometheusText* out) {
  out->Single("redis_cluster_enabled", kGauge, "1 with cluster-enabled yes.",
              ctx.config().cluster_enabled ? 1 : 0);
  const auto* node = dynamic_cast<const cluster::Cluster*>(ctx.cluster());
  if (node == nullptr) return;
  const cluster::Cluster::Summary s = node->Summarize();
  out->Single("redis_cluster_state", kGauge, "1 while the cluster is ok (CLUSTER INFO).",
              s.ok ? 1 : 0);
  out->Family("ebb_cluster_slots", kGauge,
              "Hash slots by state: assigned (have an owner), and of those ok, pfail (owner "
              "suspected down) and fail (owner failed).");
  out->Sample("ebb_cluster_slots", {{"state", "assigned"}}, s.slots_assigned);
  out->Sample("ebb_cluster_slots", {{"state", "ok"}}, s.slots_ok);
  out->Sample("ebb_cluster_slots", {{"state", "pfail"}}, s.slots_pfail);
  out->Sample("ebb_cluster_slots", {{"state", "fail"}}, s.slots_fail);
  out->Single("redis_cluster_known_nodes", kGauge, "Nodes this node knows.",
              uint64_t{s.known_nodes});
  out->Single("redis_cluster_size", kGauge, "Masters serving at least one slot.", s.size);
  out->Single("redis_cluster_current_epoch", kGauge, "The cluster's current epoch.",
              s.current_epoch);
  out->Single("redis_cluster_my_epoch", kGauge, "This node's config epoch.", s.my_epoch);
}

void Peers(ServerContext& ctx, PrometheusText* out) {
  const ActiveActive* aa = ctx.active_active();
  out->Single("ebb_active_active_enabled", kGauge, "1 in active-active mode.",
              aa != nullptr && aa->enabled() ? 1 : 0);
  if (aa == nullptr || !aa->enabled()) return;
  out->Single("ebb_origin_offset", kGauge, "The last origin offset this node gave a delta.",
              aa->end_offset());
  out->Single("ebb_skewed_writes_total", kCounter,
              "Writes accepted more than max-clock-skew ahead of this node's clock (flag action).",
              aa->skewed_writes());
  out->Single("ebb_peer_snapshots_sent_total", kCounter, "Snapshots sent to peers.",
              aa->snapshots_sent());
  out->Single("ebb_peer_malformed_deltas_total", kCounter, "Deltas skipped as malformed.",
              aa->malformed_deltas());
  out->Single("ebb_peer_collect_barriers_total", kCounter,
              "Peer streams stopped at a collect this node had not observed, for a snapshot "
              "(INFO peers collect_barriers).",
              aa->collect_barriers());
  const ActiveActive::Stability stability = aa->StabilityNow();
  out->Family("ebb_stable_vector", kGauge,
              "Per origin node id: the last offset of its deltas that every node of the mesh has "
              "applied (INFO peers stable_vector).");
  for (const auto& [origin, offset] : stability.stable) {
    out->Sample("ebb_stable_vector", {{"origin", origin}}, offset);
  }
  out->Single("ebb_max_peer_lag_deltas", kGauge,
              "Deltas of this node's log not yet applied by the peer furthest behind, as the "
              "peers' ticks said.",
              stability.largest_lag);
  out->Single("ebb_markers_pending", kGauge,
              "Whole-key marker and horizon rows held (deletes and flushes kept for late deltas).",
              aa->markers_pending());
  out->Family("ebb_last_collect", kGauge,
              "Per origin node id: the offset of its deltas this node's last collect covers "
              "(INFO peers last_collect).");
  for (const auto& [origin, offset] : aa->last_collect()) {
    out->Sample("ebb_last_collect", {{"origin", origin}}, offset);
  }
  const std::vector<ActiveActive::PeerInfo> peers = aa->Peers();
  auto labels = [](const ActiveActive::PeerInfo& p) {
    return std::vector<MetricLabel>{{"peer", p.host + ":" + std::to_string(p.port)},
                                    {"peer_id", p.peer_id}};
  };
  out->Family("ebb_peer_connected", kGauge, "Per peer: 1 while its link is connected.");
  for (const auto& p : peers) {
    out->Sample("ebb_peer_connected", labels(p), p.state == "connected" ? 1 : 0);
  }
  out->Family("ebb_peer_applied_offset", kGauge,
              "Per peer: the last origin offset of its deltas applied here.");
  for (const auto& p : peers) out->Sample("ebb_peer_applied_offset", labels(p), p.applied);
  out->Family("ebb_peer_lag_deltas", kGauge, "Per peer: its deltas not yet applied here.");
  for (const auto& p : peers) out->Sample("ebb_peer_lag_deltas", labels(p), p.lag_deltas);
  out->Family("ebb_peer_lag_bytes", kGauge,
              "Per peer: wire bytes of its deltas not yet applied here.");
  for (const auto& p : peers) out->Sample("ebb_peer_lag_bytes", labels(p), p.lag_bytes);
  out->Family("ebb_peer_lag_seconds", kGauge,
              "Per peer: how long this node has been behind it (0: caught up).");
  for (const auto& p : peers) {
    out->Sample("ebb_peer_lag_seconds", labels(p), static_cast<double>(p.lag_ms) / 1000);
  }
  out->Family("ebb_peer_acked_offset", kGauge,
              "Per peer: the last origin offset of this node's deltas it has applied, as its "
              "last tick said.");
  for (const auto& p : peers) out->Sample("ebb_peer_acked_offset", labels(p), p.acked);
  out->Family("ebb_peer_clock_skew_seconds", kGauge,
              "Per peer: its clock minus this node's, at its last tick.");
  for (const auto& p : peers) {
    out->Sample("ebb_peer_clock_skew_seconds", labels(p),
                static_cast<double>(p.clock_skew_ms) / 1000);
  }
}

}  // namespace

void AppendLinkMetrics(ServerContext& ctx, PrometheusText* out) {
  const int64_t now_ms = WallMs();
  const ReplicaLink* link = ctx.replica_link();
  if (link != nullptr && link->is_replica()) ReplicaSide(*link, now_ms, out);
  if (ReplicationMaster* master = ctx.replication_master()) {
    MasterSide(ctx, *master, now_ms, out);
  } else {
    out->Single("redis_connected_slaves", kGauge, "Replicas attached.", 0);
  }
  ClusterSlots(ctx, out);
  Peers(ctx, out);
}

}  // namespace ebb::server
