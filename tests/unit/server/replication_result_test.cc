// ReplicationErrorText: each outcome of the replication subsystem worded as Redis words it.
#include "server/replication/replication_result.h"

#include <gtest/gtest.h>

#include "server/core/errors.h"

namespace ebb::server {
namespace {

TEST(ReplicationErrorTextTest, FailoverRefusalsAreRedisTexts) {
  EXPECT_EQ(ReplicationErrorText(ReplicationCode::kFailoverInProgress), kFailoverInProgress);
  EXPECT_EQ(ReplicationErrorText(ReplicationCode::kFailoverOnReplica), kFailoverOnReplica);
  EXPECT_EQ(ReplicationErrorText(ReplicationCode::kFailoverNoReplicas), kFailoverNoReplicas);
  EXPECT_EQ(ReplicationErrorText(ReplicationCode::kFailoverForceArguments),
            kFailoverForceArguments);
  EXPECT_EQ(ReplicationErrorText(ReplicationCode::kFailoverTargetNotReplica),
            kFailoverTargetNotReplica);
  EXPECT_EQ(ReplicationErrorText(ReplicationCode::kFailoverTargetNotOnline),
            kFailoverTargetNotOnline);
}

}  // namespace
}  // namespace ebb::server
