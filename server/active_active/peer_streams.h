// PeerStreams: the streams of this node's own deltas to the peers that subscribed with PEER SYNC
// (docs/active-active.md, "Links"): who they are, the deltas logged this turn that they have not
// been given, the ticks, and the end of a stream whose reader fell behind the log.
//
// Each delta ActiveActive logs is queued (Queue); the queued bytes go to every subscriber in one
// push at the end of the io loop's turn (a TurnEndTask), as a master's stream goes to its
// replicas, and before anything else reaches a subscriber or changes who subscribes (Flush: the
// ticks, a new stream, the end of every stream), so each stream stays in offset order and a new
// one gets no delta twice. ActiveActive owns the log and the snapshots; a subscriber is attached
// once the log from its offset has been pushed to it.
// Thread-safety: the io thread only.
#pragma once

#include <boost/asio/io_context.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "server/core/turn_end_task.h"

namespace ebb::server {

class Client;
class ClientRegistry;

class PeerStreams {
 public:
  // REQUIRES: `clients` and `io` outlive this object.
  PeerStreams(const ClientRegistry& clients, boost::asio::io_context& io);

  size_t size() const { return subscribers_.size(); }
  bool empty() const { return subscribers_.empty(); }

  // A delta's wire form for every subscriber (nothing when none subscribes).
  void Queue(std::string_view wire);
  // Gives every subscriber the queued bytes.
  void Flush();
  // `client` streams from now on; `pending_before`: its unsent output when its stream began (a
  // snapshot's tail), which the slow-reader check leaves out. REQUIRES: Flush since the last
  // Queue (the client got the log's bytes, queued ones included, from the log itself).
  void Attach(const Client& client, std::string_view peer_id, size_t pending_before);
  // `client_id` streams no more (a PEER SYNC again on its connection).
  void Detach(uint64_t client_id);
  // After a Flush: forgets the streams whose client went, and closes (logged) those whose unsent
  // output beyond `pending_before` passes what the log holds (`log_bytes`) and the ticks' slack
  // — their oldest unsent delta has left the log — or passes `output_limit`.
  void DropSlowReaders(uint64_t log_bytes, size_t output_limit);
  // Pushes `tick` to every subscriber with less than the ticks' slack unsent (one that has more
  // is being sent deltas).
  void PushTick(std::string_view tick);
  // Ends every stream: the queued bytes are dropped and each subscriber's connection closed.
  void CloseAll();

 private:
  struct Subscriber {
    uint64_t client_id = 0;
    std::string peer_id;
    size_t pending_before = 0;
  };
  // The unsent bytes below which a subscriber still gets ticks (so at most this much of its
  // pending output is ticks).
  static constexpr size_t kTickSlack = 64 * 1024;

  const ClientRegistry& clients_;
  std::vector<Subscriber> subscribers_;
  std::string unsent_;  // the queued deltas' wire forms
  TurnEndTask flush_at_turn_end_;
};

}  // namespace ebb::server
