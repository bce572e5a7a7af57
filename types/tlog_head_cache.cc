#include "types/tlog_head_cache.h"

#include <algorithm>

namespace ebb::types {
namespace {

// What a head costs beyond its values: the map node, the LRU node and key, the vector.
constexpr size_t kHeadOverhead = 160;
constexpr size_t kEntryOverhead = sizeof(TlogEntry);

}  // namespace

void TlogHeadCache::set_capacity(size_t bytes) {
  capacity_ = bytes;
  EvictToCapacity();
}

void TlogHeadCache::Clear() {
  heads_.clear();
  lru_.clear();
  bytes_ = 0;
}

const std::string& TlogHeadCache::MapKey(int db, std::string_view key) {
  scratch_key_.clear();
  scratch_key_.push_back(static_cast<char>(db));
  scratch_key_.append(key);
  return scratch_key_;
}

size_t TlogHeadCache::ChargeOf(const std::string& map_key, const std::vector<TlogEntry>& entries) {
  size_t charge = kHeadOverhead + 2 * map_key.size();
  for (const TlogEntry& entry : entries) charge += kEntryOverhead + entry.value.capacity();
  return charge;
}

const std::vector<TlogEntry>* TlogHeadCache::Find(int db, std::string_view key,
                                                  const TlogMeta& meta) {
  if (heads_.empty()) {
    ++misses_;
    return nullptr;
  }
  auto it = heads_.find(MapKey(db, key));
  if (it == heads_.end()) {
    ++misses_;
    return nullptr;
  }
  if (it->second.stamp != meta) {
    Remove(it);
    ++misses_;
    return nullptr;
  }
  ++hits_;
  lru_.splice(lru_.begin(), lru_, it->second.lru_position);
  return &it->second.entries;
}

void TlogHeadCache::Fill(int db, std::string_view key, const TlogMeta& meta,
                         std::vector<TlogEntry> entries) {
  if (capacity_ == 0) return;
  const std::string& map_key = MapKey(db, key);
  const size_t charge = ChargeOf(map_key, entries);
  auto it = heads_.find(map_key);
  if (it != heads_.end()) Remove(it);
  if (charge > capacity_ / 8) return;  // one log never takes over the cache
  lru_.push_front(map_key);
  Head& head = heads_[map_key];
  head.stamp = meta;
  head.entries = std::move(entries);
  head.bytes = charge;
  head.lru_position = lru_.begin();
  bytes_ += charge;
  EvictToCapacity();
}

void TlogHeadCache::OnInsert(int db, std::string_view key, const TlogMeta& before,
                             const TlogMeta& after, std::string_view value, uint64_t ts) {
  if (heads_.empty()) return;
  auto it = heads_.find(MapKey(db, key));
  if (it == heads_.end()) return;
  Head& head = it->second;
  if (head.stamp != before) {
    Remove(it);
    return;
  }
  head.stamp = after;
  std::vector<TlogEntry>& entries = head.entries;
  const auto position = std::partition_point(entries.begin(), entries.end(), [&](const auto& e) {
    return EntryBefore(e.ts, e.value, ts, value);
  });
  if (entries.size() >= kMaxEntries && position == entries.end()) return;  // older than the head
  const auto added = entries.insert(position, TlogEntry{std::string(value), ts});
  size_t charge = head.bytes + kEntryOverhead + added->value.capacity();
  if (entries.size() > kMaxEntries) {  // the oldest is no longer among the newest
    charge -= kEntryOverhead + entries.back().value.capacity();
    entries.pop_back();
  }
  bytes_ = bytes_ - head.bytes + charge;
  head.bytes = charge;
  EvictToCapacity();
}

void TlogHeadCache::Remove(Map::iterator it) {
  bytes_ -= it->second.bytes;
  lru_.erase(it->second.lru_position);
  heads_.erase(it);
}

void TlogHeadCache::EvictToCapacity() {
  while (bytes_ > capacity_ && !lru_.empty()) Remove(heads_.find(lru_.back()));
}

}  // namespace ebb::types
