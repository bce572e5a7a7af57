// FailoverElection: a replica's election timing (delay by rank, a manual failover at once, the
// request once, expiry and retry) and its vote count, on a clock the test moves.
#include <gtest/gtest.h>

#include "server/cluster/failover_election.h"

namespace ebb::server::cluster {
namespace {

using Step = FailoverElection::Step;
constexpr int64_t kNodeTimeout = 1000;  // auth timeout 2000 ms, retry after 4000 ms

TEST(ClusterFailoverElection, WaitsByRankThenAsksOnceAndWinsWithAQuorum) {
  FailoverElection e;
  const int64_t t0 = 100000;
  EXPECT_EQ(e.Advance(t0, kNodeTimeout, /*rank=*/1, false, /*quorum=*/2, /*random_ms=*/200),
            Step::kScheduled);
  EXPECT_EQ(e.start_ms(), t0 + 500 + 200 + 1000);
  EXPECT_EQ(e.rank(), 1);
  EXPECT_EQ(e.Advance(t0 + 1699, kNodeTimeout, 1, false, 2, 0), Step::kWait);
  EXPECT_EQ(e.Advance(t0 + 1700, kNodeTimeout, 1, false, 2, 0), Step::kRequestVotes);
  e.set_epoch(7);
  EXPECT_EQ(e.Advance(t0 + 1701, kNodeTimeout, 1, false, 2, 0), Step::kWait);
  EXPECT_FALSE(e.CountVote(6));  // a vote from before the election's epoch
  EXPECT_TRUE(e.CountVote(7));
  EXPECT_EQ(e.Advance(t0 + 1702, kNodeTimeout, 1, false, 2, 0), Step::kWait);
  EXPECT_TRUE(e.CountVote(8));
  EXPECT_EQ(e.Advance(t0 + 1703, kNodeTimeout, 1, false, 2, 0), Step::kWon);
}

TEST(ClusterFailoverElection, AWorseRankBeforeTheRequestWaitsASecondMorePerPlace) {
  FailoverElection e;
  const int64_t t0 = 100000;
  ASSERT_EQ(e.Advance(t0, kNodeTimeout, 0, false, 2, 0), Step::kScheduled);
  EXPECT_EQ(e.start_ms(), t0 + 500);
  EXPECT_EQ(e.Advance(t0 + 10, kNodeTimeout, 2, false, 2, 0), Step::kWait);
  EXPECT_EQ(e.start_ms(), t0 + 2500);
  EXPECT_EQ(e.rank(), 2);
  // A better rank does not bring it forward.
  EXPECT_EQ(e.Advance(t0 + 20, kNodeTimeout, 0, false, 2, 0), Step::kWait);
  EXPECT_EQ(e.start_ms(), t0 + 2500);
}

TEST(ClusterFailoverElection, AManualFailoverStartsAtOnce) {
  FailoverElection e;
  const int64_t t0 = 100000;
  ASSERT_EQ(e.Advance(t0, kNodeTimeout, 3, /*manual=*/true, 2, 400), Step::kScheduled);
  EXPECT_EQ(e.start_ms(), t0);
  EXPECT_EQ(e.rank(), 0);
  EXPECT_EQ(e.Advance(t0, kNodeTimeout, 3, true, 2, 0), Step::kRequestVotes);
}

TEST(ClusterFailoverElection, AnExpiredElectionWaitsForTheRetryWhichStartsAfresh) {
  FailoverElection e;
  const int64_t t0 = 100000;
  ASSERT_EQ(e.Advance(t0, kNodeTimeout, 0, false, 1, 0), Step::kScheduled);
  ASSERT_EQ(e.Advance(t0 + 500, kNodeTimeout, 0, false, 1, 0), Step::kRequestVotes);
  // Past the auth timeout (2000 ms after the start) without a quorum: nothing until the retry.
  EXPECT_EQ(e.Advance(t0 + 500 + 2001, kNodeTimeout, 0, false, 1, 0), Step::kWait);
  EXPECT_EQ(e.Advance(t0 + 500 + 4000, kNodeTimeout, 0, false, 1, 0), Step::kWait);
  EXPECT_EQ(e.Advance(t0 + 500 + 4001, kNodeTimeout, 0, false, 1, 0), Step::kScheduled);
  // The votes of the old election are gone.
  EXPECT_EQ(e.Advance(t0 + 500 + 4001 + 500, kNodeTimeout, 0, false, 1, 0), Step::kRequestVotes);
  EXPECT_EQ(e.Advance(t0 + 500 + 4001 + 501, kNodeTimeout, 0, false, 1, 0), Step::kWait);
}

}  // namespace
}  // namespace ebb::server::cluster
