// Kv: timestamped string rows with TTL (PUT/GET/GETMETA/DELETE and the Redis string commands).
//
// Data model (docs/key-encoding.md, "String rows"): a string key IS its metadata row — engine key
// 0x01|db|key, value = KeyType::kString | value bytes, engine row timestamp = the write's TS,
// engine expire_at = the row's expiry. So PUT is one blind engine write and GET one engine read
// with the retrieval grace passed straight to the engine (the SlateDB RFC on the wire). Versions
// written out of timestamp order are resolved by the engine's read rule (storage/db.h, Get).
//
// Timestamps. PUT/DELETE take the writer's TS; the Redis string commands write at the clock.
// Commands that derive the new value from the old one (APPEND, INCR family) write at
// max(now, old ts), so the result supersedes its base under every retrieval grace. GETEX keeps
// the row's timestamp (same version, new expiry); GETDEL deletes like DEL (Keyspace::Delete).
// Expiry: callers resolve it (TtlPolicy); SET KEEPTTL, APPEND and INCR keep an existing key's
// expiry and give a key they create the policy's.
//
// Results: every operation returns an OpResult (types/op_result.h): kNotFound for an absent
// key, kWrongType, kNotInteger, kOverflow, kTooLarge as said below, kEngineError when the engine
// failed.
// Thread-safety: a Kv is a short-lived handle used by one thread (the server's command thread);
// read-modify-write operations are atomic because that thread runs every command.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "types/keyspace.h"
#include "types/op_result.h"

namespace ebb::types {

// A live string row.
struct KvRow {
  std::string value;
  int64_t ts = 0;
  std::optional<int64_t> expire_at_ms;  // nullopt: never expires
  bool raw = false;                     // in Redis's raw encoding (key_meta.h, kRawStringTag)
};

// The string row `row` (as Kv::GetPinned fills it) with its value copied.
KvRow CopyKvRow(const KeyMetaView& row);

// One row of a PUT/MSET.
struct KvPut {
  std::string_view key;
  std::string_view value;
  int64_t ts = 0;
  std::optional<int64_t> expire_at_ms;
  bool raw = false;  // written in Redis's raw encoding (key_meta.h, kRawStringTag)
};

// SET's options (Redis 7 semantics). The caller has resolved EX/PX/EXAT/PXAT/policy into
// expire_at_ms; keep_ttl keeps an existing key's expiry instead (a key it creates gets
// expire_at_ms).
struct KvSetOptions {
  enum class Condition { kNone, kNx, kXx };
  Condition condition = Condition::kNone;
  bool get = false;  // return the old value (WRONGTYPE if the key holds another type)
  bool keep_ttl = false;
  int64_t ts = 0;
  std::optional<int64_t> expire_at_ms;
};

// What SET did: whether it wrote (NX/XX held), and with GET the previous value (nullopt: none).
struct KvSetResult {
  bool written = false;
  std::optional<std::string> old;
};

class Kv {
 public:
  // A handle whose reads use the keyspace's default retrieval grace unless a call gives one.
  // REQUIRES: 0 <= db < kMaxDatabases.
  Kv(Keyspace& keyspace, int db)
      : Kv(keyspace, db, keyspace.settings().default_retrieval_grace_ms) {}
  // A handle whose reads use `grace_ms` unless a call gives one.
  Kv(Keyspace& keyspace, int db, int64_t grace_ms)
      : keyspace_(keyspace), db_(db), grace_ms_(grace_ms) {}

  // Reads `key` with retrieval grace `grace_ms` (nullopt: the handle's). kNotFound, kWrongType.
  OpResult<KvRow> Get(std::string_view key, std::optional<int64_t> grace_ms = std::nullopt);
  // Get without a copy of the value: on OK, row->payload is the value, row->raw_string its
  // encoding, row->row.meta its timestamp and expiry (Keyspace::GetMetaPinned). kNotFound,
  // kWrongType; *row is unspecified then.
  OpResult<void> GetPinned(std::string_view key, std::optional<int64_t> grace_ms, KeyMetaView* row);

  // A blind write of a new version (overwrites a key of any type).
  OpResult<void> Put(const KvPut& put);
  // A timestamped tombstone version (RFC scenario 5: an older tombstone loses to a newer value
  // under a full-grace read). Removes a key of any type.
  OpResult<void> Delete(std::string_view key, int64_t ts);
  // The dead version a string version expiring at `expire_at` with value digest `digest` is
  // reduced to (types/string_rank.h): a tombstone at `ts` carrying its rank without the bytes,
  // as compaction leaves it in active-active mode. Reads find the key absent.
  OpResult<void> PutReduced(std::string_view key, int64_t ts, std::string_view digest,
                            int64_t expire_at);
  // Every row in one atomic WriteBatch (MSET). Later rows of the same key win.
  OpResult<void> MultiPut(const std::vector<KvPut>& puts);
  // MSETNX: writes every row atomically only if none of the keys exists (of any type). The
  // value says whether it wrote.
  OpResult<bool> MultiPutIfNoneExist(const std::vector<KvPut>& puts);

  // SET. kWrongType (GET on a key of another type: nothing written).
  OpResult<KvSetResult> Set(std::string_view key, std::string_view value,
                            const KvSetOptions& options);

  // APPEND: the length after appending. kWrongType, kTooLarge (result longer than max_length:
  // nothing written).
  OpResult<int64_t> Append(std::string_view key, std::string_view suffix, int64_t now_ms,
                           std::optional<int64_t> new_key_expire_at, uint64_t max_length);

  // INCRBY/DECRBY/INCR/DECR: adds `delta` to the integer value (missing key: 0) and returns the
  // new value. kWrongType, kNotInteger or kOverflow: nothing is written.
  OpResult<int64_t> IncrBy(std::string_view key, int64_t delta, int64_t now_ms,
                           std::optional<int64_t> new_key_expire_at);

  // SETRANGE: overwrites from byte `offset` (zero-padding a shorter or missing value) and returns
  // the length afterwards. An empty `value` writes nothing (a missing key stays missing: 0).
  // kWrongType, kTooLarge (offset + value longer than max_length).
  OpResult<int64_t> SetRange(std::string_view key, uint64_t offset, std::string_view value,
                             int64_t now_ms, std::optional<int64_t> new_key_expire_at,
                             uint64_t max_length);

  // GETDEL: the deleted row. kNotFound, kWrongType (nothing deleted).
  OpResult<KvRow> GetDel(std::string_view key);

  // True when some version of the key is live (any type), per this handle's grace.
  OpResult<bool> Exists(std::string_view key);

  // A read-modify-write in two steps, for commands that compute the new value themselves
  // (SETBIT, BITFIELD, INCRBYFLOAT): read with ReadForUpdate, then write with PutDerived.
  // The string row a read-modify-write starts from; nullopt when the key is absent. kWrongType.
  OpResult<std::optional<KvRow>> ReadForUpdate(std::string_view key);
  // Writes the result of a read-modify-write: over an existing `base` it keeps the expiry and
  // supersedes the base (ts >= base's, so it wins under every grace); a new key gets
  // `new_key_expire_at`. `raw`: the result is in Redis's raw encoding (SETBIT, BITFIELD).
  OpResult<void> PutDerived(std::string_view key, std::string_view value,
                            const std::optional<KvRow>& base, int64_t now_ms,
                            std::optional<int64_t> new_key_expire_at, bool raw);

 private:
  // Reads the metadata row (any type); nullopt when the key is absent.
  OpResult<std::optional<KeyMetaRow>> ReadMeta(std::string_view key, int64_t grace_ms);
  storage::WriteOptions WriteOptionsFor(int64_t ts, std::optional<int64_t> expire_at) const;

  Keyspace& keyspace_;
  int db_;
  int64_t grace_ms_;
};

}  // namespace ebb::types
