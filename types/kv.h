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
// Expiry: callers resolve it (TtlPolicy); SET KEEPTTL keeps the existing key's expiry,
// APPEND/INCR keep it for an existing key and use `new_key_expire_at` when they create one.
//
// Errors: engine failures are the returned storage::Status; what a user sees (wrong type, not an
// integer, ...) is the KvResult.
// Thread-safety: a Kv is a short-lived handle used by one thread (the server's command thread);
// read-modify-write operations are atomic because that thread runs every command.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/status.h"
#include "types/keyspace.h"

namespace ebb::types {

// A live string row.
struct KvRow {
  std::string value;
  int64_t ts = 0;
  std::optional<int64_t> expire_at_ms;  // nullopt: never expires
};

// What an operation found or did, as a user observes it.
enum class KvResult {
  kOk,
  kAbsent,           // the key does not exist (absent, deleted or expired)
  kWrongType,        // the key holds another type; nothing was written
  kNotInteger,       // INCR family: the value is not a 64-bit integer
  kOverflow,         // INCR family: the result would overflow
  kTooLarge,         // APPEND: the result would exceed the maximum length
  kConditionFailed,  // SET NX/XX, MSETNX: the condition did not hold; nothing was written
};

// One row of a PUT/MSET.
struct KvPut {
  std::string_view key;
  std::string_view value;
  int64_t ts = 0;
  std::optional<int64_t> expire_at_ms;
};

// SET's options (Redis 7 semantics). The caller has resolved EX/PX/EXAT/PXAT/policy into
// expire_at_ms; keep_ttl ignores it and keeps the existing key's expiry.
struct KvSetOptions {
  enum class Condition { kNone, kNx, kXx };
  Condition condition = Condition::kNone;
  bool get = false;  // return the old value (WRONGTYPE if the key holds another type)
  bool keep_ttl = false;
  int64_t ts = 0;
  std::optional<int64_t> expire_at_ms;
};

class Kv {
 public:
  // `grace_ms` is the retrieval grace of every read this handle makes unless a call says
  // otherwise (the server's default-retrieval-grace). REQUIRES: 0 <= db < kMaxDatabases.
  Kv(Keyspace& keyspace, int db, int64_t grace_ms = 0)
      : keyspace_(keyspace), db_(db), grace_ms_(grace_ms) {}

  // Reads `key` with retrieval grace `grace_ms`. *result: kOk (row filled), kAbsent or
  // kWrongType.
  storage::Status Get(std::string_view key, int64_t grace_ms, KvRow* row, KvResult* result);
  storage::Status Get(std::string_view key, KvRow* row, KvResult* result) {
    return Get(key, grace_ms_, row, result);
  }

  // A blind write of a new version (overwrites a key of any type).
  storage::Status Put(const KvPut& put);
  // A timestamped tombstone version (RFC scenario 5: an older tombstone loses to a newer value
  // under a full-grace read). Removes a key of any type.
  storage::Status Delete(std::string_view key, int64_t ts);
  // Every row in one atomic WriteBatch (MSET). Later rows of the same key win.
  storage::Status MultiPut(const std::vector<KvPut>& puts);
  // MSETNX: writes every row atomically only if none of the keys exists (of any type);
  // else *result = kConditionFailed and nothing is written.
  storage::Status MultiPutIfNoneExist(const std::vector<KvPut>& puts, KvResult* result);

  // SET. *result: kOk (written), kConditionFailed (NX/XX did not hold), kWrongType (GET on a key
  // of another type: nothing written). With options.get, *old is the previous string value
  // (nullopt if there was none).
  storage::Status Set(std::string_view key, std::string_view value, const KvSetOptions& options,
                      KvResult* result, std::optional<std::string>* old);

  // APPEND: *new_length = the length after appending. kWrongType, kTooLarge (result longer than
  // max_length: nothing written) or kOk.
  storage::Status Append(std::string_view key, std::string_view suffix, int64_t now_ms,
                         std::optional<int64_t> new_key_expire_at, uint64_t max_length,
                         int64_t* new_length, KvResult* result);

  // INCRBY/DECRBY/INCR/DECR: adds `delta` to the integer value (missing key: 0). *value = the
  // new value on kOk; else kWrongType, kNotInteger or kOverflow and nothing is written.
  storage::Status IncrBy(std::string_view key, int64_t delta, int64_t now_ms,
                         std::optional<int64_t> new_key_expire_at, int64_t* value,
                         KvResult* result);

  // SETRANGE: overwrites from byte `offset` (zero-padding a shorter or missing value). An empty
  // `value` writes nothing (a missing key stays missing, *new_length = 0). *new_length = the
  // length afterwards. kWrongType, kTooLarge (offset + value longer than max_length) or kOk.
  storage::Status SetRange(std::string_view key, uint64_t offset, std::string_view value,
                           int64_t now_ms, std::optional<int64_t> new_key_expire_at,
                           uint64_t max_length, int64_t* new_length, KvResult* result);

  // GETDEL: *result kOk (row = the deleted value), kAbsent or kWrongType (nothing deleted).
  storage::Status GetDel(std::string_view key, KvRow* row, KvResult* result);

  // True when some version of the key is live (any type), per this handle's grace.
  storage::Status Exists(std::string_view key, bool* exists);

 private:
  // Reads the metadata row (any type); *found = false when the key is absent.
  storage::Status ReadMeta(std::string_view key, int64_t grace_ms, KeyMetaRow* meta, bool* found);
  storage::WriteOptions WriteOptionsFor(int64_t ts, std::optional<int64_t> expire_at) const;

  Keyspace& keyspace_;
  int db_;
  int64_t grace_ms_;
};

// Redis's string2ll: optional '-', digits, no leading zeros, no '+' or spaces, within int64.
bool ParseKvInteger(std::string_view text, int64_t* value);

}  // namespace ebb::types
