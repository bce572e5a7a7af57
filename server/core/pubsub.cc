#include "server/core/pubsub.h"

#include <algorithm>

#include "common/glob.h"
#include "protocol/reply_writer.h"
#include "server/core/client.h"

namespace ebb::server {
namespace {

std::string_view SubscribeWord(PubSub::Kind kind, bool subscribe) {
  switch (kind) {
    case PubSub::Kind::kChannel:
      return subscribe ? "subscribe" : "unsubscribe";
    case PubSub::Kind::kPattern:
      return subscribe ? "psubscribe" : "punsubscribe";
    case PubSub::Kind::kShard:
      return subscribe ? "ssubscribe" : "sunsubscribe";
  }
  return "";
}

// One message as `protocol` encodes it: [message|smessage, channel, payload] or
// [pmessage, pattern, channel, payload].
std::string EncodeMessage(int protocol, std::string_view type, const std::string* pattern,
                          std::string_view channel, std::string_view message) {
  std::string out;
  protocol::ReplyWriter w(&out, protocol);
  w.PushHeader(pattern != nullptr ? 4 : 3);
  w.Bulk(type);
  if (pattern != nullptr) w.Bulk(*pattern);
  w.Bulk(channel);
  w.Bulk(message);
  return out;
}

}  // namespace

PubSub::Index& PubSub::IndexOf(Kind kind) {
  return kind == Kind::kChannel ? channels_ : kind == Kind::kPattern ? patterns_ : shard_channels_;
}

const PubSub::Index& PubSub::IndexOf(Kind kind) const {
  return kind == Kind::kChannel ? channels_ : kind == Kind::kPattern ? patterns_ : shard_channels_;
}

std::set<std::string, std::less<>>& PubSub::SetOf(Client* client, Kind kind) {
  PubSubState& s = client->pubsub();
  return kind == Kind::kChannel   ? s.channels
         : kind == Kind::kPattern ? s.patterns
                                  : s.shard_channels;
}

void PubSub::Confirm(Client* client, Kind kind, bool subscribe, const std::string* name) {
  const PubSubState& s = client->pubsub();
  const size_t count =
      kind == Kind::kShard ? s.shard_channels.size() : s.channels.size() + s.patterns.size();
  std::string out;
  protocol::ReplyWriter reply(&out, client->resp());
  reply.PushHeader(3);
  reply.Bulk(SubscribeWord(kind, subscribe));
  if (name != nullptr) {
    reply.Bulk(*name);
  } else {
    reply.Null();
  }
  reply.Integer(static_cast<int64_t>(count));
  client->Push(out);
}

void PubSub::Subscribe(Client* client, Kind kind, std::string_view name) {
  auto [it, added] = SetOf(client, kind).emplace(name);
  if (added) IndexOf(kind)[std::string(name)].push_back(client);
  Confirm(client, kind, true, &*it);
}

void PubSub::Remove(Client* client, Kind kind, std::string_view name) {
  Index& index = IndexOf(kind);
  auto it = index.find(name);
  if (it == index.end()) return;
  std::erase(it->second, client);
  if (it->second.empty()) index.erase(it);
}

void PubSub::Unsubscribe(Client* client, Kind kind, std::string_view name) {
  auto& set = SetOf(client, kind);
  const std::string owned(name);
  if (auto it = set.find(name); it != set.end()) {
    set.erase(it);
    Remove(client, kind, name);
  }
  Confirm(client, kind, false, &owned);
}

void PubSub::UnsubscribeAll(Client* client, Kind kind) {
  auto& set = SetOf(client, kind);
  if (set.empty()) return Confirm(client, kind, false, nullptr);
  while (!set.empty()) {
    const std::string name = *set.begin();
    set.erase(set.begin());
    Remove(client, kind, name);
    Confirm(client, kind, false, &name);
  }
}

void PubSub::Forget(Client* client) {
  for (Kind kind : {Kind::kChannel, Kind::kPattern, Kind::kShard}) {
    auto& set = SetOf(client, kind);
    for (const std::string& name : set) Remove(client, kind, name);
    set.clear();
  }
}

int64_t PubSub::Publish(Kind kind, std::string_view channel, std::string_view message) {
  int64_t receivers = 0;
  std::string encoded[2];  // by protocol: RESP2, RESP3; built on first use
  auto deliver = [&](Client* c, const std::string* pattern) {
    const int slot = c->resp() >= 3 ? 1 : 0;
    if (pattern != nullptr) {  // a pmessage names its pattern: encoded per pattern
      c->Push(EncodeMessage(c->resp(), "pmessage", pattern, channel, message));
    } else {
      if (encoded[slot].empty()) {
        encoded[slot] = EncodeMessage(c->resp(), kind == Kind::kShard ? "smessage" : "message",
                                      nullptr, channel, message);
      }
      c->Push(encoded[slot]);
    }
    receivers++;
  };
  const Index& direct = IndexOf(kind);
  if (auto it = direct.find(channel); it != direct.end()) {
    // A subscriber may be disconnected by its output limit while we deliver: walk a copy.
    const std::vector<Client*> clients = it->second;
    for (Client* c : clients) deliver(c, nullptr);
  }
  if (kind == Kind::kChannel && !patterns_.empty()) {
    std::vector<std::pair<std::string, std::vector<Client*>>> matched;
    for (const auto& [pattern, clients] : patterns_) {
      if (GlobMatch(pattern, channel)) matched.emplace_back(pattern, clients);
    }
    for (const auto& [pattern, clients] : matched) {
      for (Client* c : clients) deliver(c, &pattern);
    }
  }
  return receivers;
}

std::vector<std::string> PubSub::Channels(Kind kind, std::string_view pattern) const {
  std::vector<std::string> out;
  for (const auto& [name, clients] : IndexOf(kind)) {
    if (pattern.empty() || GlobMatch(pattern, name)) out.push_back(name);
  }
  return out;
}

int64_t PubSub::NumSub(Kind kind, std::string_view channel) const {
  const Index& index = IndexOf(kind);
  auto it = index.find(channel);
  return it == index.end() ? 0 : static_cast<int64_t>(it->second.size());
}

}  // namespace ebb::server
