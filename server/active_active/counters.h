// Counters between active-active peers: the INCR family's CRDT (types/counter.h) kept per key,
// its deltas, and the string row it reads as (docs/active-active.md, "Counters").
//
// Storage (docs/key-encoding.md, "Counters"): a counter's state is the system row
// `aa-ctr:<db>:<key>` = EncodeCounterState, and the key's own string row holds what the counter
// reads as (ViewOf: the decimal sum at the greatest timestamp of its parts, the base's expiry, or
// the key's expiry register's when that covers it), rewritten in the same engine write as every
// change of the state. So every read path (GET, TYPE, STRLEN, GETRANGE, DUMP, ...) reads a plain
// string, and a node outside the mode, which never writes a state row, is unchanged.
//
// The delta, `counter key [BASE <value|tombstone|reduced> <ts> <expire_at ms|NOTTL> <payload>
// <n> (<origin> <ts> <seq> <total> <ftotal>){n}] [BY <origin> <ts> <seq> <total> <ftotal>]...`: a
// base (payload: the value, "" for a tombstone, the digest's hex for a reduced one) with what its
// origin observed, then records. INCR and its family send their origin's new record (with a base
// "0" when the key was absent or expired there: a new counter), SET, PUT and DELETE on a counter
// key a base, and a snapshot the whole state. A string delta (put, delete, put-expired) that
// reaches a counter key is merged as a base that observed nothing; a counter delta that reaches a
// key holding a plain string version first takes that version as its base (Adopt), as every node
// that holds it does.
//
// Deletes, expiry registers and type floors act through the key's marker (whole_key.h): a delete
// prunes the state held at its own T when it comes (Settle; types::Prune), a base or record that
// arrives is pruned at the deletes its view does not cover (ActiveActive::ApplyCounter; what is
// held is never judged again, as for every type: docs/active-active.md, "Status", marker
// collection's step 3), a base at or before the register's T takes the register's expiry, and a
// key held by a TREG or a TLOG (or whose floor is one) ignores counter deltas as it ignores
// string writes.
// Thread-safety: the command (io) thread, inside the keyspace batch the caller opened.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/core/write_form.h"  // kCounterIncrForm
#include "storage/status.h"
#include "types/counter.h"

namespace ebb::types {
class Keyspace;
}

namespace ebb::server {

struct KeyMarker;

inline constexpr std::string_view kCounterDelta = "counter";
inline constexpr std::string_view kCounterRowPrefix = "aa-ctr:";

std::string CounterRowName(int db, std::string_view key);
// The database and key a counter row's name names; false for any other name.
bool ParseCounterRowName(std::string_view name, int* db, std::string_view* key);

struct CounterDelta {
  std::string key;
  std::optional<types::CounterBase> base;
  std::vector<types::CounterRecord> records;
};
std::vector<std::string> CounterDeltaArgs(const CounterDelta& delta);
// `args` (args[0] lower-case) as a CounterDelta; false if out of shape.
bool ParseCounterDelta(std::span<const std::string> args, CounterDelta* delta);
// The base a string delta (put, delete, put-expired; args[0] lower-case; peer_delta.h's
// StringDelta, a CTX left aside) carries; false if out of shape.
bool BaseOfStringDelta(std::span<const std::string> args, types::CounterBase* base);

// `base` given the key's expiry register's expiry when the register covers it (base.ts <= its
// T), as a string version at or before the register takes it (whole_key.h).
void CoverByRegister(types::CounterBase* base, const KeyMarker& marker);

// What DEBUG DIGEST-LOGICAL hashes of a counter: its state with the base by its rank (ts,
// tombstone, SHA-256 of the value, expire_at), so a base held whole and the same base reduced
// after its expiry read alike, then every observed entry and record.
std::string CounterDigestText(const types::CounterState& state);

// The purge deadline for counters' state rows: installs into the keyspace's compaction filter
// the hook that reduces an expired base in a state row (types::ReduceExpiredBase, at the clock
// compaction reduces string versions by), and the one that names a key's state row when
// compaction removes the key's expired string version, so that the row is compacted at once and
// the base's bytes leave by the same deadline. Call once, on entering the mode.
void InstallCounterPurge(types::Keyspace& keyspace);

// The state of (db, key); nullopt when the key has none. Corruption when the row does not decode.
storage::Status ReadCounterState(types::Keyspace& keyspace, int db, std::string_view key,
                                 std::optional<types::CounterState>* state);

class Counters {
 public:
  explicit Counters(types::Keyspace& keyspace) : keyspace_(keyspace) {}

  // Whether any counter row exists (read once at start, then kept): without one no string
  // write needs a counter read.
  storage::Status Load();
  bool any() const { return any_; }

  // The key's state, or nullopt.
  storage::Status Read(int db, std::string_view key, std::optional<types::CounterState>* state);
  // The key's state; without one, a state whose base is the key's newest string version (live,
  // a tombstone, expired, or reduced).
  storage::Status ReadOrAdopt(int db, std::string_view key, types::CounterState* state);
  // Writes `state`, its base given the register of `marker` its expiry when the register covers
  // it, and the row the key reads as. A state left with no record and a base that observed none
  // is no counter: its row goes and the base is written as the plain string version it is
  // (nothing without one: a delete removed the row).
  storage::Status Write(int db, std::string_view key, types::CounterState state,
                        const KeyMarker& marker);
  // Rewrites the key's state (if any) under `marker`: after a register or a floor changed it, or
  // a delete at `deleted_at` came, which prunes what it covers first.
  storage::Status Settle(int db, std::string_view key, const KeyMarker& marker,
                         std::optional<int64_t> deleted_at);
  // Calls `fn` with each key of `db` that has a state.
  storage::Status ForEachKey(int db, const std::function<storage::Status(std::string_view)>& fn);
  // Removes the key's state: a type of higher precedence replaced the counter.
  storage::Status Forget(int db, std::string_view key);

 private:
  // `base` as the plain string version a PUT, DELETE or reduced dead version leaves.
  storage::Status WritePlain(int db, std::string_view key, const types::CounterBase& base);

  types::Keyspace& keyspace_;
  bool any_ = false;
};

}  // namespace ebb::server
