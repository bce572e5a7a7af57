// Failover: FAILOVER, Redis 6.2's coordinated failover (docs/replication.md, "FAILOVER") — a
// master hands its role to one of its replicas without losing a write.
//
// FAILOVER [TO host port [FORCE]] [TIMEOUT ms] starts it (Start): from then on the clients'
// writes wait unanswered (ServerContext::writes_paused: the dispatcher defers them, as Redis's
// write pause blocks them) and the master is `waiting-for-sync`: Cron watches for the target —
// the replica TO names, else the first that has acknowledged the whole stream — to acknowledge
// every stream byte (a GETACK on the stream asks at once; the replicas' one-second ACKs keep
// telling). Once it has, the master is `failover-in-progress`: it becomes a replica of the
// target (ReplicaLink::ReplicateFrom), whose handshake ends with `PSYNC <replid> <offset+1>
// FAILOVER`; the target, finding its own replid, promotes itself and answers +CONTINUE. That
// answer (OnPsyncReply) ends the failover: the pause lifts and the writes that waited are
// answered by a replica (-READONLY).
//
// TIMEOUT bounds waiting-for-sync: past it the failover aborts, or with FORCE goes on with the
// target whatever its offset. ABORT (Abort) ends it at any point; in progress, it makes the
// server a master again (a new replid, the old one second, as REPLICAOF NO ONE). A target that
// refuses the PSYNC aborts it too.
// Thread-safety: the io thread.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "server/replication/replication_result.h"

namespace ebb::server {

class ReplicaLink;
class ReplicationMaster;
class ServerContext;

class Failover {
 public:
  enum class State { kNone, kWaitForSync, kInProgress };

  struct Request {
    std::string host;  // "": any replica
    int port = 0;
    bool force = false;
    int64_t timeout_ms = 0;  // 0: none
  };

  // REQUIRES: context, master and link outlive the object.
  Failover(ServerContext* context, ReplicationMaster* master, ReplicaLink* link);

  // Called whenever the pause on writes lifts (the server resumes the writers that waited).
  void set_resume_listener(std::function<void()> listener) { resume_ = std::move(listener); }

  // FAILOVER's checks in Redis's order (ReplicationCode's kFailover... outcomes), then the start.
  Result<ReplicationCode> Start(const Request& request, int64_t now_ms);
  // FAILOVER ABORT, or a failure: logs `why`, ends the failover (a master again if it was in
  // progress). False when there is none.
  bool Abort(std::string_view why);
  // The periodic check (the server's cron): Redis's updateFailoverStatus.
  void Cron(int64_t now_ms);
  // The link's `PSYNC ... FAILOVER` was answered: accepted (+CONTINUE or +FULLRESYNC) ends the
  // failover, refused aborts it. No effect unless in progress.
  void OnPsyncReply(bool accepted);

  State state() const { return state_; }
  // INFO's master_failover_state: no-failover, waiting-for-sync, failover-in-progress.
  std::string_view StateName() const;

 private:
  // Becomes a replica of the target (failover-in-progress).
  void FailOver();
  // Ends the failover and lifts the pause (Redis's clearFailoverState).
  void Clear();

  ServerContext* context_;
  ReplicationMaster* master_;
  ReplicaLink* link_;
  std::function<void()> resume_;
  State state_ = State::kNone;
  std::string host_;  // the target ("": not chosen yet)
  int port_ = 0;
  bool force_ = false;
  int64_t end_ms_ = 0;  // when waiting-for-sync gives up (0: never)
};

}  // namespace ebb::server
