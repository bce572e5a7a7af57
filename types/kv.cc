#include "types/kv.h"

#include <algorithm>
#include <charconv>
#include <limits>

#include "storage/write_batch.h"
#include "types/key_encoding.h"
#include "types/key_meta.h"

namespace ebb::types {

bool ParseKvInteger(std::string_view text, int64_t* value) {
  if (text.empty() || text.size() > 20) return false;
  if (text == "0") {
    *value = 0;
    return true;
  }
  size_t i = 0;
  bool negative = false;
  if (text[0] == '-') {
    negative = true;
    i = 1;
    if (text.size() == 1) return false;
  }
  if (text[i] < '1' || text[i] > '9') return false;
  uint64_t magnitude = 0;
  for (; i < text.size(); i++) {
    char c = text[i];
    if (c < '0' || c > '9') return false;
    if (magnitude > (std::numeric_limits<uint64_t>::max() - 9) / 10) return false;
    magnitude = magnitude * 10 + static_cast<uint64_t>(c - '0');
  }
  constexpr uint64_t kMaxPositive = std::numeric_limits<int64_t>::max();
  if (negative) {
    if (magnitude > kMaxPositive + 1) return false;
    *value = static_cast<int64_t>(0 - magnitude);  // two's complement; -2^63 included
  } else {
    if (magnitude > kMaxPositive) return false;
    *value = static_cast<int64_t>(magnitude);
  }
  return true;
}

storage::WriteOptions Kv::WriteOptionsFor(int64_t ts, std::optional<int64_t> expire_at) const {
  storage::WriteOptions options = keyspace_.WriteOptions();
  options.timestamp_ms = ts;
  options.expire_at_ms = expire_at;
  return options;
}

storage::Status Kv::ReadMeta(std::string_view key, int64_t grace_ms, KeyMetaRow* meta,
                             bool* found) {
  storage::Status s = keyspace_.GetMeta(db_, key, meta, grace_ms);
  *found = s.ok();
  if (s.IsNotFound()) return storage::Status::OK();
  return s;
}

storage::Status Kv::Get(std::string_view key, int64_t grace_ms, KvRow* row, KvResult* result) {
  KeyMetaRow meta;
  bool found = false;
  storage::Status s = ReadMeta(key, grace_ms, &meta, &found);
  if (!s.ok()) return s;
  if (!found) {
    *result = KvResult::kAbsent;
  } else if (meta.type != KeyType::kString) {
    *result = KvResult::kWrongType;
  } else {
    *result = KvResult::kOk;
    row->value = std::move(meta.payload);
    row->ts = meta.meta.timestamp_or_zero();
    row->expire_at_ms = meta.meta.expire_at_ms;
  }
  return storage::Status::OK();
}

storage::Status Kv::Exists(std::string_view key, bool* exists) {
  KeyMetaRow meta;
  return ReadMeta(key, grace_ms_, &meta, exists);
}

storage::Status Kv::Put(const KvPut& put) {
  return keyspace_.db().Put(WriteOptionsFor(put.ts, put.expire_at_ms), MetaKey(db_, put.key),
                            EncodeMetaValue(KeyType::kString, put.value));
}

storage::Status Kv::Delete(std::string_view key, int64_t ts) {
  storage::WriteOptions options = keyspace_.WriteOptions();
  options.timestamp_ms = ts;
  return keyspace_.db().Delete(options, MetaKey(db_, key));
}

storage::Status Kv::MultiPut(const std::vector<KvPut>& puts) {
  storage::WriteBatch batch;
  const int64_t now_ms = keyspace_.NowMs();
  for (const KvPut& put : puts) {
    batch.Put(WriteOptionsFor(put.ts, put.expire_at_ms), MetaKey(db_, put.key),
              EncodeMetaValue(KeyType::kString, put.value), now_ms);
  }
  return keyspace_.db().Write(keyspace_.WriteOptions(), batch);
}

storage::Status Kv::MultiPutIfNoneExist(const std::vector<KvPut>& puts, KvResult* result) {
  for (const KvPut& put : puts) {
    bool exists = false;
    storage::Status s = Exists(put.key, &exists);
    if (!s.ok()) return s;
    if (exists) {
      *result = KvResult::kConditionFailed;
      return storage::Status::OK();
    }
  }
  *result = KvResult::kOk;
  return MultiPut(puts);
}

storage::Status Kv::Set(std::string_view key, std::string_view value, const KvSetOptions& options,
                        KvResult* result, std::optional<std::string>* old) {
  std::optional<int64_t> expire_at = options.expire_at_ms;
  const bool needs_read =
      options.get || options.keep_ttl || options.condition != KvSetOptions::Condition::kNone;
  if (needs_read) {
    KeyMetaRow meta;
    bool found = false;
    storage::Status s = ReadMeta(key, grace_ms_, &meta, &found);
    if (!s.ok()) return s;
    if (options.get) {
      if (found && meta.type != KeyType::kString) {
        *result = KvResult::kWrongType;
        return storage::Status::OK();
      }
      if (found) {
        *old = std::move(meta.payload);
      } else {
        old->reset();
      }
    }
    if ((options.condition == KvSetOptions::Condition::kNx && found) ||
        (options.condition == KvSetOptions::Condition::kXx && !found)) {
      *result = KvResult::kConditionFailed;
      return storage::Status::OK();
    }
    if (options.keep_ttl) expire_at = found ? meta.meta.expire_at_ms : std::nullopt;
  }
  *result = KvResult::kOk;
  return Put({key, value, options.ts, expire_at});
}

storage::Status Kv::Append(std::string_view key, std::string_view suffix, int64_t now_ms,
                           std::optional<int64_t> new_key_expire_at, uint64_t max_length,
                           int64_t* new_length, KvResult* result) {
  KvRow row;
  storage::Status s = Get(key, &row, result);
  if (!s.ok() || *result == KvResult::kWrongType) return s;
  const bool existed = *result == KvResult::kOk;
  if (row.value.size() + suffix.size() > max_length) {
    *result = KvResult::kTooLarge;
    return storage::Status::OK();
  }
  row.value.append(suffix);
  *new_length = static_cast<int64_t>(row.value.size());
  *result = KvResult::kOk;
  if (existed) return Put({key, row.value, std::max(now_ms, row.ts), row.expire_at_ms});
  return Put({key, row.value, now_ms, new_key_expire_at});
}

storage::Status Kv::IncrBy(std::string_view key, int64_t delta, int64_t now_ms,
                           std::optional<int64_t> new_key_expire_at, int64_t* value,
                           KvResult* result) {
  KvRow row;
  storage::Status s = Get(key, &row, result);
  if (!s.ok() || *result == KvResult::kWrongType) return s;
  const bool existed = *result == KvResult::kOk;
  int64_t current = 0;
  if (existed && !ParseKvInteger(row.value, &current)) {
    *result = KvResult::kNotInteger;
    return storage::Status::OK();
  }
  int64_t next = 0;
  if (__builtin_add_overflow(current, delta, &next)) {
    *result = KvResult::kOverflow;
    return storage::Status::OK();
  }
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), next);
  (void)ec;  // 24 bytes always hold an int64
  std::string_view text(buf, static_cast<size_t>(end - buf));
  *value = next;
  *result = KvResult::kOk;
  if (existed) return Put({key, text, std::max(now_ms, row.ts), row.expire_at_ms});
  return Put({key, text, now_ms, new_key_expire_at});
}

storage::Status Kv::SetRange(std::string_view key, uint64_t offset, std::string_view value,
                             int64_t now_ms, std::optional<int64_t> new_key_expire_at,
                             uint64_t max_length, int64_t* new_length, KvResult* result) {
  KvRow row;
  storage::Status s = Get(key, &row, result);
  if (!s.ok() || *result == KvResult::kWrongType) return s;
  const bool existed = *result == KvResult::kOk;
  *new_length = static_cast<int64_t>(row.value.size());
  *result = KvResult::kOk;
  if (value.empty()) return storage::Status::OK();
  if (offset > max_length || value.size() > max_length - offset) {
    *result = KvResult::kTooLarge;
    return storage::Status::OK();
  }
  const size_t end = static_cast<size_t>(offset) + value.size();
  if (row.value.size() < end) row.value.resize(end, '\0');
  row.value.replace(static_cast<size_t>(offset), value.size(), value);
  *new_length = static_cast<int64_t>(row.value.size());
  if (existed) return Put({key, row.value, std::max(now_ms, row.ts), row.expire_at_ms});
  return Put({key, row.value, now_ms, new_key_expire_at});
}

storage::Status Kv::GetDel(std::string_view key, KvRow* row, KvResult* result) {
  storage::Status s = Get(key, row, result);
  if (!s.ok() || *result != KvResult::kOk) return s;
  bool deleted = false;
  return keyspace_.Delete(db_, key, &deleted);
}

}  // namespace ebb::types
