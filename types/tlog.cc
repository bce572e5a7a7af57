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

OpResult<std::optional<Tlog::Found>> Tlog::ReadMeta(std::string_view key) {
  KeyMetaRow row;
  Status s = keyspace_.GetMeta(db_, key, &row);
  if (s.IsNotFound()) return std::optional<Found>();
  if (!s.ok()) return s;
  if (row.type != KeyType::kTlog) return OpStatus::kWrongType;
  Found found;
  if (!DecodeTlogMeta(row.payload, &found.meta)) {
    return Status::Corruption("bad TLOG metadata payload");
  }
  found.row_meta = row.meta;
  return std::optional<Found>(found);
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

OpResult<void> Tlog::Insert(std::string_view key, std::string_view value, uint64_t ts) {
  OpResult<std::optional<Found>> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  const bool found = read->has_value();
  TlogMeta meta;
  storage::RowMeta row_meta;
  Status s;
  if (!found) {
    s = keyspace_.NewVersion(&meta.version);
    if (!s.ok()) return s;
  } else {
    meta = (*read)->meta;
    row_meta = (*read)->row_meta;
    if (ts < meta.cutoff) return {};  // outdated: ignored
  }

  std::string sub_key = SubRowPrefix(db_, key, meta.version);
  AppendTlogElement(&sub_key, ts, value);
  if (found) {
    storage::Row existing;
    s = keyspace_.db().Get(storage::ReadOptions(), sub_key, &existing);
    if (s.ok()) return {};  // duplicate: ignored
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

OpResult<std::vector<TlogEntry>> Tlog::Get(std::string_view key, uint64_t count) {
  std::vector<TlogEntry> result;
  std::vector<TlogEntry>* entries = &result;
  OpResult<std::optional<Found>> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  if (!read->has_value()) return result;
  const TlogMeta meta = (*read)->meta;
  const uint64_t want = std::min(count, meta.size);
  if (want == 0) return result;
  const std::vector<TlogEntry>* head = heads_ != nullptr ? heads_->Find(db_, key, meta) : nullptr;
  if (head != nullptr && want <= head->size()) {
    entries->assign(head->begin(), head->begin() + static_cast<ptrdiff_t>(want));
    return result;
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
  return result;
}

OpResult<uint64_t> Tlog::Size(std::string_view key) {
  OpResult<std::optional<Found>> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  return read->has_value() ? (*read)->meta.size : 0;
}

OpResult<uint64_t> Tlog::Cutoff(std::string_view key) {
  OpResult<std::optional<Found>> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  return read->has_value() ? (*read)->meta.cutoff : 0;
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

OpResult<void> Tlog::TrimAt(std::string_view key, uint64_t ts) {
  OpResult<std::optional<Found>> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  TlogMeta meta;
  storage::RowMeta row_meta;
  Status s;
  if (!read->has_value()) {
    if (ts == 0) return {};  // cutoff 0 on a missing key: still no key
    s = keyspace_.NewVersion(&meta.version);
    if (!s.ok()) return s;
    meta.cutoff = ts;
  } else {
    meta = (*read)->meta;
    row_meta = (*read)->row_meta;
    if (ts <= meta.cutoff) return {};
    s = RaiseCutoff(key, ts, &meta);
    if (!s.ok()) return s;
  }
  storage::WriteBatch batch;
  return WriteMeta(key, meta, row_meta, &batch);
}

OpResult<void> Tlog::Trim(std::string_view key, uint64_t count) {
  if (count == 0) return Clear(key);
  OpResult<std::optional<Found>> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  if (!read->has_value() || (*read)->meta.size < count) return {};
  TlogMeta meta = (*read)->meta;
  const storage::RowMeta row_meta = (*read)->row_meta;
  Status s;
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
  if (ts <= meta.cutoff) return {};
  s = RaiseCutoff(key, ts, &meta);
  if (!s.ok()) return s;
  storage::WriteBatch batch;
  return WriteMeta(key, meta, row_meta, &batch);
}

OpResult<void> Tlog::Clear(std::string_view key) {
  OpResult<std::optional<Found>> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  if (!read->has_value() || (*read)->meta.size == 0) return {};
  const TlogMeta meta = (*read)->meta;
  const storage::RowMeta row_meta = (*read)->row_meta;
  Status s;
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
