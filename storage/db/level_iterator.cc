#include "storage/db/level_iterator.h"

#include <algorithm>

#include "storage/db/table_cache.h"
#include "storage/format/internal_key.h"

namespace ebb::storage {
namespace {

class LevelIterator final : public InternalIterator {
 public:
  LevelIterator(TableCache* table_cache, FileList files, bool fill_cache,
                const std::optional<std::string>* lower_bound,
                const std::optional<std::string>* upper_bound, BlockFetch* const* fetch)
      : table_cache_(table_cache),
        files_(std::move(files)),
        fill_cache_(fill_cache),
        lower_bound_(lower_bound),
        upper_bound_(upper_bound),
        fetch_(fetch),
        end_(files_.size()) {}

  bool Valid() const override { return file_iter_ != nullptr && file_iter_->Valid(); }
  std::string_view key() const override { return file_iter_->key(); }
  std::string_view value() const override { return file_iter_->value(); }
  Status status() const override {
    if (!status_.ok()) return status_;
    return file_iter_ != nullptr ? file_iter_->status() : Status::OK();
  }

  void Seek(std::string_view target) override {
    ApplyBounds();
    // The first file whose largest key is >= target: the only one that can hold it.
    const auto first = files_.begin() + static_cast<ptrdiff_t>(begin_);
    const auto last = files_.begin() + static_cast<ptrdiff_t>(end_);
    const auto it = std::partition_point(first, last, [&](const auto& file) {
      return CompareInternalKeys(file->largest, target) < 0;
    });
    if (!OpenFile(static_cast<size_t>(it - files_.begin()))) return;
    file_iter_->Seek(target);
    SkipEmptyFilesForward();
  }
  void SeekToFirst() override {
    ApplyBounds();
    if (!OpenFile(begin_)) return;
    file_iter_->SeekToFirst();
    SkipEmptyFilesForward();
  }
  void SeekToLast() override {
    ApplyBounds();
    if (end_ == begin_ || !OpenFile(end_ - 1)) return;
    file_iter_->SeekToLast();
    SkipEmptyFilesBackward();
  }
  void Next() override {
    file_iter_->Next();
    SkipEmptyFilesForward();
  }
  void Prev() override {
    file_iter_->Prev();
    SkipEmptyFilesBackward();
  }

 private:
  // Sets [begin_, end_) to the files that overlap the bounds, and clears a failed open.
  void ApplyBounds() {
    status_ = Status::OK();
    begin_ = 0;
    end_ = files_.size();
    // Skip the files that end below the lower bound; stop before those that start at the upper.
    if (lower_bound_->has_value()) begin_ = FindFile(files_, **lower_bound_);
    if (upper_bound_->has_value()) {
      const auto it = std::partition_point(files_.begin(), files_.end(), [&](const auto& file) {
        return CompareUserKeys(ExtractUserKey(file->smallest), **upper_bound_) < 0;
      });
      end_ = static_cast<size_t>(it - files_.begin());
    }
    end_ = std::max(begin_, end_);
  }

  // Makes file_iter_ an iterator over files_[index] (unpositioned), keeping the open one when it
  // already is. False, with no file open, when index is outside [begin_, end_) or the open
  // failed (status_).
  bool OpenFile(size_t index) {
    if (index < begin_ || index >= end_) {
      file_iter_.reset();
      return false;
    }
    if (file_iter_ != nullptr && file_index_ == index) return true;
    file_iter_.reset();
    Status s = table_cache_->NewIterator(*files_[index], fill_cache_, &file_iter_, fetch_);
    if (!s.ok()) {
      status_ = s;
      file_iter_.reset();
      return false;
    }
    file_index_ = index;
    return true;
  }

  // While the open file is exhausted (and did not fail), moves to the start of the next one.
  void SkipEmptyFilesForward() {
    while (file_iter_ != nullptr && !file_iter_->Valid() && file_iter_->status().ok()) {
      if (!OpenFile(file_index_ + 1)) return;
      file_iter_->SeekToFirst();
    }
  }
  // While the open file is exhausted (and did not fail), moves to the end of the previous one.
  void SkipEmptyFilesBackward() {
    while (file_iter_ != nullptr && !file_iter_->Valid() && file_iter_->status().ok()) {
      if (file_index_ == begin_ || !OpenFile(file_index_ - 1)) {
        file_iter_.reset();
        return;
      }
      file_iter_->SeekToLast();
    }
  }

  TableCache* const table_cache_;
  const FileList files_;
  const bool fill_cache_;
  const std::optional<std::string>* const lower_bound_;
  const std::optional<std::string>* const upper_bound_;
  BlockFetch* const* const fetch_;
  size_t begin_ = 0;  // files_[begin_, end_): those overlapping the bounds
  size_t end_;
  std::unique_ptr<InternalIterator> file_iter_;  // over files_[file_index_], or none
  size_t file_index_ = 0;
  Status status_;  // a failed open
};

}  // namespace

size_t FindFile(const FileList& files, std::string_view user_key) {
  const auto it = std::partition_point(files.begin(), files.end(), [&](const auto& file) {
    return CompareUserKeys(ExtractUserKey(file->largest), user_key) < 0;
  });
  return static_cast<size_t>(it - files.begin());
}

std::unique_ptr<InternalIterator> NewLevelIterator(TableCache* table_cache, FileList files,
                                                   bool fill_cache,
                                                   const std::optional<std::string>* lower_bound,
                                                   const std::optional<std::string>* upper_bound,
                                                   BlockFetch* const* fetch) {
  return std::make_unique<LevelIterator>(table_cache, std::move(files), fill_cache, lower_bound,
                                         upper_bound, fetch);
}

}  // namespace ebb::storage
