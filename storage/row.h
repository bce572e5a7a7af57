// Row: what the engine stores under a key — a value plus time metadata.
//
// The seeds' row model (SlateDB timestamps & TTL RFC): every version of a key may carry a
// timestamp (ms; chosen by the writer, so versions can arrive out of order) and an expiry
// (absolute ms since the epoch). A row is live while now < expire_at. Rows that carry neither
// pay nothing for them on disk (see docs/sst-format.md, "row meta").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

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

// The version that makes a key absent (DB::Get, ReadOptions::dead_version): a tombstone, a wipe
// or an expired value, with its meta (and the value, for an expired one).
struct DeadVersion {
  RowKind kind = RowKind::kTombstone;
  RowMeta meta;
  std::string value;
};

}  // namespace ebb::storage
