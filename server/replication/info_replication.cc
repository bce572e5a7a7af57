#include "server/replication/info_replication.h"

#include <fmt/format.h>

#include "common/wall_clock.h"
#include "server/replication/master.h"
#include "server/server_context.h"

namespace ebb::server {

namespace {

std::string_view StateName(ReplicationMaster::ReplicaState state) {
  switch (state) {
    case ReplicationMaster::ReplicaState::kWaitSnapshot:
      return "wait_bgsave";
    case ReplicationMaster::ReplicaState::kSendingSnapshot:
      return "send_bulk";
    case ReplicationMaster::ReplicaState::kOnline:
      return "online";
  }
  return "online";
}

}  // namespace

void AppendReplicationInfo(ServerContext& context, std::string* out) {
  const int64_t now_ms = WallMs();
  ReplicationMaster* master = context.replication_master();
  *out += "# Replication\r\nrole:master\r\n";
  if (master == nullptr) {  // a server without a network (the in-process command runner)
    *out +=
        "connected_slaves:0\r\nmaster_failover_state:no-failover\r\nmaster_repl_offset:0\r\n"
        "second_repl_offset:-1\r\nrepl_backlog_active:0\r\n";
    return;
  }
  const auto& replicas = master->replicas();
  *out += fmt::format("connected_slaves:{}\r\n", replicas.size());
  for (size_t i = 0; i < replicas.size(); i++) {
    const auto& r = replicas[i];
    *out += fmt::format("slave{}:ip={},port={},state={},offset={},lag={}\r\n", i, r.ip,
                        r.listening_port, StateName(r.state), r.ack_offset,
                        std::max<int64_t>(0, (now_ms - r.ack_time_ms) / 1000));
  }
  const ReplicationIds& ids = master->ids();
  const ReplicationBacklog* backlog = master->backlog();
  *out += fmt::format(
      "master_failover_state:no-failover\r\nmaster_replid:{}\r\nmaster_replid2:{}\r\n"
      "master_repl_offset:{}\r\nsecond_repl_offset:{}\r\nrepl_backlog_active:{}\r\n"
      "repl_backlog_size:{}\r\nrepl_backlog_first_byte_offset:{}\r\nrepl_backlog_histlen:{}\r\n",
      ids.replid, ids.replid2, master->end_offset(), ids.second_offset, backlog ? 1 : 0,
      backlog ? backlog->capacity() : context.config().repl_backlog_size,
      backlog ? backlog->first_offset() : 0, backlog ? backlog->histlen() : 0);
}

}  // namespace ebb::server
