// Keyspace's whole-database operations: SCAN, KEYS, RANDOMKEY, DBSIZE, FLUSHDB, FLUSHALL and
// INFO keyspace statistics. Each walks the metadata range of one database (docs/key-encoding.md),
// never the sub-rows; the engine's iterator already hides expired and deleted keys.
#include <algorithm>
#include <random>

#include "storage/write_batch.h"
#include "types/keyspace.h"

namespace ebb::types {

namespace {

constexpr size_t kFlushBatchKeys = 1024;
constexpr uint64_t kRandomKeyExactLimit = 100000;

using storage::Status;

}  // namespace

Status Keyspace::ForEachMeta(
    int db, std::string_view start,
    const std::function<bool(std::string_view, std::string_view, const storage::RowMeta&)>& visit) {
  storage::ReadOptions options;
  options.lower_bound = MetaKey(db, start);
  options.upper_bound = MetaKeyUpperBound(db);
  options.fill_cache = false;
  std::unique_ptr<storage::Iterator> it = db_->NewIterator(options);
  for (it->Seek(*options.lower_bound); it->Valid(); it->Next()) {
    int key_db = 0;
    std::string_view user_key;
    if (!ParseMetaKey(it->key(), &key_db, &user_key) || key_db != db) break;
    if (!visit(user_key, it->value(), it->meta())) break;
  }
  return it->status();
}

uint64_t Keyspace::RememberCursor(std::string last_key) {
  uint64_t cursor = next_cursor_++;
  if (next_cursor_ == 0) next_cursor_ = 1;  // 0 is "start/end"; wrapping needs 2^64 calls
  cursors_[cursor] = std::move(last_key);
  cursor_order_.push_back(cursor);
  while (cursor_order_.size() > kMaxCursors) {
    cursors_.erase(cursor_order_.front());
    cursor_order_.pop_front();
  }
  return cursor;
}

OpResult<ScanResult> Keyspace::Scan(int db, uint64_t cursor, const KeyMatcher* match, size_t count,
                                    std::optional<KeyType> type) {
  ScanResult result;
  ScanResult* out = &result;
  std::string start;
  if (cursor != 0) {
    auto found = cursors_.find(cursor);
    if (found == cursors_.end()) return OpStatus::kInvalidCursor;
    start = found->second;
    start.push_back('\0');  // the smallest key after the last one returned
  }
  count = std::max<size_t>(count, 1);
  size_t examined = 0;
  bool more = false;
  std::string last;
  Status s = ForEachMeta(
      db, start, [&](std::string_view key, std::string_view value, const storage::RowMeta&) {
        if (examined == count) {
          more = true;
          return false;
        }
        ++examined;
        last.assign(key);
        KeyType key_type;
        std::string_view payload;
        if (type && (!DecodeMetaValue(value, &key_type, &payload) || key_type != *type)) {
          return true;
        }
        if (match && !(*match)(key)) return true;
        out->keys.emplace_back(key);
        return true;
      });
  if (!s.ok()) return s;
  if (more) out->cursor = RememberCursor(std::move(last));
  return result;
}

OpResult<std::vector<std::string>> Keyspace::Keys(int db, const KeyMatcher* match) {
  std::vector<std::string> keys;
  Status s =
      ForEachMeta(db, {}, [&](std::string_view key, std::string_view, const storage::RowMeta&) {
        if (!match || (*match)(key)) keys.emplace_back(key);
        return true;
      });
  if (!s.ok()) return s;
  return keys;
}

Status Keyspace::CountKeys(int db, uint64_t* size) {
  *size = 0;
  return ForEachMeta(db, {}, [&](std::string_view, std::string_view, const storage::RowMeta&) {
    ++*size;
    return true;
  });
}

OpResult<uint64_t> Keyspace::DbSize(int db) {
  uint64_t size = 0;
  Status s = CountKeys(db, &size);
  if (!s.ok()) return s;
  return size;
}

OpResult<std::optional<std::string>> Keyspace::RandomKey(int db) {
  std::optional<std::string> result;
  std::optional<std::string>* key = &result;
  uint64_t size = 0;
  Status s = CountKeys(db, &size);
  if (!s.ok()) return s;
  if (size == 0) return result;
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  std::string start;
  uint64_t skip = 0;
  if (size <= kRandomKeyExactLimit) {
    skip = std::uniform_int_distribution<uint64_t>(0, size - 1)(rng);
  } else {
    // Large databases: seek to a random point (cheaper, less uniform).
    for (int i = 0; i < 8; ++i) start.push_back(static_cast<char>(rng() & 0xFF));
  }
  s = ForEachMeta(db, start, [&](std::string_view k, std::string_view, const storage::RowMeta&) {
    if (skip > 0) {
      --skip;
      return true;
    }
    *key = std::string(k);
    return false;
  });
  if (!s.ok()) return s;
  if (key->has_value()) return result;
  // Seeked past the last key: wrap around to the first.
  s = ForEachMeta(db, {}, [&](std::string_view k, std::string_view, const storage::RowMeta&) {
    *key = std::string(k);
    return false;
  });
  if (!s.ok()) return s;
  return result;
}

Status Keyspace::FlushRange(const std::string& lower, const std::string& upper) {
  storage::ReadOptions options;
  options.lower_bound = lower;
  options.upper_bound = upper;
  options.fill_cache = false;
  std::unique_ptr<storage::Iterator> it = db_->NewIterator(options);
  storage::WriteBatch batch;
  const int64_t now = NowMs();
  for (it->Seek(lower); it->Valid(); it->Next()) {
    storage::WriteOptions tombstone;
    tombstone.timestamp_ms = std::max(now, it->meta().timestamp_or_zero());
    batch.Delete(tombstone, it->key());
    if (batch.Count() >= kFlushBatchKeys) {
      Status s = db_->Write(WriteOptions(), batch);
      if (!s.ok()) return s;
      batch.Clear();
    }
  }
  if (!it->status().ok()) return it->status();
  if (batch.Empty()) return Status::OK();
  return db_->Write(WriteOptions(), batch);
}

OpResult<void> Keyspace::FlushDb(int db) {
  return FlushRange(MetaKeyPrefix(db), MetaKeyUpperBound(db));
}

OpResult<void> Keyspace::FlushAll() {
  return FlushRange(std::string(1, static_cast<char>(KeyTag::kMeta)),
                    std::string(1, static_cast<char>(KeyTag::kSubRow)));
}

DbStats Keyspace::GetDbStats(int db) {
  DbStats stats;
  const int64_t now = NowMs();
  uint64_t ttl_sum = 0;
  ForEachMeta(db, {}, [&](std::string_view, std::string_view, const storage::RowMeta& meta) {
    ++stats.keys;
    if (meta.expire_at_ms) {
      ++stats.expires;
      ttl_sum += static_cast<uint64_t>(std::max<int64_t>(*meta.expire_at_ms - now, 0));
    }
    return true;
  });
  if (stats.expires > 0) stats.avg_ttl_ms = ttl_sum / stats.expires;
  return stats;
}

}  // namespace ebb::types
