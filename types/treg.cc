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

Status Treg::Get(std::string_view key, TregState* state, TregResult* result) {
  *state = TregState();
  *result = TregResult::kAbsent;
  KeyMetaRow row;
  Status s = keyspace_.GetMeta(db_, key, &row);
  if (s.IsNotFound()) return Status::OK();
  if (!s.ok()) return s;
  if (row.type != KeyType::kTreg) {
    *result = TregResult::kWrongType;
    return Status::OK();
  }
  std::string value;
  uint64_t ts;
  if (!DecodeTregPayload(row.payload, &value, &ts)) {
    return Status::Corruption("bad TREG metadata payload");
  }
  *state = TregState(value, ts);
  *result = TregResult::kOk;
  return Status::OK();
}

Status Treg::Set(std::string_view key, std::string_view value, uint64_t ts, TregResult* result) {
  KeyMetaRow row;
  Status s = keyspace_.GetMeta(db_, key, &row);
  storage::RowMeta previous;
  if (s.ok()) {
    if (row.type != KeyType::kTreg) {
      *result = TregResult::kWrongType;
      return Status::OK();
    }
    std::string current;
    uint64_t current_ts;
    if (!DecodeTregPayload(row.payload, &current, &current_ts)) {
      return Status::Corruption("bad TREG metadata payload");
    }
    *result = TregResult::kOk;
    if (!TregWins(value, ts, current, current_ts)) return Status::OK();  // ignored
    previous = row.meta;
  } else if (!s.IsNotFound()) {
    return s;
  }
  *result = TregResult::kOk;
  storage::WriteOptions options = keyspace_.WriteOptions();
  options.timestamp_ms = std::max(keyspace_.NowMs(), previous.timestamp_or_zero());
  options.expire_at_ms = previous.expire_at_ms;
  return keyspace_.db().Put(options, MetaKey(db_, key),
                            EncodeMetaValue(KeyType::kTreg, EncodeTregPayload(value, ts)));
}

}  // namespace ebb::types
