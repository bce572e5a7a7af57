// The shape of a whole-key operation a peer sends, checked before any of it is applied
// (ActiveActive::ApplyWholeKey; docs/active-active.md, "Whole-key deletes", "Expiry changes",
// "Snapshots"), as a free function so the stream's fuzz target (tests/fuzz/peer_stream_fuzz.cc)
// judges hostile pieces the way a node does. The shapes, the name in lower case:
//
//   del-at <T> <key> [<key> ...]
//   flushdb-at <T> [<deletes>]     flushall-at <T>
//   expiry-at <T> <key> <expire_at ms | persist> [<cutoff> | del <cut_at>]
//   marker-at <T> <key> <floor>
//             [<register ts> <expire_at ms | persist> <register origin> [<register offset>]]
//             [<deletes>]
//   deletes = "deletes" (<origin node id> <offset> <T>)+
//
// T, expire_at, cut_at, the register's ts and each delete's T are signed 64-bit decimals, offsets
// unsigned ones, an origin node id 40 hex digits; a floor is a type precedence, 0 (none) up to the
// series'. A cutoff is judged by the TLOG TRIMAT it is applied as. `deletes` (a snapshot's marker
// or horizon, each delete with the dot of the delta that made it: marker_entries.h) must be a set
// as MarkerEntries keeps it, in its order, the piece's T the greatest of their T. Without it a
// flushdb-at is one delete at its delta's dot, and a marker-at's T one delete at
// PreModeMarkerDot(); a register without its offset has offset 0.
// Example: {"marker-at", "5", "k", "0"} has the shape (ts = 5, floor = 0); {"marker-at", "5",
// "k", "9"} does not (no type has precedence 9); {"flushdb-at", "5", "deletes", <40 hex digits>,
// "3", "5"} has it, with one delete.
// Thread-safety: a pure function.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/active_active/marker_entries.h"
#include "types/or_context.h"

namespace ebb::server {

inline constexpr std::string_view kMarkerDeletesTag = "deletes";

// What a whole-key piece's shape names (each field it does not name left as it is).
struct WholeKeyPiece {
  int64_t ts = 0;  // T
  int64_t expire_at = 0;
  int64_t floor = 0;
  bool has_register = false;  // a marker-at's
  int64_t register_ts = 0;
  uint64_t register_offset = 0;
  int64_t cut_at = 0;
  MarkerEntries deletes;  // empty without them
};

// True when `args` has one of the shapes above; then *piece holds what it names.
bool ParseWholeKeyPiece(std::span<const std::string> args, WholeKeyPiece* piece);
// The `deletes` arguments of a snapshot piece carrying `deletes` (nothing for none).
std::vector<std::string> MarkerDeletesArgs(const MarkerEntries& deletes);

// A DEL in the observed-remove form (docs/active-active.md, "Deltas"), made by a DEL that names a
// string key:
//
//   del-or <T> <n> <key>{n} (<key> <context>)*
//
// the n keys that held other types under T (as del-at's), then each string key with the context
// of the slots its origin held for it (types/or_context.h's wire form, read against the delta's
// origin as a string delta's CTX is: peer_delta.h). T is a signed 64-bit decimal, n an unsigned
// one; at least one key. `del-at` stays readable.
// Example: {"del-or", "5", "1", "log", "s", "\x01\x01\x00\x04"} deletes `log` under T = 5 and
// the string `s` up to its origin's offset 4.
struct DelOr {
  struct StringKey {
    std::string key;
    types::OrContext context;
    friend bool operator==(const StringKey&, const StringKey&) = default;
  };
  int64_t ts = 0;
  std::vector<std::string> keys;       // the keys of other types, under T
  std::vector<StringKey> string_keys;  // each string key with its context

  friend bool operator==(const DelOr&, const DelOr&) = default;
};
// `args` (args[0] lower-case) as a DelOr from node `origin_node_id` (40 hex digits); false when
// out of shape, when a context does not decode, or when there are string keys and origin_node_id
// is not a node id.
bool ParseDelOr(std::span<const std::string> args, std::string_view origin_node_id, DelOr* del);
// The arguments of `del` from node `origin_node_id`. REQUIRES: a key at least; origin_node_id a
// node id when there are string keys.
std::vector<std::string> DelOrArgs(const DelOr& del, std::string_view origin_node_id);

}  // namespace ebb::server
