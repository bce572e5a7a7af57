// The DUMP payload: one key's value in ebb's own versioned, checksummed format
// (docs/dump-format.md, with a worked example). DUMP writes it, RESTORE reads it back.
//
//   payload = "EBB" | u8 format (1) | u8 type (KeyType) | body | fixed32-LE crc32c(all before)
//
// A payload holds the value and its timestamps, not the key's name, database or expiry (as
// Redis's: RESTORE takes the TTL). on-disk: never change format 1 — a new layout is a new format
// number, and readers keep reading the old ones.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "types/key_meta.h"
#include "types/tlog_codec.h"

namespace ebb::types {

// One version of a string key: a value or a timestamped tombstone.
struct DumpVersion {
  bool tombstone = false;
  std::optional<int64_t> ts;
  std::string value;  // empty for a tombstone
};

// One TLOG entry.
struct DumpEntry {
  uint64_t ts = 0;
  std::string value;
};

struct KeyDump {
  KeyType type = KeyType::kString;
  // kString: the versions, oldest first (the last is the one a read without grace takes).
  std::vector<DumpVersion> versions;
  // kTreg and kTlog: the metadata row's timestamp (the key's last write).
  int64_t meta_ts = 0;
  // kTreg: the register's value and timestamp.
  std::string treg_value;
  uint64_t treg_ts = 0;
  // kTlog: cutoff, window and newest from `log` (its version and size are not part of a dump),
  // and the entries at or above the cutoff, newest first.
  TlogMeta log;
  std::vector<DumpEntry> entries;
};

std::string EncodeDump(const KeyDump& dump);

enum class DumpDecode {
  kOk,
  kBadVersionOrChecksum,  // not a format this server reads, or damaged
  kBadFormat,             // the checksum holds but the body does not decode
};
DumpDecode DecodeDump(std::string_view payload, KeyDump* dump);

}  // namespace ebb::types
