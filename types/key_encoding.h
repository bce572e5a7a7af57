// Engine keys of the data types: how (database, user key) becomes engine keys.
//
// The layout is docs/key-encoding.md; every byte here is on-disk: never change. In short:
//   system    0x00 | name
//   metadata  0x01 | db:u8 | user_key                                  (one row per user key)
//   sub-row   0x02 | db:u8 | varint len(user_key) | user_key | fixed64-BE version | element
// The metadata rows of one database form the contiguous range [MetaKeyPrefix(db),
// MetaKeyUpperBound(db)), ordered bytewise by user key.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ebb::types {

// The first byte of every engine key. on-disk: never change.
enum class KeyTag : uint8_t { kSystem = 0x00, kMeta = 0x01, kSubRow = 0x02 };

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
// Splits a metadata key. False (outputs unspecified) if `engine_key` is not one.
bool ParseMetaKey(std::string_view engine_key, int* db, std::string_view* user_key);

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
  int db = 0;
  std::string_view user_key;  // views into the parsed engine key
  uint64_t version = 0;
  std::string_view element;
};
// Splits a sub-row key. False (outputs unspecified) if `engine_key` is not one as SubRowKey
// writes it (a length varint longer than needed included).
bool ParseSubRowKey(std::string_view engine_key, SubRowKeyParts* parts);
// The engine's seek prefix (storage::Options::seek_prefix_length): for a sub-row key, the length
// of its SubRowPrefix — what a scan of one incarnation's elements seeks to; 0 for other keys.
// Every key starting with a sub-row prefix is a sub-row key with that same prefix.
size_t SubRowSeekPrefixLength(std::string_view engine_key);

// ---- system rows.

// 0x00 | name.
std::string SystemKey(std::string_view name);

// ---- order-preserving integers (big-endian), for elements and versions.
void PutFixed64BE(std::string* dst, uint64_t value);
// Consumes 8 bytes from the front of *input; false if fewer.
bool GetFixed64BE(std::string_view* input, uint64_t* value);

}  // namespace ebb::types
