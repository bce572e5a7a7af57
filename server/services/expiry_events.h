// ExpiryEvents: `expired` keyspace events that fire on time.
//
// Redis notices an expired key only when a command touches it or its sampling cycle finds it,
// often seconds late. ebb knows every key's expire_at, so it keeps an index of upcoming expiries
// and fires `expired` (class x) for a key once the expiry clock (storage/db.h: the clock, or the
// time expiration was switched off) passes its expire_at — within one poll, every
// kPollInterval (20 ms) on the server's loop and at once after DEBUG CLOCK moves the clock —
// exactly once per key and expiry, for every type, whether or not anyone reads the key. Each
// firing also counts the key in INFO's expired_keys (once: reads that find it expired count the
// same expiry only once, types/keyspace.h) and invalidates its WATCHers, through
// SignalKeyChange.
//
// The index is kept while notify-keyspace-events selects expired events (x with K or E):
// switching them on (CONFIG SET) rebuilds it from the data at once (every database's keys with
// an expiry), and at start the server builds it before it serves when the configuration selects
// them. Keys that expired while the server was stopped fire no event (they are gone by then). Every
// write reports the keys it changed (SignalKeyChange calls Note), and Note reads the key's expiry
// after the write. An entry is checked when it comes due: the key fires only if it is absent
// because that very expiry passed (a key deleted, persisted or given another expiry meanwhile does
// not; its new expiry has an entry of its own).
//
// Bounded memory: at most 2^20 entries (the earliest expiries; about 100 bytes each plus the
// key). Past that, later expiries are dropped and remembered only as a horizon (the earliest
// expire_at not held); once half of the entries held have fired, the index is rebuilt from the
// data, again keeping the earliest 2^20. Memory is therefore bounded whatever the number of
// expiring keys; a keyspace with more expiring keys than that pays one scan of its metadata
// per 2^19 expiries. Limit: a rebuild sees only live keys, so if the clock jumps past the
// horizon (more than 2^19 held expiries fall due in one poll), the keys beyond it expire
// without an event.
// Thread-safety: none; the command thread only.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>

namespace ebb::server {

class ServerContext;

class ExpiryEvents {
 public:
  static constexpr size_t kDefaultMaxEntries = 1 << 20;
  static constexpr int64_t kPollIntervalMs = 20;

  // REQUIRES: server outlives this object.
  explicit ExpiryEvents(ServerContext* server) : server_(server) {}

  // True while notify-keyspace-events selects expired events.
  bool enabled() const;
  // The key (db, key) was changed by a write: index its expiry, if it has one.
  void Note(int db, std::string_view key);
  // Fires every due expiry. Cheap when nothing is due.
  void Poll();
  // Forgets the index: the engine under it was replaced (a replica's full resynchronisation).
  // The next Poll rebuilds it from the data when expired events are selected.
  void Reset() {
    entries_.clear();
    horizon_.reset();
    built_ = false;
  }
  // Entries held (for tests and INFO).
  size_t size() const { return entries_.size(); }
  // The bound on entries (tests use a small one to exercise the horizon).
  void set_max_entries(size_t n) { max_entries_ = n; }

 private:
  using Entry = std::tuple<int64_t, int, std::string>;  // expire_at, db, key

  // Makes the index match enabled(): rebuilt when it turns on, dropped when off.
  bool Ready();
  void Rebuild();
  void Add(int64_t expire_at, int db, std::string_view key);

  ServerContext* server_;
  bool built_ = false;
  std::set<Entry> entries_;
  std::optional<int64_t> horizon_;  // earliest expire_at dropped for want of room
  size_t max_entries_ = kDefaultMaxEntries;
};

}  // namespace ebb::server
