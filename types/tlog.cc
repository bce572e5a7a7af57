#include "types/tlog.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <string>

#include "storage/write_batch.h"
#include "types/key_encoding.h"
#include "types/key_meta.h"

namespace ebb::types {
namespace {

using storage::Status;

constexpr uint64_t kMaxTs = std::numeric_limits<uint64_t>::max();

// An iterator over the sub-rows of one incarnation, positioned at `first_element` (or at the
// newest entry when it is empty).
std::unique_ptr<storage::Iterator> ScanLog(storage::DB& db, const std::string& prefix,
                                           std::string_view first_element) {
  storage::ReadOptions options;
  options.lower_bound = prefix;
  std::string upper = PrefixUpperBound(prefix);
  if (!upper.empty()) options.upper_bound = upper;
  std::unique_ptr<storage::Iterator> it = db.NewIterator(options);
  std::string target = prefix;
  target.append(first_element);
  it->Seek(target);
  return it;
}

}  // namespace

Status Tlog::ReadMeta(std::string_view key, TlogMeta* meta, storage::RowMeta* row_meta, bool* found,
                      TlogResult* result) {
  *found = false;
  *result = TlogResult::kOk;
  KeyMetaRow row;
  Status s = keyspace_.GetMeta(db_, key, &row);
  if (s.IsNotFound()) return Status::OK();
  if (!s.ok()) return s;
  if (row.type != KeyType::kTlog) {
    *result = TlogResult::kWrongType;
    return Status::OK();
  }
  if (!DecodeTlogMeta(row.payload, meta)) return Status::Corruption("bad TLOG metadata payload");
  *row_meta = row.meta;
  *found = true;
  return Status::OK();
}

Status Tlog::WriteMeta(std::string_view key, const TlogMeta& meta, const storage::RowMeta& previous,
                       storage::WriteBatch* batch) {
  storage::WriteOptions options = keyspace_.WriteOptions();
  int64_t now = keyspace_.NowMs();
  options.timestamp_ms = std::max(now, previous.timestamp_or_zero());
  options.expire_at_ms = previous.expire_at_ms;
  batch->Put(options, MetaKey(db_, key), EncodeMetaValue(KeyType::kTlog, EncodeTlogMeta(meta)),
             now);
  return keyspace_.db().Write(options, *batch);
}

Status Tlog::Insert(std::string_view key, std::string_view value, uint64_t ts, TlogResult* result) {
  TlogMeta meta;
  storage::RowMeta row_meta;
  bool found;
  Status s = ReadMeta(key, &meta, &row_meta, &found, result);
  if (!s.ok() || *result != TlogResult::kOk) return s;
  if (!found) {
    s = keyspace_.NewVersion(&meta.version);
    if (!s.ok()) return s;
  } else if (ts < meta.cutoff) {
    return Status::OK();  // outdated: ignored
  }

  std::string sub_key = SubRowPrefix(db_, key, meta.version);
  AppendTlogElement(&sub_key, ts, value);
  if (found) {
    storage::Row existing;
    s = keyspace_.db().Get(storage::ReadOptions(), sub_key, &existing);
    if (s.ok()) return Status::OK();  // duplicate: ignored
    if (!s.IsNotFound()) return s;
  }
  const TlogMeta before = meta;
  ++meta.size;
  storage::WriteBatch batch;
  batch.Put(keyspace_.WriteOptions(), sub_key, "", keyspace_.NowMs());
  s = WriteMeta(key, meta, row_meta, &batch);
  // A head exists only for a log read before (a new log gets one at its first GET).
  if (s.ok() && found && heads_ != nullptr) heads_->OnInsert(db_, key, before, meta, value, ts);
  return s;
}

Status Tlog::Get(std::string_view key, uint64_t count, std::vector<TlogEntry>* entries,
                 TlogResult* result) {
  entries->clear();
  TlogMeta meta;
  storage::RowMeta row_meta;
  bool found;
  Status s = ReadMeta(key, &meta, &row_meta, &found, result);
  if (!s.ok() || !found) return s;
  const uint64_t want = std::min(count, meta.size);
  if (want == 0) return Status::OK();
  const std::vector<TlogEntry>* head = heads_ != nullptr ? heads_->Find(db_, key, meta) : nullptr;
  if (head != nullptr && want <= head->size()) {
    entries->assign(head->begin(), head->begin() + static_cast<ptrdiff_t>(want));
    return Status::OK();
  }
  // Without a cached head, the scan also reads the log's head, to cache it.
  const uint64_t head_size = heads_ != nullptr && head == nullptr
                                 ? std::min<uint64_t>(TlogHeadCache::kMaxEntries, meta.size)
                                 : 0;
  const uint64_t scan = std::max(want, head_size);
  std::string prefix = SubRowPrefix(db_, key, meta.version);
  std::unique_ptr<storage::Iterator> it = ScanLog(keyspace_.db(), prefix, "");
  // scan <= the entries at or above the cutoff; the cap only guards against a damaged size.
  entries->reserve(std::min<uint64_t>(scan, 1024));
  for (; it->Valid() && entries->size() < scan; it->Next()) {
    TlogEntry entry;
    if (!DecodeTlogElement(it->key().substr(prefix.size()), &entry.ts, &entry.value)) {
      return Status::Corruption("bad TLOG sub-row key");
    }
    if (entry.ts < meta.cutoff) break;
    entries->push_back(std::move(entry));
  }
  if (!it->status().ok()) return it->status();
  if (head_size > 0 && entries->size() >= head_size) {
    heads_->Fill(db_, key, meta,
                 std::vector<TlogEntry>(entries->begin(),
                                        entries->begin() + static_cast<ptrdiff_t>(head_size)));
  }
  if (entries->size() > want) entries->resize(want);
  return Status::OK();
}

Status Tlog::Size(std::string_view key, uint64_t* size, TlogResult* result) {
  TlogMeta meta;
  storage::RowMeta row_meta;
  bool found;
  Status s = ReadMeta(key, &meta, &row_meta, &found, result);
  *size = found ? meta.size : 0;
  return s;
}

Status Tlog::Cutoff(std::string_view key, uint64_t* cutoff, TlogResult* result) {
  TlogMeta meta;
  storage::RowMeta row_meta;
  bool found;
  Status s = ReadMeta(key, &meta, &row_meta, &found, result);
  *cutoff = found ? meta.cutoff : 0;
  return s;
}

Status Tlog::CountBelow(std::string_view key, const TlogMeta& meta, uint64_t cutoff,
                        uint64_t* count) {
  *count = 0;
  if (cutoff == 0) return Status::OK();
  std::string prefix = SubRowPrefix(db_, key, meta.version);
  std::unique_ptr<storage::Iterator> it =
      ScanLog(keyspace_.db(), prefix, TlogElementSeekTs(cutoff - 1));
  for (; it->Valid(); it->Next()) {
    uint64_t ts;
    if (!DecodeTlogElementTs(it->key().substr(prefix.size()), &ts)) {
      return Status::Corruption("bad TLOG sub-row key");
    }
    if (ts < meta.cutoff) break;  // already cut before: not counted in size
    ++*count;
  }
  return it->status();
}

Status Tlog::RaiseCutoff(std::string_view key, uint64_t cutoff, TlogMeta* meta) {
  uint64_t cut;
  Status s = CountBelow(key, *meta, cutoff, &cut);
  if (!s.ok()) return s;
  if (cut > meta->size) return Status::Corruption("TLOG size below its entry count");
  meta->size -= cut;
  meta->cutoff = cutoff;
  return Status::OK();
}

Status Tlog::TrimAt(std::string_view key, uint64_t ts, TlogResult* result) {
  TlogMeta meta;
  storage::RowMeta row_meta;
  bool found;
  Status s = ReadMeta(key, &meta, &row_meta, &found, result);
  if (!s.ok() || *result != TlogResult::kOk) return s;
  if (!found) {
    if (ts == 0) return Status::OK();  // cutoff 0 on a missing key: still no key
    s = keyspace_.NewVersion(&meta.version);
    if (!s.ok()) return s;
    meta.cutoff = ts;
  } else {
    if (ts <= meta.cutoff) return Status::OK();
    s = RaiseCutoff(key, ts, &meta);
    if (!s.ok()) return s;
  }
  storage::WriteBatch batch;
  return WriteMeta(key, meta, row_meta, &batch);
}

Status Tlog::Trim(std::string_view key, uint64_t count, TlogResult* result) {
  if (count == 0) return Clear(key, result);
  TlogMeta meta;
  storage::RowMeta row_meta;
  bool found;
  Status s = ReadMeta(key, &meta, &row_meta, &found, result);
  if (!s.ok() || !found || meta.size < count) return s;
  // The timestamp of entry count-1 (the count-th newest).
  std::string prefix = SubRowPrefix(db_, key, meta.version);
  std::unique_ptr<storage::Iterator> it = ScanLog(keyspace_.db(), prefix, "");
  for (uint64_t i = 1; i < count && it->Valid(); ++i) it->Next();
  if (!it->status().ok()) return it->status();
  if (!it->Valid()) return Status::Corruption("TLOG size above its entry count");
  uint64_t ts;
  if (!DecodeTlogElementTs(it->key().substr(prefix.size()), &ts)) {
    return Status::Corruption("bad TLOG sub-row key");
  }
  it.reset();
  if (ts <= meta.cutoff) return Status::OK();
  s = RaiseCutoff(key, ts, &meta);
  if (!s.ok()) return s;
  storage::WriteBatch batch;
  return WriteMeta(key, meta, row_meta, &batch);
}

Status Tlog::Clear(std::string_view key, TlogResult* result) {
  TlogMeta meta;
  storage::RowMeta row_meta;
  bool found;
  Status s = ReadMeta(key, &meta, &row_meta, &found, result);
  if (!s.ok() || !found || meta.size == 0) return s;
  std::string prefix = SubRowPrefix(db_, key, meta.version);
  uint64_t newest;
  {
    std::unique_ptr<storage::Iterator> it = ScanLog(keyspace_.db(), prefix, "");
    if (!it->status().ok()) return it->status();
    if (!it->Valid()) return Status::Corruption("TLOG size above its entry count");
    if (!DecodeTlogElementTs(it->key().substr(prefix.size()), &newest)) {
      return Status::Corruption("bad TLOG sub-row key");
    }
  }
  uint64_t next = newest == kMaxTs ? kMaxTs : newest + 1;
  TlogMeta cleared{.version = 0, .cutoff = std::max(meta.cutoff, next), .size = 0};
  s = keyspace_.NewVersion(&cleared.version);
  if (!s.ok()) return s;
  storage::WriteBatch batch;
  return WriteMeta(key, cleared, row_meta, &batch);
}

bool ParseLogicalTimestamp(std::string_view text, uint64_t* value) {
  if (text.empty()) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (v > (kMaxTs - digit) / 10) return false;  // v * 10 + digit would overflow
    v = v * 10 + digit;
  }
  *value = v;
  return true;
}

void RegisterTlogCompactionHook(TypesCompactionFilter& filter) {
  filter.RegisterSubRowHook(
      KeyType::kTlog, [](const KeyMetaRow& meta, const SubRowKeyParts& key, const storage::RowMeta&,
                         std::string_view, int64_t, std::string*) {
        TlogMeta tlog;
        uint64_t ts;
        if (!DecodeTlogMeta(meta.payload, &tlog) || !DecodeTlogElementTs(key.element, &ts)) {
          return storage::CompactionFilter::Decision::kKeep;  // never drop what we cannot read
        }
        return ts < tlog.cutoff ? storage::CompactionFilter::Decision::kDrop
                                : storage::CompactionFilter::Decision::kKeep;
      });
}

}  // namespace ebb::types
