#include "server/replication/replication_result.h"

#include "server/core/errors.h"

namespace ebb::server {

std::string ReplicationErrorText(const Result<ReplicationCode>& result) {
  switch (result.code()) {
    case ReplicationCode::kOk:
      break;
    case ReplicationCode::kFailoverInProgress:
      return std::string(kFailoverInProgress);
    case ReplicationCode::kFailoverOnReplica:
      return std::string(kFailoverOnReplica);
    case ReplicationCode::kFailoverNoReplicas:
      return std::string(kFailoverNoReplicas);
    case ReplicationCode::kFailoverForceArguments:
      return std::string(kFailoverForceArguments);
    case ReplicationCode::kFailoverTargetNotReplica:
      return std::string(kFailoverTargetNotReplica);
    case ReplicationCode::kFailoverTargetNotOnline:
      return std::string(kFailoverTargetNotOnline);
  }
  return "";
}

}  // namespace ebb::server
