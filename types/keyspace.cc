#include "types/keyspace.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <unordered_set>
#include <utility>

#include "storage/util/coding.h"
#include "storage/write_batch.h"
#include "types/series_index.h"
#include "types/series_purge.h"
#include "types/tlog.h"

namespace ebb::types {

namespace {

constexpr std::string_view kVersionHwmRow = "version-hwm";
// Present, holding "slot", in an engine whose user keys are in the slot layout.
constexpr std::string_view kKeyLayoutRow = "key-layout";
constexpr std::string_view kSlotLayoutMark = "slot";
constexpr uint64_t kVersionBlock = 65536;

using storage::Status;

}  // namespace

Keyspace::Keyspace(std::unique_ptr<storage::DB> db, std::shared_ptr<storage::Clock> clock,
                   std::shared_ptr<TypesCompactionFilter> filter)
    : db_(std::move(db)), clock_(std::move(clock)), filter_(std::move(filter)) {
  active_ = db_.get();
}

void Keyspace::BeginBatch() {
  assert(!in_batch());
  batch_ = spare_batch_ ? std::move(spare_batch_) : std::make_unique<BatchDB>(db_.get());
  active_ = batch_.get();
}

Status Keyspace::CommitBatch() {
  assert(in_batch());
  const size_t bytes = batch_->pending_bytes();
  Status s = batch_->Commit(WriteOptions());  // empties it
  if (!s.ok()) tlog_heads_.Clear();
  active_ = db_.get();
  if (bytes <= kMaxSpareBatchBytes) spare_batch_ = std::move(batch_);
  batch_.reset();
  return s;
}

void Keyspace::DiscardBatch() {
  assert(in_batch());
  if (!batch_->empty()) tlog_heads_.Clear();
  active_ = db_.get();
  const size_t bytes = batch_->pending_bytes();
  batch_->Discard();
  if (bytes <= kMaxSpareBatchBytes) spare_batch_ = std::move(batch_);
  batch_.reset();
}

void Keyspace::set_ttl_policy(TtlPolicy policy) {
  filter_->SetTtlPolicy(std::make_shared<const TtlPolicy>(policy));
  settings_.ttl_policy = std::move(policy);
}

Keyspace::~Keyspace() {
  filter_->SetDb(nullptr);
  db_.reset();
}

Status Keyspace::Open(storage::Options options, const std::string& dir,
                      std::unique_ptr<Keyspace>* keyspace, KeyLayout layout) {
  if (!options.clock) return Status::InvalidArgument("Keyspace::Open needs a clock");
  auto filter = std::make_shared<TypesCompactionFilter>();
  RegisterTlogCompactionHook(*filter);         // entries below a log's cutoff are dropped
  RegisterSeriesIndexCompactionHook(*filter);  // stale label index rows are dropped
  RegisterSeriesCompactionHook(*filter);  // samples below a series' retention floor are dropped
  options.compaction_filter = filter;
  options.seek_prefix_length = &SubRowSeekPrefixLength;  // scans of one log's entries
  std::unique_ptr<storage::DB> db;
  Status s = storage::DB::Open(options, dir, &db);
  if (!s.ok()) return s;
  filter->SetDb(db.get(), layout);
  std::unique_ptr<Keyspace> ks(new Keyspace(std::move(db), options.clock, std::move(filter)));
  ks->options_ = options;
  ks->dir_ = dir;
  ks->layout_ = layout;
  s = ks->CheckKeyLayout();
  if (!s.ok()) return s;
  s = ks->ReloadVersionMark();
  if (!s.ok()) return s;
  *keyspace = std::move(ks);
  return Status::OK();
}

Status Keyspace::CheckKeyLayout() {
  std::string mark;
  Status s = GetSystemRow(kKeyLayoutRow, &mark);
  if (!s.ok() && !s.IsNotFound()) return s;
  const bool slot_marked = s.ok() && mark == kSlotLayoutMark;
  if (layout_ == KeyLayout::kByDatabase) {
    if (!slot_marked) return Status::OK();
    return Status::InvalidArgument(
        "the data directory holds a cluster node's keys (grouped by hash slot): start the "
        "server with cluster-enabled yes");
  }
  if (slot_marked) return Status::OK();
  // Unmarked: a new directory, or one a server without cluster-enabled wrote.
  storage::ReadOptions options;
  options.retrieval_grace_ms = std::numeric_limits<int64_t>::max();
  options.lower_bound = std::string(1, static_cast<char>(KeyTag::kMeta));
  options.upper_bound = std::string(1, static_cast<char>(KeyTag::kSlotMeta));
  options.fill_cache = false;
  std::unique_ptr<storage::Iterator> it = db_->NewIterator(options);
  it->Seek(*options.lower_bound);
  if (!it->status().ok()) return it->status();
  if (it->Valid()) {
    return Status::InvalidArgument(
        "the data directory holds the keys of a server without cluster-enabled (grouped by "
        "database): start it with cluster-enabled no, or move its keys to an empty cluster node "
        "with MIGRATE");
  }
  return PutSystemRow(kKeyLayoutRow, kSlotLayoutMark);
}

Status Keyspace::ReloadVersionMark() {
  storage::Row hwm;
  Status s = db_->Get(storage::ReadOptions(), SystemKey(kVersionHwmRow), &hwm);
  uint64_t start = 0;
  if (s.ok()) {
    std::string_view in = hwm.value;
    if (!storage::GetFixed64(&in, &start)) return Status::Corruption("bad version-hwm row");
  } else if (!s.IsNotFound()) {
    return s;
  }
  next_version_ = std::max<uint64_t>(start, 1);
  version_limit_ = next_version_;  // the first NewVersion persists a new mark
  return Status::OK();
}

std::string Keyspace::SystemRowKey(std::string_view name) {
  static_assert(kSystemRowKeyPrefix.size() == 1 &&
                kSystemRowKeyPrefix[0] == static_cast<char>(KeyTag::kSystem));
  return SystemKey(name);
}

Status Keyspace::GetSystemRow(std::string_view name, std::string* value) {
  storage::Row row;
  Status s = db_->Get(storage::ReadOptions(), SystemKey(name), &row);
  if (s.ok()) *value = std::move(row.value);
  return s;
}

Status Keyspace::ForEachSystemRow(
    std::string_view prefix,
    const std::function<Status(std::string_view name, std::string_view value)>& fn) {
  const std::string start = SystemKey(prefix);
  const size_t name_at = start.size() - prefix.size();
  auto it = db().NewIterator(ReadOptions());
  for (it->Seek(start); it->Valid() && it->key().starts_with(start); it->Next()) {
    Status s = fn(it->key().substr(name_at), it->value());
    if (!s.ok()) return s;
  }
  return it->status();
}

std::string Keyspace::KeyPosition(int db, std::string_view key) const {
  return MetaKey(layout_, db, key);
}

std::string Keyspace::FirstKeyPosition(int db) const { return MetaKeyPrefix(layout_, db); }

std::string Keyspace::EndKeyPosition(int db) const {
  return PrefixUpperBound(MetaKeyPrefix(layout_, db));
}

std::string Keyspace::PositionAfter(std::string_view position) {
  std::string after(position);
  after.push_back('\0');
  return after;
}

namespace {

// Plain read options (no block fetch: a cursor's reads wait for the disk) over [lower, upper).
storage::ReadOptions CursorReadOptions(std::string lower, std::string upper,
                                       const storage::Snapshot* snapshot) {
  storage::ReadOptions options;
  options.snapshot = snapshot;
  options.fill_cache = false;
  options.lower_bound = std::move(lower);
  options.upper_bound = std::move(upper);
  return options;
}

}  // namespace

std::unique_ptr<RowCursor> Keyspace::KeyCursor(int db, std::string from, std::string to,
                                               const storage::Snapshot* snapshot) {
  // Within the database's own range whatever the positions say.
  if (std::string first = FirstKeyPosition(db); from < first) from = std::move(first);
  if (std::string end = EndKeyPosition(db); end < to) to = std::move(end);
  storage::ReadOptions options = CursorReadOptions(std::move(from), std::move(to), snapshot);
  options.include_dead = true;
  auto it = active_->NewIterator(options);
  it->Seek(*options.lower_bound);
  return std::make_unique<RowCursor>(std::move(it), RowCursor::Rows::kKeys, 0);
}

std::unique_ptr<RowCursor> Keyspace::SystemRowCursor(std::string_view prefix,
                                                     const storage::Snapshot* snapshot) {
  std::string lower = SystemKey(prefix);
  const size_t name_at = lower.size() - prefix.size();
  std::string upper = PrefixUpperBound(lower);
  auto it = active_->NewIterator(CursorReadOptions(lower, std::move(upper), snapshot));
  it->Seek(lower);
  return std::make_unique<RowCursor>(std::move(it), RowCursor::Rows::kSystem, name_at);
}

Status Keyspace::WriteMetaVersion(int db, std::string_view key, storage::RowKind kind,
                                  std::string_view value, const storage::RowMeta& meta) {
  assert(kind != storage::RowKind::kWipe);
  storage::WriteOptions options = WriteOptions();
  options.timestamp_ms = meta.timestamp_ms;
  options.expire_at_ms = meta.expire_at_ms;
  const std::string meta_key = MetaKey(layout_, db, key);
  if (kind == storage::RowKind::kValue) return active_->Put(options, meta_key, value);
  storage::WriteBatch batch;
  batch.Delete(options, meta_key, value);
  return active_->Write(options, batch);
}

Status Keyspace::PutSystemRow(std::string_view name, std::string_view value) {
  Status s = db_->Put(storage::WriteOptions(), SystemKey(name), value);
  if (s.ok()) s = db_->SyncWal();
  return s;
}

Status Keyspace::ReopenEngine(const std::function<void()>& while_closed) {
  assert(!in_batch());
  filter_->SetDb(nullptr);
  active_ = nullptr;
  spare_batch_.reset();  // it reads and writes through the engine closed here
  held_state_ = {};      // a ReadPass under way takes the new engine's at its next read
  db_.reset();
  while_closed();
  Status s = storage::DB::Open(options_, dir_, &db_);
  if (!s.ok()) return s;
  filter_->SetDb(db_.get(), layout_);
  active_ = db_.get();
  tlog_heads_.Clear();
  counted_expiries_.clear();
  counted_order_.clear();
  s = CheckKeyLayout();
  if (!s.ok()) return s;
  return ReloadVersionMark();
}

Status Keyspace::SetExpirationEnabled(bool enabled) {
  options_.expiration_enabled = enabled;
  return db_->SetExpirationEnabled(enabled);
}

void Keyspace::SetWholeFileExpiry(bool enabled) {
  options_.whole_file_expiry = enabled;
  db_->SetWholeFileExpiry(enabled);
}

void Keyspace::SetPurgeDeadline(int64_t ms) {
  options_.purge_deadline_ms = ms;
  db_->SetPurgeDeadline(ms);
}

void Keyspace::SetWalFsync(storage::WalFsync mode) {
  options_.wal_fsync = mode;
  db_->SetWalFsync(mode);
}

storage::WriteOptions Keyspace::WriteOptions() const {
  storage::WriteOptions options;
  options.defer_sync = settings_.defer_sync;
  options.block_fetch = block_fetch_;
  return options;
}

storage::ReadOptions Keyspace::ReadOptions() const {
  storage::ReadOptions options;
  options.block_fetch = block_fetch_;
  if (read_passes_ > 0) {
    if (held_state_.owner == nullptr) held_state_ = db_->HoldReadState();
    options.held_state = &held_state_;
  }
  return options;
}

Status Keyspace::NewVersion(uint64_t* version) {
  if (next_version_ >= version_limit_) {
    uint64_t limit = next_version_ + kVersionBlock;
    std::string value;
    storage::PutFixed64(&value, limit);
    Status s = db_->Put(WriteOptions(), SystemKey(kVersionHwmRow), value);
    if (!s.ok()) return s;
    version_limit_ = limit;
  }
  *version = next_version_++;
  return Status::OK();
}

Status Keyspace::GetMeta(int db, std::string_view key, KeyMetaRow* out, int64_t grace,
                         std::optional<storage::DeadVersion>* dead) {
  KeyMetaView view;
  Status s = GetMetaPinned(db, key, &view, grace, dead);
  if (!s.ok()) return s;
  out->type = view.type;
  out->raw_string = view.raw_string;
  out->payload.assign(view.payload);
  out->meta = view.row.meta;
  return s;
}

void Keyspace::PrefetchMeta(int db, std::span<const std::string_view> keys) {
  constexpr size_t kAtOnce = 16;  // the metadata keys built on the stack for one engine call
  for (size_t first = 0; first < keys.size(); first += kAtOnce) {
    const size_t n = std::min(kAtOnce, keys.size() - first);
    MetaKeyScratch scratch[kAtOnce];
    std::string_view meta_keys[kAtOnce];
    for (size_t i = 0; i < n; ++i) {
      meta_keys[i] = BuildMetaKey(layout_, db, keys[first + i], &scratch[i]);
    }
    active_->Prefetch(std::span<const std::string_view>(meta_keys, n));
  }
}

Status Keyspace::GetMetaPinned(int db, std::string_view key, KeyMetaView* out, int64_t grace,
                               std::optional<storage::DeadVersion>* dead) {
  storage::ReadOptions options = ReadOptions();
  options.retrieval_grace_ms = grace;
  std::optional<storage::DeadVersion> dead_version;
  options.dead_version = dead != nullptr ? dead : &dead_version;
  MetaKeyScratch scratch;
  Status s = active_->GetPinned(options, BuildMetaKey(layout_, db, key, &scratch), &out->row);
  if (s.IsNotFound()) {
    const std::optional<storage::DeadVersion>& found = *options.dead_version;
    if (found && found->kind == storage::RowKind::kValue && found->meta.expire_at_ms) {
      NoteExpired(db, key, *found->meta.expire_at_ms);
    }
  }
  // Every path returns `s` itself: a GET's read moves no Status (whose message is a string).
  if (s.ok() && !DecodeMetaValue(out->row.value(), &out->type, &out->payload, &out->raw_string)) {
    s = Status::Corruption("bad metadata row value");
  }
  return s;
}

Status Keyspace::TypeWriteTimestamp(int db, std::string_view key, const KeyMetaRow* found,
                                    const std::optional<storage::DeadVersion>& dead, int64_t* ts) {
  const int64_t now = NowMs();
  // A live row of another type than string, or a dead one, was written by a type write (or
  // is a wipe): it already carries the greatest timestamp of the key.
  KeyType type;
  std::string_view payload;
  if (found != nullptr) {
    if (found->type != KeyType::kString) {
      *ts = std::max(now, found->meta.timestamp_or_zero());
      return Status::OK();
    }
  } else if (!dead) {
    *ts = now;  // no version at all
    return Status::OK();
  } else if (dead->kind == storage::RowKind::kWipe ||
             (dead->kind == storage::RowKind::kValue &&
              DecodeMetaValue(dead->value, &type, &payload) && type != KeyType::kString)) {
    *ts = std::max(now, dead->meta.timestamp_or_zero());
    return Status::OK();
  }
  // String rows and timestamped tombstones carry their writer's timestamp: the greatest one is
  // what a full-grace read takes.
  KeyMetaRow widest;
  std::optional<storage::DeadVersion> widest_dead;
  Status s = GetMeta(db, key, &widest, std::numeric_limits<int64_t>::max(), &widest_dead);
  if (s.ok()) {
    *ts = std::max(now, widest.meta.timestamp_or_zero());
  } else if (s.IsNotFound()) {
    *ts = std::max(now, widest_dead ? widest_dead->meta.timestamp_or_zero() : now);
  } else {
    return s;
  }
  return Status::OK();
}

void Keyspace::NoteExpired(int db, std::string_view key, int64_t expire_at_ms) {
  std::string id = MetaKey(layout_, db, key);
  storage::PutFixed64(&id, static_cast<uint64_t>(expire_at_ms));
  if (!counted_expiries_.insert(id).second) return;
  ++expired_keys_;
  counted_order_.push_back(std::move(id));
  if (counted_order_.size() > kMaxCountedExpiries) {
    counted_expiries_.erase(counted_order_.front());
    counted_order_.pop_front();
  }
}

OpResult<bool> Keyspace::Exists(int db, std::string_view key) {
  KeyMetaRow meta;
  Status s = GetMeta(db, key, &meta);
  if (s.IsNotFound()) return false;
  if (!s.ok()) return s;
  return true;
}

OpResult<std::optional<KeyType>> Keyspace::Type(int db, std::string_view key) {
  KeyMetaRow meta;
  Status s = GetMeta(db, key, &meta);
  if (s.IsNotFound()) return std::optional<KeyType>();
  if (!s.ok()) return s;
  return std::optional<KeyType>(meta.type);
}

Status Keyspace::WriteWipe(int db, std::string_view key) {
  storage::WriteOptions options = WriteOptions();
  options.timestamp_ms = NowMs();
  storage::WriteBatch batch;
  batch.Wipe(options, MetaKey(layout_, db, key));
  return active_->Write(options, batch);
}

OpResult<bool> Keyspace::Delete(int db, std::string_view key) {
  bool deleted = false;
  Status s = DeleteKey(db, key, &deleted);
  if (!s.ok()) return s;
  return deleted;
}

OpResult<int64_t> Keyspace::Delete(int db, std::span<const std::string_view> keys,
                                   std::vector<std::string_view>* existed) {
  storage::WriteOptions options = WriteOptions();
  options.timestamp_ms = NowMs();
  storage::WriteBatch batch;
  std::unordered_set<std::string_view> seen;
  Status failure;
  int64_t deleted = 0;
  for (std::string_view key : keys) {
    if (!seen.insert(key).second) continue;  // named twice: gone after the first (Redis)
    bool exists = false;
    bool wipe = false;
    Status s = PlanDelete(db, key, &exists, &wipe);
    if (!s.ok()) {
      // Read on: a command waiting for the disk then asks for every key's blocks at once.
      if (failure.ok()) failure = s;
      continue;
    }
    if (wipe) batch.Wipe(options, MetaKey(layout_, db, key));
    if (exists) {
      ++deleted;
      if (existed != nullptr) existed->push_back(key);
    }
  }
  if (!failure.ok()) return failure;
  if (batch.Count() > 0) {
    Status s = active_->Write(options, batch);
    if (!s.ok()) return s;
  }
  return deleted;
}

Status Keyspace::PlanDelete(int db, std::string_view key, bool* exists, bool* wipe) {
  *exists = false;
  *wipe = false;
  KeyMetaRow meta;
  std::optional<storage::DeadVersion> dead;
  Status s = GetMeta(db, key, &meta, settings_.default_retrieval_grace_ms, &dead);
  if (s.ok()) {
    *exists = true;
  } else if (!s.IsNotFound()) {
    return s;
  } else if (!dead || dead->kind == storage::RowKind::kWipe) {
    // No version at all, or the newest is already a wipe: no read at any grace sees the key.
    return Status::OK();
  }
  // Absent at the default grace but with versions: another grace may still read one.
  *wipe = true;
  return Status::OK();
}

Status Keyspace::DeleteKey(int db, std::string_view key, bool* deleted) {
  bool wipe = false;
  Status s = PlanDelete(db, key, deleted, &wipe);
  if (!s.ok() || !wipe) return s;
  return WriteWipe(db, key);
}

OpResult<bool> Keyspace::Expire(int db, std::string_view key, int64_t expire_at_ms,
                                uint32_t flags) {
  KeyMetaRow meta;
  Status s = GetMeta(db, key, &meta);
  if (s.IsNotFound()) return false;
  if (!s.ok()) return s;
  const std::optional<int64_t>& current = meta.meta.expire_at_ms;
  if ((flags & kExpireNx) && current) return false;
  if ((flags & kExpireXx) && !current) return false;
  // A persistent key has an infinite TTL: never "greater", always "less".
  if ((flags & kExpireGt) && (!current || expire_at_ms <= *current)) return false;
  if ((flags & kExpireLt) && current && expire_at_ms >= *current) return false;
  if (expire_at_ms <= NowMs()) {
    s = WriteWipe(db, key);
    if (!s.ok()) return s;
    ++expired_keys_;
    return true;
  }
  storage::WriteOptions options = WriteOptions();
  options.timestamp_ms = meta.meta.timestamp_ms;
  options.expire_at_ms = expire_at_ms;
  s = active_->Put(options, MetaKey(layout_, db, key),
                   EncodeMetaValue(meta.type, meta.payload, meta.raw_string));
  if (!s.ok()) return s;
  return true;
}

OpResult<bool> Keyspace::Persist(int db, std::string_view key) {
  KeyMetaRow meta;
  Status s = GetMeta(db, key, &meta);
  if (s.IsNotFound()) return false;
  if (!s.ok()) return s;
  if (!meta.meta.expire_at_ms) return false;
  storage::WriteOptions options = WriteOptions();
  options.timestamp_ms = meta.meta.timestamp_ms;
  s = active_->Put(options, MetaKey(layout_, db, key),
                   EncodeMetaValue(meta.type, meta.payload, meta.raw_string));
  if (!s.ok()) return s;
  return true;
}

OpResult<std::optional<int64_t>> Keyspace::GetExpireAt(int db, std::string_view key) {
  KeyMetaRow meta;
  Status s = GetMeta(db, key, &meta);
  if (s.IsNotFound()) return OpStatus::kNotFound;
  if (!s.ok()) return s;
  return meta.meta.expire_at_ms;
}

}  // namespace ebb::types
