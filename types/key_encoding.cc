#include "types/key_encoding.h"

#include <cstring>

#include "common/key_slot.h"
#include "storage/util/coding.h"

namespace ebb::types {

namespace {

char Byte(KeyTag tag) { return static_cast<char>(tag); }

bool GetDb(std::string_view* input, int* db) {
  if (input->empty()) return false;
  *db = static_cast<uint8_t>((*input)[0]);
  input->remove_prefix(1);
  return true;
}

}  // namespace

std::string MetaKey(int db, std::string_view user_key) {
  std::string key;
  AssignMetaKey(db, user_key, &key);
  return key;
}

void AssignMetaKey(int db, std::string_view user_key, std::string* out) {
  // Two bytes and an append: a point read builds one per request, and assigning the two-byte
  // head took std::string's general replace.
  out->clear();
  out->push_back(Byte(KeyTag::kMeta));
  out->push_back(static_cast<char>(static_cast<uint8_t>(db)));
  out->append(user_key);
}

std::string MetaKeyPrefix(int db) { return MetaKey(db, {}); }

std::string MetaKeyUpperBound(int db) { return PrefixUpperBound(MetaKeyPrefix(db)); }

bool ParseMetaKey(std::string_view engine_key, int* db, std::string_view* user_key,
                  KeyLayout* layout) {
  if (engine_key.empty()) return false;
  if (engine_key[0] == Byte(KeyTag::kSlotMeta)) {
    if (engine_key.size() < 3) return false;
    *db = 0;
    *user_key = engine_key.substr(3);
    if (layout != nullptr) *layout = KeyLayout::kBySlot;
    return true;
  }
  if (engine_key[0] != Byte(KeyTag::kMeta)) return false;
  engine_key.remove_prefix(1);
  if (!GetDb(&engine_key, db)) return false;
  *user_key = engine_key;
  if (layout != nullptr) *layout = KeyLayout::kByDatabase;
  return true;
}

std::string SubRowDbPrefix(int db) {
  std::string prefix(1, static_cast<char>(KeyTag::kSubRow));
  prefix.push_back(static_cast<char>(db));
  return prefix;
}

std::string SubRowPrefix(int db, std::string_view user_key, uint64_t version) {
  std::string key;
  // Tag, db, length (<= 5 bytes), key, version; and room for the element most callers append.
  key.reserve(2 + 5 + user_key.size() + 8 + 32);
  key.push_back(Byte(KeyTag::kSubRow));
  key.push_back(static_cast<char>(static_cast<uint8_t>(db)));
  storage::PutLengthPrefixed(&key, user_key);
  PutFixed64BE(&key, version);
  return key;
}

std::string SubRowKey(int db, std::string_view user_key, uint64_t version,
                      std::string_view element) {
  std::string key = SubRowPrefix(db, user_key, version);
  key.append(element);
  return key;
}

std::string PrefixUpperBound(std::string_view prefix) {
  std::string bound(prefix);
  while (!bound.empty()) {
    auto last = static_cast<uint8_t>(bound.back());
    if (last != 0xFF) {
      bound.back() = static_cast<char>(last + 1);
      return bound;
    }
    bound.pop_back();
  }
  return bound;
}

bool ParseSubRowKey(std::string_view engine_key, SubRowKeyParts* parts) {
  if (engine_key.empty()) return false;
  if (engine_key[0] == Byte(KeyTag::kSlotSubRow)) {
    if (engine_key.size() < 3) return false;
    engine_key.remove_prefix(3);
    parts->layout = KeyLayout::kBySlot;
    parts->db = 0;
  } else if (engine_key[0] == Byte(KeyTag::kSubRow)) {
    engine_key.remove_prefix(1);
    if (!GetDb(&engine_key, &parts->db)) return false;
    parts->layout = KeyLayout::kByDatabase;
  } else {
    return false;
  }
  const size_t before_length = engine_key.size();
  if (!storage::GetLengthPrefixed(&engine_key, &parts->user_key)) return false;
  // Only the shortest varint, as SubRowPrefix writes it: one sub-row, one engine key.
  const size_t length_bytes = before_length - engine_key.size() - parts->user_key.size();
  if (length_bytes != static_cast<size_t>(storage::VarintLength(parts->user_key.size()))) {
    return false;
  }
  if (!GetFixed64BE(&engine_key, &parts->version)) return false;
  parts->element = engine_key;
  return true;
}

size_t SubRowSeekPrefixLength(std::string_view engine_key) {
  SubRowKeyParts parts;
  if (!ParseSubRowKey(engine_key, &parts)) return 0;
  return engine_key.size() - parts.element.size();
}

namespace {

void PutSlot(std::string* out, int slot) {
  out->push_back(static_cast<char>(static_cast<uint8_t>(slot >> 8)));
  out->push_back(static_cast<char>(static_cast<uint8_t>(slot)));
}

}  // namespace

std::string MetaKey(KeyLayout layout, int db, std::string_view user_key) {
  std::string key;
  AssignMetaKey(layout, db, user_key, &key);
  return key;
}

void AssignMetaKey(KeyLayout layout, int db, std::string_view user_key, std::string* out) {
  if (layout == KeyLayout::kByDatabase) return AssignMetaKey(db, user_key, out);
  out->clear();
  out->push_back(Byte(KeyTag::kSlotMeta));
  PutSlot(out, KeySlot(user_key));
  out->append(user_key);
}

std::string_view BuildMetaKey(KeyLayout layout, int db, std::string_view user_key,
                              MetaKeyScratch* scratch) {
  if (layout != KeyLayout::kByDatabase || user_key.size() > sizeof(scratch->bytes) - 2) {
    AssignMetaKey(layout, db, user_key, &scratch->spill);
    return scratch->spill;
  }
  scratch->bytes[0] = Byte(KeyTag::kMeta);
  scratch->bytes[1] = static_cast<char>(static_cast<uint8_t>(db));
  std::memcpy(scratch->bytes + 2, user_key.data(), user_key.size());
  return {scratch->bytes, user_key.size() + 2};
}

std::string MetaKeyPrefix(KeyLayout layout, int db) {
  if (layout == KeyLayout::kByDatabase) return MetaKeyPrefix(db);
  return std::string(1, Byte(KeyTag::kSlotMeta));
}

std::string SubRowPrefix(KeyLayout layout, int db, std::string_view user_key, uint64_t version) {
  if (layout == KeyLayout::kByDatabase) return SubRowPrefix(db, user_key, version);
  std::string key;
  key.reserve(3 + 5 + user_key.size() + 8 + 32);
  key.push_back(Byte(KeyTag::kSlotSubRow));
  PutSlot(&key, KeySlot(user_key));
  storage::PutLengthPrefixed(&key, user_key);
  PutFixed64BE(&key, version);
  return key;
}

std::string SubRowDbPrefix(KeyLayout layout, int db) {
  if (layout == KeyLayout::kByDatabase) return SubRowDbPrefix(db);
  return std::string(1, Byte(KeyTag::kSlotSubRow));
}

std::string MetaKeyPosition(KeyLayout layout, std::string_view user_key) {
  if (layout == KeyLayout::kByDatabase) return std::string(user_key);
  std::string position;
  position.reserve(2 + user_key.size());
  PutSlot(&position, KeySlot(user_key));
  position.append(user_key);
  return position;
}

std::string SlotMetaPrefix(int slot) {
  std::string prefix(1, Byte(KeyTag::kSlotMeta));
  PutSlot(&prefix, slot);
  return prefix;
}

std::string SlotSubRowPrefix(int slot) {
  std::string prefix(1, Byte(KeyTag::kSlotSubRow));
  PutSlot(&prefix, slot);
  return prefix;
}

std::string SystemKey(std::string_view name) {
  std::string key;
  key.push_back(Byte(KeyTag::kSystem));
  key.append(name);
  return key;
}

void PutFixed64BE(std::string* dst, uint64_t value) {
  char buf[8];
  for (int i = 7; i >= 0; --i) {
    buf[i] = static_cast<char>(value & 0xFF);
    value >>= 8;
  }
  dst->append(buf, 8);
}

bool GetFixed64BE(std::string_view* input, uint64_t* value) {
  if (input->size() < 8) return false;
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<uint8_t>((*input)[i]);
  *value = v;
  input->remove_prefix(8);
  return true;
}

}  // namespace ebb::types
