#include "types/treg.h"

#include <algorithm>

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

bool DecodeTregPayload(std::string_view payload, std::string* value, uint64_t* ts) {
  if (!storage::GetFixed64(&payload, ts)) return false;
  value->assign(payload);
  return true;
}

OpResult<TregState> Treg::Get(std::string_view key) {
  KeyMetaRow row;
  Status s = keyspace_.GetMeta(db_, key, &row);
  if (s.IsNotFound()) return OpStatus::kNotFound;
  if (!s.ok()) return s;
  if (row.type != KeyType::kTreg) return OpStatus::kWrongType;
  std::string value;
  uint64_t ts;
  if (!DecodeTregPayload(row.payload, &value, &ts)) {
    return Status::Corruption("bad TREG metadata payload");
  }
  return TregState(value, ts);
}

OpResult<void> Treg::Set(std::string_view key, std::string_view value, uint64_t ts) {
  KeyMetaRow row;
  Status s = keyspace_.GetMeta(db_, key, &row);
  storage::RowMeta previous;
  if (s.ok()) {
    if (row.type != KeyType::kTreg) return OpStatus::kWrongType;
    std::string current;
    uint64_t current_ts;
    if (!DecodeTregPayload(row.payload, &current, &current_ts)) {
      return Status::Corruption("bad TREG metadata payload");
    }
    if (!TregWins(value, ts, current, current_ts)) return {};  // ignored
    previous = row.meta;
  } else if (!s.IsNotFound()) {
    return s;
  }
  storage::WriteOptions options = keyspace_.WriteOptions();
  options.timestamp_ms = std::max(keyspace_.NowMs(), previous.timestamp_or_zero());
  options.expire_at_ms = previous.expire_at_ms;
  return keyspace_.db().Put(options, MetaKey(db_, key),
                            EncodeMetaValue(KeyType::kTreg, EncodeTregPayload(value, ts)));
}

}  // namespace ebb::types
