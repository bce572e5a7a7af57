#include "storage/db/merging_iterator.h"

#include "storage/format/internal_key.h"

namespace ebb::storage {
namespace {

class MergingIterator final : public InternalIterator {
 public:
  explicit MergingIterator(std::vector<std::unique_ptr<InternalIterator>> children)
      : children_(std::move(children)) {}

  bool Valid() const override { return current_ != nullptr; }

  void SeekToFirst() override {
    for (auto& child : children_) child->SeekToFirst();
    FindSmallest();
    direction_ = kForward;
  }
  void SeekToLast() override {
    for (auto& child : children_) child->SeekToLast();
    FindLargest();
    direction_ = kReverse;
  }
  void Seek(std::string_view target) override {
    for (auto& child : children_) child->Seek(target);
    FindSmallest();
    direction_ = kForward;
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
      direction_ = kForward;
    }
    current_->Next();
    FindSmallest();
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
      direction_ = kReverse;
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

  void FindSmallest() {
    current_ = nullptr;
    for (auto& child : children_) {
      if (child->Valid() &&
          (current_ == nullptr || CompareInternalKeys(child->key(), current_->key()) < 0)) {
        current_ = child.get();
      }
    }
  }
  void FindLargest() {
    current_ = nullptr;
    for (auto& child : children_) {
      if (child->Valid() &&
          (current_ == nullptr || CompareInternalKeys(child->key(), current_->key()) > 0)) {
        current_ = child.get();
      }
    }
  }

  std::vector<std::unique_ptr<InternalIterator>> children_;
  InternalIterator* current_ = nullptr;
  Direction direction_ = kForward;
};

}  // namespace

std::unique_ptr<InternalIterator> NewMergingIterator(
    std::vector<std::unique_ptr<InternalIterator>> children) {
  return std::make_unique<MergingIterator>(std::move(children));
}

}  // namespace ebb::storage
