#include "server/replication/failover.h"

#include <spdlog/spdlog.h>

#include "server/replication/master.h"
#include "server/replication/replica.h"
#include "server/services/server_context.h"

namespace ebb::server {

Failover::Failover(ServerContext* context, ReplicationMaster* master, ReplicaLink* link)
    : context_(context), master_(master), link_(link) {}

std::string_view Failover::StateName() const {
  switch (state_) {
    case State::kNone:
      return "no-failover";
    case State::kWaitForSync:
      return "waiting-for-sync";
    case State::kInProgress:
      return "failover-in-progress";
  }
  return "no-failover";
}

Result<ReplicationCode> Failover::Start(const Request& request, int64_t now_ms) {
  if (state_ != State::kNone) return ReplicationCode::kFailoverInProgress;
  if (link_->is_replica()) return ReplicationCode::kFailoverOnReplica;
  if (master_->replicas().empty()) return ReplicationCode::kFailoverNoReplicas;
  if (request.force && (request.timeout_ms == 0 || request.host.empty())) {
    return ReplicationCode::kFailoverForceArguments;
  }
  if (!request.host.empty()) {
    const ReplicationMaster::Replica* target = master_->FindByAddress(request.host, request.port);
    if (target == nullptr) return ReplicationCode::kFailoverTargetNotReplica;
    if (target->state != ReplicationMaster::ReplicaState::kOnline) {
      return ReplicationCode::kFailoverTargetNotOnline;
    }
    spdlog::info("FAILOVER requested to {}:{}.", request.host, request.port);
  } else {
    spdlog::info("FAILOVER requested to any replica.");
  }
  host_ = request.host;
  port_ = request.port;
  force_ = request.force;
  end_ms_ = request.timeout_ms > 0 ? now_ms + request.timeout_ms : 0;
  state_ = State::kWaitForSync;
  context_->set_writes_paused(true);
  master_->RequestAck();  // the replicas say where they are now, not at their next second
  return {};
}

bool Failover::Abort(std::string_view why) {
  if (state_ == State::kNone) return false;
  if (!host_.empty()) {
    spdlog::info("FAILOVER to {}:{} aborted: {}", host_, port_, why);
  } else {
    spdlog::info("FAILOVER to any replica aborted: {}", why);
  }
  if (state_ == State::kInProgress) link_->Promote("failover aborted");
  Clear();
  return true;
}

void Failover::Clear() {
  state_ = State::kNone;
  host_.clear();
  port_ = 0;
  force_ = false;
  end_ms_ = 0;
  context_->set_writes_paused(false);
  if (resume_) resume_();
}

void Failover::FailOver() {
  state_ = State::kInProgress;
  link_->ReplicateFrom(host_, port_);
}

void Failover::Cron(int64_t now_ms) {
  if (state_ != State::kWaitForSync) return;
  if (end_ms_ != 0 && end_ms_ <= now_ms) {
    if (!force_) {
      Abort("Replica never caught up before timeout");
      return;
    }
    spdlog::info("FAILOVER to {}:{} time out exceeded, failing over.", host_, port_);
    FailOver();
    return;
  }
  const uint64_t end = master_->end_offset();
  const ReplicationMaster::Replica* target = nullptr;
  if (!host_.empty()) {
    target = master_->FindByAddress(host_, port_);
  } else {
    for (const ReplicationMaster::Replica& replica : master_->replicas()) {
      if (replica.state == ReplicationMaster::ReplicaState::kOnline && replica.ack_offset == end &&
          replica.listening_port != 0) {
        target = &replica;
        host_ = replica.ip;
        port_ = replica.listening_port;
        break;
      }
    }
  }
  if (target == nullptr || target->state != ReplicationMaster::ReplicaState::kOnline ||
      target->ack_offset != end) {
    return;
  }
  spdlog::info("Failover target {}:{} is synced, failing over.", host_, port_);
  FailOver();
}

void Failover::OnPsyncReply(bool accepted) {
  if (state_ != State::kInProgress) return;
  if (accepted) {
    Clear();
  } else {
    Abort("Failover target rejected psync request");
  }
}

}  // namespace ebb::server
