// Keyspace: the keys of one Redis Cluster hash slot (keyspace.h, "Redis Cluster's hash slots").
// In the slot layout (a cluster node's keyspace) a slot's metadata rows are the engine range
// [0x03|slot, 0x03|slot+1) and its sub-rows [0x04|slot, 0x04|slot+1) (docs/key-encoding.md):
// counting and listing read that range, deleting removes both ranges at once. In the database
// layout they walk database 0's metadata rows and keep the keys of the slot. A key counts when
// a read at some retrieval grace returns it (types/live_version.h), not only the default
// grace: those are the keys a slot move must carry.

#include <memory>
#include <string>

#include "common/key_slot.h"
#include "storage/iterator.h"
#include "storage/write_batch.h"
#include "types/key_encoding.h"
#include "types/keyspace.h"
#include "types/live_version.h"

namespace ebb::types {

using storage::Status;

Status Keyspace::ForEachKeyInSlot(int slot,
                                  const std::function<bool(std::string_view key)>& visit) {
  std::string lower =
      layout_ == KeyLayout::kBySlot ? SlotMetaPrefix(slot) : MetaKeyPrefix(layout_, 0);
  storage::ReadOptions options = ReadOptions();
  options.upper_bound = PrefixUpperBound(lower);
  options.lower_bound = std::move(lower);
  options.fill_cache = false;
  options.include_dead = true;  // also the keys the default grace hides
  std::unique_ptr<storage::Iterator> it = active_->NewIterator(options);
  KeyMetaRow live;
  for (it->Seek(*options.lower_bound); it->Valid(); it->Next()) {
    int key_db = 0;
    std::string_view user_key;
    if (!ParseMetaKey(it->key(), &key_db, &user_key)) break;
    if (layout_ == KeyLayout::kByDatabase && KeySlot(user_key) != slot) continue;
    Status s = NewestLiveVersion(*active_, ReadOptions(), it->key(), &live);
    if (s.IsNotFound()) continue;  // tombstones and expired values only: nothing to move
    if (!s.ok()) return s;
    if (!visit(user_key)) break;
  }
  return it->status();
}

OpResult<uint64_t> Keyspace::CountKeysInSlot(int slot) {
  uint64_t keys = 0;
  Status s = ForEachKeyInSlot(slot, [&](std::string_view) {
    ++keys;
    return true;
  });
  if (!s.ok()) return s;
  return keys;
}

OpResult<std::vector<std::string>> Keyspace::KeysInSlot(int slot, size_t count) {
  std::vector<std::string> keys;
  if (count == 0) return keys;
  Status s = ForEachKeyInSlot(slot, [&](std::string_view key) {
    keys.emplace_back(key);
    return keys.size() < count;
  });
  if (!s.ok()) return s;
  return keys;
}

OpResult<bool> Keyspace::HoldsKey(int db, std::string_view key) {
  KeyMetaRow live;
  Status s = NewestLiveVersion(*active_, ReadOptions(), MetaKey(layout_, db, key), &live);
  if (s.IsNotFound()) return false;
  if (!s.ok()) return s;
  return true;
}

OpResult<void> Keyspace::DeleteSlot(int slot) {
  if (layout_ == KeyLayout::kBySlot) {
    const std::string meta = SlotMetaPrefix(slot);
    const std::string subrows = SlotSubRowPrefix(slot);
    return active_->DeleteRange(
        {{meta, PrefixUpperBound(meta)}, {subrows, PrefixUpperBound(subrows)}});
  }
  OpResult<std::vector<std::string>> keys = KeysInSlot(slot, SIZE_MAX);
  if (!keys.ok()) return FailureOf(keys);
  for (const std::string& key : *keys) {
    OpResult<bool> deleted = Delete(0, key);
    if (!deleted.ok()) return FailureOf(deleted);
  }
  return {};
}

}  // namespace ebb::types
