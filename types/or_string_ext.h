// The row extension of an observed-remove string key (docs/active-active.md, "Status",
// "observed-remove deletes of string keys", Rows): what the key's data row carries besides the
// winning version so that a peer's delta can be judged by the rule of types/or_string.h from the
// one read of that row. Encode and decode only; the server does not write these rows yet.
//
// Row value (the metadata row of a string key, docs/key-encoding.md "String rows"):
//   row   = kOrStringTag ext inner
//   inner = the value the row would hold without the extension (0x00 | bytes, 0x03 | bytes, a
//           reduced version's rank 0x00 | digest | expire_at), or nothing for a DEL's tombstone
//   ext   = version:u8 (1) flags:u8 [origin:byte[20] offset:varint64] count:varint32
//           (origin:byte[20] offset:varint64){count}
//   flags: bit 0 siblings live (other slots are in sibling rows), bit 1 the winner's dot follows;
//          the other bits 0, and bit 0 only with bit 1
//   then R: origins ascending, no duplicates, offsets >= 1, none for the dot's origin (a slot's
//   origin is never in canonical R); each varint in its shortest form.
// Anything else is refused. About 26 bytes for a key only one origin writes.
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "types/or_context.h"

namespace ebb::types {

// The metadata row tag of a string row with the extension (KeyType 4 is a series; this is the
// next free tag).
inline constexpr uint8_t kOrStringTag = 5;
// The system rows of a key's siblings (the slots besides the winner): row name
// SiblingRowPrefix(db, key) + origin id, "aa-sib:<db as decimal>:<key length as decimal>:<key>"
// + 20 bytes; the value is a row of the form above with the slot's dot and no R.
inline constexpr std::string_view kSiblingRowPrefix = "aa-sib:";
std::string SiblingRowPrefix(int db, std::string_view key);

struct OrStringExt {
  bool siblings_live = false;  // other slots live in sibling rows; REQUIRES dot
  std::optional<Dot> dot;      // the winner's; nullopt for a DEL's tombstone
  OrContext removed;           // R, canonical (types/or_string.h)

  friend bool operator==(const OrStringExt&, const OrStringExt&) = default;
};

// Appends `ext` to *out. REQUIRES: siblings_live only with a dot; R has no entry for the dot's
// origin.
void AppendOrStringExt(const OrStringExt& ext, std::string* out);
// Decodes an extension from the front of *input and consumes it; false (both unspecified) when
// the bytes are not exactly the form above.
bool ConsumeOrStringExt(std::string_view* input, OrStringExt* ext);

// The whole row value: kOrStringTag, the extension, `inner`. REQUIRES: as AppendOrStringExt.
void EncodeOrStringRow(const OrStringExt& ext, std::string_view inner, std::string* row);
// Splits a row value; `inner` views into `row`. False unless it starts with kOrStringTag and a
// well formed extension, and `inner` is empty or starts with a string tag (0x00 or 0x03).
bool DecodeOrStringRow(std::string_view row, OrStringExt* ext, std::string_view* inner);
// The row a value reads as: `inner` of a well formed kOrStringTag row, else `row` itself (a row
// in today's forms, or bytes no reader accepts either way). Views into `row`.
std::string_view OrInnerRow(std::string_view row);

}  // namespace ebb::types
