// SkipList: an ordered set of entries in an Arena, as in LevelDB, with each entry stored inside
// its node: a node is its `height` next pointers, highest level first, then the entry itself
// (RocksDB's InlineSkipList layout). A node is known by its entry's address; its pointer for
// level i sits i+1 pointers before it. So a search step, which reads a node's next pointer and
// then the entry it points to, finds the entry's first bytes right after that entry's own
// level-0 pointer: one stretch of memory, not a node and a separate entry.
//
// Entries are never removed; Insert adds one that must not compare equal to any present.
// Insert remembers where the last entry went (its predecessor on each level, as RocksDB's splice
// does): an entry that belongs right after it — keys arriving in ascending order, such as the
// origin log's offsets, a log's or a series' increasing timestamps — is linked in with two
// comparisons instead of a search from the top. Any other entry pays those comparisons (at most
// two) on top of its search.
// Thread-safety: Insert needs external synchronization (one writer at a time). Reads (iterators)
// need none: they may run concurrently with one writer, because nodes are published with
// release stores and never freed while the list lives.
// Comparator: int operator()(const Entry* a, const Entry* b) const, <0/0/>0. Lookups may use
// another probe type P when the comparator also has int operator()(const Entry* a, const P& b).
#pragma once

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <new>
#include <random>

#include "storage/db/arena.h"

namespace ebb::storage {

template <typename Entry, class Comparator>
class SkipList {
 public:
  // The head is pointers only; its "entry" is an address that is never read.
  SkipList(Comparator cmp, Arena* arena)
      : compare_(cmp),
        arena_(arena),
        head_(reinterpret_cast<const Entry*>(NodeMemory(kMaxHeight, alignof(Link)))) {
    std::fill(last_insert_, last_insert_ + kMaxHeight, head_);
  }
  SkipList(const SkipList&) = delete;
  SkipList& operator=(const SkipList&) = delete;

  // A node not yet in the list: `entry_bytes` bytes at `entry` (aligned for any pointer-sized
  // type) for the caller to build its entry in before it calls Insert(entry, height).
  struct NewNode {
    char* entry;
    int height;
  };
  NewNode Allocate(size_t entry_bytes) {
    const int height = RandomHeight();
    return {NodeMemory(height, entry_bytes), height};
  }

  // REQUIRES: `entry` and `height` from Allocate, the entry built and not yet inserted, nothing
  // equal to it in the list; external synchronization.
  void Insert(const Entry* entry, int height) {
    const Entry* prev[kMaxHeight];
    const int max_height = max_height_.load(std::memory_order_relaxed);
    if (FollowsLastInsert(entry)) {
      std::copy(last_insert_, last_insert_ + max_height, prev);
    } else {
      [[maybe_unused]] const Entry* x = FindGreaterOrEqual(entry, prev);
      assert(x == nullptr || compare_(x, entry) != 0);
    }
    if (height > max_height) {
      for (int i = max_height; i < height; i++) prev[i] = head_;
      max_height_.store(height, std::memory_order_relaxed);
    }
    for (int i = 0; i < height; i++) {
      Next(entry, i).store(Next(prev[i], i).load(std::memory_order_relaxed),
                           std::memory_order_relaxed);
      Next(prev[i], i).store(entry, std::memory_order_release);
    }
    // The predecessors on each level of a position right after `entry` (levels above the list's
    // height hold no node: head_, as they were).
    for (int i = 0; i < height; i++) last_insert_[i] = entry;
    for (int i = height; i < max_height; i++) last_insert_[i] = prev[i];
  }

  // Iteration over the list. Valid while the list lives.
  class Iterator {
   public:
    explicit Iterator(const SkipList* list) : list_(list) {}
    bool Valid() const { return node_ != nullptr; }
    const Entry* entry() const { return node_; }
    void Next() { node_ = SkipList::Next(node_, 0).load(std::memory_order_acquire); }
    void Prev() {
      node_ = list_->FindLessThan(node_);
      if (node_ == list_->head_) node_ = nullptr;
    }
    template <class Probe>
    void Seek(const Probe& target) {
      node_ = list_->FindGreaterOrEqual(target, nullptr);
    }
    // REQUIRES: `entry` is in this list.
    void SeekTo(const Entry* entry) { node_ = entry; }
    void SeekToFirst() { node_ = SkipList::Next(list_->head_, 0).load(std::memory_order_acquire); }
    void SeekToLast() {
      node_ = list_->FindLast();
      if (node_ == list_->head_) node_ = nullptr;
    }

   private:
    const SkipList* list_;
    const Entry* node_ = nullptr;
  };

 private:
  static constexpr int kMaxHeight = 12;
  using Link = std::atomic<const Entry*>;

  static Link* Links(const Entry* node) {
    return reinterpret_cast<Link*>(const_cast<Entry*>(node));
  }
  // The node's next pointer on `level`. REQUIRES: level < the node's height.
  static Link& Next(const Entry* node, int level) { return Links(node)[-1 - level]; }

  // A node's memory: `height` null links, then `entry_bytes` for the entry, whose address it
  // returns.
  char* NodeMemory(int height, size_t entry_bytes) {
    char* entry = arena_->Allocate(sizeof(Link) * height + entry_bytes) + sizeof(Link) * height;
    for (int i = 0; i < height; i++) {
      new (&Links(reinterpret_cast<const Entry*>(entry))[-1 - i]) Link(nullptr);
    }
    return entry;
  }

  int RandomHeight() {
    int height = 1;
    while (height < kMaxHeight && rnd_() % 4 == 0) height++;
    return height;
  }

  // First node >= key; fills prev[level] with the last node < key on each level if prev.
  // Each step costs a cache miss on `next` in a large list. While `next` is compared, the node
  // the search meets if it drops a level at x is fetched too, so the two misses overlap.
  template <class Probe>
  const Entry* FindGreaterOrEqual(const Probe& key, const Entry** prev) const {
    const Entry* x = head_;
    int level = max_height_.load(std::memory_order_relaxed) - 1;
    while (true) {
      const Entry* next = Next(x, level).load(std::memory_order_acquire);
      if (level > 0) __builtin_prefetch(Next(x, level - 1).load(std::memory_order_relaxed));
      if (next != nullptr && compare_(next, key) < 0) {
        x = next;
      } else {
        if (prev != nullptr) prev[level] = x;
        if (level == 0) return next;
        level--;
      }
    }
  }

  // Whether `entry` goes right after the last entry inserted: greater than it, and less than its
  // successor on level 0. Then no node lies between them, so on every level the last insert's
  // predecessor of the position after it (last_insert_) is the entry's predecessor as well.
  bool FollowsLastInsert(const Entry* entry) const {
    const Entry* last = last_insert_[0];
    if (last != head_ && compare_(last, entry) >= 0) return false;
    const Entry* next = Next(last, 0).load(std::memory_order_relaxed);
    return next == nullptr || compare_(next, entry) > 0;
  }

  // Last node < key, or head_.
  const Entry* FindLessThan(const Entry* key) const {
    const Entry* x = head_;
    int level = max_height_.load(std::memory_order_relaxed) - 1;
    while (true) {
      const Entry* next = Next(x, level).load(std::memory_order_acquire);
      if (next != nullptr && compare_(next, key) < 0) {
        x = next;
      } else {
        if (level == 0) return x;
        level--;
      }
    }
  }

  const Entry* FindLast() const {
    const Entry* x = head_;
    int level = max_height_.load(std::memory_order_relaxed) - 1;
    while (true) {
      const Entry* next = Next(x, level).load(std::memory_order_acquire);
      if (next != nullptr) {
        x = next;
      } else {
        if (level == 0) return x;
        level--;
      }
    }
  }

  Comparator const compare_;
  Arena* const arena_;
  const Entry* const head_;
  std::atomic<int> max_height_{1};
  std::minstd_rand rnd_{0xdeadbeef};
  // Insert's state (the writer's alone): on each level, the last node before the position right
  // after the last entry inserted; head_ on every level while the list is empty.
  const Entry* last_insert_[kMaxHeight];
};

}  // namespace ebb::storage
