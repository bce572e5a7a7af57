// SkipList: an ordered set of keys in an Arena, as in LevelDB.
//
// Keys are never removed; Insert adds a key that must not already be present.
// Thread-safety: Insert needs external synchronization (one writer at a time). Reads (iterators)
// need none: they may run concurrently with one writer, because nodes are published
// with release stores and never freed while the list lives.
// Comparator: int operator()(const Key& a, const Key& b) const, <0/0/>0. Lookups may use another
// probe type P when the comparator also has int operator()(const Key& a, const P& b) const.
#pragma once

#include <atomic>
#include <cassert>
#include <cstdint>
#include <random>

#include "storage/db/arena.h"

namespace ebb::storage {

template <typename Key, class Comparator>
class SkipList {
 private:
  struct Node;

 public:
  SkipList(Comparator cmp, Arena* arena)
      : compare_(cmp), arena_(arena), head_(NewNode(Key(), kMaxHeight)) {
    for (int i = 0; i < kMaxHeight; i++) head_->SetNext(i, nullptr);
  }
  SkipList(const SkipList&) = delete;
  SkipList& operator=(const SkipList&) = delete;

  // Where an inserted key sits: Iterator::SeekTo(handle) goes there without a search.
  using Handle = const void*;

  // REQUIRES: nothing equal to key is in the list; external synchronization.
  Handle Insert(const Key& key) {
    Node* prev[kMaxHeight];
    [[maybe_unused]] Node* x = FindGreaterOrEqual(key, prev);
    assert(x == nullptr || compare_(x->key, key) != 0);
    const int height = RandomHeight();
    const int max_height = max_height_.load(std::memory_order_relaxed);
    if (height > max_height) {
      for (int i = max_height; i < height; i++) prev[i] = head_;
      max_height_.store(height, std::memory_order_relaxed);
    }
    Node* node = NewNode(key, height);
    for (int i = 0; i < height; i++) {
      node->NoBarrierSetNext(i, prev[i]->NoBarrierNext(i));
      prev[i]->SetNext(i, node);
    }
    return node;
  }

  // Iteration over the list. Valid while the list lives.
  class Iterator {
   public:
    explicit Iterator(const SkipList* list) : list_(list) {}
    bool Valid() const { return node_ != nullptr; }
    const Key& key() const { return node_->key; }
    void Next() { node_ = node_->Next(0); }
    void Prev() {
      node_ = list_->FindLessThan(node_->key);
      if (node_ == list_->head_) node_ = nullptr;
    }
    template <class Probe>
    void Seek(const Probe& target) {
      node_ = list_->FindGreaterOrEqual(target, nullptr);
    }
    // REQUIRES: `handle` came from Insert on this list.
    void SeekTo(Handle handle) { node_ = static_cast<Node*>(const_cast<void*>(handle)); }
    void SeekToFirst() { node_ = list_->head_->Next(0); }
    void SeekToLast() {
      node_ = list_->FindLast();
      if (node_ == list_->head_) node_ = nullptr;
    }

   private:
    const SkipList* list_;
    Node* node_ = nullptr;
  };

 private:
  static constexpr int kMaxHeight = 12;

  struct Node {
    explicit Node(const Key& k) : key(k) {}
    Key const key;
    Node* Next(int n) { return next_[n].load(std::memory_order_acquire); }
    void SetNext(int n, Node* x) { next_[n].store(x, std::memory_order_release); }
    Node* NoBarrierNext(int n) { return next_[n].load(std::memory_order_relaxed); }
    void NoBarrierSetNext(int n, Node* x) { next_[n].store(x, std::memory_order_relaxed); }

   private:
    std::atomic<Node*> next_[1];  // really `height` entries, allocated with the node
  };

  Node* NewNode(const Key& key, int height) {
    char* mem = arena_->Allocate(sizeof(Node) + sizeof(std::atomic<Node*>) * (height - 1));
    return new (mem) Node(key);
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
  Node* FindGreaterOrEqual(const Probe& key, Node** prev) const {
    Node* x = head_;
    int level = max_height_.load(std::memory_order_relaxed) - 1;
    while (true) {
      Node* next = x->Next(level);
      if (level > 0) __builtin_prefetch(x->NoBarrierNext(level - 1));
      if (next != nullptr && compare_(next->key, key) < 0) {
        x = next;
      } else {
        if (prev != nullptr) prev[level] = x;
        if (level == 0) return next;
        level--;
      }
    }
  }

  // Last node < key, or head_.
  Node* FindLessThan(const Key& key) const {
    Node* x = head_;
    int level = max_height_.load(std::memory_order_relaxed) - 1;
    while (true) {
      Node* next = x->Next(level);
      if (next != nullptr && compare_(next->key, key) < 0) {
        x = next;
      } else {
        if (level == 0) return x;
        level--;
      }
    }
  }

  Node* FindLast() const {
    Node* x = head_;
    int level = max_height_.load(std::memory_order_relaxed) - 1;
    while (true) {
      Node* next = x->Next(level);
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
  Node* const head_;
  std::atomic<int> max_height_{1};
  std::minstd_rand rnd_{0xdeadbeef};
};

}  // namespace ebb::storage
