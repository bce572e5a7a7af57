#include "server/cluster/cluster_code.h"

#include <cstdint>
#include <string_view>

#include "common/strings.h"
#include "server/core/errors.h"

namespace ebb::server::cluster {
namespace {

// The number a slot's or an epoch's outcome quotes.
int64_t Number(std::string_view detail) {
  int64_t v = 0;
  ParseInt64(detail, &v);
  return v;
}

}  // namespace

std::string ClusterErrorText(const Result<ClusterCode>& r) {
  const std::string& detail = r.detail();
  switch (r.code()) {
    case ClusterCode::kOk:
      break;
    case ClusterCode::kUnknownNode:
      return UnknownNodeError(detail);
    case ClusterCode::kNodeNotKnown:
      return NodeNotKnownError(detail);
    case ClusterCode::kTargetNotMaster:
      return std::string(kTargetNotMaster);
    case ClusterCode::kNotSlotOwner:
      return NotSlotOwnerError(static_cast<int>(Number(detail)));
    case ClusterCode::kAlreadySlotOwner:
      return AlreadySlotOwnerError(static_cast<int>(Number(detail)));
    case ClusterCode::kSlotHasKeys:
      return SlotHasKeysError(static_cast<int>(Number(detail)));
    case ClusterCode::kEngineError:
      return EngineError(detail);
    case ClusterCode::kInvalidNodeAddress: {
      const size_t colon = detail.rfind(':');
      return InvalidNodeAddressError(std::string_view(detail).substr(0, colon),
                                     static_cast<int>(Number(detail.substr(colon + 1))));
    }
    case ClusterCode::kInvalidConfigEpoch:
      return InvalidConfigEpochError(Number(detail));
    case ClusterCode::kConfigEpochWithOtherNodes:
      return std::string(kConfigEpochWithOtherNodes);
    case ClusterCode::kConfigEpochNonZero:
      return std::string(kConfigEpochNonZero);
    case ClusterCode::kSaveFailed:
      return ClusterConfigSaveError(detail);
    case ClusterCode::kResetWithKeys:
      return std::string(kResetWithKeys);
    case ClusterCode::kForgetMyself:
      return std::string(kForgetMyself);
    case ClusterCode::kForgetMyMaster:
      return std::string(kForgetMyMaster);
    case ClusterCode::kReplicateMyself:
      return std::string(kReplicateMyself);
    case ClusterCode::kReplicateReplica:
      return std::string(kReplicateReplica);
    case ClusterCode::kReplicateNotEmpty:
      return std::string(kReplicateNotEmpty);
    case ClusterCode::kFailoverOnMaster:
      return std::string(kClusterFailoverOnMaster);
    case ClusterCode::kFailoverNoMaster:
      return std::string(kClusterFailoverNoMaster);
    case ClusterCode::kFailoverMasterDown:
      return std::string(kClusterFailoverMasterDown);
    case ClusterCode::kNodesConfCorrupt:
      return NodesConfCorruptError(detail);
    case ClusterCode::kNodesConfUnwritable:
      return NodesConfUnwritableError(detail);
    case ClusterCode::kBusPortTooHigh:
      return std::string(kBusPortTooHigh);
    case ClusterCode::kBusListen:
      return BusListenError(detail);
    case ClusterCode::kBusNoAddress:
      return std::string(kBusNoAddress);
  }
  return {};
}

}  // namespace ebb::server::cluster
