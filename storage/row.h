// Row: what the engine stores under a key — a value plus time metadata.
//
// The seeds' row model (SlateDB timestamps & TTL RFC): every version of a key may carry a
// timestamp (ms; chosen by the writer, so versions can arrive out of order) and an expiry
// (absolute ms since the epoch). A row is live while now < expire_at. Rows that carry neither
// pay nothing for them on disk (see docs/sst-format.md, "row meta").
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace ebb::storage {

// What one version of a key is. on-disk: never change (the kind byte of internal keys).
//   kTombstone  a timestamped tombstone (DELETE key TS t): it takes part in the read rule by its
//               timestamp like a value, and makes the key absent when it is the version chosen.
//   kValue      a value row.
//   kWipe       a whole-key delete (DEL, UNLINK, GETDEL, FLUSHDB's range form): every version
//               written before it is gone, whatever its timestamp. A read's walk ends at it.
enum class RowKind : uint8_t { kTombstone = 0, kValue = 1, kWipe = 2 };

struct RowMeta {
  // The version's timestamp. Absent: the row sorts as timestamp 0 when versions are compared.
  std::optional<int64_t> timestamp_ms;
  // Absolute expiry. Absent: the row never expires.
  std::optional<int64_t> expire_at_ms;

  int64_t timestamp_or_zero() const { return timestamp_ms.value_or(0); }
  // True when the row has expired at `now_ms` (expire_at <= now).
  bool ExpiredAt(int64_t now_ms) const { return expire_at_ms && *expire_at_ms <= now_ms; }
  bool operator==(const RowMeta&) const = default;
};

// One version of a key as DB::GetVersions returns it: a value (live or expired) or a tombstone,
// never a wipe.
struct VersionRow {
  RowKind kind = RowKind::kValue;
  RowMeta meta;
  std::string value;
};

// A live row as returned by DB::Get.
struct Row {
  std::string value;
  RowMeta meta;
};

// A live row as DB::GetPinned returns it, without a copy of its value where the engine can keep
// the bytes in place: value() then views memory the row's pin keeps alive (a memtable the read
// found it in, held until the row is reset or destroyed); otherwise the row holds its own copy.
// Not copyable or movable (value() may view the row's own buffer): fill one in place.
// Thread-safety: a value type, used by one thread.
class PinnedRow {
 public:
  PinnedRow() = default;
  PinnedRow(const PinnedRow&) = delete;
  PinnedRow& operator=(const PinnedRow&) = delete;

  std::string_view value() const { return value_; }
  RowMeta meta;

  // The value is `value`, whose bytes stay valid while `pin` is held (an empty pin: while the
  // read state the read was given is held, ReadOptions::held_state).
  void Pin(std::string_view value, std::shared_ptr<const void> pin) {
    pin_ = std::move(pin);
    value_ = value;
  }
  // The value is `value`, held by the row itself.
  void Own(std::string value) {
    pin_.reset();
    owned_ = std::move(value);
    value_ = owned_;
  }
  // Drops the first n bytes of the value (a layer's header). REQUIRES: n <= value().size().
  void RemovePrefix(size_t n) { value_.remove_prefix(n); }

 private:
  std::string_view value_;
  std::string owned_;
  std::shared_ptr<const void> pin_;
};

// The version that makes a key absent (DB::Get, ReadOptions::dead_version): a tombstone, a wipe
// or an expired value, with its meta (and the value, for an expired one).
struct DeadVersion {
  RowKind kind = RowKind::kTombstone;
  RowMeta meta;
  std::string value;
};

}  // namespace ebb::storage
