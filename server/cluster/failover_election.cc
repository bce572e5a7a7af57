#include "server/cluster/failover_election.h"

#include <algorithm>

namespace ebb::server::cluster {

FailoverElection::Step FailoverElection::Advance(int64_t now, int64_t node_timeout_ms, int rank,
                                                 bool manual, int quorum, int64_t random_ms) {
  const int64_t auth_timeout = std::max<int64_t>(node_timeout_ms * 2, 2000);
  const int64_t auth_retry = auth_timeout * 2;
  const int64_t auth_age = now - start_ms_;
  if (auth_age > auth_retry) {
    start_ms_ = now + 500 + random_ms;
    votes_ = 0;
    requested_ = false;
    rank_ = rank;
    start_ms_ += rank_ * 1000;
    if (manual) {
      start_ms_ = now;
      rank_ = 0;
    }
    return Step::kScheduled;
  }
  if (!requested_ && !manual && rank > rank_) {
    start_ms_ += (rank - rank_) * 1000;
    rank_ = rank;
  }
  if (now < start_ms_) return Step::kWait;
  if (auth_age > auth_timeout) return Step::kWait;  // expired: the next retry starts another
  if (!requested_) {
    requested_ = true;
    return Step::kRequestVotes;
  }
  return votes_ >= quorum ? Step::kWon : Step::kWait;
}

bool FailoverElection::CountVote(uint64_t voter_epoch) {
  if (voter_epoch < epoch_) return false;
  votes_++;
  return true;
}

}  // namespace ebb::server::cluster
