// FailoverElection: when a replica whose master failed asks for votes, and whether it won (Redis
// 7.0's clusterHandleSlaveFailover timing; docs/cluster.md, "Failover"). No I/O: the cluster
// node (server/cluster/cluster_failover.cc) tells it the time, the replica's rank and the votes
// received, and does what each step says (tell the shard its offset, take a new epoch and ask the
// masters, replace its master).
//
// An election is scheduled 500-1000 ms ahead plus a second per rank (replicas with a larger
// replication offset go first; none in a manual failover), waits longer when its rank worsens
// before the request leaves, asks for votes once, expires after the auth timeout (twice the node
// timeout, at least 2 s) and is retried after twice that. Votes count only in the election's
// epoch or a later one.
// Thread-safety: none; the io thread only. A value type.
#pragma once

#include <cstdint>

namespace ebb::server::cluster {

class FailoverElection {
 public:
  // What the replica does after a step.
  enum class Step {
    kWait,          // nothing yet
    kScheduled,     // a new election is scheduled (start_ms(), rank())
    kRequestVotes,  // the time came: take a new epoch, set_epoch() it, ask every master
    kWon,           // a quorum voted: replace the master
  };

  // One step at `now_ms`. `rank`: the replica's rank now; `manual`: a manual failover is under
  // way (the election starts at once); `quorum`: the votes needed; `random_ms` in [0, 500): the
  // jitter of a new schedule.
  Step Advance(int64_t now_ms, int64_t node_timeout_ms, int rank, bool manual, int quorum,
               int64_t random_ms);
  // The epoch the votes are asked in. After kRequestVotes.
  void set_epoch(uint64_t epoch) { epoch_ = epoch; }
  uint64_t epoch() const { return epoch_; }
  // A master's vote, sent when its current epoch was `voter_epoch`: true when it counts.
  bool CountVote(uint64_t voter_epoch);

  int64_t start_ms() const { return start_ms_; }
  int rank() const { return rank_; }

 private:
  int64_t start_ms_ = 0;  // when the votes are asked for (then: when they were)
  int votes_ = 0;
  bool requested_ = false;
  int rank_ = 0;
  uint64_t epoch_ = 0;
};

}  // namespace ebb::server::cluster
