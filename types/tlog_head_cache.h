// TlogHeadCache: the newest entries ("head") of recently used logs, in memory, so that a TLOG GET
// of a log's newest entries is a metadata read and a copy instead of a merge of the log's
// sub-rows across the memtable and every table file that holds some of them.
//
// A head is keyed by (db, key) and stamped with the log's metadata when it was filled: its
// incarnation version, cutoff and size (TlogMeta). Those three determine the log's visible
// entries — every insert raises size, every trim raises the cutoff, a clear or a new log after
// DEL, expiry or FLUSHDB takes a new version — and every TLOG command reads them first anyway.
// So a head is used only while its stamp equals the metadata just read; a log changed by a path
// that bypasses this cache is never answered from stale entries, it just misses.
//
// Invariant: a head holds exactly the min(kMaxEntries, size) newest entries of its log at its
// stamp, newest first (EntryBefore order, which is the sub-rows' scan order).
// Memory: at most `capacity_bytes` (values plus a fixed overhead per entry and per head); the
// least recently used heads go first. Capacity 0 disables the cache.
// Thread-safety: none; used from the server's command thread, like Keyspace.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "types/tlog_codec.h"
#include "types/tlog_state.h"

namespace ebb::types {

class TlogHeadCache {
 public:
  // Entries kept per log: a TLOG GET with a count up to this is answered from the head.
  static constexpr size_t kMaxEntries = 16;

  explicit TlogHeadCache(size_t capacity_bytes = 0) : capacity_(capacity_bytes) {}
  TlogHeadCache(const TlogHeadCache&) = delete;
  TlogHeadCache& operator=(const TlogHeadCache&) = delete;

  // Drops every head above the new capacity.
  void set_capacity(size_t bytes);
  // Drops every head (a batch of writes the heads saw was discarded).
  void Clear();
  size_t capacity() const { return capacity_; }

  // The head of (db, key) if its stamp equals `meta`, else nullptr (a stale head is dropped).
  // The pointer is valid until the next non-const call.
  const std::vector<TlogEntry>* Find(int db, std::string_view key, const TlogMeta& meta);
  // Stores `entries` — the min(kMaxEntries, meta.size) newest entries at `meta`, newest first —
  // as the head of (db, key).
  void Fill(int db, std::string_view key, const TlogMeta& meta, std::vector<TlogEntry> entries);
  // The log went from `before` to `after` by inserting (value, ts) (after.size == before.size
  // + 1): a head stamped `before` takes the entry if it is among the newest, and the new stamp;
  // any other head is dropped. Cheap when the log has no head or the entry is older than it.
  void OnInsert(int db, std::string_view key, const TlogMeta& before, const TlogMeta& after,
                std::string_view value, uint64_t ts);
  // Heads found with a matching stamp, and lookups that found none; bytes held.
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }
  size_t bytes() const { return bytes_; }

 private:
  struct Head {
    TlogMeta stamp;
    std::vector<TlogEntry> entries;
    size_t bytes = 0;
    std::list<std::string>::iterator lru_position;  // in lru_, whose element is the map key
  };
  using Map = std::unordered_map<std::string, Head>;

  // Sets scratch_key_ to the map key of (db, key).
  const std::string& MapKey(int db, std::string_view key);
  static size_t ChargeOf(const std::string& map_key, const std::vector<TlogEntry>& entries);
  void Remove(Map::iterator it);
  void EvictToCapacity();

  size_t capacity_;
  size_t bytes_ = 0;
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
  Map heads_;
  std::list<std::string> lru_;  // map keys, most recently used first
  std::string scratch_key_;
};

}  // namespace ebb::types
