// The DUMP payload: one key's value in ebb's own versioned, checksummed format
// (docs/dump-format.md, with a worked example). DUMP writes it, RESTORE reads it back.
//
//   payload = "EBB" | u8 format (2; 1 still read) | u8 type (KeyType) | body
//             | fixed32-LE crc32c(all before)
//
// A payload holds the value, its timestamps and its expiries (format 2: each string version's
// own, a TREG's, TLOG's or SERIES' metadata row's), not the key's name or database. Format 1
// payloads carry no expiry. on-disk: never change a format — a new layout is a new format number,
// and readers keep reading the old ones. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "types/key_meta.h"
#include "types/series_codec.h"
#include "types/tlog_codec.h"

namespace ebb::types {

// One version of a string key: a value or a timestamped tombstone.
struct DumpVersion {
  bool tombstone = false;
  std::optional<int64_t> ts;
  std::string value;                 // empty for a tombstone
  std::optional<int64_t> expire_at;  // absolute ms; absent: never (always for a tombstone)
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
  // kTreg and kTlog: the metadata row's (the key's) absolute expiry in ms; absent: never.
  std::optional<int64_t> meta_expire_at;
  // kTreg: the register's value and timestamp.
  std::string treg_value;
  uint64_t treg_ts = 0;
  // kTlog: cutoff, window and newest from `log` (its version and size are not part of a dump),
  // and the entries at or above the cutoff, newest first.
  TlogMeta log;
  std::vector<DumpEntry> entries;
  // kSeries: the settings from `series` (its version, newest and purged_below are not part of a
  // dump) and the samples reads show, oldest first, each timestamp once.
  SeriesMeta series;
  std::vector<Sample> samples;
};

// Format 2. REQUIRES: no tombstone has an expire_at.
std::string EncodeDump(const KeyDump& dump);

enum class DumpDecode {
  kOk,
  kBadVersionOrChecksum,  // not a format this server reads, or damaged
  kBadFormat,             // the checksum holds but the body does not decode
};
DumpDecode DecodeDump(std::string_view payload, KeyDump* dump);

}  // namespace ebb::types
