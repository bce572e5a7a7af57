#include "storage/db/memtable.h"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstring>
#include <functional>
#include <new>
#include <string>
#include <utility>

#include "storage/util/coding.h"
#include "storage/util/hash.h"

namespace ebb::storage {

// One version: links to its neighbours in the key's chain, then `row_len` bytes of encoded row
// stored right after the struct.
struct MemTable::Version {
  std::atomic<Version*> older{nullptr};  // next in iteration order
  std::atomic<Version*> newer{nullptr};
  uint64_t trailer = 0;  // sequence << 8 | kind, as in the internal key: greater sorts first
  uint32_t row_len = 0;

  std::string_view row() const { return {reinterpret_cast<const char*>(this + 1), row_len}; }
};

// One key's versions, newest first. `newest` and `oldest` are never null once its node is in
// the skiplist.
struct MemTable::Chain {
  std::atomic<Version*> newest{nullptr};
  std::atomic<Version*> oldest{nullptr};
  // The flush shortcut, written by Add only (read once the memtable is frozen): while every
  // version came newest-first with a timestamp >= the previous newest's, the older version
  // ReduceForFlush keeps and its timestamp; nullptr while the key has one version;
  // OutOfOrder() once a version broke the order.
  const Version* flush_least = nullptr;
  int64_t flush_least_ts = 0;
  // The timestamp of `newest` (0 for none), kept while the shortcut is: a write compares its
  // own with it without decoding the previous row.
  int64_t newest_ts = 0;

  // True when the flush may show only `newest` and `flush_least`.
  bool HasFlushShortcut() const;
  // The flush shortcut's mark for a key whose versions did not all come in timestamp order.
  static const Version* OutOfOrder();
};

// One distinct user key, the skiplist's entry: this header, the `key_len` key bytes, then
// (pointer-aligned) the key's Chain. Header and key come first: a skiplist search step and a
// key index probe read only those, right after the node's level-0 pointer.
struct MemTable::KeyNode {
  uint32_t key_len = 0;
  uint32_t hash32 = 0;  // the top half of the key's hash, its home in the key index

  std::string_view user_key() const { return {reinterpret_cast<const char*>(this + 1), key_len}; }
  const Chain& chain() const {
    return *reinterpret_cast<const Chain*>(reinterpret_cast<const char*>(this + 1) +
                                           AlignedKeyBytes(key_len));
  }
  Chain& chain() { return const_cast<Chain&>(std::as_const(*this).chain()); }
  // The entry size of a key of `key_len` bytes: header, key, padding, chain.
  static size_t BytesFor(size_t key_len) {
    return sizeof(KeyNode) + AlignedKeyBytes(key_len) + sizeof(Chain);
  }

 private:
  static size_t AlignedKeyBytes(size_t key_len) { return (key_len + 7) & ~size_t{7}; }
};

// One seek prefix: its bytes (inside its first key) and the smallest key having it; from its
// second key, where its keys begin in the skiplist, for the inserts of the next ones (Add only).
struct MemTable::PrefixNode {
  PrefixNode* next = nullptr;  // the bucket chain; set before the node is published
  std::string_view prefix;
  uint32_t hash32 = 0;
  std::atomic<const KeyNode*> smallest{nullptr};
  Table::RangeStart* range = nullptr;
};

namespace {

// The slot of MemTable::EstimateKeys's counts for `user_key`: its first two bytes.
size_t KeyCountSlot(std::string_view user_key) {
  const auto byte = [&](size_t i) {
    return i < user_key.size() ? static_cast<unsigned char>(user_key[i]) : 0u;
  };
  return (byte(0) << 8) | byte(1);
}

void LowerTo(std::atomic<int64_t>* min, int64_t v) {
  if (v < min->load(std::memory_order_relaxed)) min->store(v, std::memory_order_relaxed);
}

}  // namespace

const MemTable::Version* MemTable::Chain::OutOfOrder() {
  static const Version mark;
  return &mark;
}

bool MemTable::Chain::HasFlushShortcut() const {
  return flush_least != nullptr && flush_least != OutOfOrder();
}

int MemTable::KeyNodeComparator::operator()(const KeyNode* a, const KeyNode* b) const {
  return CompareUserKeys(a->user_key(), b->user_key());
}

int MemTable::KeyNodeComparator::operator()(const KeyNode* a, std::string_view user_key) const {
  return CompareUserKeys(a->user_key(), user_key);
}

namespace {

uint64_t HashKey(std::string_view key) { return Hash64(key.data(), key.size()); }

// A key index slot: 0, or a KeyNode pointer (48 bits) under 16 bits of its key's hash.
constexpr int kTagShift = 48;
constexpr uint64_t kPointerMask = (uint64_t{1} << kTagShift) - 1;
static_assert(sizeof(void*) == 8, "the key index keeps a tag in a pointer's top 16 bits");

// The tag of `hash` in its slot: its low 16 bits, apart from the top half that picks the home.
uint64_t TagOf(uint64_t hash) { return hash << kTagShift; }

constexpr size_t kFirstIndexSlots = 16;
// Prefetch's stages take this many keys at a time: enough for a pipeline's misses to overlap,
// few enough for its hashes and nodes to stay on the stack.
constexpr size_t kPrefetchKeys = 16;
// Slots of the array being grown from that each new key's Add copies into the new one: one
// cache line of them. A growth is complete after old slots / 8 new keys, long before the new
// array is half full (another old slots / 2 new keys).
constexpr size_t kMigrateSlots = 8;

// Arrays from this size are anonymous mappings: the kernel zeroes their pages on first touch,
// so a growth costs its Add no pass over the new array. Smaller ones are calloc'd. Not marked
// for huge pages: the first write to each would fault in 2 MiB inside one Add, and on a
// fragmented machine the kernel compacts memory for it first (milliseconds, as long as the
// whole copy a growth avoids); a 4 KiB page faults in within microseconds.
constexpr size_t kMapBytes = 64 << 10;

// `bytes` of zeroed memory for an index array (a power of two); release with FreeZeroed.
// Throws std::bad_alloc.
void* AllocateZeroed(size_t bytes) {
  void* p = nullptr;
  if (bytes < kMapBytes) {
    p = std::calloc(1, bytes);
  } else {
    p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) p = nullptr;
  }
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void FreeZeroed(void* p, size_t bytes) {
  if (bytes < kMapBytes) {
    std::free(p);
  } else {
    munmap(p, bytes);
  }
}

}  // namespace

// One array of the key index: its geometry, the array it is still being filled from, then its
// slots (a block of their own).
struct MemTable::IndexArray {
  const size_t mask;  // the slot count (a power of two) less one
  const int shift;    // 32 - log2(slot count): a key's home is its hash32 shifted right by it
  // While this array grows from the previous one: that array, whose keys are not all copied
  // here yet; nullptr once they are (release), never set again.
  std::atomic<const IndexArray*> from;
  // Zeroed memory holds the slots as plain integers, read and written through std::atomic_ref.
  uint64_t* const slots;

  // An empty array of `num_slots` (a power of two, at most 2^32) slots, growing from `from`.
  IndexArray(size_t num_slots, const IndexArray* from);
  ~IndexArray() { FreeZeroed(slots, bytes()); }
  IndexArray(const IndexArray&) = delete;
  IndexArray& operator=(const IndexArray&) = delete;

  size_t bytes() const { return (mask + 1) * sizeof(uint64_t); }
  uint64_t Load(size_t i, std::memory_order order) const {
    return std::atomic_ref<uint64_t>(slots[i]).load(order);
  }
  size_t Home(uint32_t hash32) const { return hash32 >> shift; }
  static const KeyNode* NodeOf(uint64_t slot) {
    return reinterpret_cast<const KeyNode*>(slot & kPointerMask);
  }
  // The first node `accept` takes among the slots from the home of `hash` on whose tag is the
  // hash's, up to the first empty slot; nullptr if none. The one probe of the key index.
  template <typename Accept>
  const KeyNode* FirstTaggedWhere(uint64_t hash, Accept accept) const {
    const uint64_t tag = TagOf(hash);
    for (size_t i = Home(static_cast<uint32_t>(hash >> 32));; i = (i + 1) & mask) {
      const uint64_t slot = Load(i, std::memory_order_acquire);
      if (slot == 0) return nullptr;
      if ((slot & ~kPointerMask) == tag && accept(NodeOf(slot))) return NodeOf(slot);
    }
  }
  // The node of `user_key` (whose hash is `hash`) among this array's slots, or nullptr.
  const KeyNode* Find(std::string_view user_key, uint64_t hash) const {
    return FirstTaggedWhere(hash,
                            [&](const KeyNode* node) { return node->user_key() == user_key; });
  }
  // The first node whose tag is the hash's, without reading a node: most likely the node of the
  // key with that hash, if the array holds it. nullptr if none.
  const KeyNode* FirstTagged(uint64_t hash) const {
    return FirstTaggedWhere(hash, [](const KeyNode*) { return true; });
  }
  // Writes `slot` (a node's, with its tag) at the first free slot from its home, with release.
  // The caller keeps at least one slot free.
  void Place(uint64_t slot, uint32_t hash32);
};

MemTable::IndexArray::IndexArray(size_t num_slots, const IndexArray* from)
    : mask(num_slots - 1),
      shift(32 - std::countr_zero(num_slots)),
      from(from),
      slots(static_cast<uint64_t*>(AllocateZeroed(num_slots * sizeof(uint64_t)))) {
  static_assert(std::atomic_ref<uint64_t>::is_always_lock_free &&
                    std::atomic_ref<uint64_t>::required_alignment <= alignof(std::max_align_t),
                "a slot is read and written in place, lock-free");
}

void MemTable::IndexArray::Place(uint64_t slot, uint32_t hash32) {
  size_t i = Home(hash32);
  while (Load(i, std::memory_order_relaxed) != 0) i = (i + 1) & mask;
  std::atomic_ref<uint64_t>(slots[i]).store(slot, std::memory_order_release);
}

// A distinct key costs at least ~100 bytes of arena, so one prefix bucket per 512 bytes keeps
// chains short in a full memtable even when every key has its own prefix.
MemTable::MemTable(size_t memtable_bytes, SeekPrefixLength prefix_length,
                   std::shared_ptr<HugeBlockPool> blocks,
                   std::vector<std::string> unindexed_prefixes)
    : arena_(std::move(blocks)),
      table_(KeyNodeComparator(), &arena_),
      prefix_length_(prefix_length),
      unindexed_prefixes_(std::move(unindexed_prefixes)) {
  index_arrays_.push_back(std::make_unique<IndexArray>(kFirstIndexSlots, nullptr));
  index_bytes_.store(index_arrays_.back()->bytes(), std::memory_order_relaxed);
  index_.store(index_arrays_.back().get(), std::memory_order_release);
  if (prefix_length_ != nullptr) {
    num_prefix_buckets_ = std::max<size_t>(64, std::bit_ceil(memtable_bytes / 512));
    prefix_buckets_.reset(new std::atomic<PrefixNode*>[num_prefix_buckets_]());
  }
}

MemTable::~MemTable() = default;

size_t MemTable::index_slots() const { return index_.load(std::memory_order_acquire)->mask + 1; }

MemTable::PrefixNode* MemTable::FindPrefixNode(std::string_view prefix, uint64_t hash) const {
  PrefixNode* p = prefix_buckets_[hash % num_prefix_buckets_].load(std::memory_order_acquire);
  for (; p != nullptr; p = p->next) {
    if (p->hash32 == static_cast<uint32_t>(hash) && p->prefix == prefix) return p;
  }
  return nullptr;
}

const MemTable::KeyNode* MemTable::SmallestWithPrefix(std::string_view user_key) const {
  if (prefix_length_ == nullptr || prefix_length_(user_key) != user_key.size()) return nullptr;
  const PrefixNode* p = FindPrefixNode(user_key, HashKey(user_key));
  return p == nullptr ? nullptr : p->smallest.load(std::memory_order_acquire);
}

// A key of a prefix the memtable holds goes in from where that prefix's keys begin; the first
// key of a prefix (or a key without one) is searched for from the top, and indexes its prefix.
void MemTable::InsertKeyNode(KeyNode* node, int height) {
  const std::string_view key = node->user_key();
  const size_t length = prefix_length_ == nullptr ? 0 : prefix_length_(key);
  if (length == 0 || length > key.size()) {
    table_.Insert(node, height);
    return;
  }
  const std::string_view prefix = key.substr(0, length);
  const uint64_t hash = HashKey(prefix);
  PrefixNode* p = FindPrefixNode(prefix, hash);
  if (p == nullptr) {
    table_.Insert(node, height);
    IndexPrefix(node, prefix, hash);
    return;
  }
  if (p->range == nullptr) {
    p->range = new (arena_.Allocate(sizeof(Table::RangeStart))) Table::RangeStart();
  }
  const std::string_view indexed = p->prefix;
  table_.Insert(node, height, p->range,
                [indexed](const KeyNode* n) { return n->user_key().starts_with(indexed); });
  if (CompareUserKeys(key, p->smallest.load(std::memory_order_relaxed)->user_key()) < 0) {
    p->smallest.store(node, std::memory_order_release);
  }
}

// Called for the first key of `prefix` (whose hash is `hash`) once it is in the skiplist.
void MemTable::IndexPrefix(const KeyNode* node, std::string_view prefix, uint64_t hash) {
  std::atomic<PrefixNode*>& bucket = prefix_buckets_[hash % num_prefix_buckets_];
  auto* p = new (arena_.Allocate(sizeof(PrefixNode))) PrefixNode();
  p->prefix = prefix;
  p->hash32 = static_cast<uint32_t>(hash);
  p->smallest.store(node, std::memory_order_relaxed);
  p->next = bucket.load(std::memory_order_relaxed);
  bucket.store(p, std::memory_order_release);
}

// `from` is loaded before `array` is probed: when it is null, every copy into `array` happened
// before (its release store), so `array` alone holds every key added before `array` was loaded.
const MemTable::KeyNode* MemTable::FindKeyNode(std::string_view user_key, uint64_t hash) const {
  const IndexArray* array = index_.load(std::memory_order_acquire);
  const IndexArray* from = array->from.load(std::memory_order_acquire);
  if (const KeyNode* node = array->Find(user_key, hash)) return node;
  return from == nullptr ? nullptr : from->Find(user_key, hash);
}

void MemTable::IndexKey(const KeyNode* node, uint64_t hash) {
  const auto address = reinterpret_cast<uintptr_t>(node);
  assert((address & ~kPointerMask) == 0);
  IndexArray* array = index_.load(std::memory_order_relaxed);
  if (++num_keys_ > (array->mask + 1) / 2) array = GrowIndex(array);
  array->Place(address | TagOf(hash), node->hash32);
  if (array->from.load(std::memory_order_relaxed) != nullptr) MigrateIndex(array, kMigrateSlots);
}

MemTable::IndexArray* MemTable::GrowIndex(IndexArray* full) {
  // `full` (N slots) was made when the keys passed N/4 and grows when they pass N/2: N/4 new
  // keys, each copying kMigrateSlots of the N/2 old slots, so its copy ended long before.
  static_assert(kMigrateSlots >= 2);
  assert(full->from.load(std::memory_order_relaxed) == nullptr);
  auto owned = std::make_unique<IndexArray>(2 * (full->mask + 1), full);
  IndexArray* grown = owned.get();
  index_arrays_.push_back(std::move(owned));
  index_bytes_.fetch_add(grown->bytes(), std::memory_order_relaxed);
  migrated_ = 0;
  index_.store(grown, std::memory_order_release);
  return grown;
}

// The old slots are copied in order; the nodes they point at (for their hash32) are anywhere in
// the arena, so each step prefetches the nodes the next step will read.
void MemTable::MigrateIndex(IndexArray* to, size_t count) {
  const IndexArray* from = to->from.load(std::memory_order_relaxed);
  const size_t old_slots = from->mask + 1;
  const size_t end = std::min(old_slots, migrated_ + count);
  for (size_t i = end; i < std::min(old_slots, end + count); i++) {
    __builtin_prefetch(IndexArray::NodeOf(from->Load(i, std::memory_order_relaxed)));
  }
  for (; migrated_ < end; migrated_++) {
    const uint64_t slot = from->Load(migrated_, std::memory_order_relaxed);
    if (slot != 0) to->Place(slot, IndexArray::NodeOf(slot)->hash32);
  }
  if (migrated_ == old_slots) to->from.store(nullptr, std::memory_order_release);
}

MemTable::Version* MemTable::NewVersion(uint64_t trailer, std::string_view encoded_row) {
  char* mem = arena_.Allocate(sizeof(Version) + encoded_row.size());
  auto* version = new (mem) Version();
  version->trailer = trailer;
  version->row_len = static_cast<uint32_t>(encoded_row.size());
  if (!encoded_row.empty()) {
    std::memcpy(mem + sizeof(Version), encoded_row.data(), encoded_row.size());
  }
  return version;
}

MemTable::KeyNode* MemTable::NewKeyNode(char* mem, std::string_view user_key, uint64_t hash,
                                        Version* first) {
  auto* node = new (mem) KeyNode();
  node->key_len = static_cast<uint32_t>(user_key.size());
  node->hash32 = static_cast<uint32_t>(hash >> 32);
  if (!user_key.empty()) std::memcpy(mem + sizeof(KeyNode), user_key.data(), user_key.size());
  Chain* chain = new (&node->chain()) Chain();
  chain->newest.store(first, std::memory_order_relaxed);
  chain->oldest.store(first, std::memory_order_relaxed);
  return node;
}

// Links `version` into the chain at its place. Writes arrive in sequence order, so this is
// almost always the head; WAL replay of older batches walks to the right spot. Each pointer is
// fully set before a release store makes the version reachable, so readers see whole versions.
MemTable::Version* MemTable::LinkVersion(Chain* chain, Version* version) {
  Version* newer = nullptr;  // the last version that sorts before `version`
  Version* older = chain->newest.load(std::memory_order_relaxed);
  while (older != nullptr && older->trailer > version->trailer) {
    newer = older;
    older = older->older.load(std::memory_order_relaxed);
  }
  version->older.store(older, std::memory_order_relaxed);
  version->newer.store(newer, std::memory_order_relaxed);
  if (older != nullptr) {
    older->newer.store(version, std::memory_order_release);
  } else {
    chain->oldest.store(version, std::memory_order_release);
  }
  if (newer != nullptr) {
    newer->older.store(version, std::memory_order_release);
    return nullptr;
  }
  chain->newest.store(version, std::memory_order_release);
  return older;
}

// ReduceForFlush, over a chain in timestamp order, keeps the newest version and the newest of
// the oldest versions sharing the least timestamp. When `version` becomes the newest, the
// previous newest joins the older versions: it is that one exactly when its timestamp equals
// the least (the chain is ordered, so it is never below it).
void MemTable::TrackFlushShortcut(Chain* chain, const Version* previous_newest,
                                  const Version* version, std::optional<int64_t> version_ts) {
  if (chain->flush_least == Chain::OutOfOrder()) return;
  // A wipe hides what came before it: the flush must see it among the key's versions.
  constexpr uint8_t kWipe = static_cast<uint8_t>(RowKind::kWipe);
  if ((version->trailer & 0xff) == kWipe ||
      (previous_newest != nullptr && (previous_newest->trailer & 0xff) == kWipe)) {
    chain->flush_least = Chain::OutOfOrder();
    return;
  }
  // Until the shortcut is lost every version came newest-first and decoded (a key's first
  // version decodes, or its node starts out of order): newest_ts is previous_newest's.
  const int64_t previous_ts = chain->newest_ts;
  if (previous_newest == nullptr || !version_ts || *version_ts < previous_ts) {
    chain->flush_least = Chain::OutOfOrder();
    return;
  }
  if (chain->flush_least == nullptr || previous_ts == chain->flush_least_ts) {
    chain->flush_least = previous_newest;
    chain->flush_least_ts = previous_ts;
  }
  chain->newest_ts = *version_ts;
}

void MemTable::Add(uint64_t sequence, RowKind kind, std::string_view user_key,
                   std::string_view encoded_row) {
  RowMeta meta;
  std::string_view value;
  const bool decodes = DecodeRow(encoded_row, &meta, &value);
  AddVersion(sequence, kind, user_key, encoded_row, decodes ? meta : RowMeta(), decodes);
}

void MemTable::Add(uint64_t sequence, RowKind kind, std::string_view user_key,
                   std::string_view encoded_row, const RowMeta& meta) {
  AddVersion(sequence, kind, user_key, encoded_row, meta, true);
}

void MemTable::AddVersion(uint64_t sequence, RowKind kind, std::string_view user_key,
                          std::string_view encoded_row, const RowMeta& meta, bool decodes) {
  Version* version = NewVersion((sequence << 8) | static_cast<uint8_t>(kind), encoded_row);
  const bool indexed = Indexed(user_key);
  const uint64_t hash = indexed ? HashKey(user_key) : 0;
  const auto count_key = [&](int delta) {
    std::atomic<int32_t>& count = key_counts_[KeyCountSlot(user_key)];
    count.store(count.load(std::memory_order_relaxed) + delta,
                std::memory_order_relaxed);  // one writer (Add's external synchronization)
  };
  const bool is_value = kind == RowKind::kValue;
  if (const KeyNode* found =
          indexed ? FindKeyNode(user_key, hash) : table_.FindBeforeInsert(user_key)) {
    Chain& chain = const_cast<KeyNode*>(found)->chain();
    const Version* previous_newest = LinkVersion(&chain, version);
    TrackFlushShortcut(&chain, previous_newest, version,
                       decodes ? std::optional<int64_t>(meta.timestamp_or_zero()) : std::nullopt);
    if (previous_newest != nullptr) {
      const bool was_value =
          static_cast<RowKind>(previous_newest->trailer & 0xff) == RowKind::kValue;
      if (was_value != is_value) count_key(is_value ? 1 : -1);
    }
  } else {
    const Table::NewNode mem = table_.Allocate(KeyNode::BytesFor(user_key.size()));
    KeyNode* fresh = NewKeyNode(mem.entry, user_key, hash, version);
    Chain& chain = fresh->chain();
    if (decodes) {
      chain.newest_ts = meta.timestamp_or_zero();
    } else {
      chain.flush_least = Chain::OutOfOrder();  // no timestamp to keep the order by
    }
    InsertKeyNode(fresh, mem.height);
    if (indexed) IndexKey(fresh, hash);
    count_key(is_value ? 1 : -1);
  }
  num_entries_.fetch_add(1, std::memory_order_relaxed);
  if (sequence < min_sequence_.load(std::memory_order_relaxed)) {
    min_sequence_.store(sequence, std::memory_order_relaxed);
  }
  LowerTo(&min_timestamp_, meta.timestamp_or_zero());
  if (kind == RowKind::kValue && meta.expire_at_ms) LowerTo(&min_expire_at_, *meta.expire_at_ms);
}

int64_t MemTable::EstimateKeys(std::string_view lower, std::string_view upper) const {
  const size_t first = KeyCountSlot(lower);
  // The slots whose keys can be < upper: up to upper's own, which holds none of them when
  // upper is no longer than two bytes (every key of that slot is >= upper then).
  size_t end = upper.empty() ? kKeyCountSlots : KeyCountSlot(upper) + (upper.size() > 2 ? 1 : 0);
  int64_t keys = 0;
  for (size_t slot = first; slot < end; slot++) {
    keys += key_counts_[slot].load(std::memory_order_relaxed);
  }
  return keys;
}

void MemTable::Prefetch(std::span<const std::string_view> user_keys) const {
  const IndexArray* array = index_.load(std::memory_order_acquire);
  for (size_t first = 0; first < user_keys.size(); first += kPrefetchKeys) {
    const size_t n = std::min(kPrefetchKeys, user_keys.size() - first);
    uint64_t hashes[kPrefetchKeys];
    for (size_t i = 0; i < n; ++i) {
      hashes[i] = HashKey(user_keys[first + i]);
      __builtin_prefetch(&array->slots[array->Home(static_cast<uint32_t>(hashes[i] >> 32))]);
    }
    const KeyNode* nodes[kPrefetchKeys];
    for (size_t i = 0; i < n; ++i) {
      nodes[i] = array->FirstTagged(hashes[i]);
      if (nodes[i] == nullptr) continue;
      // The node's header, key and (for a key of up to 40 bytes) chain.
      __builtin_prefetch(nodes[i]);
      __builtin_prefetch(reinterpret_cast<const char*>(nodes[i]) + 64);
    }
    for (size_t i = 0; i < n; ++i) {
      if (nodes[i] != nullptr) {
        __builtin_prefetch(nodes[i]->chain().newest.load(std::memory_order_acquire));
      }
    }
  }
}

MemTable::VersionCursor MemTable::FindVersions(std::string_view user_key, uint64_t sequence) const {
  VersionCursor cursor;
  const KeyNode* node =
      Indexed(user_key) ? FindKeyNode(user_key, HashKey(user_key)) : table_.Find(user_key);
  if (node == nullptr) return cursor;
  const uint64_t trailer = (sequence << 8) | 0xff;  // every kind at `sequence` is visible
  const Version* v = node->chain().newest.load(std::memory_order_acquire);
  while (v != nullptr && v->trailer > trailer) v = v->older.load(std::memory_order_acquire);
  cursor.version_ = v;
  return cursor;
}

void MemTable::VersionCursor::Next() { version_ = version_->older.load(std::memory_order_acquire); }
uint64_t MemTable::VersionCursor::sequence() const { return version_->trailer >> 8; }
RowKind MemTable::VersionCursor::kind() const {
  return static_cast<RowKind>(version_->trailer & 0xff);
}
std::string_view MemTable::VersionCursor::encoded_row() const { return version_->row(); }

// Walks keys in order and each key's chain newest first. In the flush view, a key with the flush
// shortcut has a chain of two: its newest version, then its flush_least.
class MemTable::Iter final : public InternalIterator {
 public:
  Iter(std::shared_ptr<const MemTable> mem, bool flush_view)
      : mem_(std::move(mem)), keys_(&mem_->table_), flush_view_(flush_view) {}

  bool Valid() const override { return version_ != nullptr; }
  void SeekToFirst() override {
    keys_.SeekToFirst();
    AtNewest();
  }
  void SeekToLast() override {
    keys_.SeekToLast();
    AtOldest();
  }
  void Seek(std::string_view target) override {
    const std::string_view user_key = ExtractUserKey(target);
    if (const KeyNode* smallest = mem_->SmallestWithPrefix(user_key)) {
      keys_.SeekTo(smallest);  // the first key >= a prefix is its smallest key
    } else {
      keys_.Seek(user_key);
    }
    AtNewest();
    if (version_ == nullptr || keys_.entry()->user_key() != user_key) return;
    const uint64_t trailer = DecodeFixed64(target.data() + target.size() - kInternalKeyTrailer);
    while (version_ != nullptr && version_->trailer > trailer) version_ = Older(version_);
    if (version_ == nullptr) Next();
  }
  void Next() override {
    if (version_ != nullptr) version_ = Older(version_);
    if (version_ != nullptr) return;
    keys_.Next();
    AtNewest();
  }
  void Prev() override {
    version_ = Newer(version_);
    if (version_ != nullptr) return;
    keys_.Prev();
    AtOldest();
  }
  // The internal key is assembled on demand: the node's user key, then the version's trailer.
  std::string_view key() const override {
    if (key_for_ != version_) {
      const std::string_view user_key = keys_.entry()->user_key();
      key_.assign(user_key.data(), user_key.size());
      PutFixed64(&key_, version_->trailer);
      key_for_ = version_;
    }
    return key_;
  }
  std::string_view value() const override { return version_->row(); }
  Status status() const override { return Status::OK(); }

 private:
  const Chain& chain() const { return keys_.entry()->chain(); }
  bool Shortcut() const { return flush_view_ && chain().HasFlushShortcut(); }
  const Version* Older(const Version* v) const {
    if (Shortcut()) return v == chain().flush_least ? nullptr : chain().flush_least;
    return v->older.load(std::memory_order_acquire);
  }
  const Version* Newer(const Version* v) const {
    if (Shortcut()) {
      return v == chain().flush_least ? chain().newest.load(std::memory_order_acquire) : nullptr;
    }
    return v->newer.load(std::memory_order_acquire);
  }
  void AtNewest() {
    version_ = keys_.Valid() ? chain().newest.load(std::memory_order_acquire) : nullptr;
  }
  void AtOldest() {
    if (!keys_.Valid()) {
      version_ = nullptr;
    } else if (Shortcut()) {
      version_ = chain().flush_least;
    } else {
      version_ = chain().oldest.load(std::memory_order_acquire);
    }
  }

  std::shared_ptr<const MemTable> mem_;
  Table::Iterator keys_;
  const bool flush_view_;
  const Version* version_ = nullptr;
  mutable std::string key_;  // key() of key_for_
  mutable const Version* key_for_ = nullptr;
};

std::unique_ptr<InternalIterator> MemTable::NewIterator(std::shared_ptr<const MemTable> mem) {
  return std::make_unique<Iter>(std::move(mem), /*flush_view=*/false);
}

std::unique_ptr<InternalIterator> MemTable::NewFlushIterator(std::shared_ptr<const MemTable> mem) {
  return std::make_unique<Iter>(std::move(mem), /*flush_view=*/true);
}

namespace {

// Applies batch entries to a memtable with consecutive sequence numbers. A range deletion takes
// its number and adds no row (the DB records it in the version: DBImpl::Write).
class MemTableInserter final : public WriteBatch::Handler {
 public:
  MemTableInserter(MemTable* mem, uint64_t first_sequence) : mem_(mem), sequence_(first_sequence) {}
  void Apply(const WriteBatch::Entry& e) override {
    const uint64_t sequence = sequence_++;
    if (e.op == WriteBatch::Op::kDeleteRange) return;
    mem_->Add(sequence, WriteBatch::KindOf(e.op), e.key, e.encoded_row, e.meta);
  }

 private:
  MemTable* mem_;
  uint64_t sequence_;
};

}  // namespace

Status AddBatch(MemTable* mem, uint64_t first_sequence, const WriteBatch& batch) {
  MemTableInserter inserter(mem, first_sequence);
  return batch.Iterate(&inserter);
}

void RangeDeletionsOf(const WriteBatch& batch, uint64_t first_sequence,
                      std::vector<RangeDeletion>* out) {
  if (!batch.HasRangeDeletions()) return;
  struct Collector final : WriteBatch::Handler {
    uint64_t sequence;
    std::vector<RangeDeletion>* out;
    void Apply(const WriteBatch::Entry& e) override {
      const uint64_t s = sequence++;
      if (e.op != WriteBatch::Op::kDeleteRange) return;
      out->push_back(RangeDeletion{KeyRange{std::string(e.key), std::string(e.value)}, s});
    }
  } collector;
  collector.sequence = first_sequence;
  collector.out = out;
  Status s = batch.Iterate(&collector);  // valid by construction (write_batch.h)
  (void)s;
}

}  // namespace ebb::storage
