// SCAN cursors: where an iteration goes on, as an unsigned integer below 2^53, so every client
// can hold it — those that parse it into a 64-bit integer (hiredis, redis-cli, go-redis, Jedis)
// and those that keep a JavaScript Number. The position itself is the next metadata-key
// position to examine (MetaKeyPosition: the user key, after its slot in the slot layout), of
// any length; a cursor names it in one of two forms (docs/key-encoding.md, "SCAN cursors"):
//
// - compact, for a position of 1 to 6 bytes: (length << 48) | the bytes as a big-endian
//   number. It holds the position itself, so it is valid on every server and across restarts;
// - table, for any other position: 2^52 + a sequence number naming an entry of a bounded
//   table of positions in this process. The table keeps the most recent kMaxEntries positions
//   handed out, up to kMaxBytes of them (the newest is kept whatever its size); older ones are
//   evicted. Any connection may use any cursor. A cursor that is not in the table (evicted,
//   handed out before a restart or by another server) is refused: sequence numbers start at a
//   random point below 2^51, so a stale one does not name a live entry (short of a 2^-35 chance).
//
// 0 starts an iteration and is returned when it ends. Every other value is refused.
//
// Thread-safety: none (the server's single command thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

namespace ebb::types {

// The cursor's decimal digits as a number: ASCII digits only, at most 2^64 - 1 (as Redis reads
// a cursor). nullopt otherwise ("", "-1", "1.5", "18446744073709551616").
std::optional<uint64_t> ParseScanCursor(std::string_view text);

class ScanCursors {
 public:
  static constexpr size_t kMaxEntries = 65536;
  static constexpr size_t kMaxBytes = size_t{32} << 20;
  // Cursors at or above this value are table cursors.
  static constexpr uint64_t kTableBase = uint64_t{1} << 52;
  // The longest position a compact cursor holds.
  static constexpr size_t kMaxCompactBytes = 6;

  // A table of up to `max_entries` (>= 1) positions, `max_bytes` of them in all.
  explicit ScanCursors(size_t max_entries = kMaxEntries, size_t max_bytes = kMaxBytes);

  // The cursor naming `position`: compact when it fits, else a new table entry (evicting the
  // oldest entries past the bounds). Never 0.
  uint64_t Save(std::string_view position);
  // The position `cursor` names: "" for 0 (the first key); nullopt for a cursor that names
  // nothing (not a form above, or a table cursor no longer in the table).
  std::optional<std::string> Find(uint64_t cursor) const;

  size_t entries() const { return positions_.size(); }
  size_t bytes() const { return bytes_; }

 private:
  size_t max_entries_;
  size_t max_bytes_;
  std::deque<std::string> positions_;  // positions_[i] is sequence number first_ + i
  uint64_t first_;                     // the oldest entry's sequence number
  size_t bytes_ = 0;                   // the positions' total size
};

}  // namespace ebb::types
