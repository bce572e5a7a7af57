// SkipList: an ordered set of entries in an Arena, as in LevelDB, with each entry stored inside
// its node: a node is its `height` next pointers, highest level first, then the entry itself
// (RocksDB's InlineSkipList layout). A node is known by its entry's address; its pointer for
// level i sits i+1 pointers before it. So a search step, which reads a node's next pointer and
// then the entry it points to, finds the entry's first bytes right after that entry's own
// level-0 pointer: one stretch of memory, not a node and a separate entry.
//
// Entries are never removed; Insert adds one that must not compare equal to any present.
// Insert remembers where the last two entries went (their predecessors on each level, as
// RocksDB's splice does): an entry that belongs right after the last one — keys arriving in
// ascending order — is linked in with two comparisons instead of a search from the top, and so is
// one that belongs right after the entry before it, plus one comparison with the last entry,
// which may have gone in between on some levels: ascending keys interleaved with others, such as
// the origin log's offsets between the data rows of the writes they log. Any other entry pays
// those comparisons (at most four) on top of its search.
// An entry of a known range of keys (a run of the order the caller names, such as one seek
// prefix's keys: RangeStart below) may instead be searched for from where that range begins:
// about the cost of a search in a list of the range's entries alone, not of the whole list.
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
  static constexpr int kMaxHeight = 12;

  // The head is pointers only; its "entry" is an address that is never read.
  SkipList(Comparator cmp, Arena* arena)
      : compare_(cmp),
        arena_(arena),
        head_(reinterpret_cast<const Entry*>(NodeMemory(kMaxHeight, alignof(Link)))) {
    for (Splice& splice : splices_) std::fill(splice.before, splice.before + kMaxHeight, head_);
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
    int known = height;  // the levels of prev found
    if (!FollowsLastInsert(entry, height, prev, &known) &&
        !FollowsEarlierInsert(entry, height, prev, &known)) {
      [[maybe_unused]] const Entry* x = FindGreaterOrEqual(entry, prev);
      assert(x == nullptr || compare_(x, entry) != 0);
      known = kMaxHeight;
    }
    LinkIn(entry, height, prev, known);
  }

  // Where one range of keys begins, for inserts into it: a run of the order that the caller
  // names by a predicate, `in_range(entry)` (such as the keys having one seek prefix). On each
  // level it holds a node before every key of the range — the last such node as far as the
  // inserts into the range have seen, which they keep moving up — and the highest level a node
  // of the range has reached. A search for a key of the range starts on that level (or the new
  // node's top level, if higher) from that node, not from the head on the list's top level.
  // Insert's state, made by the caller (zeroed: nothing known yet) and kept for as long as the
  // list; written by the writer only.
  struct RangeStart {
    const Entry* before[kMaxHeight] = {};
    int levels = 0;  // how many levels of `before` are set (from the bottom)
    int top = 0;     // the highest level a node of the range is known to reach
  };
  // Insert, for an entry of the range `range` begins (in_range(entry) holds; the range's
  // entries all satisfy `in_range` and the rest of the list does not, so they form one run).
  // InRange: bool(const Entry*).
  template <class InRange>
  void Insert(const Entry* entry, int height, RangeStart* range, const InRange& in_range) {
    assert(in_range(entry));
    const Entry* prev[kMaxHeight];
    const int start_level = std::max(height - 1, range->top);
    int known = height;
    if (FollowsLastInsert(entry, height, prev, &known) ||
        FollowsEarlierInsert(entry, height, prev, &known)) {
      // linked after the last entry or the one before; the range's record stays as it was
    } else if (start_level < range->levels) {
      FindInRange(entry, start_level, range, in_range, prev);
      known = start_level + 1;
    } else {
      [[maybe_unused]] const Entry* x = FindGreaterOrEqual(entry, prev);
      assert(x == nullptr || compare_(x, entry) != 0);
      known = kMaxHeight;
      LearnRange(prev, in_range, range);
    }
    LinkIn(entry, height, prev, known);
    range->top = std::max(range->top, height - 1);
  }

  // The entry equal to `key`, or nullptr: a search from the top. Safe concurrently with one
  // Insert, as iterators are.
  template <class Probe>
  const Entry* Find(const Probe& key) const {
    const Entry* x = FindGreaterOrEqual(key, nullptr);
    return x != nullptr && compare_(x, key) == 0 ? x : nullptr;
  }

  // Find, for the writer about to insert: a key that goes right after the last entry inserted
  // or the one before it (ascending keys, such as a log's next row, maybe interleaved with
  // others) is known absent after two comparisons, without a search. REQUIRES: external
  // synchronization, as Insert.
  template <class Probe>
  const Entry* FindBeforeInsert(const Probe& key) const {
    if (GoesRightAfter(splices_[last_].before[0], key) ||
        GoesRightAfter(splices_[1 - last_].before[0], key)) {
      return nullptr;
    }
    return Find(key);
  }

  // Whether every level holds its nodes in ascending order: the list's invariant, which a search
  // alone would not show broken (it only moves on to a node less than its key, so a level out of
  // order slows it without misleading it). For tests; no Insert may run concurrently.
  bool EveryLevelInOrder() const {
    for (int level = 0; level < kMaxHeight; level++) {
      const Entry* x = Next(head_, level).load(std::memory_order_acquire);
      for (const Entry* next; x != nullptr; x = next) {
        next = Next(x, level).load(std::memory_order_acquire);
        if (next != nullptr && compare_(x, next) >= 0) return false;
      }
    }
    return true;
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

  // A record of where an entry went: on each level, the last node before the position right
  // after it when it went in (the entry itself below its height; head_ on levels that held no
  // node). Only the lowest `known` levels are set (a search in a range finds no more);
  // kMaxHeight: all.
  struct Splice {
    const Entry* before[kMaxHeight];
    int known = kMaxHeight;
    int height = 1;  // the entry's
  };

  // Whether `entry` goes right after the last entry inserted: greater than it, and less than its
  // successor on level 0. Then no node lies between them, so on every level the last insert's
  // predecessor of the position after it is the entry's predecessor as well: when it does, and
  // those are known on the `height` levels it needs, copies the ones known into prev and their
  // count into *known.
  bool FollowsLastInsert(const Entry* entry, int height, const Entry** prev, int* known) const {
    return FollowsSplice(splices_[last_], entry, height, prev, known);
  }

  // The same after the entry inserted before the last one. Since that record was made only the
  // last insert went in: where it lies before `entry` and went in right after one of the
  // record's nodes on a level, it is `entry`'s predecessor there instead. It is tried while it
  // pays (earlier_credit_): a run of inserts at random places, which it never serves, tries it
  // once in kEarlierRetry inserts only.
  bool FollowsEarlierInsert(const Entry* entry, int height, const Entry** prev, int* known) {
    if (earlier_credit_ <= 0 && ++earlier_skipped_ < kEarlierRetry) return false;
    earlier_skipped_ = 0;
    if (!FollowsSplice(splices_[1 - last_], entry, height, prev, known)) {
      earlier_credit_ = std::max(earlier_credit_ - 1, 0);
      return false;
    }
    earlier_credit_ = std::min(earlier_credit_ + kEarlierGain, kEarlierCreditCap);
    const Splice& last = splices_[last_];
    const Entry* last_entry = last.before[0];
    if (last_entry != head_ && compare_(last_entry, entry) < 0) {
      for (int level = 1; level < std::min(*known, last.height); level++) {
        if (Next(prev[level], level).load(std::memory_order_relaxed) == last_entry) {
          prev[level] = last_entry;
        }
      }
    }
    return true;
  }

  // Whether `key` lies between `node` (head_: before every entry) and its successor on level 0,
  // so that no entry equals it.
  template <class Probe>
  bool GoesRightAfter(const Entry* node, const Probe& key) const {
    if (node != head_ && compare_(node, key) >= 0) return false;
    const Entry* next = Next(node, 0).load(std::memory_order_relaxed);
    return next == nullptr || compare_(next, key) > 0;
  }

  // Whether `entry` goes right after the entry `splice` records (greater than it, less than its
  // successor on level 0) and the record knows the `height` levels it needs; if so copies the
  // record's predecessors into prev and their count into *known.
  bool FollowsSplice(const Splice& splice, const Entry* entry, int height, const Entry** prev,
                     int* known) const {
    if (height > splice.known) return false;
    const Entry* last = splice.before[0];
    if (last != head_ && compare_(last, entry) >= 0) return false;
    const Entry* next = Next(last, 0).load(std::memory_order_relaxed);
    if (next != nullptr && compare_(next, entry) <= 0) return false;
    *known = splice.known;
    std::copy(splice.before, splice.before + std::min(*known, kMaxHeight), prev);
    return true;
  }

  // Links `entry` (of `height` levels) after prev[i] on each level below its height, and notes
  // where it went for the next insert. `known`: how many levels of prev (from the bottom) are
  // the entry's predecessors, at least `height`; kMaxHeight when every level is.
  void LinkIn(const Entry* entry, int height, const Entry** prev, int known) {
    assert(known >= height);
    const int max_height = max_height_.load(std::memory_order_relaxed);
    if (height > max_height) {
      for (int i = max_height; i < height; i++) prev[i] = head_;
      max_height_.store(height, std::memory_order_relaxed);
    }
    for (int i = 0; i < height; i++) {
      Next(entry, i).store(Next(prev[i], i).load(std::memory_order_relaxed),
                           std::memory_order_relaxed);
      Next(prev[i], i).store(entry, std::memory_order_release);
    }
    // The predecessors on each level of a position right after `entry`, as far as they are known,
    // in place of the record before the last. Levels above the list's height hold no node: head_
    // in both records, as they were (only an entry taller than the list writes there, and it
    // raises the height).
    last_ = 1 - last_;
    Splice& splice = splices_[last_];
    for (int i = 0; i < height; i++) splice.before[i] = entry;
    for (int i = height; i < std::min(known, max_height); i++) splice.before[i] = prev[i];
    splice.known = known;
    splice.height = height;
  }

  // The search for `key`, an entry of the range `range` begins, from `start_level` down: fills
  // prev[level] for every level up to start_level (REQUIRES: start_level < range->levels). Each
  // step onto a node outside the range moves range->before up to it: the record stays the last
  // node before the range that the inserts have passed.
  template <class InRange>
  void FindInRange(const Entry* key, int start_level, RangeStart* range, const InRange& in_range,
                   const Entry** prev) const {
    const Entry* x = range->before[start_level];
    bool inside = false;  // x is a node of the range: so is every later node before `key`
    for (int level = start_level;;) {
      const Entry* next = Next(x, level).load(std::memory_order_acquire);
      if (next != nullptr && compare_(next, key) < 0) {
        if (!inside && !(inside = in_range(next))) range->before[level] = next;
        x = next;
        continue;
      }
      prev[level] = x;
      if (level == 0) return;
      level--;
      // Before the range, the record on the level below is at least as far along as x.
      if (!inside) x = range->before[level];
    }
  }

  // Records where the range begins from a whole search's predecessors `prev` of one of its
  // entries: on each level the predecessor when it lies before the range, else the node noted
  // for the level above (a node before the range there is one below it too).
  template <class InRange>
  void LearnRange(const Entry* const* prev, const InRange& in_range, RangeStart* range) const {
    const int max_height = max_height_.load(std::memory_order_relaxed);
    const Entry* above = head_;
    for (int level = max_height - 1; level >= 0; level--) {
      const bool inside = prev[level] != head_ && in_range(prev[level]);
      if (!inside) above = prev[level];
      if (inside) range->top = std::max(range->top, level);
      range->before[level] = above;
    }
    range->levels = max_height;
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
  // Insert's state (the writer's alone): the records of the last entry inserted (splices_[last_])
  // and of the one before it; head_ on every level while the list is empty.
  Splice splices_[2];
  int last_ = 0;
  // FollowsEarlierInsert's record of whether it pays: each success adds kEarlierGain (up to
  // kEarlierCreditCap), each failure takes one; at 0 it is tried once in kEarlierRetry inserts.
  static constexpr int kEarlierGain = 4;
  static constexpr int kEarlierCreditCap = 64;
  static constexpr int kEarlierRetry = 64;
  int earlier_credit_ = kEarlierCreditCap;
  int earlier_skipped_ = 0;
};

}  // namespace ebb::storage
