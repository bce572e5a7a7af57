// MemTable: the in-memory, sorted buffer of recent writes — every version of every key, ordered
// by internal key (format/internal_key.h): user key ascending, then most recently written first.
//
// Layout (all in one Arena): a skiplist holds one KeyNode per distinct user key inside its node,
// the key's bytes inline right after the node's level-0 pointer, so a search step reads one
// stretch of memory (storage/db/skiplist.h). Each KeyNode heads a doubly linked chain of its
// Versions (sequence, kind, encoded row), newest first.
// A hash index maps each user key to its KeyNode as well: point reads and writes to a key
// already present find it in about one cache miss, without searching the skiplist, and a read of
// a key the memtable never saw ends at an empty slot. Only new keys and ordered access
// (iterators, flush) walk the skiplist. Keys under an unindexed prefix (the DB's
// Options::separate_file_prefixes: the origin log's rows, written in ascending order and read by
// iterators) stay out of the index, which then grows with the other keys alone: their lookups
// search the skiplist, and a new one that follows the last key inserted (a log's next row) is
// known new after two comparisons (SkipList::FindBeforeInsert). With a seek-prefix function
// (Options::seek_prefix_length), a second hash index maps each prefix to its smallest key, so
// an iterator seeking exactly to a prefix (one log's entries) starts there without a search,
// and, from a prefix's second key, where its keys begin on each level of the skiplist
// (SkipList::RangeStart): a new key of that prefix is searched for from there, at about the
// cost of a search among that prefix's keys alone (a log's new entry: among that log's
// entries, not the whole memtable's; an entry newer than the log's newest, as a log's entries
// mostly arrive, takes a comparison or two a level).
//
// The key index grows with the memtable's distinct keys, so a few hot keys touch a few cache
// lines of it however large the memtable may grow:
// - Layout: open addressing with linear probing over a power-of-two array of 8-byte slots, each
//   0 (empty) or a KeyNode pointer with 16 bits of the key's hash (the tag) in its top bits, so
//   a probe past another key's slot seldom loads that key's node. A key's home slot comes from
//   the top bits of its hash, which its node keeps (KeyNode::hash32): a growth re-homes a key
//   without hashing it again. Node pointers fit in 48 bits: 64-bit Linux gives user space
//   addresses above 2^47 (x86-64) or 2^48 (AArch64) only to an mmap that asks for them, and the
//   arena's memory comes from malloc.
// - Growth: the array starts at 16 slots and doubles when a new key would fill more than half
//   of it, so a probe sequence stays short (about 1.5 slots for a hit, 2.5 for a miss) whatever
//   the memtable's size. A doubling is incremental, so no Add stalls on a copy of the whole
//   index (at 64 MiB of small keys, a 2^20-slot pass: milliseconds; docs/performance.md, round
//   eight): the Add that would fill the array half publishes a new, empty one of twice the
//   slots that names the old one as the array it grows `from`. New keys go to the new array
//   only, and each new key's Add copies the next 8 old slots into it (prefetching the nodes of
//   the 8 after), so the copy is done after old slots / 8 new keys, well before the new array
//   is half full. Until then a lookup that misses in the new array probes the old one as well.
//   The old array is never written again. Large arrays are anonymous mappings, zeroed by the
//   kernel page by page as slots are first written, so a growth costs no pass over the array.
// - Concurrency: the index is one atomic pointer to the current array, stored with release
//   once the array is built; a reader loads it with acquire, then the array's `from` with
//   acquire, then probes the array and, on a miss, `from`. Every key added before the array
//   was published is in `from` or already copied (when `from` reads null, the release store
//   that cleared it came after the last copy), and every later one is in the array. Add fills
//   an empty slot with a release store after the node is built, so a reader sees no slot or a
//   whole node. A reader misses only keys added after it loaded the pointer, as if it had run
//   before them.
// - Memory: old arrays are never freed before the memtable (a reader may still probe one);
//   together they are smaller than the current array. A memtable of N distinct keys holds 2N
//   to 4N slots in its current array, under 8N slots (64N bytes) in all. Every array counts in
//   ApproximateMemoryUsage from the Add that creates it, so the flush decision and the server's
//   memory figures (used_memory, maxmemory) include the index: a memtable of small keys (about
//   110 bytes of arena each) is frozen with about a quarter of its size in the index. The
//   arrays are not marked for huge pages: a huge page's first write could stall an Add for
//   milliseconds (memtable.cc); a point read in a large array may miss the TLB as well.
//
// Nothing is ever removed; a full memtable is frozen (no more Add) and flushed. For the flush,
// Add also keeps, per key, whether its versions came in timestamp order (with no wipe among
// them) and which older version ReduceForFlush (db/compaction.h) would keep: NewFlushIterator
// then hands the flush those two versions of a hot key instead of walking its whole chain, one
// cache miss per version.
// Thread-safety: Add needs external synchronization (the DB mutex); reads and iterators are safe
// concurrently with one Add. Share it with std::shared_ptr: iterators keep it alive.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "storage/db/arena.h"
#include "storage/db/skiplist.h"
#include "storage/db/version_edit.h"
#include "storage/format/internal_iterator.h"
#include "storage/format/internal_key.h"
#include "storage/options.h"
#include "storage/write_batch.h"

namespace ebb::storage {

class MemTable {
 private:
  struct Version;

 public:
  // The versions of one user key visible at a sequence, newest first; a cursor into the
  // memtable, valid while the memtable lives. Cheaper than an iterator for point reads.
  class VersionCursor {
   public:
    bool Valid() const { return version_ != nullptr; }
    void Next();  // REQUIRES: Valid()
    uint64_t sequence() const;
    RowKind kind() const;
    std::string_view encoded_row() const;

   private:
    friend class MemTable;
    const Version* version_ = nullptr;
  };

  // `memtable_bytes`: the size at which this memtable will be frozen; it sizes the prefix index
  // (one bucket per 512 bytes). The key index starts small and grows (above). The arena's huge
  // blocks come from and return to `blocks` when given (memtables of one DB share one pool).
  // Keys starting with one of `unindexed_prefixes` stay out of the key index (above).
  explicit MemTable(size_t memtable_bytes = 64 << 20, SeekPrefixLength prefix_length = nullptr,
                    std::shared_ptr<HugeBlockPool> blocks = nullptr,
                    std::vector<std::string> unindexed_prefixes = {});
  ~MemTable();
  MemTable(const MemTable&) = delete;
  MemTable& operator=(const MemTable&) = delete;

  // Adds one version. REQUIRES: (user_key, sequence) not already present; external sync.
  void Add(uint64_t sequence, RowKind kind, std::string_view user_key,
           std::string_view encoded_row);
  // The same when the caller has the row's meta at hand (a write batch decodes it), sparing a
  // decode. REQUIRES: `meta` is what `encoded_row` holds.
  void Add(uint64_t sequence, RowKind kind, std::string_view user_key, std::string_view encoded_row,
           const RowMeta& meta);

  // Bytes of memory in use: the arena (an estimate of the flushed size) and the key index's
  // arrays.
  size_t ApproximateMemoryUsage() const {
    return arena_.MemoryUsage() + index_bytes_.load(std::memory_order_relaxed);
  }
  uint64_t num_entries() const { return num_entries_.load(std::memory_order_relaxed); }
  bool empty() const { return num_entries() == 0; }
  // The key index's current slot count (a power of two, at least twice the distinct keys it
  // holds: every key but those under an unindexed prefix).
  size_t index_slots() const;
  // Facts over every version added so far, for the engine's expiry and deletion decisions:
  // the least sequence (UINT64_MAX when empty), the least timestamp a version counts with in the
  // read rule (an untimed one counts 0; INT64_MAX when empty), and the least expire_at of a value
  // (INT64_MAX: none expires).
  uint64_t min_sequence() const { return min_sequence_.load(std::memory_order_relaxed); }
  int64_t min_timestamp() const { return min_timestamp_.load(std::memory_order_relaxed); }
  int64_t min_expire_at() const { return min_expire_at_.load(std::memory_order_relaxed); }
  // An estimate of the live keys added here whose user keys lie in [lower, upper) (empty
  // `upper`: no bound), without reading them. Add keeps a count per first two bytes of the user
  // key (a missing byte counts as 0): +1 for a new key whose first version is a value, -1 for
  // one whose first version is a tombstone (it most likely deletes a key of an older memtable or
  // table), and +1/-1 when a key's newest version turns from tombstone to value / from value to
  // tombstone. Ranges those two bytes bound get their exact sum; other ranges count every key of
  // the two-byte prefixes they touch. Safe concurrently with Add.
  int64_t EstimateKeys(std::string_view lower, std::string_view upper) const;

  // The versions of `user_key` with sequence <= `sequence`, newest first.
  VersionCursor FindVersions(std::string_view user_key, uint64_t sequence) const;
  // A hint that `user_keys` are about to be looked up (FindVersions, or Add of a key already
  // here): brings what the lookups touch into the CPU cache — each key's index slot, then its
  // node, then its newest version — a stage for all the keys at a time, so that their cache
  // misses overlap instead of following one another. Reads nothing that it returns and changes
  // nothing; keys absent here cost their hash and slot, and so do unindexed ones. Safe
  // concurrently with Add.
  void Prefetch(std::span<const std::string_view> user_keys) const;

  // An iterator over every version; it shares ownership of `mem`.
  static std::unique_ptr<InternalIterator> NewIterator(std::shared_ptr<const MemTable> mem);
  // An iterator for a flush with no live snapshot: like NewIterator, except that a key whose
  // versions were all added newest-first with non-decreasing timestamps shows only its newest
  // version and the older one ReduceForFlush keeps (the first, newest to oldest, with the least
  // timestamp). ReduceForFlush over either iterator's versions of a key gives the same result.
  // REQUIRES: `mem` is frozen (no Add runs or follows).
  static std::unique_ptr<InternalIterator> NewFlushIterator(std::shared_ptr<const MemTable> mem);

 private:
  struct KeyNode;
  struct KeyNodeComparator {
    int operator()(const KeyNode* a, const KeyNode* b) const;
    int operator()(const KeyNode* a, std::string_view user_key) const;
  };
  using Table = SkipList<KeyNode, KeyNodeComparator>;
  class Iter;

  struct Chain;
  Version* NewVersion(uint64_t trailer, std::string_view encoded_row);
  // Builds the node of `user_key` (whose hash is `hash`) in `mem`, KeyNode::BytesFor bytes from
  // Table::Allocate, with `first` as its only version.
  static KeyNode* NewKeyNode(char* mem, std::string_view user_key, uint64_t hash, Version* first);
  // Links `version` into `chain`; returns the previous newest version when `version` became the
  // newest, else nullptr.
  static Version* LinkVersion(Chain* chain, Version* version);
  // Updates the chain's flush shortcut after `version` was linked (`previous_newest` as
  // returned by LinkVersion). `version_ts`: its row's timestamp (0 for none), known to the
  // caller; nullopt when its row does not decode.
  static void TrackFlushShortcut(Chain* chain, const Version* previous_newest,
                                 const Version* version, std::optional<int64_t> version_ts);
  // Add's work. `meta` is what `encoded_row` holds, or RowMeta() when `decodes` is false.
  void AddVersion(uint64_t sequence, RowKind kind, std::string_view user_key,
                  std::string_view encoded_row, const RowMeta& meta, bool decodes);

  struct PrefixNode;
  struct IndexArray;

  // Whether `user_key` is in the key index: it starts with none of the unindexed prefixes. Asked
  // twice per write (the lookup and the insert): the first byte settles most keys.
  bool Indexed(std::string_view user_key) const {
    for (const std::string& prefix : unindexed_prefixes_) {  // none empty (Options)
      if (!user_key.empty() && user_key[0] == prefix[0] && user_key.starts_with(prefix)) {
        return false;
      }
    }
    return true;
  }
  // The KeyNode of `user_key`, an indexed key whose hash is `hash`, or nullptr.
  const KeyNode* FindKeyNode(std::string_view user_key, uint64_t hash) const;
  // Puts `node` (a key not in the index, whose hash is `hash`) in the key index, first starting
  // a growth when the key would fill more than half of the array, then takes the growth in
  // progress one step on. Add only.
  void IndexKey(const KeyNode* node, uint64_t hash);
  // Publishes a new, empty array of twice `full`'s slots growing from `full`; returns it.
  IndexArray* GrowIndex(IndexArray* full);
  // Copies the next `count` slots of `to`'s `from` into `to`; clears `to`'s `from` once all are.
  void MigrateIndex(IndexArray* to, size_t count);
  // When `user_key` is exactly a seek prefix: the smallest key here with that prefix (which is
  // then the first key >= user_key), or nullptr.
  const KeyNode* SmallestWithPrefix(std::string_view user_key) const;
  // The node of `prefix` (whose hash is `hash`) in the prefix index, or nullptr.
  PrefixNode* FindPrefixNode(std::string_view prefix, uint64_t hash) const;
  // Puts `node`, a new key of `height` levels from Table::Allocate, in the skiplist.
  void InsertKeyNode(KeyNode* node, int height);
  // Adds `prefix` (of `node`'s key, whose hash is `hash`) to the prefix index.
  void IndexPrefix(const KeyNode* node, std::string_view prefix, uint64_t hash);

  Arena arena_;
  Table table_;
  // Every array the key index has had, the current one last: a reader may still probe an old
  // one, so they all go with the memtable. index_ is the last, for readers.
  std::vector<std::unique_ptr<IndexArray>> index_arrays_;
  std::atomic<IndexArray*> index_{nullptr};
  size_t num_keys_ = 0;  // distinct keys, Add only
  size_t migrated_ = 0;  // slots of the current array's `from` copied so far, Add only
  std::atomic<size_t> index_bytes_{0};  // every array's slots
  SeekPrefixLength prefix_length_;
  const std::vector<std::string> unindexed_prefixes_;
  size_t num_prefix_buckets_ = 0;
  std::unique_ptr<std::atomic<PrefixNode*>[]> prefix_buckets_;  // only with prefix_length_
  std::atomic<uint64_t> num_entries_{0};
  std::atomic<uint64_t> min_sequence_{UINT64_MAX};
  std::atomic<int64_t> min_timestamp_{INT64_MAX};
  std::atomic<int64_t> min_expire_at_{INT64_MAX};
  // EstimateKeys's counts, by the first two bytes of the user key.
  static constexpr size_t kKeyCountSlots = 1 << 16;
  std::unique_ptr<std::atomic<int32_t>[]> key_counts_ {
    new std::atomic<int32_t>[ kKeyCountSlots ]()
  };
};

// Adds every entry of `batch` with consecutive sequence numbers from `first_sequence` (the
// WAL record's); a range deletion takes its number and adds nothing (the DB records it in the
// version). REQUIRES: as MemTable::Add. Corruption only if the batch is malformed (a
// batch from WriteBatch::FromRep or built by Put/Delete never is).
Status AddBatch(MemTable* mem, uint64_t first_sequence, const WriteBatch& batch);
// Appends the range deletions of `batch`, whose first entry has sequence `first_sequence`, to
// *out, each at its entry's sequence (what the DB records in the version for them).
void RangeDeletionsOf(const WriteBatch& batch, uint64_t first_sequence,
                      std::vector<RangeDeletion>* out);

}  // namespace ebb::storage
