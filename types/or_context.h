// The context of an observed-remove string delta between active-active peers: origin -> offset,
// the dots a write or a DEL saw on its origin, or what a key's deletes removed
// (docs/active-active.md, "Status", "observed-remove deletes of string keys"). The rule that uses
// it is types/or_string.h; the row extension that stores one is types/or_string_ext.h.
//
// An origin is a node's id as 20 raw bytes (the 40 hex digits the server shows, decoded). A
// context holds at most one entry per origin, each with an offset >= 1, kept in ascending order of
// origin; an absent origin stands for offset 0 (nothing of it).
//
// Wire form (the `CTX <context>` argument of a delta):
//   context = version:u8 (1) count:varint32 entry{count}
//   entry   = 0 offset:varint64                 the delta's own origin, first when present
//           | 1 id:byte[20] offset:varint64     any other origin, ids ascending
// no duplicates, offsets >= 1, each varint in its shortest form; anything else is refused.
// Thread-safety: plain values and pure functions.
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ebb::types {

inline constexpr size_t kOriginIdSize = 20;

// An origin: kOriginIdSize raw bytes held inline, so the dots and contexts a peer makes for every
// delta allocate nothing for their origins. Ordered as its bytes compare unsigned (as the
// std::string it converts to); reads as a string_view of its bytes.
class OriginId {
 public:
  OriginId() = default;  // all zero bytes: no node's id (types/or_string_rows.h, kPreModeOrigin)
  // REQUIRES: bytes.size() == kOriginIdSize.
  explicit OriginId(std::string_view bytes);
  // The origin whose node id (its bytes as 2 * kOriginIdSize hex digits, either case) is `hex`;
  // nullopt unless `hex` is exactly that.
  static std::optional<OriginId> FromHex(std::string_view hex);

  std::string_view view() const { return {bytes_.data(), bytes_.size()}; }
  operator std::string_view() const { return view(); }  // NOLINT: reads as its bytes

  friend bool operator==(const OriginId&, const OriginId&) = default;
  friend std::strong_ordering operator<=>(const OriginId& a, const OriginId& b) {
    return a.view() <=> b.view();
  }
  friend bool operator==(const OriginId& a, std::string_view b) { return a.view() == b; }
  friend std::strong_ordering operator<=>(const OriginId& a, std::string_view b) {
    return a.view() <=> b;
  }

 private:
  std::array<char, kOriginIdSize> bytes_{};
};

// One origin's offset: a dot (origin, offset) names the version that origin wrote at that offset
// of its log.
struct Dot {
  OriginId origin;
  uint64_t offset = 0;

  friend bool operator==(const Dot&, const Dot&) = default;
};

class OrContext {
 public:
  // The offset held for `origin`; 0 when absent.
  uint64_t At(const OriginId& origin) const;
  // Makes origin's offset max(held, offset); true when it grew. REQUIRES: offset >= 1.
  bool Raise(const OriginId& origin, uint64_t offset);
  // Raises every origin of `other` (the pointwise max); true when any grew.
  bool Join(const OrContext& other);
  // Forgets origin's entry (back to 0).
  void Erase(const OriginId& origin);

  const std::vector<Dot>& entries() const { return entries_; }  // ascending by origin
  bool empty() const { return entries_.empty(); }

  friend bool operator==(const OrContext&, const OrContext&) = default;

 private:
  std::vector<Dot> entries_;
};

// The wire form of `context` in a delta from `own_origin` (its entry, if any, as `0 offset`).
std::string EncodeOrContext(const OrContext& context, const OriginId& own_origin);
// Decodes all of `bytes` as a context of a delta from `own_origin`; false (context unspecified)
// unless it is exactly the form above.
bool DecodeOrContext(std::string_view bytes, const OriginId& own_origin, OrContext* context);

// The varint at the front of *input, consumed; false unless it is well formed and in its
// shortest form (so the bytes are the only encoding of the value). Shared by the codecs here.
bool GetShortestVarint64(std::string_view* input, uint64_t* v);
bool GetShortestVarint32(std::string_view* input, uint32_t* v);

}  // namespace ebb::types
