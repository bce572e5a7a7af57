// Cluster's failover (Redis 7.0's clusterHandleSlaveFailover and friends; docs/cluster.md,
// "Failover"): a replica whose master is FAIL waits a delay that grows with its rank (replicas
// with a larger replication offset go first), asks every master for its vote in a new epoch,
// and with a majority of the masters serving slots replaces its master: it promotes itself
// (ReplicaLink::Promote), claims the master's slots under the election's epoch and tells every
// node. Masters vote once per epoch, for a replica whose master is FAIL (or, in a manual
// failover, any replica of theirs: FORCEACK), at most once per two node timeouts per master.
// CLUSTER FAILOVER pauses the master's writes (MFSTART) until the replica has its offset.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <random>

#include "common/wall_clock.h"
#include "server/cluster/cluster.h"
#include "server/replication/replica.h"
#include "server/services/server_context.h"

namespace ebb::server::cluster {

int Cluster::ReplicaRank() const {
  const Node* me = state_->myself();
  const Node* master = me->master;
  if (master == nullptr) return 0;
  const uint64_t mine = MyReplicationOffset();
  int rank = 0;
  for (const Node* replica : master->replicas) {
    if (replica != me && !(replica->flags & kFlagNoFailover) && replica->repl_offset > mine) {
      rank++;
    }
  }
  return rank;
}

void Cluster::HandleReplicaFailover(int64_t now) {
  const bool manual = mf_end_ms_ != 0 && mf_can_start_;
  if (!MayFailOver(now, manual)) return;
  static thread_local std::mt19937 rng{std::random_device{}()};
  const int quorum = state_->size() / 2 + 1;
  switch (election_.Advance(now, node_timeout(), ReplicaRank(), /*manual=*/mf_end_ms_ != 0, quorum,
                            static_cast<int64_t>(rng() % 500))) {
    case FailoverElection::Step::kWait:
      return;
    case FailoverElection::Step::kScheduled:
      return AnnounceElection(now);
    case FailoverElection::Step::kRequestVotes:
      return StartElection();
    case FailoverElection::Step::kWon:
      return WinElection();
  }
}

bool Cluster::MayFailOver(int64_t now, bool manual) const {
  const Node* me = state_->myself();
  const Config& config = context_->config();
  if (me->is_master() || me->master == nullptr || (!me->master->failed() && !manual) ||
      (config.cluster_replica_no_failover && !manual) || me->master->num_slots == 0) {
    return false;
  }
  // How old this replica's data is: the time since the link to the master went down.
  int64_t data_age = 0;
  if (const ReplicaLink* link = context_->replica_link(); link != nullptr) {
    data_age = link->link_up() ? link->LastIoSecondsAgo(now) * 1000
                               : std::max<int64_t>(0, link->DownSinceSeconds(now)) * 1000;
  }
  if (data_age > node_timeout()) data_age -= node_timeout();
  return config.cluster_replica_validity_factor == 0 ||
         data_age <= config.repl_ping_replica_period_s * 1000 +
                         node_timeout() * config.cluster_replica_validity_factor ||
         manual;
}

void Cluster::AnnounceElection(int64_t now) {
  if (mf_end_ms_ != 0) Later(kTodoHandleFailover);
  spdlog::warn("Start of election delayed for {} milliseconds (rank #{}, offset {}).",
               election_.start_ms() - now, election_.rank(), MyReplicationOffset());
  BroadcastPong(/*local_replicas_only=*/true);
}

void Cluster::StartElection() {
  state_->set_current_epoch(state_->current_epoch() + 1);
  election_.set_epoch(state_->current_epoch());
  spdlog::warn("Starting a failover election for epoch {}.", election_.epoch());
  // The epoch is on disk before anyone votes in it.
  if (const Result<ClusterCode> saved = SaveNow(); !saved.ok()) {
    spdlog::warn("Could not save the cluster config file: {}", saved.detail());
  }
  RequestFailoverAuth();
  Later(kTodoUpdateState);
}

void Cluster::WinElection() {
  Node* me = state_->myself();
  spdlog::warn("Failover election won: I'm the new master.");
  if (me->config_epoch < election_.epoch()) {
    me->config_epoch = election_.epoch();
    spdlog::warn("configEpoch set to {} after successful failover", me->config_epoch);
  }
  ReplaceMyMaster();
}

void Cluster::RequestFailoverAuth() {
  BusMessage m = Header(MessageType::kFailoverAuthRequest);
  if (mf_end_ms_ != 0) m.mflags0 |= kMsgFlagForceAck;
  Broadcast(m);
}

void Cluster::SendFailoverAuthIfNeeded(Node* node, const BusMessage& request) {
  Node* me = state_->myself();
  if (me->is_replica() || me->num_slots == 0) return;
  if (request.current_epoch < state_->current_epoch()) return;
  if (state_->last_vote_epoch() == state_->current_epoch()) return;
  Node* master = node->master;
  const bool force_ack = request.mflags0 & kMsgFlagForceAck;
  if (node->is_master() || master == nullptr || (!master->failed() && !force_ack)) return;
  const int64_t now = WallMs();
  if (now - master->voted_time_ms < node_timeout() * 2) return;
  for (int j = 0; j < kSlots; j++) {
    if (!request.slots.test(j)) continue;
    const Node* owner = state_->slot_owner(j);
    if (owner != nullptr && owner->config_epoch > request.config_epoch) return;
  }
  state_->set_last_vote_epoch(state_->current_epoch());
  master->voted_time_ms = now;
  // On disk before the vote leaves: a master that restarts must not vote twice in an epoch.
  if (const Result<ClusterCode> saved = SaveNow(); !saved.ok()) {
    spdlog::warn("Could not save the cluster config file before voting: {}", saved.detail());
    return;
  }
  spdlog::warn("Failover auth granted to {} for epoch {}", node->name, state_->current_epoch());
  Send(node->link != nullptr ? node->link : node->inbound_link,
       Header(MessageType::kFailoverAuthAck));
}

void Cluster::ReplaceMyMaster() {
  Node* me = state_->myself();
  Node* old_master = me->master;
  if (me->is_master() || old_master == nullptr) return;
  state_->SetAsMaster(me);
  if (ReplicaLink* link = context_->replica_link()) link->Promote("cluster failover");
  for (int j = 0; j < kSlots; j++) {
    if (state_->slot_owner(j) == old_master) {
      state_->DelSlot(j);
      state_->AddSlot(me, j);
    }
  }
  state_->UpdateHealth(context_->config().cluster_require_full_coverage);
  (void)SaveNow();  // the writer logged a failure
  BroadcastPong(/*local_replicas_only=*/false);
  ResetManualFailover();
}

void Cluster::HandleManualFailover() {
  if (mf_end_ms_ == 0 || mf_can_start_ || mf_master_offset_ < 0) return;
  if (static_cast<int64_t>(MyReplicationOffset()) >= mf_master_offset_) {
    mf_can_start_ = true;
    spdlog::warn("All master replication stream processed, manual failover can start.");
    Later(kTodoHandleFailover);
  }
}

void Cluster::CheckManualFailoverTimeout(int64_t now) {
  if (mf_end_ms_ != 0 && mf_end_ms_ < now) {
    spdlog::warn("Manual failover timed out.");
    ResetManualFailover();
  }
}

void Cluster::ResetManualFailover() {
  mf_end_ms_ = 0;
  mf_replica_ = nullptr;
  mf_master_offset_ = -1;
  mf_can_start_ = false;
  PauseWrites(false);
}

void Cluster::PauseWrites(bool paused) {
  if (writes_paused_ == paused) return;
  writes_paused_ = paused;
  context_->set_writes_paused(paused);
  if (!paused && resume_) resume_();
}

Result<ClusterCode> Cluster::StartManualFailover(bool force, bool takeover) {
  Node* me = state_->myself();
  if (me->is_master()) return ClusterCode::kFailoverOnMaster;
  if (me->master == nullptr) return ClusterCode::kFailoverNoMaster;
  if (!force && (me->master->failed() || me->master->link == nullptr)) {
    return ClusterCode::kFailoverMasterDown;
  }
  ResetManualFailover();
  mf_end_ms_ = WallMs() + kManualFailoverTimeoutMs;
  if (takeover) {
    spdlog::warn("Taking over the master (user request).");
    state_->BumpConfigEpochWithoutConsensus();
    ReplaceMyMaster();
  } else if (force) {
    spdlog::warn("Forced failover user request accepted.");
    mf_can_start_ = true;
  } else {
    spdlog::warn("Manual failover user request accepted.");
    Send(me->master->link, Header(MessageType::kMfStart));
  }
  return {};
}

// ---------------------------------------------------------------- votes and MFSTART received

void Cluster::ProcessFailoverAuthAck(const BusMessage& m, Node* sender) {
  if (sender == nullptr) return;
  if (sender->is_master() && sender->num_slots > 0 && election_.CountVote(m.current_epoch)) {
    Later(kTodoHandleFailover);
  }
}

void Cluster::ProcessMfStart(BusLink* link, Node* sender, int64_t now) {
  if (sender == nullptr || sender->master != state_->myself()) return;
  ResetManualFailover();
  mf_end_ms_ = now + kManualFailoverTimeoutMs;
  mf_replica_ = sender;
  PauseWrites(true);
  spdlog::warn("Manual failover requested by replica {}.", sender->name);
  // Tell the replica at once that this master paused, with its offset.
  SendPing(sender->link != nullptr ? sender->link : link, MessageType::kPing);
}

}  // namespace ebb::server::cluster
