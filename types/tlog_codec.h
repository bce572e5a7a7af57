// TLOG's on-disk encodings (docs/key-encoding.md, "TLOG"). on-disk: never change.
//
// Metadata payload (after the type byte 2 of the metadata row):
//   varint64 version | fixed64-LE cutoff | varint64 size
//   [| varint64 window | fixed64-LE newest [| register]]
//   register = fixed64-LE ts (int64) | u8 has_expiry (0|1) | fixed64-LE expire_at (int64)
// `size` is the number of entries with ts >= cutoff in the sub-rows of `version` — kept exact
// by every write, so SIZE is one point read. The bracketed tail is present only for a log kept
// under a retention window (docs/expiry.md) or an active-active expiry register: `window` ms
// (> 0 unless a register follows; a log under a window has its entries expire on their own,
// ts + window, so its `size` counts inserts only and is not used), and `newest`, the greatest
// timestamp ever inserted into this incarnation (kept once the tail is present). `register` is
// the key's active-active expiry register (docs/active-active.md, "Expiry changes"): its expiry
// (`has_expiry` 0: none, PERSIST) applies to every entry with ts <= its `ts`.
//
// Sub-row element (the tail of 0x02|db|len|key|version|element), one row per entry, row value
// empty:
//   fixed64-BE (2^64-1 - ts) | DescendingBytes(value)
// so a forward scan of a log's prefix meets entries newest first: higher ts first, then greater
// value first. DescendingBytes(v) maps each byte b to 0xFF-b, except 0x00, which becomes
// 0xFF 0x00, and appends the terminator 0xFF 0xFE. It is the bytewise complement of the
// escaped ascending encoding (0x00 -> 0x00 0xFF, terminator 0x00 0x01), which is prefix-free and
// order-preserving; complementing a prefix-free order-preserving code reverses the order. So an
// extension sorts before its prefix, as the newest-first list requires.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ebb::types {

// The greatest entry timestamp: entries are ordered by its difference from each timestamp, and a
// cutoff or coverage at it has nothing above it.
inline constexpr uint64_t kGreatestTs = UINT64_MAX;

struct TlogMeta {
  uint64_t version = 0;
  uint64_t cutoff = 0;
  uint64_t size = 0;
  uint64_t window_ms = 0;  // > 0: the log keeps each entry this long after its timestamp
  uint64_t newest = 0;     // with a window or a register: the greatest timestamp inserted
  // With an active-active expiry register: its time T and expiry (nullopt: PERSIST). Entries
  // with ts <= T are hidden once expire_at has passed.
  struct Register {
    int64_t ts = 0;
    std::optional<int64_t> expire_at;
    bool operator==(const Register&) const = default;
  };
  std::optional<Register> expiry_register;

  bool operator==(const TlogMeta&) const = default;
};

// The greatest timestamp a log holds: its newest entry or its cutoff - 1. `newest` is kept only
// under a window or a register; without either it reads 0.
uint64_t TlogNewestTs(const TlogMeta& meta);

// Whether the log's expiry register hides its entries at or before the register's ts at
// `now_ms` (its expiry has passed).
bool TlogRegisterHides(const TlogMeta& meta, int64_t now_ms);

// The expiry a log's own writes give its metadata row: with a retention window, when the window
// has passed every entry and the cutoff (nullopt beyond the int64 range); without one, none.
// (EXPIRE and PERSIST change it until the next write.)
std::optional<int64_t> TlogOwnExpiry(const TlogMeta& meta);

// The metadata payload (without the type byte).
std::string EncodeTlogMeta(const TlogMeta& meta);
// False if `payload` is malformed (truncated or trailing bytes).
bool DecodeTlogMeta(std::string_view payload, TlogMeta* meta);

// Appends the element of entry (value, ts) to *dst.
void AppendTlogElement(std::string* dst, uint64_t ts, std::string_view value);
// The element bytes that sort just before every entry with timestamp <= ts (i.e. where the
// entries with timestamp <= ts begin in a log's scan order).
std::string TlogElementSeekTs(uint64_t ts);
// Decodes an element. False if malformed.
bool DecodeTlogElement(std::string_view element, uint64_t* ts, std::string* value);
// Decodes only the timestamp of an element. False if shorter than 8 bytes.
bool DecodeTlogElementTs(std::string_view element, uint64_t* ts);

}  // namespace ebb::types
