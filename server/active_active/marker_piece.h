// The shape of a whole-key operation a peer sends, checked before any of it is applied
// (ActiveActive::ApplyWholeKey; docs/active-active.md, "Whole-key deletes", "Expiry changes",
// "Snapshots"), as a free function so the stream's fuzz target (tests/fuzz/peer_stream_fuzz.cc)
// judges hostile pieces the way a node does. The shapes, the name in lower case:
//
//   del-at <T> <key> [<key> ...]
//   flushdb-at <T>                 flushall-at <T>
//   expiry-at <T> <key> <expire_at ms | persist> [<cutoff> | del <cut_at>]
//   marker-at <T> <key> <floor> [<register ts> <expire_at ms | persist> <register origin>]
//
// T, expire_at, cut_at and the register's ts are signed 64-bit decimals; a floor is a type
// precedence, 0 (none) up to the series'. A cutoff is judged by the TLOG TRIMAT it is applied as.
// Example: {"marker-at", "5", "k", "0"} has the shape (*ts = 5, *floor = 0); {"marker-at", "5",
// "k", "9"} does not (no type has precedence 9).
// Thread-safety: a pure function.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace ebb::server {

// True when `args` has one of the shapes above; then *ts is T and the other numbers its shape
// names are set (each one it does not name is left as it was).
bool ParseWholeKeyPiece(std::span<const std::string> args, int64_t* ts, int64_t* expire_at,
                        int64_t* floor, int64_t* register_ts, int64_t* cut_at);

}  // namespace ebb::server
