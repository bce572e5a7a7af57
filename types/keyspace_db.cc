// Keyspace's whole-database operations: SCAN, KEYS, RANDOMKEY, DBSIZE, FLUSHDB, FLUSHALL and
// INFO keyspace statistics. Each walks the metadata range of one database (docs/key-encoding.md),
// never the sub-rows, with the default retrieval grace, so they agree with GET; the engine's
// iterator already hides expired and deleted keys. FLUSHDB and FLUSHALL are one range deletion.
// Key counts (DBSIZE, RANDOMKEY, INFO keyspace) walk at most kExactCountRows rows: a database
// the engine estimates at no more than kExactCountLimit keys is counted exactly, a larger one
// is reported as the engine's estimate (storage::DB::EstimateKeys).
#include <algorithm>
#include <random>

#include "storage/write_batch.h"
#include "types/keyspace.h"
#include "types/series_index.h"

namespace ebb::types {

namespace {

// Up to this many keys (by the engine's estimate) a database is counted exactly.
constexpr uint64_t kExactCountLimit = 10000;
// A count walks no more rows than this, whatever the estimate said.
constexpr uint64_t kExactCountRows = 2 * kExactCountLimit;
// INFO keyspace's expiry figures for an estimated database come from this many keys.
constexpr uint64_t kStatsSampleRows = 1000;

using storage::Status;

}  // namespace

Status Keyspace::ForEachMeta(
    int db, std::string_view start,
    const std::function<bool(std::string_view, std::string_view, const storage::RowMeta&)>& visit,
    MetaRows rows) {
  std::string prefix = MetaKeyPrefix(layout_, db);
  std::string upper = PrefixUpperBound(prefix);
  prefix.append(start);
  return ForEachMetaIn(std::move(prefix), std::move(upper), visit, rows);
}

Status Keyspace::ForEachMetaIn(
    std::string lower, std::string upper,
    const std::function<bool(std::string_view, std::string_view, const storage::RowMeta&)>& visit,
    MetaRows rows) {
  storage::ReadOptions options = ReadOptions();
  options.lower_bound = std::move(lower);
  options.upper_bound = std::move(upper);
  options.fill_cache = false;
  if (rows == MetaRows::kWithDead) {
    options.include_dead = true;  // at grace 0, as the engine requires
  } else {
    options.retrieval_grace_ms = settings_.default_retrieval_grace_ms;
  }
  std::unique_ptr<storage::Iterator> it = active_->NewIterator(options);
  for (it->Seek(*options.lower_bound); it->Valid(); it->Next()) {
    int key_db = 0;
    std::string_view user_key;
    if (!ParseMetaKey(it->key(), &key_db, &user_key)) break;
    if (!visit(user_key, it->value(), it->meta())) break;
  }
  return it->status();
}

Status Keyspace::ForEachExpiring(
    int db, const std::function<void(std::string_view user_key, int64_t expire_at_ms)>& visit) {
  return ForEachMeta(db, {},
                     [&](std::string_view key, std::string_view, const storage::RowMeta& m) {
                       if (m.expire_at_ms) visit(key, *m.expire_at_ms);
                       return true;
                     });
}

OpResult<ScanResult> Keyspace::Scan(int db, uint64_t cursor, const KeyMatcher* match, size_t count,
                                    std::optional<KeyType> type) {
  ScanResult result;
  ScanResult* out = &result;
  const std::optional<std::string> start = scan_cursors_.Find(cursor);
  if (!start) return OpStatus::kInvalidCursor;
  std::optional<std::string> next;  // the position of the next key, if any
  count = std::max<size_t>(count, 1);
  size_t examined = 0;
  Status s = ForEachMeta(
      db, *start, [&](std::string_view key, std::string_view value, const storage::RowMeta&) {
        if (examined == count) {
          next = MetaKeyPosition(layout_, key);  // where the next call starts
          return false;
        }
        ++examined;
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
  // Saved only now: a step the engine could not finish (Incomplete) hands out nothing.
  if (next) result.cursor = scan_cursors_.Save(*next);
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

OpResult<void> Keyspace::ForEachKeyOfType(
    int db, KeyType type,
    const std::function<bool(std::string_view key, std::string_view payload)>& visit) {
  Status s = ForEachMeta(
      db, {}, [&](std::string_view key, std::string_view value, const storage::RowMeta&) {
        KeyType key_type;
        std::string_view payload;
        if (!DecodeMetaValue(value, &key_type, &payload) || key_type != type) return true;
        return visit(key, payload);
      });
  if (!s.ok()) return s;
  return {};
}

OpResult<std::vector<std::string>> Keyspace::KeysWithDead(int db) {
  std::vector<std::string> keys;
  Status s = ForEachMeta(
      db, {},
      [&](std::string_view key, std::string_view, const storage::RowMeta&) {
        keys.emplace_back(key);
        return true;
      },
      MetaRows::kWithDead);
  if (!s.ok()) return s;
  return keys;
}

Status Keyspace::CountKeys(int db, KeyCount* count) {
  const std::string prefix = MetaKeyPrefix(layout_, db);
  const uint64_t estimate = db_->EstimateKeys(prefix, PrefixUpperBound(prefix));
  if (estimate > kExactCountLimit) {
    *count = {estimate, false};
    return Status::OK();
  }
  uint64_t keys = 0;
  bool complete = true;
  Status s = ForEachMeta(db, {}, [&](std::string_view, std::string_view, const storage::RowMeta&) {
    if (keys == kExactCountRows) {
      complete = false;
      return false;
    }
    ++keys;
    return true;
  });
  count_rows_read_ += keys;
  *count = complete ? KeyCount{keys, true} : KeyCount{std::max(estimate, keys), false};
  return s;
}

OpResult<uint64_t> Keyspace::DbSize(int db) {
  KeyCount count;
  Status s = CountKeys(db, &count);
  if (!s.ok()) return s;
  return count.keys;
}

OpResult<std::optional<std::string>> Keyspace::RandomKey(int db) {
  std::optional<std::string> result;
  std::optional<std::string>* key = &result;
  KeyCount count;
  Status s = CountKeys(db, &count);
  if (!s.ok()) return s;
  if (count.keys == 0) return result;
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  std::string start;
  uint64_t skip = 0;
  if (count.exact) {
    skip = std::uniform_int_distribution<uint64_t>(0, count.keys - 1)(rng);
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

OpResult<void> Keyspace::FlushDb(int db) {
  const std::string meta = MetaKeyPrefix(layout_, db);
  const std::string subrows = SubRowDbPrefix(layout_, db);
  // With the series' label index rows of the database (types/series_index.h).
  return active_->DeleteRange({SeriesIndexDbRange(db),
                               {meta, PrefixUpperBound(meta)},
                               {subrows, PrefixUpperBound(subrows)}});
}

OpResult<void> Keyspace::FlushAll() {
  // Every metadata row and sub-row of every database, in either layout, and the series' label
  // index rows, which sort just before them: one range. The other system rows (0x00) stay.
  const char after_subrows = static_cast<char>(static_cast<uint8_t>(KeyTag::kSlotSubRow) + 1);
  return active_->DeleteRange({{SeriesIndexRange().begin, std::string(1, after_subrows)}});
}

DbStats Keyspace::GetDbStats(int db) {
  DbStats stats;
  KeyCount count;
  if (!CountKeys(db, &count).ok()) return stats;
  stats.keys = count.keys;
  stats.estimated = !count.exact;
  if (count.keys == 0) return stats;
  // Exact: every key. Estimated: the keys from a random position on, scaled.
  std::string start;
  if (!count.exact) {
    static thread_local std::mt19937_64 rng{std::random_device{}()};
    for (int i = 0; i < 8; ++i) start.push_back(static_cast<char>(rng() & 0xFF));
  }
  const uint64_t limit = count.exact ? kExactCountRows : kStatsSampleRows;
  const int64_t now = NowMs();
  uint64_t seen = 0, expires = 0, ttl_sum = 0;
  auto visit = [&](std::string_view, std::string_view, const storage::RowMeta& meta) {
    if (seen == limit) return false;
    ++seen;
    if (meta.expire_at_ms) {
      ++expires;
      ttl_sum += static_cast<uint64_t>(std::max<int64_t>(*meta.expire_at_ms - now, 0));
    }
    return true;
  };
  ForEachMeta(db, start, visit);
  if (!start.empty() && seen < limit) ForEachMeta(db, {}, visit);  // wrap around to the first
  count_rows_read_ += seen;
  if (expires > 0) stats.avg_ttl_ms = ttl_sum / expires;
  stats.expires =
      count.exact
          ? expires
          : static_cast<uint64_t>(
                static_cast<double>(expires) * count.keys / static_cast<double>(seen) + 0.5);
  return stats;
}

}  // namespace ebb::types
