// DBImpl's reads: the published read state, Get and GetVersions, iterators (with the spare tree
// they recycle) and snapshots (db_impl.h).
#include <algorithm>

#include "storage/db/db_impl.h"
#include "storage/db/db_iter.h"
#include "storage/db/level_iterator.h"
#include "storage/db/merging_iterator.h"
#include "storage/db/table_cache.h"
#include "storage/db/version_chooser.h"
#include "storage/format/internal_key.h"
#include "storage/table/block_fetch.h"

namespace ebb::storage {
namespace {

class SnapshotImpl final : public Snapshot {
 public:
  explicit SnapshotImpl(uint64_t sequence) : sequence_(sequence) {}
  ~SnapshotImpl() override = default;
  uint64_t sequence() const override { return sequence_; }

 private:
  const uint64_t sequence_;
};

}  // namespace

std::shared_ptr<const DBImpl::ReadState> DBImpl::GetReadState(const Snapshot* snapshot,
                                                              uint64_t* sequence,
                                                              std::optional<int64_t>* expiry_now) {
  if (const View* view = AsView(snapshot)) {
    *sequence = view->sequence();
    *expiry_now = view->expiry_now_ms;
    return view->state;
  }
  uint64_t epoch;
  return LoadPublishedState(snapshot, sequence, &epoch);
}

std::shared_ptr<const DBImpl::ReadState> DBImpl::LoadPublishedState(const Snapshot* snapshot,
                                                                    uint64_t* sequence,
                                                                    uint64_t* epoch) {
  // No mutex (db_impl.h, "Locking"). A publication stores the state, then bumps the epoch, before
  // any write into its memtable publishes its sequence: a sequence loaded after a publication
  // meets the epoch it bumped, and the loads are taken again.
  for (;;) {
    *epoch = read_state_epoch_.load(std::memory_order_acquire);
    std::shared_ptr<const ReadState> state = read_state_.Load();
    *sequence =
        snapshot != nullptr ? snapshot->sequence() : read_sequence_.load(std::memory_order_acquire);
    if (read_state_epoch_.load(std::memory_order_acquire) == *epoch) return state;
  }
}

ReadStateHold DBImpl::HoldReadState() {
  uint64_t sequence;
  uint64_t epoch;
  std::shared_ptr<const ReadState> state = LoadPublishedState(nullptr, &sequence, &epoch);
  return ReadStateHold{this, epoch, std::move(state)};
}

const DBImpl::ReadState* DBImpl::PointReadState(const ReadOptions& options, uint64_t* sequence,
                                                std::optional<int64_t>* expiry_now,
                                                std::shared_ptr<const ReadState>* owned) {
  const ReadStateHold* held = options.held_state;
  if (held != nullptr && held->owner == this && options.snapshot == nullptr) {
    // LoadPublishedState's loop with the held state for the slot's: while no publication fell since
    // the hold was taken, the slot holds that state (or one published after it, whose epoch
    // bump is still to come and whose sequence is not published yet).
    const uint64_t epoch = read_state_epoch_.load(std::memory_order_acquire);
    if (epoch == held->epoch) {
      *sequence = read_sequence_.load(std::memory_order_acquire);
      if (read_state_epoch_.load(std::memory_order_acquire) == epoch) {
        return static_cast<const ReadState*>(held->state.get());
      }
    }
  }
  *owned = GetReadState(options.snapshot, sequence, expiry_now);
  return owned->get();
}

void DBImpl::PublishReadState() {
  auto state = std::make_shared<ReadState>();
  state->mem = mem_;
  for (auto it = imms_.rbegin(); it != imms_.rend(); ++it) state->imms.push_back(it->mem);
  state->version = versions_.current();
  read_state_.Store(std::move(state));
  read_state_epoch_.fetch_add(1, std::memory_order_release);
  PublishSequence();
  spare_iterator_.reset();
}

Status DBImpl::ChooseVersion(const ReadOptions& options, std::string_view key,
                             VersionChooser* chooser_out, std::shared_ptr<const ReadState>* pin) {
  uint64_t sequence;
  std::optional<int64_t> view_expiry_now;
  const ReadState& state = *PointReadState(options, &sequence, &view_expiry_now, pin);
  VersionChooser& chooser = *chooser_out;
  chooser.set_floor_sequence(state.version->DeletionFloor(key, sequence));
  // The lookup key, built when a table file is reached: on the stack unless the key is long (a
  // GET of a key on disk builds it in each of its runs; a string cost an allocation each time).
  char lookup_buf[64];
  std::string lookup_long;
  std::string_view lookup;
  Status status;
  // Memtables: the key's own version chain, found through the hash index (no iterator needed).
  // Their rows stay where they are while *pin holds the memtables: the chooser keeps a view.
  auto walk_memtable = [&](const MemTable& mem) {
    for (auto c = mem.FindVersions(key, sequence); c.Valid(); c.Next()) {
      RowMeta meta;
      std::string_view value;
      if (!DecodeRow(c.encoded_row(), &meta, &value)) {
        status = Status::Corruption("get: malformed memtable row");
        return false;
      }
      if (!chooser.OfferPinned(c.kind(), meta, value, c.sequence())) return false;
    }
    return true;
  };
  bool go_on = walk_memtable(*state.mem);
  for (size_t i = 0; go_on && i < state.imms.size(); i++) go_on = walk_memtable(*state.imms[i]);
  // Table files: TableCache::Get offers the key's versions, newest first (no iterators).
  auto offer_entry = [&](std::string_view internal_key, std::string_view encoded_row) {
    ParsedInternalKey ikey;
    RowMeta meta;
    std::string_view value;
    if (!ParseInternalKey(internal_key, &ikey) || !DecodeRow(encoded_row, &meta, &value)) {
      status = Status::Corruption("get: malformed internal entry");
      return go_on = false;
    }
    return go_on = chooser.Offer(ikey.kind, meta, value, ikey.sequence);
  };
  for (int level = 0; go_on && level < kNumLevels; level++) {
    const auto& files = state.version->files[level];
    // Levels >= 1 have sorted, disjoint user-key ranges: start at the first file not below key.
    auto f = files.begin() + static_cast<ptrdiff_t>(level > 0 ? FindFile(files, key) : 0);
    for (; go_on && f != files.end(); ++f) {
      if (CompareUserKeys(key, ExtractUserKey((*f)->smallest)) < 0) {
        if (level > 0) break;  // every later file starts beyond key too
        continue;
      }
      if (CompareUserKeys(key, ExtractUserKey((*f)->largest)) > 0) continue;
      if (lookup.empty()) {
        if (key.size() + kInternalKeyTrailer <= sizeof(lookup_buf)) {
          lookup = EncodeLookupKey(lookup_buf, key, sequence);
        } else {
          lookup = lookup_long = LookupKey(key, sequence);
        }
      }
      Status s =
          table_cache_->Get(**f, lookup, options.fill_cache, offer_entry, options.block_fetch);
      if (!s.ok()) return s;
    }
  }
  if (!status.ok()) return status;
  if (options.dead_version != nullptr) options.dead_version->reset();
  // The clock is read only for a version that can expire: a clock read costs ~3% of a cached
  // point read's CPU in a VM.
  const bool expiring = chooser.has_choice() && chooser.meta().expire_at_ms.has_value();
  const int64_t expiry_now = !expiring ? 0 : view_expiry_now ? *view_expiry_now : ExpiryNow();
  if (!chooser.has_choice()) return Status::NotFound();
  if (chooser.ChosenIsDead(expiry_now)) {
    if (options.dead_version != nullptr) {
      *options.dead_version = DeadVersion{chooser.kind(), chooser.meta(), chooser.TakeValue()};
    }
    return Status::NotFound();
  }
  return Status::OK();
}

Status DBImpl::Get(const ReadOptions& options, std::string_view key, Row* row) {
  VersionChooser chooser(options.retrieval_grace_ms);
  std::shared_ptr<const ReadState> state;
  Status s = ChooseVersion(options, key, &chooser, &state);
  if (!s.ok()) return s;
  row->value = chooser.TakeValue();
  row->meta = chooser.meta();
  return s;
}

Status DBImpl::GetPinned(const ReadOptions& options, std::string_view key, PinnedRow* row) {
  VersionChooser chooser(options.retrieval_grace_ms);
  std::shared_ptr<const ReadState> state;
  Status s = ChooseVersion(options, key, &chooser, &state);
  if (!s.ok()) return s;
  row->meta = chooser.meta();
  if (chooser.value_pinned()) {
    row->Pin(chooser.value(), std::move(state));
  } else {
    row->Own(chooser.TakeValue());
  }
  return s;
}

namespace {
// The key index size from which Prefetch pays. Below it the memtable's keys (their index slots,
// nodes and newest versions, about 200 bytes a key of 16 bytes) stay in a core's cache between
// lookups and a hint is pure cost (about 230 instructions per GET, its key gathering included);
// above it the lookups miss and the hint's overlapped misses win. Measured on this project's
// two-core machine (docs/performance.md, "hints that pay"): GET at P=16 with and without hints
// tied over 2,000 keys, and the hints won from 3,000 keys on (1.0 against 1.1 µs of CPU at
// 4,000, 1.05 against 1.22 at 64,000). The index has at least twice as many slots as keys, so
// 8,192 slots is 2,049 to 4,096 keys.
constexpr size_t kPrefetchFromIndexSlots = 8192;
}  // namespace

void DBImpl::NotePrefetchPays() {
  prefetch_pays_.store(mem_->index_slots() >= kPrefetchFromIndexSlots, std::memory_order_relaxed);
}

void DBImpl::Prefetch(std::span<const std::string_view> keys) {
  // The mutable memtable only: every write's lookup is there, and so is every key written
  // lately. Reads that go on to the immutable memtables and the tables go there unhinted.
  read_state_.Load()->mem->Prefetch(keys);
}

// The walk of Get, collecting instead of choosing. (Get keeps its own loop: the hot read path,
// whose inlining a shared template with callbacks made measurably worse.)
Status DBImpl::GetVersions(const ReadOptions& options, std::string_view key,
                           std::vector<VersionRow>* versions) {
  versions->clear();
  uint64_t sequence;
  std::optional<int64_t> view_expiry_now;
  const std::shared_ptr<const ReadState> read_state =
      GetReadState(options.snapshot, &sequence, &view_expiry_now);
  const ReadState& state = *read_state;
  const uint64_t floor = state.version->DeletionFloor(key, sequence);
  Status status;
  // Takes one version; false at the first the walk must not pass.
  auto collect = [&](RowKind kind, std::string_view encoded_row, uint64_t seq) {
    RowMeta meta;
    std::string_view value;
    if (!DecodeRow(encoded_row, &meta, &value)) {
      status = Status::Corruption("get versions: malformed row");
      return false;
    }
    if (kind == RowKind::kWipe || seq < floor) return false;
    versions->push_back(VersionRow{kind, meta, std::string(value)});
    return true;
  };
  bool go_on = true;
  auto walk_memtable = [&](const MemTable& mem) {
    for (auto c = mem.FindVersions(key, sequence); go_on && c.Valid(); c.Next()) {
      go_on = collect(c.kind(), c.encoded_row(), c.sequence());
    }
  };
  walk_memtable(*state.mem);
  for (size_t i = 0; go_on && i < state.imms.size(); i++) walk_memtable(*state.imms[i]);
  const std::string lookup = LookupKey(key, sequence);
  auto offer_entry = [&](std::string_view internal_key, std::string_view encoded_row) {
    ParsedInternalKey ikey;
    if (!ParseInternalKey(internal_key, &ikey)) {
      status = Status::Corruption("get versions: malformed internal key");
      return go_on = false;
    }
    return go_on = collect(ikey.kind, encoded_row, ikey.sequence);
  };
  for (int level = 0; go_on && level < kNumLevels; level++) {
    const auto& files = state.version->files[level];
    auto f = files.begin() + static_cast<ptrdiff_t>(level > 0 ? FindFile(files, key) : 0);
    for (; go_on && f != files.end(); ++f) {
      if (CompareUserKeys(key, ExtractUserKey((*f)->smallest)) < 0) {
        if (level > 0) break;
        continue;
      }
      if (CompareUserKeys(key, ExtractUserKey((*f)->largest)) > 0) continue;
      Status s =
          table_cache_->Get(**f, lookup, options.fill_cache, offer_entry, options.block_fetch);
      if (!s.ok()) return s;
    }
  }
  return status;
}

std::unique_ptr<Iterator> DBImpl::NewIterator(const ReadOptions& options) {
  std::unique_ptr<DBIterTree> tree;
  DBIterParams params;
  std::shared_ptr<const ReadState> state;
  std::optional<int64_t> view_expiry_now;
  const View* view = AsView(options.snapshot);
  {
    std::lock_guard lock(mu_);
    params.sequence = ReadSequence(options.snapshot);
    // A spare tree is dropped whenever a new read state is published: if there is one, it
    // reads read_state_.
    if (view != nullptr) {
      state = view->state;
      view_expiry_now = view->expiry_now_ms;
      stats_.iterator_trees_built++;
    } else if (spare_iterator_ != nullptr && spare_iterator_->fill_cache == options.fill_cache) {
      tree = std::move(spare_iterator_);
      stats_.iterator_trees_reused++;
    } else {
      state = read_state_.Load();
      stats_.iterator_trees_built++;
    }
  }
  if (tree == nullptr) tree = NewIterTree(std::move(state), options.fill_cache);
  tree->lower_bound = options.lower_bound;
  tree->upper_bound = options.upper_bound;
  tree->block_fetch = options.block_fetch;
  params.expiry_now_ms = view_expiry_now ? *view_expiry_now : ExpiryNow();
  params.retrieval_grace_ms = options.retrieval_grace_ms;
  params.include_dead = options.include_dead;
  const auto& deletions = static_cast<const ReadState*>(tree->source)->version->range_deletions;
  if (!deletions.empty()) params.range_deletions = &deletions;
  // A view's tree reads a pinned state that is not read_state_: it is never recycled.
  return NewDBIterator(std::move(tree), params, view != nullptr ? nullptr : this);
}

std::unique_ptr<DBIterTree> DBImpl::NewIterTree(std::shared_ptr<const ReadState> state,
                                                bool fill_cache) {
  auto tree = std::make_unique<DBIterTree>();
  tree->fill_cache = fill_cache;
  tree->source = state.get();
  std::vector<std::unique_ptr<InternalIterator>> children;
  children.push_back(MemTable::NewIterator(state->mem));
  for (const auto& imm : state->imms) children.push_back(MemTable::NewIterator(imm));
  // L0 files may overlap: one child each. Deeper levels are sorted runs: one child per level.
  // Level iterators open a file only when a position reaches it, and skip files outside the
  // bounds of whichever iterator uses the tree.
  const Version& version = *state->version;
  for (const auto& file : version.files[0]) {
    children.push_back(NewLevelIterator(table_cache_.get(), FileList{file}, fill_cache,
                                        &tree->lower_bound, &tree->upper_bound,
                                        &tree->block_fetch));
  }
  for (int level = 1; level < kNumLevels; level++) {
    if (version.files[level].empty()) continue;
    children.push_back(NewLevelIterator(table_cache_.get(), version.files[level], fill_cache,
                                        &tree->lower_bound, &tree->upper_bound,
                                        &tree->block_fetch));
  }
  tree->pins.push_back(std::move(state));
  tree->internal = NewMergingIterator(std::move(children));
  return tree;
}

void DBImpl::Recycle(std::unique_ptr<DBIterTree> tree) {
  std::unique_ptr<DBIterTree> replaced;  // destroyed after the lock is released
  std::lock_guard lock(mu_);
  if (shutting_down_ || tree->source != read_state_.Load().get()) {
    replaced = std::move(tree);
    return;
  }
  replaced = std::move(spare_iterator_);
  spare_iterator_ = std::move(tree);
}

const Snapshot* DBImpl::GetSnapshot() {
  std::lock_guard lock(mu_);
  snapshots_.insert(versions_.last_sequence());
  return new SnapshotImpl(versions_.last_sequence());
}

void DBImpl::ReleaseSnapshot(const Snapshot* snapshot) {
  if (snapshot == nullptr) return;
  {
    std::lock_guard lock(mu_);
    auto it = snapshots_.find(snapshot->sequence());
    if (it != snapshots_.end()) snapshots_.erase(it);
  }
  delete static_cast<const SnapshotImpl*>(snapshot);
}

}  // namespace ebb::storage
