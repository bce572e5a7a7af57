#include "server/services/expiry_events.h"

#include "server/services/keyspace_events.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"

namespace ebb::server {

bool ExpiryEvents::enabled() const {
  const uint32_t selected = server_->config().notify_keyspace_events;
  return server_->has_keyspace() && (selected & kNotifyExpired) &&
         (selected & (kNotifyKeyspace | kNotifyKeyevent));
}

bool ExpiryEvents::Ready() {
  if (!enabled()) {
    if (built_) {
      entries_.clear();
      horizon_.reset();
      built_ = false;
    }
    return false;
  }
  if (!built_) Rebuild();
  return true;
}

void ExpiryEvents::Rebuild() {
  entries_.clear();
  horizon_.reset();
  built_ = true;
  types::Keyspace& keyspace = server_->keyspace();
  for (int db = 0; db < server_->config().databases; db++) {
    // An engine error leaves what could be read; the next rebuild tries again.
    (void)keyspace.ForEachExpiring(
        db, [&](std::string_view key, int64_t expire_at) { Add(expire_at, db, key); });
  }
}

void ExpiryEvents::Add(int64_t expire_at, int db, std::string_view key) {
  if (horizon_ && expire_at >= *horizon_) return;
  entries_.emplace(expire_at, db, std::string(key));
  if (entries_.size() > max_entries_) {
    auto last = std::prev(entries_.end());
    horizon_ = std::get<0>(*last);
    entries_.erase(last);
  }
}

void ExpiryEvents::Note(int db, std::string_view key) {
  if (!Ready()) return;
  auto expire_at = server_->keyspace().GetExpireAt(db, key);
  if (expire_at.ok() && *expire_at) Add(**expire_at, db, key);
}

void ExpiryEvents::Poll() {
  if (!Ready()) return;
  types::Keyspace& keyspace = server_->keyspace();
  const int64_t now = keyspace.db().ExpiryNowMs();
  while (!entries_.empty() && std::get<0>(*entries_.begin()) <= now) {
    auto node = entries_.extract(entries_.begin());
    const auto& [expire_at, db, key] = node.value();
    // Fire only if the key is absent because this very expiry passed (GetMeta also counts it
    // in expired_keys, once).
    types::KeyMetaRow meta;
    std::optional<storage::DeadVersion> dead;
    const storage::Status s =
        keyspace.GetMeta(db, key, &meta, keyspace.settings().default_retrieval_grace_ms, &dead);
    if (s.IsNotFound() && dead && dead->kind == storage::RowKind::kValue &&
        dead->meta.expire_at_ms == expire_at) {
      SignalKeyChange(*server_, db, key, kNotifyExpired, "expired");
    }
  }
  // The expiries dropped for want of room come back before they are due: once half of the room
  // is free again, from the data.
  if (horizon_ && entries_.size() < max_entries_ / 2) Rebuild();
}

}  // namespace ebb::server
