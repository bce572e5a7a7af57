#include "server/core/transaction.h"

#include <algorithm>

#include "server/core/client.h"

namespace ebb::server {

void DiscardTransaction(WatchRegistry& watches, Client& client) {
  watches.UnwatchAll(&client);
  MultiState& m = client.multi();
  m.active = false;
  m.dirty_exec = false;
  m.dirty_cas = false;
  m.queued.clear();
}

std::string WatchRegistry::MapKey(int db, std::string_view key) {
  std::string k;
  k.reserve(key.size() + 1);
  k.push_back(static_cast<char>(db));
  k.append(key);
  return k;
}

void WatchRegistry::Watch(Client* client, int db, std::string_view key,
                          std::optional<int64_t> expire_at_ms) {
  MultiState& m = client->multi();
  for (const WatchedKey& w : m.watched) {
    if (w.db == db && w.key == key) return;
  }
  m.watched.push_back({db, std::string(key), expire_at_ms});
  watchers_[MapKey(db, key)].push_back(client);
}

void WatchRegistry::UnwatchAll(Client* client) {
  MultiState& m = client->multi();
  for (const WatchedKey& w : m.watched) {
    auto it = watchers_.find(MapKey(w.db, w.key));
    if (it == watchers_.end()) continue;
    std::erase(it->second, client);
    if (it->second.empty()) watchers_.erase(it);
  }
  m.watched.clear();
}

void WatchRegistry::Touch(int db, std::string_view key) {
  if (watchers_.empty()) return;
  auto it = watchers_.find(MapKey(db, key));
  if (it == watchers_.end()) return;
  for (Client* c : it->second) c->multi().dirty_cas = true;
}

std::vector<std::pair<int, std::string>> WatchRegistry::WatchedIn(int db) const {
  std::vector<std::pair<int, std::string>> out;
  for (const auto& [k, clients] : watchers_) {
    const int key_db = static_cast<unsigned char>(k[0]);
    if (db < 0 || key_db == db) out.emplace_back(key_db, k.substr(1));
  }
  return out;
}

}  // namespace ebb::server
