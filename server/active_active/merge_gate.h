// The merge gate: how one canonical delta (server/active_active/peer_delta.h) meets what a node
// already holds, so that every node ends in the same state whatever order deltas arrive in
// (docs/active-active.md, "Merge rules").
//
// TLOG and TREG merge by their own commands (union with cutoff = max; greater (ts, value)). What
// the gate adds:
//  - string rows (PUT, DELETE, PUT-EXPIRED) are a last-writer-wins register over the tuple
//    (timestamp, tombstone, SHA-256 of the value bytes, expire_at with "never" greatest): a
//    version is written only when its tuple is greater than that of the most recently written
//    version (live, tombstone or expired). So the version written last is always the greatest — a
//    read at any retrieval grace answers the same on every node — and the gate reads one version,
//    never the key's history. Equal tuples are the same version. The tuple needs no value bytes:
//    an expired version that compaction reduced to a tombstone keeps its digest and expiry there
//    (types/string_rank.h), and ranks as the whole version did.
//  - a key used as two types at once resolves by a fixed precedence, TLOG > TREG > string: a
//    write of a lower type on a live key of a higher one loses; a write of a higher type on a live
//    key of a lower one replaces it (the key is wiped first). A TREG pair or a log that expired
//    (by an expiry register, or a log by its retention window) counts as live here: a node whose
//    clock is behind still holds it live, and a later register may bring it back. Once
//    compaction has made such a version a plain tombstone, the key marker's type floor holds
//    the key instead (whole_key.h).
// Thread-safety: the command (io) thread, as every keyspace operation.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "storage/status.h"
#include "types/key_meta.h"

namespace ebb::types {
class Keyspace;
}

namespace ebb::server {

enum class MergeVerdict {
  kWrite,          // apply the delta as it is
  kLoses,          // a string version not greater than the one held: nothing to write
  kOtherTypeWins,  // the key holds a type of higher precedence: nothing to write
  kReplaceFirst,   // the key holds a type of lower precedence: wipe it, then apply
};

// A type's precedence when a key is used as two types: 2 for TLOG, 1 for TREG, 0 for a string.
int TypePrecedence(types::KeyType type);

// The type that holds `key` of `db` against writes of other types: the live version's, or that
// of a TREG or log whose expired version the node still holds (above); nullopt when free.
storage::Status HeldType(types::Keyspace& keyspace, int db, std::string_view key,
                         std::optional<types::KeyType>* type);

// Judges canonical delta `args` (args[0] lower-case) against database `db`.
storage::Status JudgeDelta(types::Keyspace& keyspace, int db, std::span<const std::string> args,
                           MergeVerdict* verdict);

}  // namespace ebb::server
