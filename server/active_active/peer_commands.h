// What the PEER commands exchange with ActiveActive (server/commands/cmd_peer.cc): a link's
// state as PEER LIST, INFO peers and the scrape show it, and a peer's PEER SYNC request
// (docs/active-active.md, "Links").
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "server/active_active/stable_vector.h"

namespace ebb::server {

// One configured peer's link, as ActiveActive::Peers() reads it.
struct ActiveActivePeerInfo {
  std::string host;
  int port = 0;
  std::string state;  // connecting, handshake, snapshot, connected, paused
  std::string peer_id;
  uint64_t applied = 0;       // the last origin offset of this peer applied here
  uint64_t remote_end = 0;    // the peer's end offset as its last tick said
  uint64_t lag_deltas = 0;    // remote_end - applied (0 when caught up)
  uint64_t lag_bytes = 0;     // the wire bytes of the peer's deltas not applied here
  int64_t lag_ms = 0;         // how long this node has been behind the peer (0: caught up)
  int64_t clock_skew_ms = 0;  // the peer's clock minus this node's, at its last tick
  int64_t last_io_ms = 0;     // when the link last received something (0: never)
  // The peer's applied vector at its last tick (stable_vector.h; nullopt: none heard yet, or
  // the link is to this node itself) and its entry for this node.
  std::optional<OriginVector> vector;
  RetiredIds retired;  // the ids the peer said it retired, with that vector
  uint64_t acked = 0;
};

// PEER SYNC from a peer's link (ActiveActive::Subscribe).
struct ActiveActiveSyncRequest {
  std::string_view peer_id;
  uint64_t from = 0;  // 0: a snapshot first
  // This node's id as the peer learnt it from PEER ID ("": not said). Another id than this
  // node's (it took a new one meanwhile) is refused: the peer asks PEER ID again.
  std::string_view origin;
  // DeltaDigest of the delta at `from` - 1 as the peer applied it ("" when it does not know
  // it). A peer that applied more than this node's log holds, or a different delta at that
  // offset, proves this node lost deltas it had streamed: it takes a new incarnation
  // (TakeNewIncarnation) and refuses the stream (OriginLogBehindStreamed).
  std::string_view digest;
  // The peer's SyncSettings() (none from a client that sends none); a stream is refused
  // (PeerSettingsDiffer) while any of them differs from this node's.
  std::span<const std::string_view> settings;
};

}  // namespace ebb::server
