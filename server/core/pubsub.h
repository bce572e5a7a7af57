// PubSub: channels, patterns and shard channels, and delivering messages to their subscribers
// (Redis's pubsub.c).
//
// A subscription belongs to a Client (its PubSubState) and is indexed here by channel or pattern;
// each client is listed once per channel, in subscription order. Publish encodes the message once
// per protocol (RESP2 array, RESP3 push) and hands it to each subscriber's Client::Push, which the
// connection appends to its output and writes out; a subscriber whose pending output passes
// client-output-buffer-limit pubsub is disconnected there (server/net/connection.h) while the
// others keep receiving. Subscribing replies one confirmation per channel, as Redis does, each
// carrying the client's subscription count (channels + patterns; shard channels count alone);
// confirmations are pushed like messages (Client::Push), so CLIENT REPLY OFF silences neither.
// Thread-safety: none; the command thread only.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ebb::server {

class Client;

// What one client is subscribed to.
struct PubSubState {
  std::set<std::string, std::less<>> channels;
  std::set<std::string, std::less<>> patterns;
  std::set<std::string, std::less<>> shard_channels;
  size_t total() const { return channels.size() + patterns.size() + shard_channels.size(); }
};

class PubSub {
 public:
  enum class Kind { kChannel, kPattern, kShard };

  // SUBSCRIBE / PSUBSCRIBE / SSUBSCRIBE of one name: subscribes if not yet, replies the
  // confirmation ("subscribe", name, count).
  void Subscribe(Client* client, Kind kind, std::string_view name);
  // UNSUBSCRIBE of one name: unsubscribes if subscribed, replies the confirmation.
  void Unsubscribe(Client* client, Kind kind, std::string_view name);
  // UNSUBSCRIBE without arguments: every name of `kind`; with none, one confirmation with a
  // null name.
  void UnsubscribeAll(Client* client, Kind kind);
  // Forgets every subscription of a client (disconnect, RESET), replying nothing.
  void Forget(Client* client);

  // Delivers `message` to the subscribers of `channel` and of every pattern matching it (kind
  // kChannel), or to the shard channel's (kShard). Returns how many received it.
  int64_t Publish(Kind kind, std::string_view channel, std::string_view message);

  // PUBSUB CHANNELS / SHARDCHANNELS: active channels matching `pattern` (empty: all).
  std::vector<std::string> Channels(Kind kind, std::string_view pattern) const;
  // PUBSUB NUMSUB / SHARDNUMSUB: subscribers of one channel.
  int64_t NumSub(Kind kind, std::string_view channel) const;
  // PUBSUB NUMPAT: patterns with at least one subscriber.
  int64_t NumPat() const { return static_cast<int64_t>(patterns_.size()); }
  // True when some client listens on `channel` directly or through a pattern (keyspace
  // notifications skip building a message no one reads).
  bool HasSubscribers() const { return !channels_.empty() || !patterns_.empty(); }

 private:
  using Index = std::map<std::string, std::vector<Client*>, std::less<>>;
  Index& IndexOf(Kind kind);
  const Index& IndexOf(Kind kind) const;
  static std::set<std::string, std::less<>>& SetOf(Client* client, Kind kind);
  // The confirmation of (un)subscribing `name` (null when absent).
  static void Confirm(Client* client, Kind kind, bool subscribe, const std::string* name);
  void Remove(Client* client, Kind kind, std::string_view name);

  Index channels_;
  Index patterns_;
  Index shard_channels_;
};

}  // namespace ebb::server
