// Keyspace: the keys of one Redis Cluster hash slot (keyspace.h, "Redis Cluster's hash slots").
// Each walks database 0's metadata rows and keeps the keys whose slot matches.

#include "common/key_slot.h"
#include "types/keyspace.h"

namespace ebb::types {

using storage::Status;

OpResult<uint64_t> Keyspace::CountKeysInSlot(int slot) {
  uint64_t keys = 0;
  Status s = ForEachMeta(0, {}, [&](std::string_view key, std::string_view, const storage::RowMeta&) {
    if (KeySlot(key) == slot) ++keys;
    return true;
  });
  if (!s.ok()) return s;
  return keys;
}

OpResult<std::vector<std::string>> Keyspace::KeysInSlot(int slot, size_t count) {
  std::vector<std::string> keys;
  if (count == 0) return keys;
  Status s = ForEachMeta(0, {}, [&](std::string_view key, std::string_view, const storage::RowMeta&) {
    if (KeySlot(key) == slot) keys.emplace_back(key);
    return keys.size() < count;
  });
  if (!s.ok()) return s;
  return keys;
}

OpResult<void> Keyspace::DeleteSlot(int slot) {
  OpResult<std::vector<std::string>> keys = KeysInSlot(slot, SIZE_MAX);
  if (!keys.ok()) return FailureOf(keys);
  for (const std::string& key : *keys) {
    OpResult<bool> deleted = Delete(0, key);
    if (!deleted.ok()) return FailureOf(deleted);
  }
  return {};
}

}  // namespace ebb::types
