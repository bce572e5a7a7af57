// The merge rules of the data types between active-active peers (docs/active-active.md, "Merge
// rules"): how one incoming write meets what a node holds, so that every node ends in the same
// state whatever order writes arrive in.
//
// TLOG and TREG merge inside their own operations (a log's entries by union with cutoff = max; a
// register by the greater (ts, value)). What is decided here, before a write is applied:
//  - string versions are a last-writer-wins register over the tuple (timestamp, tombstone,
//    SHA-256 of the value bytes, expire_at with "never" greatest) (StringVersion): a version is
//    written only when its tuple is greater than that of the most recently written version
//    (live, tombstone or expired). So the version written last is always the greatest, and one
//    version is read, never the key's history. Equal tuples are the same version. The tuple needs
//    no value bytes: an expired version compaction reduced to a tombstone keeps its digest and
//    expiry (string_rank.h) and ranks as the whole version did.
//  - a key used as two types at once resolves by a fixed precedence, series > TLOG > TREG >
//    string: a
//    write of a lower type on a live key of a higher one loses; a write of a higher type on a
//    live key of a lower one replaces it (the key is wiped first). A TREG pair or a log that
//    expired counts as live here: a node whose clock is behind still holds it live, and a later
//    expiry register may bring it back.
// Thread-safety: the keyspace's command thread, as every keyspace operation.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "storage/status.h"
#include "types/key_meta.h"
#include "types/op_result.h"

namespace ebb::types {

class Keyspace;

enum class MergeVerdict {
  kWrite,          // apply the write as it is
  kLoses,          // a string version not greater than the one held: nothing to write
  kOtherTypeWins,  // the key holds a type of higher precedence: nothing to write
  kReplaceFirst,   // the key holds a type of lower precedence: wipe it, then apply
};

// A type's precedence when a key is used as two types: 3 for a series, 2 for TLOG, 1 for TREG,
// 0 for a string.
int TypePrecedence(KeyType type);

// A string version's place in the last-writer-wins order: (ts, tombstone, digest of the value,
// expire_at). The digest is computed only when two versions tie before it; a reduced dead
// version has it without the value. `value` must outlive the version.
struct StringVersion {
  int64_t ts = 0;
  bool tombstone = false;
  std::string_view value;
  std::optional<std::string> digest;  // set for a reduced version, else computed from `value`
  int64_t expire_at = std::numeric_limits<int64_t>::max();  // never: greatest

  const std::string& Digest();
};

// a < b in the last-writer-wins order.
bool RanksBelow(StringVersion& a, StringVersion& b);

// The type that holds `key` of `db` against writes of other types: the live version's, or that of
// a TREG or log whose expired version the node still holds; nullopt when free.
storage::Status HeldType(Keyspace& keyspace, int db, std::string_view key,
                         std::optional<KeyType>* type);

// How a write of `incoming_type` to `key` of `db` meets what the node holds; `incoming` is the
// version a string write brings (REQUIRED for KeyType::kString, ignored otherwise). Fails only
// with kEngineError.
//
//   StringVersion v{.ts = 1000, .value = "x"};
//   OpResult<MergeVerdict> verdict = JudgeWrite(keyspace, 0, "k", KeyType::kString, &v);
//   if (verdict.ok() && *verdict == MergeVerdict::kLoses) ...  // a greater version is held
OpResult<MergeVerdict> JudgeWrite(Keyspace& keyspace, int db, std::string_view key,
                                  KeyType incoming_type, StringVersion* incoming);

}  // namespace ebb::types
