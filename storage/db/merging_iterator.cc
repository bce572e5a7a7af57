#include "storage/db/merging_iterator.h"

#include <string>
#include <string_view>
#include <vector>

#include "storage/format/internal_key.h"

namespace ebb::storage {
namespace {

// Forward, the children that are valid sit in a binary min-heap by key, each with its key as of
// its last move: a step moves the smallest child and sifts it down, about log2(children)
// comparisons, where a scan of every child took one per child (a compaction merges one child per
// input file, a dozen or more). Backward, the largest is found by a scan, as LevelDB's does; the
// heap is built again when the direction turns forward.
class MergingIterator final : public InternalIterator {
 public:
  explicit MergingIterator(std::vector<std::unique_ptr<InternalIterator>> children)
      : children_(std::move(children)) {
    heap_.reserve(children_.size());
  }

  bool Valid() const override { return current_ != nullptr; }

  void SeekToFirst() override {
    for (auto& child : children_) child->SeekToFirst();
    BuildHeap();
  }
  void SeekToLast() override {
    for (auto& child : children_) child->SeekToLast();
    FindLargest();
  }
  void Seek(std::string_view target) override {
    for (auto& child : children_) child->Seek(target);
    BuildHeap();
  }

  void Next() override {
    if (direction_ != kForward) {
      // Put every other child just after key(); current_ is already there.
      const std::string key(current_->key());
      for (auto& child : children_) {
        if (child.get() == current_) continue;
        child->Seek(key);
        if (child->Valid() && CompareInternalKeys(key, child->key()) == 0) child->Next();
      }
      current_->Next();
      BuildHeap();
      return;
    }
    // current_ is the heap's top.
    current_->Next();
    if (current_->Valid()) {
      heap_[0].key = current_->key();
    } else {
      heap_[0] = heap_.back();
      heap_.pop_back();
    }
    if (!heap_.empty()) SiftDown(0);
    current_ = heap_.empty() ? nullptr : heap_[0].child;
  }

  void Prev() override {
    if (direction_ != kReverse) {
      // Put every other child just before key().
      const std::string key(current_->key());
      for (auto& child : children_) {
        if (child.get() == current_) continue;
        child->Seek(key);
        if (child->Valid()) {
          child->Prev();
        } else {
          child->SeekToLast();
        }
      }
    }
    current_->Prev();
    FindLargest();
  }

  std::string_view key() const override { return current_->key(); }
  std::string_view value() const override { return current_->value(); }
  Status status() const override {
    for (const auto& child : children_) {
      Status s = child->status();
      if (!s.ok()) return s;
    }
    return Status::OK();
  }

 private:
  enum Direction { kForward, kReverse };
  struct Entry {
    InternalIterator* child;
    std::string_view key;  // the child's key, valid until the child moves
  };

  // The valid children into the heap; current_ the smallest.
  void BuildHeap() {
    direction_ = kForward;
    heap_.clear();
    for (auto& child : children_) {
      if (child->Valid()) heap_.push_back({child.get(), child->key()});
    }
    for (size_t i = heap_.size() / 2; i-- > 0;) SiftDown(i);
    current_ = heap_.empty() ? nullptr : heap_[0].child;
  }
  void SiftDown(size_t i) {
    const Entry entry = heap_[i];
    for (;;) {
      size_t smallest = 2 * i + 1;
      if (smallest >= heap_.size()) break;
      if (smallest + 1 < heap_.size() &&
          CompareInternalKeys(heap_[smallest + 1].key, heap_[smallest].key) < 0) {
        smallest++;
      }
      if (CompareInternalKeys(heap_[smallest].key, entry.key) >= 0) break;
      heap_[i] = heap_[smallest];
      i = smallest;
    }
    heap_[i] = entry;
  }
  void FindLargest() {
    direction_ = kReverse;
    current_ = nullptr;
    for (auto& child : children_) {
      if (child->Valid() &&
          (current_ == nullptr || CompareInternalKeys(child->key(), current_->key()) > 0)) {
        current_ = child.get();
      }
    }
  }

  std::vector<std::unique_ptr<InternalIterator>> children_;
  std::vector<Entry> heap_;  // forward only
  InternalIterator* current_ = nullptr;
  Direction direction_ = kForward;
};

}  // namespace

std::unique_ptr<InternalIterator> NewMergingIterator(
    std::vector<std::unique_ptr<InternalIterator>> children) {
  return std::make_unique<MergingIterator>(std::move(children));
}

}  // namespace ebb::storage
