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

// An unpositioned iterator over one incarnation's entries (the sub-rows under `prefix`).
std::unique_ptr<storage::Iterator> LogIterator(Keyspace& keyspace, const std::string& prefix) {
  storage::ReadOptions options = keyspace.ReadOptions();
  options.lower_bound = prefix;
  std::string upper = PrefixUpperBound(prefix);
  if (!upper.empty()) options.upper_bound = upper;
  return keyspace.db().NewIterator(options);
}

// The same iterator positioned at `first_element` (or at the newest entry when it is empty).
std::unique_ptr<storage::Iterator> ScanLog(Keyspace& keyspace, const std::string& prefix,
                                           std::string_view first_element) {
  std::unique_ptr<storage::Iterator> it = LogIterator(keyspace, prefix);
  std::string target = prefix;
  target.append(first_element);
  it->Seek(target);
  return it;
}

}  // namespace

OpResult<Tlog::Found> Tlog::ReadMeta(std::string_view key) {
  Found found;
  KeyMetaView row;  // the payload is decoded in place, not copied
  Status s = keyspace_.GetMetaPinned(db_, key, &row,
                                     keyspace_.settings().default_retrieval_grace_ms, &found.dead);
  if (s.IsNotFound()) {
    // A log its expiry register expired stays this log: a later register may bring it back.
    KeyType type;
    std::string_view payload;
    if (found.dead && found.dead->kind == storage::RowKind::kValue &&
        DecodeMetaValue(found.dead->value, &type, &payload) && type == KeyType::kTlog &&
        DecodeTlogMeta(payload, &found.meta) && found.meta.expiry_register &&
        found.meta.expiry_register->expire_at &&
        found.dead->meta.expire_at_ms == found.meta.expiry_register->expire_at) {
      found.expired_by_register = true;
      found.row_meta = found.dead->meta;
    } else {
      found.meta = TlogMeta();
    }
    return found;
  }
  if (!s.ok()) return s;
  if (row.type != KeyType::kTlog) return OpStatus::kWrongType;
  if (!DecodeTlogMeta(row.payload, &found.meta)) {
    return Status::Corruption("bad TLOG metadata payload");
  }
  found.row_meta = row.row.meta;
  found.live = true;
  return found;
}

Status Tlog::NewIncarnation(std::string_view key, TlogMeta* meta) {
  *meta = TlogMeta();
  meta->window_ms = keyspace_.PolicyWindow(key).value_or(0);
  return keyspace_.NewVersion(&meta->version);
}

namespace {

// `a + b` for timestamps, or nullopt when it does not fit a signed 64-bit ms count.
std::optional<int64_t> AddMs(uint64_t a, uint64_t b) {
  if (a > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - b) return std::nullopt;
  return static_cast<int64_t>(a + b);
}

// The metadata row's expiry of a log under an expiry register: the window's end, or the
// register's expiry when that covers everything the log holds and comes first.
std::optional<int64_t> RegisterKeyExpiry(const TlogMeta& meta) {
  const TlogMeta::Register& reg = *meta.expiry_register;
  std::optional<int64_t> expiry;
  if (meta.window_ms > 0) expiry = TlogOwnExpiry(meta);
  const bool covers_all = reg.ts >= 0 && TlogNewestTs(meta) <= static_cast<uint64_t>(reg.ts);
  if (reg.expire_at && covers_all) expiry = std::min(expiry.value_or(INT64_MAX), *reg.expire_at);
  return expiry;
}

}  // namespace

bool Tlog::RegisterHides(const TlogMeta& meta) const {
  return TlogRegisterHides(meta, keyspace_.db().ExpiryNowMs());
}

uint64_t Tlog::VisibleFloor(const TlogMeta& meta) const {
  const uint64_t cutoff = EffectiveCutoff(meta);
  if (!RegisterHides(meta)) return cutoff;
  const uint64_t covered = static_cast<uint64_t>(meta.expiry_register->ts);
  return covered == kGreatestTs ? kGreatestTs : std::max(cutoff, covered + 1);
}

uint64_t Tlog::EffectiveCutoff(const TlogMeta& meta) const {
  if (meta.window_ms == 0) return meta.cutoff;
  const int64_t now = keyspace_.db().ExpiryNowMs();
  if (now < 0 || static_cast<uint64_t>(now) < meta.window_ms) return meta.cutoff;
  return std::max(meta.cutoff, static_cast<uint64_t>(now) - meta.window_ms + 1);
}

Status Tlog::WriteMeta(std::string_view key, const TlogMeta& meta, const Found& previous,
                       storage::WriteBatch* batch) {
  storage::WriteOptions options = keyspace_.WriteOptions();
  const int64_t now = keyspace_.NowMs();
  if (previous.live || previous.expired_by_register) {
    options.timestamp_ms = std::max(now, previous.row_meta.timestamp_or_zero());
    options.expire_at_ms = previous.row_meta.expire_at_ms;
  } else {
    int64_t ts;
    Status s = keyspace_.TypeWriteTimestamp(db_, key, nullptr, previous.dead, &ts);
    if (!s.ok()) return s;
    options.timestamp_ms = ts;
  }
  if (meta.window_ms > 0) options.expire_at_ms = TlogOwnExpiry(meta);
  // Kept even when that expiry has passed by this node's clock: a later register may bring the
  // log back, here as on a node whose clock is behind.
  if (meta.expiry_register) options.expire_at_ms = RegisterKeyExpiry(meta);
  MetaKeyScratch scratch;  // the key on the stack: the batch copies it
  batch->Put(options, BuildMetaKey(keyspace_.layout(), db_, key, &scratch),
             EncodeMetaValue(KeyType::kTlog, EncodeTlogMeta(meta)), now);
  return keyspace_.db().Write(options, *batch);
}

OpResult<Tlog::InsertOutcome> Tlog::Insert(std::string_view key, std::string_view value,
                                           uint64_t ts) {
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  const Found& found = *read;
  TlogMeta meta = found.meta;
  Status s;
  const bool held = found.live || found.expired_by_register;
  if (!held) {
    s = NewIncarnation(key, &meta);
    if (!s.ok()) return s;
  }
  if (ts < meta.cutoff) return InsertOutcome::kBelowCutoff;  // outdated: ignored
  if (ts < EffectiveCutoff(meta)) return InsertOutcome::kBelowRetention;

  std::string sub_key = SubRowPrefix(keyspace_.layout(), db_, key, meta.version);
  AppendTlogElement(&sub_key, ts, value);
  if (held) {
    storage::Row existing;
    s = keyspace_.db().Get(keyspace_.ReadOptions(), sub_key, &existing);
    if (s.ok()) return InsertOutcome::kDuplicate;  // ignored
    if (!s.IsNotFound()) return s;
  }
  const TlogMeta before = meta;
  ++meta.size;
  storage::WriteOptions entry = keyspace_.WriteOptions();
  if (meta.window_ms > 0 || meta.expiry_register) meta.newest = std::max(meta.newest, ts);
  if (meta.window_ms > 0) entry.expire_at_ms = AddMs(ts, meta.window_ms);
  // The thread's batch, cleared: its buffer stays (a heap block per insert otherwise). Nothing
  // Write calls inserts again.
  thread_local storage::WriteBatch batch;
  batch.Clear();
  batch.Put(entry, sub_key, "", keyspace_.NowMs());
  s = WriteMeta(key, meta, found, &batch);
  // A head exists only for a log read before (a new log gets one at its first GET); a windowed
  // log and a log under an expiry register have none.
  if (s.ok() && found.live && heads_ != nullptr && meta.window_ms == 0 && !meta.expiry_register) {
    heads_->OnInsert(db_, key, before, meta, value, ts);
  }
  if (!s.ok()) return s;
  return InsertOutcome::kAdded;
}

OpResult<std::vector<TlogEntry>> Tlog::Get(std::string_view key, uint64_t count) {
  std::vector<TlogEntry> result;
  std::vector<TlogEntry>* entries = &result;
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  if (!read->live) return result;
  const TlogMeta meta = read->meta;
  const bool windowed = meta.window_ms > 0;
  const uint64_t floor = VisibleFloor(meta);
  // A windowed log's size counts inserts, not live entries, and a register may hide some: the
  // scan decides.
  const uint64_t want = windowed || RegisterHides(meta) ? count : std::min(count, meta.size);
  if (want == 0) return result;
  // What a register hides changes with the clock, not the metadata: no cached head.
  TlogHeadCache* heads = windowed || meta.expiry_register ? nullptr : heads_;
  const std::vector<TlogEntry>* head = heads != nullptr ? heads->Find(db_, key, meta) : nullptr;
  if (head != nullptr && want <= head->size()) {
    entries->assign(head->begin(), head->begin() + static_cast<ptrdiff_t>(want));
    return result;
  }
  // Without a cached head, the scan also reads the log's head, to cache it.
  const uint64_t head_size = heads != nullptr && head == nullptr
                                 ? std::min<uint64_t>(TlogHeadCache::kMaxEntries, meta.size)
                                 : 0;
  const uint64_t scan = std::max(want, head_size);
  std::string prefix = SubRowPrefix(keyspace_.layout(), db_, key, meta.version);
  std::unique_ptr<storage::Iterator> it = ScanLog(keyspace_, prefix, "");
  // scan <= the entries at or above the cutoff; the cap only guards against a damaged size.
  entries->reserve(std::min<uint64_t>(scan, 1024));
  for (; it->Valid() && entries->size() < scan; it->Next()) {
    TlogEntry entry;
    if (!DecodeTlogElement(it->key().substr(prefix.size()), &entry.ts, &entry.value)) {
      return Status::Corruption("bad TLOG sub-row key");
    }
    if (entry.ts < floor) break;
    entries->push_back(std::move(entry));
  }
  if (!it->status().ok()) return it->status();
  if (head_size > 0 && entries->size() >= head_size) {
    heads->Fill(db_, key, meta,
                std::vector<TlogEntry>(entries->begin(),
                                       entries->begin() + static_cast<ptrdiff_t>(head_size)));
  }
  if (entries->size() > want) entries->resize(want);
  return result;
}

OpResult<std::vector<TlogEntry>> Tlog::Range(std::string_view key, uint64_t from, uint64_t to,
                                             uint64_t count, bool oldest_first) {
  std::vector<TlogEntry> result;
  OpResult<void> scanned = ScanRange(key, from, to, oldest_first, [&](const TlogEntry& entry) {
    if (result.size() >= count) return false;
    result.push_back(entry);
    return result.size() < count;
  });
  if (!scanned.ok()) return FailureOf(scanned);
  return result;
}

OpResult<void> Tlog::ScanRange(std::string_view key, uint64_t from, uint64_t to, bool oldest_first,
                               const std::function<bool(const TlogEntry&)>& visit) {
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  if (!read->live) return {};
  const uint64_t low = std::max(from, VisibleFloor(read->meta));
  if (low > to) return {};
  const std::string prefix = SubRowPrefix(keyspace_.layout(), db_, key, read->meta.version);
  // Scan order is newest first. Newest first starts at the first entry with ts <= to; oldest
  // first at the last entry with ts >= low, walking backwards.
  std::unique_ptr<storage::Iterator> it;
  if (!oldest_first) {
    it = ScanLog(keyspace_, prefix, TlogElementSeekTs(to));
  } else {
    it = LogIterator(keyspace_, prefix);
    if (low == 0) {
      it->SeekToLast();
    } else {
      it->SeekForPrev(prefix + TlogElementSeekTs(low - 1));  // sorts after every ts >= low
    }
  }
  for (; it->Valid(); oldest_first ? it->Prev() : it->Next()) {
    TlogEntry entry;
    if (!DecodeTlogElement(it->key().substr(prefix.size()), &entry.ts, &entry.value)) {
      return Status::Corruption("bad TLOG sub-row key");
    }
    if (oldest_first ? entry.ts > to : entry.ts < low) break;
    if (!visit(entry)) break;
  }
  if (!it->status().ok()) return it->status();
  return {};
}

Status Tlog::CountLive(std::string_view key, const TlogMeta& meta, uint64_t floor,
                       uint64_t* count) {
  *count = 0;
  std::string prefix = SubRowPrefix(keyspace_.layout(), db_, key, meta.version);
  std::unique_ptr<storage::Iterator> it = ScanLog(keyspace_, prefix, "");
  for (; it->Valid(); it->Next()) {
    uint64_t ts;
    if (!DecodeTlogElementTs(it->key().substr(prefix.size()), &ts)) {
      return Status::Corruption("bad TLOG sub-row key");
    }
    if (ts < floor) break;
    ++*count;
  }
  return it->status();
}

OpResult<uint64_t> Tlog::Size(std::string_view key) {
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  if (!read->live) return uint64_t{0};
  if (read->meta.window_ms == 0 && !RegisterHides(read->meta)) return read->meta.size;
  uint64_t size;
  Status s = CountLive(key, read->meta, VisibleFloor(read->meta), &size);
  if (!s.ok()) return s;
  return size;
}

OpResult<uint64_t> Tlog::Cutoff(std::string_view key) {
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  return read->live ? EffectiveCutoff(read->meta) : 0;
}

Status Tlog::CountBelow(std::string_view key, const TlogMeta& meta, uint64_t cutoff,
                        uint64_t* count) {
  *count = 0;
  if (cutoff == 0) return Status::OK();
  std::string prefix = SubRowPrefix(keyspace_.layout(), db_, key, meta.version);
  std::unique_ptr<storage::Iterator> it = ScanLog(keyspace_, prefix, TlogElementSeekTs(cutoff - 1));
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
  if (meta->window_ms > 0) {  // its size is not kept: nothing to count
    meta->cutoff = cutoff;
    return Status::OK();
  }
  uint64_t cut;
  Status s = CountBelow(key, *meta, cutoff, &cut);
  if (!s.ok()) return s;
  if (cut > meta->size) return Status::Corruption("TLOG size below its entry count");
  meta->size -= cut;
  meta->cutoff = cutoff;
  return Status::OK();
}

OpResult<void> Tlog::TrimAt(std::string_view key, uint64_t ts) {
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  const Found& found = *read;
  TlogMeta meta = found.meta;
  Status s;
  if (!found.live && !found.expired_by_register) {
    if (ts == 0) return {};  // cutoff 0 on a missing key: still no key
    s = NewIncarnation(key, &meta);
    if (!s.ok()) return s;
    meta.cutoff = ts;
  } else {
    if (ts <= meta.cutoff) return {};
    s = RaiseCutoff(key, ts, &meta);
    if (!s.ok()) return s;
  }
  storage::WriteBatch batch;
  return WriteMeta(key, meta, found, &batch);
}

OpResult<void> Tlog::Trim(std::string_view key, uint64_t count) {
  if (count == 0) return Clear(key);
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  const Found& found = *read;
  if (!found.live) return {};
  TlogMeta meta = found.meta;
  // Entries a window or a register hides do not count: only the scan knows.
  const bool all_counted = meta.window_ms == 0 && !RegisterHides(meta);
  if (all_counted && meta.size < count) return {};
  const uint64_t floor = VisibleFloor(meta);
  // The timestamp of entry count-1 (the count-th newest).
  std::string prefix = SubRowPrefix(keyspace_.layout(), db_, key, meta.version);
  std::unique_ptr<storage::Iterator> it = ScanLog(keyspace_, prefix, "");
  for (uint64_t i = 1; i < count && it->Valid(); ++i) it->Next();
  if (!it->status().ok()) return it->status();
  uint64_t ts = 0;
  if (it->Valid() && !DecodeTlogElementTs(it->key().substr(prefix.size()), &ts)) {
    return Status::Corruption("bad TLOG sub-row key");
  }
  if (!it->Valid() || ts < floor) {
    if (!all_counted) return {};  // fewer than count live entries
    return Status::Corruption("TLOG size above its entry count");
  }
  it.reset();
  if (ts <= meta.cutoff) return {};
  Status s = RaiseCutoff(key, ts, &meta);
  if (!s.ok()) return s;
  storage::WriteBatch batch;
  return WriteMeta(key, meta, found, &batch);
}

OpResult<void> Tlog::Clear(std::string_view key) {
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  const Found& found = *read;
  if (!found.live || (found.meta.window_ms == 0 && found.meta.size == 0)) return {};
  const TlogMeta& meta = found.meta;
  std::string prefix = SubRowPrefix(keyspace_.layout(), db_, key, meta.version);
  uint64_t newest;
  {
    std::unique_ptr<storage::Iterator> it = ScanLog(keyspace_, prefix, "");
    if (!it->status().ok()) return it->status();
    bool live = it->Valid();
    if (live && !DecodeTlogElementTs(it->key().substr(prefix.size()), &newest)) {
      return Status::Corruption("bad TLOG sub-row key");
    }
    if (live && newest < VisibleFloor(meta)) live = false;
    if (!live) {
      if (meta.window_ms > 0 || RegisterHides(meta)) return {};  // no live entry: nothing to clear
      return Status::Corruption("TLOG size above its entry count");
    }
  }
  uint64_t next = newest == kGreatestTs ? kGreatestTs : newest + 1;
  TlogMeta cleared;
  Status s = NewIncarnation(key, &cleared);
  if (!s.ok()) return s;
  cleared.cutoff = std::max(meta.cutoff, next);
  cleared.expiry_register = meta.expiry_register;
  storage::WriteBatch batch;
  return WriteMeta(key, cleared, found, &batch);
}

OpResult<std::optional<TlogExtent>> Tlog::Extent(std::string_view key) {
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  if (!read->live && !read->expired_by_register) return std::optional<TlogExtent>();
  TlogExtent extent{.cutoff = EffectiveCutoff(read->meta), .window_ms = read->meta.window_ms};
  uint64_t newest = 0;
  bool any = false;
  Status s = HeldNewest(key, read->meta, &newest, &any);
  if (!s.ok()) return s;
  if (any && newest >= extent.cutoff) extent.newest = newest;
  return std::optional<TlogExtent>(extent);
}

OpResult<std::vector<TlogEntry>> Tlog::HeldEntries(std::string_view key, uint64_t* cutoff) {
  std::vector<TlogEntry> entries;
  *cutoff = 0;
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  if (!read->live && !read->expired_by_register) return entries;
  *cutoff = EffectiveCutoff(read->meta);
  std::string prefix = SubRowPrefix(keyspace_.layout(), db_, key, read->meta.version);
  std::unique_ptr<storage::Iterator> it = ScanLog(keyspace_, prefix, "");
  for (; it->Valid(); it->Next()) {
    TlogEntry entry;
    if (!DecodeTlogElement(it->key().substr(prefix.size()), &entry.ts, &entry.value)) {
      return Status::Corruption("bad TLOG sub-row key");
    }
    if (entry.ts < *cutoff) break;
    entries.push_back(std::move(entry));
  }
  if (!it->status().ok()) return it->status();
  return entries;
}

Status Tlog::HeldNewest(std::string_view key, const TlogMeta& meta, uint64_t* newest, bool* any) {
  std::string prefix = SubRowPrefix(keyspace_.layout(), db_, key, meta.version);
  std::unique_ptr<storage::Iterator> it = ScanLog(keyspace_, prefix, "");
  *any = it->Valid();
  if (*any && !DecodeTlogElementTs(it->key().substr(prefix.size()), newest)) {
    return Status::Corruption("bad TLOG sub-row key");
  }
  return it->status();
}

OpResult<std::optional<uint64_t>> Tlog::HiddenCutoff(std::string_view key) {
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  const TlogMeta& meta = read->meta;
  std::optional<uint64_t> none;
  if (!read->live || !RegisterHides(meta)) return none;
  const uint64_t covered = static_cast<uint64_t>(meta.expiry_register->ts);
  const uint64_t cutoff = EffectiveCutoff(meta);
  if (covered < cutoff) return none;
  std::string prefix = SubRowPrefix(keyspace_.layout(), db_, key, meta.version);
  std::unique_ptr<storage::Iterator> it = ScanLog(keyspace_, prefix, TlogElementSeekTs(covered));
  uint64_t ts = 0;
  if (it->Valid() && !DecodeTlogElementTs(it->key().substr(prefix.size()), &ts)) {
    return Status::Corruption("bad TLOG sub-row key");
  }
  if (!it->status().ok()) return it->status();
  if (!it->Valid() || ts < cutoff) return none;
  return std::optional<uint64_t>(covered == kGreatestTs ? kGreatestTs : covered + 1);
}

OpResult<void> Tlog::SetExpiryRegister(std::string_view key, const TlogMeta::Register& reg) {
  OpResult<Found> read = ReadMeta(key);
  if (!read.ok()) return FailureOf(read);
  const Found& found = *read;
  if (!found.live && !found.expired_by_register) return {};
  TlogMeta meta = found.meta;
  if (meta.expiry_register == reg) return {};
  if (!meta.expiry_register && meta.window_ms == 0) {
    // `newest` is kept from now on; until now it was not.
    bool any = false;
    Status s = HeldNewest(key, meta, &meta.newest, &any);
    if (!s.ok()) return s;
    if (!any) meta.newest = 0;
  }
  meta.expiry_register = reg;
  storage::WriteBatch batch;
  return WriteMeta(key, meta, found, &batch);
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
