// ActiveActiveCode: what an operation of ActiveActive (active_active.h) comes to, as a
// server/core/result.h outcome. ActiveActive::ErrorText words each one.
// Thread-safety: a plain value.
#pragma once

namespace ebb::server {

enum class ActiveActiveCode {
  kOk,
  // Start: the options give peers to a node that cannot have them.
  kPeerOptionInCluster,  // `peer` with `cluster-enabled yes`
  kPeerOptionOnReplica,  // `peer` with `replicaof`
  kStartFailed,          // entering the mode failed (detail: the engine's message)
  // PEER ADD.
  kPeerLinked,               // a link to that peer exists (detail: "<host>:<port>")
  kPeersOfReplica,           // this node is a replica
  kPeersOfNodeWithReplicas,  // this node has replicas
  kPeersInCluster,           // this node is in cluster mode
  kEngineError,              // entering the mode failed (detail: the engine's message)
  // A client write whose timestamp is ahead of this node's clock by more than max-clock-skew
  // under max-clock-skew-action refuse (detail: the timestamp).
  kClockSkew,
  // Start: active-active-string-rule observed-remove on a node that holds counter state.
  kCountersUnderOrRule,
  // PEER REMOVE, DEBUG PEER-LINK: no link to that peer (detail: "<host>:<port>").
  kNoSuchPeer,
};

}  // namespace ebb::server
