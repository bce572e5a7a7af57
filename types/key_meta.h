// Key metadata: the value of a key's metadata row (docs/key-encoding.md, "Metadata row").
//
// Row value = type:u8 | payload. String payloads are the value bytes; collection payloads
// (TLOG) start with varint64 version, which ties the key's sub-rows to this incarnation; TREG
// and the rest of TLOG's payload are defined by their types. The engine row's meta carries the
// key's timestamp and whole-key expiry.
// Thread-safety: pure functions and plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "storage/row.h"

namespace ebb::types {

// on-disk: never change (first byte of every metadata row value). 3-255 reserved.
enum class KeyType : uint8_t { kString = 0, kTreg = 1, kTlog = 2 };

// "string", "treg", "tlog" (what TYPE replies).
std::string_view KeyTypeName(KeyType type);
// The inverse of KeyTypeName, case-insensitive (SCAN ... TYPE t); nullopt if unknown.
std::optional<KeyType> KeyTypeFromName(std::string_view name);
// True for types whose elements live in sub-rows (payload starts with varint64 version).
bool IsCollectionType(KeyType type);

// type | payload.
std::string EncodeMetaValue(KeyType type, std::string_view payload);
// Splits a metadata row value; `payload` views into `value`. False if empty or the tag is
// unknown.
bool DecodeMetaValue(std::string_view value, KeyType* type, std::string_view* payload);
// The version at the front of a collection payload. False if malformed.
bool DecodeCollectionVersion(std::string_view payload, uint64_t* version);

// A key's live metadata row as Keyspace::GetMeta returns it.
struct KeyMetaRow {
  KeyType type = KeyType::kString;
  std::string payload;    // the row value after the type byte
  storage::RowMeta meta;  // the engine row's timestamp and whole-key expiry (absent: persistent)
};

}  // namespace ebb::types
