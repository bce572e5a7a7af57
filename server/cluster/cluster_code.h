// ClusterCode: the outcomes of the CLUSTER operations a client asks of this node (Meet, SetSlot*,
// SetConfigEpoch, SaveNow, Reset, Forget, Replicate, StartManualFailover, CountFailureReports;
// server/cluster/cluster.h) and of starting the node (Load, Listen, ParseNodesConfig), and
// ClusterErrorText, the one place that turns each into the error reply Redis 7 gives or the line
// the server logs before exiting (its words are spelled in server/core/errors.h).
//
// A failure's detail is what its text quotes: a node's name (kUnknownNode, kNodeNotKnown), a
// slot (kNotSlotOwner, kAlreadySlotOwner, kSlotHasKeys), an epoch (kInvalidConfigEpoch),
// "ip:port" (kInvalidNodeAddress), the engine's status (kEngineError) or why the
// cluster-config-file could not be written (kSaveFailed).
//
//   Result<ClusterCode> r = cluster.Forget(name);
//   if (!r.ok()) return ctx.reply.Error(ClusterErrorText(r));  // "ERR Unknown node abc..."
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "server/core/result.h"

namespace ebb::server::cluster {

enum class ClusterCode {
  kOk,
  kUnknownNode,         // detail: the node
  kNodeNotKnown,        // detail: the node (SETSLOT MIGRATING / IMPORTING's words)
  kTargetNotMaster,     // SETSLOT's node is a replica
  kNotSlotOwner,        // detail: the slot
  kAlreadySlotOwner,    // detail: the slot
  kSlotHasKeys,         // detail: the slot
  kEngineError,         // detail: the engine's status
  kInvalidNodeAddress,  // detail: "ip:port"
  kInvalidConfigEpoch,  // detail: the epoch
  kConfigEpochWithOtherNodes,
  kConfigEpochNonZero,
  kSaveFailed,  // detail: what failed
  kResetWithKeys,
  kForgetMyself,
  kForgetMyMaster,
  kReplicateMyself,
  kReplicateReplica,
  kReplicateNotEmpty,
  kFailoverOnMaster,
  kFailoverNoMaster,
  kFailoverMasterDown,
  // Starting the node.
  kNodesConfCorrupt,     // detail: where and what (NodesConfLineError, NodesConfFieldError, ...)
  kNodesConfUnwritable,  // detail: why
  kBusPortTooHigh,
  kBusListen,  // detail: the listener's text (ListenErrorText, server/io/listen.h)
  kBusNoAddress,
};

// The error reply's text of a failure. REQUIRES: !r.ok().
std::string ClusterErrorText(const Result<ClusterCode>& r);
template <typename T>
std::string ClusterErrorText(const Result<ClusterCode, T>& r) {
  return ClusterErrorText(r.failure());
}

}  // namespace ebb::server::cluster
