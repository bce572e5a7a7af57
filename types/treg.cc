#include "types/treg.h"

#include <algorithm>
#include <optional>

#include "storage/util/coding.h"
#include "types/key_encoding.h"
#include "types/key_meta.h"

namespace ebb::types {

using storage::Status;

std::string EncodeTregPayload(std::string_view value, uint64_t ts) {
  std::string out;
  out.reserve(8 + value.size());
  storage::PutFixed64(&out, ts);
  out.append(value);
  return out;
}

bool DecodeTregPayload(std::string_view payload, std::string_view* value, uint64_t* ts) {
  if (!storage::GetFixed64(&payload, ts)) return false;
  *value = payload;
  return true;
}

OpResult<void> Treg::GetPinned(std::string_view key, KeyMetaView* row, std::string_view* value,
                               uint64_t* ts) {
  Status s =
      keyspace_.GetMetaPinned(db_, key, row, keyspace_.settings().default_retrieval_grace_ms);
  if (s.IsNotFound()) return OpStatus::kNotFound;
  if (!s.ok()) return s;
  if (row->type != KeyType::kTreg) return OpStatus::kWrongType;
  if (!DecodeTregPayload(row->payload, value, ts)) {
    return Status::Corruption("bad TREG metadata payload");
  }
  return {};
}

OpResult<TregState> Treg::Get(std::string_view key) {
  KeyMetaView row;
  std::string_view value;
  uint64_t ts;
  OpResult<void> read = GetPinned(key, &row, &value, &ts);
  if (!read.ok()) return FailureOf(read);
  return TregState(value, ts);
}

OpResult<void> Treg::Set(std::string_view key, std::string_view value, uint64_t ts) {
  KeyMetaRow row;
  std::optional<storage::DeadVersion> dead;
  Status s =
      keyspace_.GetMeta(db_, key, &row, keyspace_.settings().default_retrieval_grace_ms, &dead);
  const bool found = s.ok();
  if (found) {
    if (row.type != KeyType::kTreg) return OpStatus::kWrongType;
    std::string_view current;
    uint64_t current_ts;
    if (!DecodeTregPayload(row.payload, &current, &current_ts)) {
      return Status::Corruption("bad TREG metadata payload");
    }
    if (!TregWins(value, ts, current, current_ts)) return {};  // ignored
  } else if (!s.IsNotFound()) {
    return s;
  }
  storage::WriteOptions options = keyspace_.WriteOptions();
  int64_t write_ts;
  s = keyspace_.TypeWriteTimestamp(db_, key, found ? &row : nullptr, dead, &write_ts);
  if (!s.ok()) return s;
  options.timestamp_ms = write_ts;
  // A TTL policy renews the register's expiry with every accepted write; without one the
  // register keeps its expiry (a whole-key EXPIRE).
  const int64_t now = keyspace_.NowMs();
  if (const std::optional<int64_t> ttl = keyspace_.settings().ttl_policy.TtlFor(key)) {
    int64_t at;
    if (!__builtin_add_overflow(now, *ttl, &at)) options.expire_at_ms = at;
  } else if (found) {
    options.expire_at_ms = row.meta.expire_at_ms;
  }
  return keyspace_.db().Put(options, MetaKey(keyspace_.layout(), db_, key),
                            EncodeMetaValue(KeyType::kTreg, EncodeTregPayload(value, ts)));
}

}  // namespace ebb::types
