// Engine keys of the data types: how (database, user key) becomes engine keys.
//
// The layout is docs/key-encoding.md; every byte here is on-disk: never change. In short:
//   system         0x00 | name
//   metadata       0x01 | db:u8 | user_key                             (one row per user key)
//   sub-row        0x02 | db:u8 | varint len(user_key) | user_key | fixed64-BE version | element
//   slot metadata  0x03 | slot:u16-BE | user_key                       (cluster node: database 0)
//   slot sub-row   0x04 | slot:u16-BE | varint len(user_key) | user_key | fixed64-BE version |
//   element
// A keyspace uses one KeyLayout for its user keys, fixed when it opens: by database (0x01/0x02)
// or, on a cluster node, by hash slot (0x03/0x04, common/key_slot.h), so that the keys of one slot
// are one contiguous range. The metadata rows of one database form the contiguous range
// [MetaKeyPrefix(layout, db), PrefixUpperBound(that)), ordered bytewise by user key (by slot, then
// user key, in the slot layout).
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ebb::types {

// The first byte of every engine key. on-disk: never change.
enum class KeyTag : uint8_t {
  kSystem = 0x00,
  kMeta = 0x01,
  kSubRow = 0x02,
  kSlotMeta = 0x03,
  kSlotSubRow = 0x04
};

// Where a keyspace's user keys live: kByDatabase (0x01/0x02), or kBySlot (0x03/0x04: a cluster
// node, whose only database is 0).
enum class KeyLayout : uint8_t { kByDatabase, kBySlot };

// db is one byte in every key, so at most this many databases.
inline constexpr int kMaxDatabases = 256;

// ---- metadata rows. REQUIRES (all): 0 <= db < kMaxDatabases.

// 0x01 | db | user_key.
std::string MetaKey(int db, std::string_view user_key);
// The same, into *out (its capacity is reused: no allocation once it has held a longer key).
void AssignMetaKey(int db, std::string_view user_key, std::string* out);
// 0x01 | db: every metadata key of `db` starts with it.
std::string MetaKeyPrefix(int db);
// The smallest engine key above every metadata key of `db` (exclusive upper bound).
std::string MetaKeyUpperBound(int db);
// Splits a metadata key of either layout (a slot-layout key is database 0); *layout, when given,
// gets its layout. False (outputs unspecified) if `engine_key` is not one.
bool ParseMetaKey(std::string_view engine_key, int* db, std::string_view* user_key,
                  KeyLayout* layout = nullptr);

// ---- sub-rows of collections.

// 0x02 | db | varint len | user_key | fixed64-BE version: every sub-row of this incarnation
// starts with it (and no sub-row of another key or incarnation does).
std::string SubRowPrefix(int db, std::string_view user_key, uint64_t version);
// 0x02 | db: every sub-row of `db` starts with it (FLUSHDB's range).
std::string SubRowDbPrefix(int db);
// SubRowPrefix(...) | element.
std::string SubRowKey(int db, std::string_view user_key, uint64_t version,
                      std::string_view element);
// The smallest engine key above every key starting with `prefix` (exclusive upper bound);
// empty if there is none (prefix all 0xFF). Useful as ReadOptions::upper_bound.
std::string PrefixUpperBound(std::string_view prefix);

struct SubRowKeyParts {
  KeyLayout layout = KeyLayout::kByDatabase;
  int db = 0;                 // 0 in the slot layout
  std::string_view user_key;  // views into the parsed engine key
  uint64_t version = 0;
  std::string_view element;
};
// Splits a sub-row key of either layout. False (outputs unspecified) if `engine_key` is not one as
// SubRowKey writes it (a length varint longer than needed included).
bool ParseSubRowKey(std::string_view engine_key, SubRowKeyParts* parts);
// The engine's seek prefix (storage::Options::seek_prefix_length): for a sub-row key, the length
// of its SubRowPrefix — what a scan of one incarnation's elements seeks to; 0 for other keys.
// Every key starting with a sub-row prefix is a sub-row key with that same prefix.
size_t SubRowSeekPrefixLength(std::string_view engine_key);

// ---- either layout: what the keyspace uses (by database: the functions above). In the slot
// layout `db` must be 0 and the slot is the user key's (KeySlot).

std::string MetaKey(KeyLayout layout, int db, std::string_view user_key);
void AssignMetaKey(KeyLayout layout, int db, std::string_view user_key, std::string* out);
// Where BuildMetaKey writes a key for one engine call (a point read, a single write): `bytes` on
// the caller's stack when the key fits, else `spill`.
struct MetaKeyScratch {
  char bytes[64];
  std::string spill;
};
// The metadata key of `user_key`, as MetaKey(layout, db, user_key), in *scratch: valid while
// *scratch is. A point read builds one per request; on the stack it takes no std::string work.
std::string_view BuildMetaKey(KeyLayout layout, int db, std::string_view user_key,
                              MetaKeyScratch* scratch);
// Every metadata key of `db` starts with it (0x01|db, or 0x03).
std::string MetaKeyPrefix(KeyLayout layout, int db);
std::string SubRowPrefix(KeyLayout layout, int db, std::string_view user_key, uint64_t version);
// Every sub-row of `db` starts with it (0x02|db, or 0x04).
std::string SubRowDbPrefix(KeyLayout layout, int db);
// The start of a key's metadata row within its database's range (what follows MetaKeyPrefix):
// the user key, preceded in the slot layout by its slot (2 bytes). SCAN cursors carry it.
std::string MetaKeyPosition(KeyLayout layout, std::string_view user_key);

// ---- the slot layout's ranges. REQUIRES: 0 <= slot < 16384.

// 0x03 | slot: every metadata key of `slot` starts with it.
std::string SlotMetaPrefix(int slot);
// 0x04 | slot: every sub-row of a key of `slot` starts with it.
std::string SlotSubRowPrefix(int slot);

// ---- system rows.

// 0x00 | name.
std::string SystemKey(std::string_view name);

// ---- order-preserving integers (big-endian), for elements and versions.
void PutFixed64BE(std::string* dst, uint64_t value);
// Consumes 8 bytes from the front of *input; false if fewer.
bool GetFixed64BE(std::string_view* input, uint64_t* value);

}  // namespace ebb::types
