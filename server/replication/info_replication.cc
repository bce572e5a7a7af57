#include "server/replication/info_replication.h"

#include <fmt/format.h>

#include "common/wall_clock.h"
#include "server/replication/failover.h"
#include "server/replication/master.h"
#include "server/replication/replica.h"
#include "server/services/server_context.h"

namespace ebb::server {

namespace {

// Redis 7's replica fields, from role to replica_announced.
void AppendReplicaFields(ServerContext& context, const ReplicaLink& link, int64_t now_ms,
                         std::string* out) {
  const Config& config = context.config();
  const bool syncing =
      link.state() == ReplicaLink::State::kTransfer || link.state() == ReplicaLink::State::kLoading;
  *out += fmt::format(
      "# Replication\r\nrole:slave\r\nmaster_host:{}\r\nmaster_port:{}\r\n"
      "master_link_status:{}\r\nmaster_last_io_seconds_ago:{}\r\nmaster_sync_in_progress:{}\r\n"
      "slave_read_repl_offset:{}\r\nslave_repl_offset:{}\r\n",
      link.host(), link.port(), link.link_up() ? "up" : "down", link.LastIoSecondsAgo(now_ms),
      syncing ? 1 : 0, link.read_offset(), link.offset());
  if (syncing) {
    const int64_t total = link.sync_total_bytes();
    const int64_t read = link.sync_read_bytes();
    *out += fmt::format(
        "master_sync_total_bytes:{}\r\nmaster_sync_read_bytes:{}\r\nmaster_sync_left_bytes:{}\r\n"
        "master_sync_perc:{:.2f}\r\nmaster_sync_last_io_seconds_ago:{}\r\n",
        total, read, total < 0 ? -1 : total - read,
        total > 0 ? 100.0 * static_cast<double>(read) / static_cast<double>(total) : 0.0,
        link.LastIoSecondsAgo(now_ms));
  }
  if (!link.link_up()) {
    *out += fmt::format("master_link_down_since_seconds:{}\r\n", link.DownSinceSeconds(now_ms));
  }
  *out += fmt::format("slave_priority:{}\r\nslave_read_only:{}\r\nreplica_announced:{}\r\n",
                      config.replica_priority, config.replica_read_only ? 1 : 0,
                      config.replica_announced ? 1 : 0);
}

}  // namespace

void AppendReplicationInfo(ServerContext& context, std::string* out) {
  const int64_t now_ms = WallMs();
  ReplicationMaster* master = context.replication_master();
  const ReplicaLink* link = context.replica_link();
  if (link != nullptr && link->is_replica()) {
    AppendReplicaFields(context, *link, now_ms, out);
  } else {
    *out += "# Replication\r\nrole:master\r\n";
  }
  if (master == nullptr) {  // a server without a network (the in-process command runner)
    *out +=
        "connected_slaves:0\r\nmaster_failover_state:no-failover\r\nmaster_repl_offset:0\r\n"
        "second_repl_offset:-1\r\nrepl_backlog_active:0\r\n";
    return;
  }
  const auto& replicas = master->replicas();
  *out += fmt::format("connected_slaves:{}\r\n", replicas.size());
  const Config& config = context.config();
  if (config.min_replicas_to_write > 0 && config.min_replicas_max_lag_s > 0) {
    *out += fmt::format("min_slaves_good_slaves:{}\r\n",
                        master->CountGood(now_ms, config.min_replicas_max_lag_s));
  }
  for (size_t i = 0; i < replicas.size(); i++) {
    const auto& r = replicas[i];
    *out += fmt::format("slave{}:ip={},port={},state={},offset={},lag={}\r\n", i, r.ip,
                        r.listening_port, ReplicationMaster::ReplicaStateName(r.state),
                        r.ack_offset, std::max<int64_t>(0, (now_ms - r.ack_time_ms) / 1000));
  }
  const ReplicationIds& ids = master->ids();
  const ReplicationBacklog* backlog = master->backlog();
  const Failover* failover = context.failover();
  *out += fmt::format(
      "master_failover_state:{}\r\nmaster_replid:{}\r\nmaster_replid2:{}\r\n"
      "master_repl_offset:{}\r\nsecond_repl_offset:{}\r\nrepl_backlog_active:{}\r\n"
      "repl_backlog_size:{}\r\nrepl_backlog_first_byte_offset:{}\r\nrepl_backlog_histlen:{}\r\n",
      failover ? failover->StateName() : "no-failover", ids.replid, ids.replid2,
      master->end_offset(), ids.second_offset, backlog ? 1 : 0,
      backlog ? backlog->capacity() : context.config().repl_backlog_size,
      backlog ? backlog->first_offset() : 0, backlog ? backlog->histlen() : 0);
}

}  // namespace ebb::server
