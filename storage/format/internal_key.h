// Internal keys and encoded rows: how one version of a user key is laid out in the memtable, the
// WAL replay path and SST files. The byte layout is documented in docs/sst-format.md.
//
//   internal key = user_key | fixed64( sequence << 8 | kind )
//   encoded row  = flags:u8 | [varint64 zigzag(timestamp_ms)] | [varint64 zigzag(expire_at_ms)]
//                  | value bytes (to the end)
//
// Internal keys order by user key ascending (bytewise, unsigned), then sequence descending, then
// kind descending, so the most recently written version of a key comes first.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "storage/row.h"

namespace ebb::storage {

inline bool IsDeletion(RowKind kind) { return kind != RowKind::kValue; }

// on-disk: never change. Bits of the encoded row's flags byte, and of an SST's meta features.
inline constexpr uint8_t kRowHasTimestamp = 1 << 0;
inline constexpr uint8_t kRowHasExpiry = 1 << 1;

inline constexpr uint64_t kMaxSequence = (1ull << 56) - 1;
inline constexpr size_t kInternalKeyTrailer = 8;

struct ParsedInternalKey {
  std::string_view user_key;
  uint64_t sequence = 0;
  RowKind kind = RowKind::kValue;
};

void AppendInternalKey(std::string* dst, std::string_view user_key, uint64_t sequence,
                       RowKind kind);
// False if `internal_key` is shorter than the trailer or the kind is unknown.
bool ParseInternalKey(std::string_view internal_key, ParsedInternalKey* parsed);
inline std::string_view ExtractUserKey(std::string_view internal_key) {
  return internal_key.substr(0, internal_key.size() - kInternalKeyTrailer);
}

// <0, 0, >0 like memcmp, in the order described above.
int CompareInternalKeys(std::string_view a, std::string_view b);
// Bytewise unsigned comparison of user keys. Inline: it is the memtable's and blocks' hot loop.
inline int CompareUserKeys(std::string_view a, std::string_view b) {
  const size_t n = a.size() < b.size() ? a.size() : b.size();
  const int r = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (r != 0) return r;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

// The internal key that sorts before every version of user_key visible at `sequence` (its
// trailer has the greatest kind byte, so versions of any kind written at `sequence` follow it).
std::string LookupKey(std::string_view user_key, uint64_t sequence);
void AppendLookupKey(std::string* dst, std::string_view user_key, uint64_t sequence);
// The same key written to dst, which has room for user_key.size() + kInternalKeyTrailer bytes;
// returns a view of it.
std::string_view EncodeLookupKey(char* dst, std::string_view user_key, uint64_t sequence);

void AppendEncodedRow(std::string* dst, const RowMeta& meta, std::string_view value);
// The encoded row's header (flags, timestamp, expiry: everything before the value), written at
// dst, which has room for kMaxRowHeaderBytes; returns its length.
inline constexpr size_t kMaxRowHeaderBytes = 1 + 2 * 10;
size_t EncodeRowHeader(const RowMeta& meta, char* dst);
size_t EncodedRowLength(const RowMeta& meta, std::string_view value);
// Splits an encoded row; false if the header is malformed.
bool DecodeRow(std::string_view encoded, RowMeta* meta, std::string_view* value);

}  // namespace ebb::storage
