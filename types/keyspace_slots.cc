// Keyspace: the keys of one Redis Cluster hash slot (keyspace.h, "Redis Cluster's hash slots").
// In the slot layout (a cluster node's keyspace) a slot's metadata rows are the engine range
// [0x03|slot, 0x03|slot+1) and its sub-rows [0x04|slot, 0x04|slot+1) (docs/key-encoding.md):
// counting and listing read that range, deleting removes both ranges at once. In the database
// layout they walk database 0's metadata rows and keep the keys of the slot.

#include "common/key_slot.h"
#include "storage/write_batch.h"
#include "types/keyspace.h"

namespace ebb::types {

using storage::Status;

namespace {

// The visitor of the keys of `slot`: in the slot layout every row of the range is one; in the
// database layout only those whose slot matches.
template <typename Visit>
auto KeysOf(KeyLayout layout, int slot, Visit visit) {
  return [layout, slot, visit](std::string_view key, std::string_view,
                               const storage::RowMeta&) mutable {
    if (layout == KeyLayout::kByDatabase && KeySlot(key) != slot) return true;
    return visit(key);
  };
}

}  // namespace

Status Keyspace::ForEachKeyInSlot(int slot,
                                  const std::function<bool(std::string_view key)>& visit) {
  if (layout_ == KeyLayout::kByDatabase) return ForEachMeta(0, {}, KeysOf(layout_, slot, visit));
  std::string lower = SlotMetaPrefix(slot);
  std::string upper = PrefixUpperBound(lower);
  return ForEachMetaIn(std::move(lower), std::move(upper), KeysOf(layout_, slot, visit));
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
