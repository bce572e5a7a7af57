// ClusterErrorText: every outcome of the CLUSTER operations becomes Redis 7's error reply, with
// the detail it quotes in its place.
#include "server/cluster/cluster_code.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "server/core/errors.h"

namespace ebb::server::cluster {
namespace {

TEST(ClusterErrorText, QuotesTheDetail) {
  const std::string node(40, 'a');
  EXPECT_EQ(ClusterErrorText({ClusterCode::kUnknownNode, node}), UnknownNodeError(node));
  EXPECT_EQ(ClusterErrorText({ClusterCode::kNodeNotKnown, node}), NodeNotKnownError(node));
  EXPECT_EQ(ClusterErrorText({ClusterCode::kNotSlotOwner, "16383"}), NotSlotOwnerError(16383));
  EXPECT_EQ(ClusterErrorText({ClusterCode::kAlreadySlotOwner, "0"}), AlreadySlotOwnerError(0));
  EXPECT_EQ(ClusterErrorText({ClusterCode::kSlotHasKeys, "42"}), SlotHasKeysError(42));
  EXPECT_EQ(ClusterErrorText({ClusterCode::kInvalidConfigEpoch, "-3"}),
            InvalidConfigEpochError(-3));
  EXPECT_EQ(ClusterErrorText({ClusterCode::kInvalidNodeAddress, "::1:70000"}),
            InvalidNodeAddressError("::1", 70000));
  EXPECT_EQ(ClusterErrorText({ClusterCode::kInvalidNodeAddress, "nohost:-1"}),
            InvalidNodeAddressError("nohost", -1));
  EXPECT_EQ(ClusterErrorText({ClusterCode::kSaveFailed, "disk full"}),
            ClusterConfigSaveError("disk full"));
  EXPECT_EQ(ClusterErrorText({ClusterCode::kEngineError, "IO error"}), EngineError("IO error"));
}

TEST(ClusterErrorText, SpellsEachRefusal) {
  EXPECT_EQ(ClusterErrorText(ClusterCode::kTargetNotMaster), kTargetNotMaster);
  EXPECT_EQ(ClusterErrorText(ClusterCode::kConfigEpochWithOtherNodes), kConfigEpochWithOtherNodes);
  EXPECT_EQ(ClusterErrorText(ClusterCode::kConfigEpochNonZero), kConfigEpochNonZero);
  EXPECT_EQ(ClusterErrorText(ClusterCode::kResetWithKeys), kResetWithKeys);
  EXPECT_EQ(ClusterErrorText(ClusterCode::kForgetMyself), kForgetMyself);
  EXPECT_EQ(ClusterErrorText(ClusterCode::kForgetMyMaster), kForgetMyMaster);
  EXPECT_EQ(ClusterErrorText(ClusterCode::kReplicateMyself), kReplicateMyself);
  EXPECT_EQ(ClusterErrorText(ClusterCode::kReplicateReplica), kReplicateReplica);
  EXPECT_EQ(ClusterErrorText(ClusterCode::kReplicateNotEmpty), kReplicateNotEmpty);
  EXPECT_EQ(ClusterErrorText(ClusterCode::kFailoverOnMaster), kClusterFailoverOnMaster);
  EXPECT_EQ(ClusterErrorText(ClusterCode::kFailoverNoMaster), kClusterFailoverNoMaster);
  EXPECT_EQ(ClusterErrorText(ClusterCode::kFailoverMasterDown), kClusterFailoverMasterDown);
}

TEST(ClusterErrorText, PassesAValuedResultsFailure) {
  const Result<ClusterCode, int64_t> r{ClusterCode::kUnknownNode, "x"};
  EXPECT_EQ(ClusterErrorText(r), UnknownNodeError("x"));
}

}  // namespace
}  // namespace ebb::server::cluster
