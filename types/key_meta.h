// Key metadata: the value of a key's metadata row (docs/key-encoding.md, "Metadata row").
//
// Row value = type:u8 | payload. String payloads are the value bytes; collection payloads
// (TLOG, SERIES) start with varint64 version, which ties the key's sub-rows to this incarnation;
// TREG and the rest of TLOG's payload are defined by their types. The engine row's meta carries the
// key's timestamp and whole-key expiry.
// Thread-safety: pure functions and plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "storage/row.h"

namespace ebb::types {

// on-disk: never change (first byte of every metadata row value). 3 is a string too
// (kRawStringTag); 4 is a time series (types/series.h); 5 a string with its active-active
// extension (types/or_string_ext.h, kOrStringTag), read as the row it wraps; 6-255 reserved.
enum class KeyType : uint8_t { kString = 0, kTreg = 1, kTlog = 2, kSeries = 4 };

// The first byte of a string whose last write leaves it in Redis's "raw" encoding, as Redis 7's
// SETRANGE, APPEND to an existing key, SETBIT, BITFIELD and BITOP do (they unshare or create a
// raw object). Every reader sees KeyType::kString; OBJECT ENCODING answers "raw" for it. Writes
// that keep the value (EXPIRE, PERSIST, GETEX, RENAME, COPY, MOVE) keep it; the rest write tag 0.
inline constexpr uint8_t kRawStringTag = 3;

// "string", "treg", "tlog", "TSDB-TYPE" (what TYPE replies; RedisTimeSeries' module type name).
std::string_view KeyTypeName(KeyType type);
// The inverse of KeyTypeName, case-insensitive (SCAN ... TYPE t); nullopt if unknown.
std::optional<KeyType> KeyTypeFromName(std::string_view name);
// True for types whose elements live in sub-rows (payload starts with varint64 version).
bool IsCollectionType(KeyType type);

// type | payload (kRawStringTag | payload for a raw string). REQUIRES: raw_string only with
// KeyType::kString.
std::string EncodeMetaValue(KeyType type, std::string_view payload, bool raw_string = false);
// Splits a metadata row value; `payload` views into `value`; *raw_string (when given) says
// whether the tag was kRawStringTag. A kOrStringTag row decodes as the string row it wraps
// (its extension skipped). False if empty, the tag is unknown, or a kOrStringTag row is malformed
// or wraps no value (a tombstone's).
bool DecodeMetaValue(std::string_view value, KeyType* type, std::string_view* payload,
                     bool* raw_string = nullptr);
// The version at the front of a collection payload. False if malformed.
bool DecodeCollectionVersion(std::string_view payload, uint64_t* version);

// A key's live metadata row as Keyspace::GetMeta returns it.
struct KeyMetaRow {
  KeyType type = KeyType::kString;
  bool raw_string = false;  // a string in Redis's raw encoding (kRawStringTag)
  std::string payload;      // the row value after the type byte
  storage::RowMeta meta;    // the engine row's timestamp and whole-key expiry (absent: persistent)
};

// A key's live metadata row as Keyspace::GetMetaPinned returns it, its payload not copied: the
// payload views `row`'s value, valid while this lives (not copyable or movable: fill in place).
struct KeyMetaView {
  KeyType type = KeyType::kString;
  bool raw_string = false;   // a string in Redis's raw encoding (kRawStringTag)
  std::string_view payload;  // the row value after the type byte
  storage::PinnedRow row;    // row.meta: the timestamp and whole-key expiry (absent: persistent)
};

}  // namespace ebb::types
