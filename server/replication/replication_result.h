// ReplicationCode: what an operation of the replication subsystem (ReplicationMaster,
// ReplicaLink, Failover) comes to, as a Result<ReplicationCode> (server/core/result.h);
// ReplicationErrorText words each outcome as its reply (server/core/errors.h, Redis's texts).
// Thread-safety: a value type and a pure function.
#pragma once

#include <string>

#include "server/core/result.h"

namespace ebb::server {

enum class ReplicationCode {
  kOk,
  // FAILOVER (Failover::Start), in the order Redis checks them.
  kFailoverInProgress,        // one is under way
  kFailoverOnReplica,         // this server is a replica
  kFailoverNoReplicas,        // no replica is connected
  kFailoverForceArguments,    // FORCE without both TIMEOUT and TO host port
  kFailoverTargetNotReplica,  // TO names no replica of this master
  kFailoverTargetNotOnline,   // TO names a replica not streaming yet
};

// The error reply of an outcome other than kOk.
std::string ReplicationErrorText(const Result<ReplicationCode>& result);

}  // namespace ebb::server
