#include "types/kv.h"

#include <algorithm>
#include <charconv>

#include "common/strings.h"
#include "storage/write_batch.h"
#include "types/key_encoding.h"
#include "types/key_meta.h"
#include "types/string_rank.h"

namespace ebb::types {

KvRow CopyKvRow(const KeyMetaView& row) {
  KvRow out;
  out.value.assign(row.payload);
  out.ts = row.row.meta.timestamp_or_zero();
  out.expire_at_ms = row.row.meta.expire_at_ms;
  out.raw = row.raw_string;
  return out;
}

storage::WriteOptions Kv::WriteOptionsFor(int64_t ts, std::optional<int64_t> expire_at) const {
  storage::WriteOptions options = keyspace_.WriteOptions();
  options.timestamp_ms = ts;
  options.expire_at_ms = expire_at;
  return options;
}

OpResult<std::optional<KeyMetaRow>> Kv::ReadMeta(std::string_view key, int64_t grace_ms) {
  KeyMetaRow meta;
  storage::Status s = keyspace_.GetMeta(db_, key, &meta, grace_ms);
  if (s.IsNotFound()) return std::optional<KeyMetaRow>();
  if (!s.ok()) return s;
  return std::optional<KeyMetaRow>(std::move(meta));
}

OpResult<void> Kv::GetPinned(std::string_view key, std::optional<int64_t> grace_ms,
                             KeyMetaView* row) {
  storage::Status s = keyspace_.GetMetaPinned(db_, key, row, grace_ms.value_or(grace_ms_));
  if (s.IsNotFound()) return OpStatus::kNotFound;
  if (!s.ok()) return s;
  if (row->type != KeyType::kString) return OpStatus::kWrongType;
  return {};
}

OpResult<KvRow> Kv::Get(std::string_view key, std::optional<int64_t> grace_ms) {
  KeyMetaView view;
  OpResult<void> read = GetPinned(key, grace_ms, &view);
  if (!read.ok()) return FailureOf(read);
  return CopyKvRow(view);
}

OpResult<bool> Kv::Exists(std::string_view key) {
  OpResult<std::optional<KeyMetaRow>> meta = ReadMeta(key, grace_ms_);
  if (!meta.ok()) return FailureOf(meta);
  return meta->has_value();
}

OpResult<void> Kv::Put(const KvPut& put) {
  // The metadata key on the stack (a key of 14 bytes or more took a heap block each time); the
  // engine copies what it keeps.
  MetaKeyScratch scratch;
  return keyspace_.db().Put(WriteOptionsFor(put.ts, put.expire_at_ms),
                            BuildMetaKey(keyspace_.layout(), db_, put.key, &scratch),
                            EncodeMetaValue(KeyType::kString, put.value, put.raw));
}

OpResult<void> Kv::Delete(std::string_view key, int64_t ts) {
  storage::WriteOptions options = keyspace_.WriteOptions();
  options.timestamp_ms = ts;
  return keyspace_.db().Delete(options, MetaKey(keyspace_.layout(), db_, key));
}

OpResult<void> Kv::PutReduced(std::string_view key, int64_t ts, std::string_view digest,
                              int64_t expire_at) {
  storage::WriteOptions options = keyspace_.WriteOptions();
  options.timestamp_ms = ts;
  storage::WriteBatch batch;
  batch.Delete(options, MetaKey(keyspace_.layout(), db_, key),
               EncodeReducedString(digest, expire_at));
  return keyspace_.db().Write(options, batch);
}

OpResult<void> Kv::MultiPut(const std::vector<KvPut>& puts) {
  storage::WriteBatch batch;
  const int64_t now_ms = keyspace_.NowMs();
  for (const KvPut& put : puts) {
    batch.Put(WriteOptionsFor(put.ts, put.expire_at_ms), MetaKey(keyspace_.layout(), db_, put.key),
              EncodeMetaValue(KeyType::kString, put.value, put.raw), now_ms);
  }
  return keyspace_.db().Write(keyspace_.WriteOptions(), batch);
}

OpResult<bool> Kv::MultiPutIfNoneExist(const std::vector<KvPut>& puts) {
  std::optional<OpFailure> failure;
  for (const KvPut& put : puts) {
    OpResult<bool> exists = Exists(put.key);
    if (exists.ok() && *exists) return false;
    // Read on after a failure: a command waiting for the disk asks for every key at once.
    if (!exists.ok() && !failure) failure = FailureOf(exists);
  }
  if (failure) return *failure;
  OpResult<void> written = MultiPut(puts);
  if (!written.ok()) return FailureOf(written);
  return true;
}

OpResult<KvSetResult> Kv::Set(std::string_view key, std::string_view value,
                              const KvSetOptions& options) {
  KvSetResult result;
  std::optional<int64_t> expire_at = options.expire_at_ms;
  const bool needs_read =
      options.get || options.keep_ttl || options.condition != KvSetOptions::Condition::kNone;
  if (needs_read) {
    OpResult<std::optional<KeyMetaRow>> meta = ReadMeta(key, grace_ms_);
    if (!meta.ok()) return FailureOf(meta);
    const bool found = meta->has_value();
    if (options.get && found) {
      if ((*meta)->type != KeyType::kString) return OpStatus::kWrongType;
      result.old = std::move((*meta)->payload);
    }
    if ((options.condition == KvSetOptions::Condition::kNx && found) ||
        (options.condition == KvSetOptions::Condition::kXx && !found)) {
      return result;  // not written
    }
    // KEEPTTL keeps an existing key's expiry; a key it creates gets the caller's (the policy's).
    if (options.keep_ttl && found) expire_at = (*meta)->meta.expire_at_ms;
  }
  OpResult<void> put = Put({key, value, options.ts, expire_at});
  if (!put.ok()) return FailureOf(put);
  result.written = true;
  return result;
}

OpResult<std::optional<KvRow>> Kv::ReadForUpdate(std::string_view key) {
  OpResult<KvRow> row = Get(key);
  if (row.ok()) return std::optional<KvRow>(std::move(*row));
  if (row.status() == OpStatus::kNotFound) return std::optional<KvRow>();
  return FailureOf(row);
}

OpResult<void> Kv::PutDerived(std::string_view key, std::string_view value,
                              const std::optional<KvRow>& base, int64_t now_ms,
                              std::optional<int64_t> new_key_expire_at, bool raw) {
  if (base) return Put({key, value, std::max(now_ms, base->ts), base->expire_at_ms, raw});
  return Put({key, value, now_ms, new_key_expire_at, raw});
}

OpResult<int64_t> Kv::Append(std::string_view key, std::string_view suffix, int64_t now_ms,
                             std::optional<int64_t> new_key_expire_at, uint64_t max_length) {
  OpResult<std::optional<KvRow>> base = ReadForUpdate(key);
  if (!base.ok()) return FailureOf(base);
  std::string value = *base ? (*base)->value : std::string();
  if (value.size() + suffix.size() > max_length) return OpStatus::kTooLarge;
  value.append(suffix);
  // Redis appends to an existing value in place (raw); a new key is encoded like SET's value.
  OpResult<void> put = PutDerived(key, value, *base, now_ms, new_key_expire_at, base->has_value());
  if (!put.ok()) return FailureOf(put);
  return static_cast<int64_t>(value.size());
}

OpResult<int64_t> Kv::IncrBy(std::string_view key, int64_t delta, int64_t now_ms,
                             std::optional<int64_t> new_key_expire_at) {
  OpResult<std::optional<KvRow>> base = ReadForUpdate(key);
  if (!base.ok()) return FailureOf(base);
  int64_t current = 0;
  if (*base && !ParseInt64((*base)->value, &current)) return OpStatus::kNotInteger;
  int64_t next = 0;
  if (__builtin_add_overflow(current, delta, &next)) return OpStatus::kOverflow;
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), next);
  (void)ec;  // 24 bytes always hold an int64
  const std::string_view text(buf, static_cast<size_t>(end - buf));
  OpResult<void> put = PutDerived(key, text, *base, now_ms, new_key_expire_at, /*raw=*/false);
  if (!put.ok()) return FailureOf(put);
  return next;
}

OpResult<int64_t> Kv::SetRange(std::string_view key, uint64_t offset, std::string_view value,
                               int64_t now_ms, std::optional<int64_t> new_key_expire_at,
                               uint64_t max_length) {
  OpResult<std::optional<KvRow>> base = ReadForUpdate(key);
  if (!base.ok()) return FailureOf(base);
  std::string text = *base ? (*base)->value : std::string();
  if (value.empty()) return static_cast<int64_t>(text.size());
  if (offset > max_length || value.size() > max_length - offset) return OpStatus::kTooLarge;
  const size_t end = static_cast<size_t>(offset) + value.size();
  if (text.size() < end) text.resize(end, '\0');
  text.replace(static_cast<size_t>(offset), value.size(), value);
  OpResult<void> put = PutDerived(key, text, *base, now_ms, new_key_expire_at, /*raw=*/true);
  if (!put.ok()) return FailureOf(put);
  return static_cast<int64_t>(text.size());
}

OpResult<KvRow> Kv::GetDel(std::string_view key) {
  OpResult<KvRow> row = Get(key);
  if (!row.ok()) return row;
  OpResult<bool> deleted = keyspace_.Delete(db_, key);
  if (!deleted.ok()) return FailureOf(deleted);
  return row;
}

}  // namespace ebb::types
