#include "server/active_active/peer_streams.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "server/core/client.h"

namespace ebb::server {

PeerStreams::PeerStreams(const ClientRegistry& clients, boost::asio::io_context& io)
    : clients_(clients), flush_at_turn_end_(io, [this] { Flush(); }) {}

void PeerStreams::Queue(std::string_view wire) {
  if (subscribers_.empty()) return;
  unsent_.append(wire);
  flush_at_turn_end_.Schedule();
}

void PeerStreams::Flush() {
  if (unsent_.empty()) return;
  for (const Subscriber& subscriber : subscribers_) {
    if (Client* client = clients_.Find(subscriber.client_id)) client->Push(unsent_);
  }
  unsent_.clear();
  if (unsent_.capacity() > (1 << 20)) std::string().swap(unsent_);  // after a burst
}

void PeerStreams::Attach(const Client& client, std::string_view peer_id, size_t pending_before) {
  subscribers_.push_back({client.id(), std::string(peer_id), pending_before});
}

void PeerStreams::Detach(uint64_t client_id) {
  std::erase_if(subscribers_, [&](const Subscriber& s) { return s.client_id == client_id; });
}

void PeerStreams::DropSlowReaders(uint64_t log_bytes, size_t output_limit) {
  std::erase_if(subscribers_, [&](const Subscriber& s) {
    Client* client = clients_.Find(s.client_id);
    if (client == nullptr) return true;
    // Its unsent output past what waited when the stream began (a snapshot's tail) is deltas
    // and at most kTickSlack bytes of ticks: more than the log holds besides means its oldest
    // unsent delta has left the log — the bounded backlog is spent. (Counting the snapshot's
    // tail would close a slow receiver's stream before the snapshot's end reached it, and the
    // next snapshot the same way.)
    const size_t pending = client->PendingOutput();
    const bool past_log = pending > s.pending_before + log_bytes + kTickSlack;
    if (past_log || pending > output_limit) {
      spdlog::warn(
          "Peer {} ({}) reads too slowly: {} bytes wait for it, more than {}: closing its "
          "stream (it resumes from its offset, with a snapshot if that left the log)",
          client->addr(), s.peer_id, pending,
          past_log ? "this node's log (peer-backlog-size) holds" : "peer-output-limit");
      client->RequestCloseDiscardingOutput();
      return true;
    }
    return false;
  });
}

void PeerStreams::PushTick(std::string_view tick) {
  for (const Subscriber& subscriber : subscribers_) {
    Client* client = clients_.Find(subscriber.client_id);
    if (client != nullptr && client->PendingOutput() < kTickSlack) client->Push(tick);
  }
}

void PeerStreams::CloseAll() {
  unsent_.clear();
  for (const Subscriber& subscriber : subscribers_) {
    if (Client* client = clients_.Find(subscriber.client_id)) client->RequestClose();
  }
  subscribers_.clear();
}

}  // namespace ebb::server
