#include "types/batch_db.h"

#include <cstdint>
#include <limits>
#include <optional>

#include "storage/clock.h"
#include "storage/db/version_chooser.h"
#include "storage/util/hash.h"

namespace ebb::types {
namespace {

using storage::RowKind;
using storage::Status;
using storage::WriteBatch;

// The engine's iterator merged with the pending keys (their newest version, as an iterator shows
// a key at grace 0). On equal keys the pending version wins; a dead one hides the key (a
// tombstone or an expired value shows it under ReadOptions::include_dead, as the engine does).
class MergedIterator final : public storage::Iterator {
 public:
  MergedIterator(std::unique_ptr<storage::Iterator> base, BatchDB* batch,
                 std::optional<std::string> lower, std::optional<std::string> upper,
                 int64_t expiry_now, bool include_dead)
      : base_(std::move(base)),
        batch_(batch),
        index_(batch->index()),
        lower_(std::move(lower)),
        upper_(std::move(upper)),
        expiry_now_(expiry_now),
        include_dead_(include_dead) {}

  bool Valid() const override { return source_ != Source::kNone; }
  void SeekToFirst() override {
    batch_->IndexPending();
    base_->SeekToFirst();
    pending_ = lower_ ? index_.lower_bound(*lower_) : index_.begin();
    SettleForward();
  }
  void Seek(std::string_view target) override {
    if (lower_ && target < *lower_) target = *lower_;
    batch_->IndexPending();
    base_->Seek(target);
    pending_ = index_.lower_bound(target);
    SettleForward();
  }
  void Next() override {
    batch_->IndexPending();
    if (source_ == Source::kPending) {
      if (base_->Valid() && base_->key() == pending_->first) base_->Next();
      ++pending_;
    } else {
      base_->Next();
    }
    SettleForward();
  }
  void SeekToLast() override {
    if (upper_) {
      SeekBefore(*upper_);
    } else {
      batch_->IndexPending();
      base_->SeekToLast();
      pending_ = index_.empty() ? index_.end() : std::prev(index_.end());
      SettleBackward();
    }
  }
  void SeekForPrev(std::string_view target) override {
    batch_->IndexPending();
    base_->SeekForPrev(target);
    auto it = index_.upper_bound(target);
    pending_ = it == index_.begin() ? index_.end() : std::prev(it);
    SettleBackward();
  }
  void Prev() override { SeekBefore(std::string(key())); }

  std::string_view key() const override {
    return source_ == Source::kPending ? std::string_view(pending_->first) : base_->key();
  }
  std::string_view value() const override {
    return source_ == Source::kPending ? std::string_view(Newest().value) : base_->value();
  }
  storage::RowMeta meta() const override {
    return source_ == Source::kPending ? Newest().meta : base_->meta();
  }
  Status status() const override { return base_->status(); }

 private:
  enum class Source { kNone, kBase, kPending };

  const BatchDB::Version& Newest() const { return pending_->second.back(); }
  bool PendingLive() const {
    const BatchDB::Version& v = pending_->second.back();
    if (include_dead_) return v.kind != RowKind::kWipe;
    return v.kind == RowKind::kValue && !v.meta.ExpiredAt(expiry_now_);
  }
  bool InBounds(std::string_view k) const {
    return (!lower_ || k >= *lower_) && (!upper_ || k < *upper_);
  }

  // Positions at the last key < target.
  void SeekBefore(const std::string& target) {
    batch_->IndexPending();
    base_->SeekForPrev(target);
    if (base_->Valid() && base_->key() == target) base_->Prev();
    auto it = index_.lower_bound(target);
    pending_ = it == index_.begin() ? index_.end() : std::prev(it);
    SettleBackward();
  }

  void SettleForward() { Settle(/*forward=*/true); }
  void SettleBackward() { Settle(/*forward=*/false); }

  // Chooses the nearer of the two cursors in the walk's direction (the smaller key forward, the
  // larger backward), skipping dead pending keys and the engine's version of the same key.
  // Backward, pending_ == end() means none is left.
  void Settle(bool forward) {
    for (;;) {
      const bool p = pending_ != index_.end() && InBounds(pending_->first);
      const bool b = base_->Valid();
      if (!p) {
        source_ = b ? Source::kBase : Source::kNone;
        return;
      }
      if (b && (forward ? base_->key() < pending_->first : base_->key() > pending_->first)) {
        source_ = Source::kBase;
        return;
      }
      if (PendingLive()) {
        source_ = Source::kPending;
        return;
      }
      if (b && base_->key() == pending_->first) {
        if (forward) {
          base_->Next();
        } else {
          base_->Prev();
        }
      }
      if (forward) {
        ++pending_;
      } else {
        pending_ = pending_ == index_.begin() ? index_.end() : std::prev(pending_);
      }
    }
  }

  std::unique_ptr<storage::Iterator> base_;
  BatchDB* batch_;  // indexes the writes made while this iterator lives before each move
  const BatchDB::Index& index_;
  BatchDB::Index::const_iterator pending_;
  std::optional<std::string> lower_;
  std::optional<std::string> upper_;
  int64_t expiry_now_;
  bool include_dead_;
  Source source_ = Source::kNone;
};

// The engine's iterator without the keys of the batch's range deletions: a key inside one is
// skipped by seeking past the range, so a FLUSHALL costs one seek, not one step per key.
class RangeHidingIterator final : public storage::Iterator {
 public:
  RangeHidingIterator(std::unique_ptr<storage::Iterator> base,
                      const std::vector<storage::KeyRange>& ranges)
      : base_(std::move(base)), ranges_(ranges) {}

  bool Valid() const override { return base_->Valid(); }
  void SeekToFirst() override {
    base_->SeekToFirst();
    SkipForward();
  }
  void Seek(std::string_view target) override {
    base_->Seek(target);
    SkipForward();
  }
  void Next() override {
    base_->Next();
    SkipForward();
  }
  void SeekToLast() override {
    base_->SeekToLast();
    SkipBackward();
  }
  void SeekForPrev(std::string_view target) override {
    base_->SeekForPrev(target);
    SkipBackward();
  }
  void Prev() override {
    base_->Prev();
    SkipBackward();
  }
  std::string_view key() const override { return base_->key(); }
  std::string_view value() const override { return base_->value(); }
  storage::RowMeta meta() const override { return base_->meta(); }
  Status status() const override { return base_->status(); }

 private:
  const storage::KeyRange* Covering(std::string_view key) const {
    for (const storage::KeyRange& r : ranges_) {
      if (r.Contains(key)) return &r;
    }
    return nullptr;
  }
  void SkipForward() {
    while (base_->Valid()) {
      const storage::KeyRange* r = Covering(base_->key());
      if (r == nullptr) return;
      base_->Seek(r->end);
    }
  }
  void SkipBackward() {
    while (base_->Valid()) {
      const storage::KeyRange* r = Covering(base_->key());
      if (r == nullptr) return;
      base_->SeekForPrev(r->begin);
      if (base_->Valid() && base_->key() == r->begin) base_->Prev();
    }
  }

  std::unique_ptr<storage::Iterator> base_;
  const std::vector<storage::KeyRange>& ranges_;
};

// The index's nodes of the batches this thread finished (Commit, Discard), kept for the next
// batches' keys: a keyspace makes a BatchDB per batch, and an active-active node a batch per
// write, so a key new to a batch would otherwise cost a node, its key and its versions' vector.
// At most kMaxSpareNodes nodes, each with room for a key of at most kMaxSpareKey bytes and
// kMaxSpareVersions versions (their values are freed), are kept.
constexpr size_t kMaxSpareNodes = 1024;
constexpr size_t kMaxSpareKey = 256;
constexpr size_t kMaxSpareVersions = 8;
std::vector<BatchDB::Index::node_type>& SpareNodes() {
  thread_local std::vector<BatchDB::Index::node_type> spare;
  return spare;
}

// Records a pending version of `key` (a wipe hides the older ones: nothing older is ever read).
void IndexVersion(BatchDB::Index* index, std::string_view key, storage::RowKind kind,
                  const storage::RowMeta& meta, std::string_view value) {
  auto it = index->lower_bound(key);
  if (it == index->end() || it->first != key) {
    std::vector<BatchDB::Index::node_type>& spare = SpareNodes();
    if (spare.empty()) {
      it = index->emplace_hint(it, std::string(key), BatchDB::Index::mapped_type{});
    } else {
      BatchDB::Index::node_type node = std::move(spare.back());
      spare.pop_back();
      node.key().assign(key);
      it = index->insert(it, std::move(node));
    }
  }
  if (kind == storage::RowKind::kWipe) it->second.clear();
  it->second.push_back({kind, meta, std::string(value)});
}

// Indexes one entry of the pending batch.
class Indexer final : public WriteBatch::Handler {
 public:
  Indexer(BatchDB::Index* index, std::vector<storage::KeyRange>* ranges)
      : index_(index), ranges_(ranges) {}
  void Apply(const WriteBatch::Entry& e) override {
    if (e.op != WriteBatch::Op::kDeleteRange) {
      IndexVersion(index_, e.key, WriteBatch::KindOf(e.op), e.meta, e.value);
      return;
    }
    storage::KeyRange range{std::string(e.key), std::string(e.value)};
    // The pending versions in the range are deleted with the engine's.
    for (auto it = index_->lower_bound(range.begin);
         it != index_->end() && range.Contains(it->first);) {
      it = index_->erase(it);
    }
    ranges_->push_back(std::move(range));
  }

 private:
  BatchDB::Index* index_;
  std::vector<storage::KeyRange>* ranges_;
};

}  // namespace

void BatchDB::IndexPending() {
  if (indexed_bytes_ == batch_.EntryBytes()) return;
  Indexer indexer(&index_, &deleted_ranges_);
  // A batch built by WriteBatch's own methods always decodes (write_batch.h).
  Status s = batch_.IterateFrom(indexed_bytes_, &indexer);
  (void)s;
  indexed_bytes_ = batch_.EntryBytes();
}

void BatchDB::KeyChains::Add(uint64_t hash, size_t entry_bytes) {
  if (links_.size() >= heads_.size()) Grow();
  uint32_t& head = heads_[hash & (heads_.size() - 1)];
  links_.push_back(Link{.hash = hash, .entry_bytes = entry_bytes, .next = head});
  head = static_cast<uint32_t>(links_.size());
}

void BatchDB::KeyChains::Grow() {
  heads_.assign(heads_.empty() ? kFirstBuckets : heads_.size() * 2, 0);
  for (size_t i = 0; i < links_.size(); i++) {
    uint32_t& head = heads_[links_[i].hash & (heads_.size() - 1)];
    links_[i].next = head;
    head = static_cast<uint32_t>(i + 1);
  }
}

void BatchDB::KeyChains::Clear() {
  if (heads_.size() > kKeptBuckets) {
    heads_ = {};
    links_ = {};
    return;
  }
  for (const Link& link : links_) heads_[link.hash & (heads_.size() - 1)] = 0;
  links_.clear();
}

void BatchDB::ChainNewEntries() {
  const size_t end = batch_.EntryBytes();
  while (chained_bytes_ < end) {
    WriteBatch::Entry e;
    size_t next = end;
    // A batch built by WriteBatch's own methods always decodes (write_batch.h).
    if (!batch_.EntryAtBytes(chained_bytes_, &e, &next).ok()) {
      chained_bytes_ = end;
      return;
    }
    if (e.op == WriteBatch::Op::kDeleteRange) {
      deletes_ranges_ = true;
    } else {
      chains_.Add(storage::Hash64(e.key.data(), e.key.size()), chained_bytes_);
    }
    chained_bytes_ = next;
  }
}

bool BatchDB::FindPending(std::string_view key, std::vector<FoundVersion>* found,
                          bool* engine_hidden) {
  found->clear();
  read_ = true;
  ChainNewEntries();
  if (deletes_ranges_) {
    IndexPending();
    *engine_hidden = DeletedByRange(key);
    auto it = index_.find(key);
    if (it != index_.end()) {
      for (auto v = it->second.rbegin(); v != it->second.rend(); ++v) {
        found->push_back(FoundVersion{v->kind, v->meta, v->value});
      }
    }
    return *engine_hidden || !found->empty();
  }
  *engine_hidden = false;
  chains_.ForEach(storage::Hash64(key.data(), key.size()), [&](size_t entry_bytes) {
    WriteBatch::Entry e;
    size_t next = 0;
    if (!batch_.EntryAtBytes(entry_bytes, &e, &next).ok() || e.key != key) return true;
    found->push_back(FoundVersion{WriteBatch::KindOf(e.op), e.meta, e.value});
    return e.op != WriteBatch::Op::kWipe;  // a wipe hides the older ones
  });
  return !found->empty();
}

// Put and Delete append their entry, and chain it at once in a batch that has been read (else the
// next read chains it).
Status BatchDB::Put(const storage::WriteOptions& options, std::string_view key,
                    std::string_view value) {
  // The clock only where the row's meta needs it (a relative ttl), as DBImpl::Put does.
  const int64_t now = WriteBatch::PutReadsNow(options) ? base_->clock().NowMs() : 0;
  const bool chain_now = ChainsNow();
  const size_t at = batch_.EntryBytes();
  batch_.Put(options, key, value, now);
  if (chain_now) ChainAtEnd(key, at);
  return Status::OK();
}

Status BatchDB::Delete(const storage::WriteOptions& options, std::string_view key) {
  const bool chain_now = ChainsNow();
  const size_t at = batch_.EntryBytes();
  batch_.Delete(options, key);
  if (chain_now) ChainAtEnd(key, at);
  return Status::OK();
}

bool BatchDB::ChainsNow() const { return read_ && chained_bytes_ == batch_.EntryBytes(); }

void BatchDB::ChainAtEnd(std::string_view key, size_t entry_bytes) {
  chains_.Add(storage::Hash64(key.data(), key.size()), entry_bytes);
  chained_bytes_ = batch_.EntryBytes();
}

Status BatchDB::Write(const storage::WriteOptions&, const WriteBatch& batch) {
  batch_.Append(batch);
  return Status::OK();
}

Status BatchDB::DeleteRange(const std::vector<storage::KeyRange>& ranges) {
  for (const storage::KeyRange& range : ranges) batch_.DeleteRange(range);
  return Status::OK();
}

bool BatchDB::DeletedByRange(std::string_view key) const {
  for (const storage::KeyRange& r : deleted_ranges_) {
    if (r.Contains(key)) return true;
  }
  return false;
}

Status BatchDB::Commit(const storage::WriteOptions& options) {
  Status s = batch_.Empty() ? Status::OK() : base_->Write(options, batch_);
  Discard();
  return s;
}

void BatchDB::Discard() {
  batch_.Clear();
  std::vector<Index::node_type>& spare = SpareNodes();  // see SpareNodes
  while (!index_.empty() && spare.size() < kMaxSpareNodes) {
    Index::node_type node = index_.extract(index_.begin());
    // A long key's memory, or that of many versions of one key, is returned.
    if (node.key().capacity() > kMaxSpareKey || node.mapped().capacity() > kMaxSpareVersions) {
      continue;
    }
    node.mapped().clear();
    spare.push_back(std::move(node));
  }
  index_.clear();
  deleted_ranges_.clear();
  indexed_bytes_ = 0;
  chains_.Clear();
  chained_bytes_ = 0;
  deletes_ranges_ = false;
  read_ = false;
}

Status BatchDB::Get(const storage::ReadOptions& options, std::string_view key, storage::Row* row) {
  // A read with a snapshot goes to the engine (the snapshot predates the batch).
  bool engine_hidden = false;
  if (options.snapshot != nullptr || !FindPending(key, &found_, &engine_hidden)) {
    return base_->Get(options, key, row);
  }
  return GetFound(options, key, engine_hidden, row);
}

Status BatchDB::GetFound(const storage::ReadOptions& options, std::string_view key,
                         bool engine_hidden, storage::Row* row) {
  if (options.dead_version != nullptr) options.dead_version->reset();
  if (found_.empty()) return Status::NotFound();  // a range deletion hides the engine's
  storage::VersionChooser chooser(options.retrieval_grace_ms);
  constexpr uint64_t kPendingSequence = std::numeric_limits<uint64_t>::max();
  bool go_on = true;
  for (auto v = found_.begin(); go_on && v != found_.end(); ++v) {
    go_on = chooser.Offer(v->kind, v->meta, v->value, kPendingSequence);
  }
  if (go_on && !engine_hidden) {
    // The engine's versions, as the one its own read takes.
    std::optional<storage::DeadVersion> dead;
    storage::ReadOptions base_options = options;
    base_options.dead_version = &dead;
    storage::Row base_row;
    Status s = base_->Get(base_options, key, &base_row);
    if (s.ok()) {
      chooser.Offer(RowKind::kValue, base_row.meta, base_row.value, 0);
    } else if (s.IsNotFound()) {
      if (dead) chooser.Offer(dead->kind, dead->meta, dead->value, 0);
    } else {
      return s;
    }
  }
  if (chooser.ChosenIsDead(base_->ExpiryNowMs())) {
    if (options.dead_version != nullptr) {
      *options.dead_version =
          storage::DeadVersion{chooser.kind(), chooser.meta(), chooser.TakeValue()};
    }
    return Status::NotFound();
  }
  row->value = chooser.TakeValue();
  row->meta = chooser.meta();
  return Status::OK();
}

Status BatchDB::GetPinned(const storage::ReadOptions& options, std::string_view key,
                          storage::PinnedRow* row) {
  bool engine_hidden = false;
  if (options.snapshot != nullptr || !FindPending(key, &found_, &engine_hidden)) {
    return base_->GetPinned(options, key, row);
  }
  storage::Row copy;
  const Status s = GetFound(options, key, engine_hidden, &copy);
  if (s.ok()) {
    row->meta = copy.meta;
    row->Own(std::move(copy.value));
  }
  return s;
}

Status BatchDB::GetVersions(const storage::ReadOptions& options, std::string_view key,
                            std::vector<storage::VersionRow>* versions) {
  bool engine_hidden = false;
  if (options.snapshot != nullptr || !FindPending(key, &found_, &engine_hidden)) {
    return base_->GetVersions(options, key, versions);
  }
  std::vector<storage::VersionRow> pending;
  for (const FoundVersion& v : found_) {
    if (v.kind == RowKind::kWipe) {
      *versions = std::move(pending);
      return Status::OK();
    }
    pending.push_back(storage::VersionRow{v.kind, v.meta, std::string(v.value)});
  }
  if (engine_hidden) {
    *versions = std::move(pending);
    return Status::OK();
  }
  Status s = base_->GetVersions(options, key, versions);
  if (!s.ok()) return s;
  versions->insert(versions->begin(), std::make_move_iterator(pending.begin()),
                   std::make_move_iterator(pending.end()));
  return Status::OK();
}

std::unique_ptr<storage::Iterator> BatchDB::NewIterator(const storage::ReadOptions& options) {
  std::unique_ptr<storage::Iterator> base = base_->NewIterator(options);
  if (options.snapshot != nullptr) return base;
  IndexPending();
  if (!deleted_ranges_.empty()) {
    base = std::make_unique<RangeHidingIterator>(std::move(base), deleted_ranges_);
  }
  if (index_.empty()) return base;
  return std::make_unique<MergedIterator>(std::move(base), this, options.lower_bound,
                                          options.upper_bound, base_->ExpiryNowMs(),
                                          options.include_dead && options.retrieval_grace_ms <= 0);
}

}  // namespace ebb::types
