#include "storage/table/block.h"

#include "storage/util/coding.h"

namespace ebb::storage {

Block::Block(std::string contents) : contents_(std::move(contents)) {
  if (contents_.size() < 4) return;
  const uint32_t n = DecodeFixed32(contents_.data() + contents_.size() - 4);
  const uint64_t array_bytes = (static_cast<uint64_t>(n) + 1) * 4;
  if (n == 0 || array_bytes > contents_.size()) return;
  restart_offset_ = static_cast<uint32_t>(contents_.size() - array_bytes);
  num_restarts_ = n;
}

namespace {

// Decodes the entry header at p (< limit). Returns the start of the key delta, or nullptr.
const char* DecodeEntry(const char* p, const char* limit, uint32_t* shared, uint32_t* non_shared,
                        uint32_t* value_length) {
  std::string_view in(p, limit - p);
  if (!GetVarint32(&in, shared) || !GetVarint32(&in, non_shared) ||
      !GetVarint32(&in, value_length)) {
    return nullptr;
  }
  if (static_cast<uint64_t>(*non_shared) + *value_length > in.size()) return nullptr;
  return in.data();
}

}  // namespace

class Block::Iter final : public InternalIterator {
 public:
  Iter(std::shared_ptr<const Block> block, KeyComparator compare)
      : block_(std::move(block)),
        compare_(compare),
        data_(block_->contents_.data()),
        restarts_(block_->restart_offset_),
        num_restarts_(block_->num_restarts_),
        current_(restarts_),
        restart_index_(num_restarts_) {
    if (block_->malformed()) status_ = Status::Corruption("malformed block");
  }

  bool Valid() const override { return current_ < restarts_; }
  Status status() const override { return status_; }
  std::string_view key() const override { return key_; }
  std::string_view value() const override { return value_; }

  void Next() override { ParseNextKey(); }

  void Prev() override {
    // Back up to the restart point before current_, then scan forward to just before it.
    const uint32_t original = current_;
    while (RestartPoint(restart_index_) >= original) {
      if (restart_index_ == 0) {
        MarkInvalid();
        return;
      }
      --restart_index_;
    }
    SeekToRestartPoint(restart_index_);
    do {
    } while (ParseNextKey() && NextEntryOffset() < original);
  }

  void Seek(std::string_view target) override {
    if (num_restarts_ == 0) return;
    // Binary search for the last restart point whose key < target.
    uint32_t left = 0, right = num_restarts_ - 1;
    while (left < right) {
      const uint32_t mid = (left + right + 1) / 2;
      const uint32_t offset = RestartPoint(mid);
      if (offset >= restarts_) {
        CorruptionError();
        return;
      }
      uint32_t shared, non_shared, value_length;
      const char* key_ptr =
          DecodeEntry(data_ + offset, data_ + restarts_, &shared, &non_shared, &value_length);
      if (key_ptr == nullptr || shared != 0) {
        CorruptionError();
        return;
      }
      if (compare_(std::string_view(key_ptr, non_shared), target) < 0) {
        left = mid;
      } else {
        right = mid - 1;
      }
    }
    SeekToRestartPoint(left);
    while (ParseNextKey()) {
      if (compare_(key_, target) >= 0) return;
    }
  }

  void SeekToFirst() override {
    if (num_restarts_ == 0) return;
    SeekToRestartPoint(0);
    ParseNextKey();
  }

  void SeekToLast() override {
    if (num_restarts_ == 0) return;
    SeekToRestartPoint(num_restarts_ - 1);
    while (ParseNextKey() && NextEntryOffset() < restarts_) {
    }
  }

 private:
  uint32_t RestartPoint(uint32_t index) const {
    return DecodeFixed32(data_ + restarts_ + index * 4);
  }
  uint32_t NextEntryOffset() const {
    return static_cast<uint32_t>(value_.data() + value_.size() - data_);
  }
  void SeekToRestartPoint(uint32_t index) {
    key_.clear();
    restart_index_ = index;
    const uint32_t offset = RestartPoint(index);
    value_ = std::string_view(data_ + offset, 0);  // NextEntryOffset() == offset
  }
  void MarkInvalid() {
    current_ = restarts_;
    restart_index_ = num_restarts_;
  }
  void CorruptionError() {
    MarkInvalid();
    status_ = Status::Corruption("bad entry in block");
    key_.clear();
    value_ = {};
  }

  // Decodes the entry at NextEntryOffset(); false at the end or on corruption.
  bool ParseNextKey() {
    current_ = NextEntryOffset();
    if (current_ >= restarts_) {
      MarkInvalid();
      return false;
    }
    uint32_t shared, non_shared, value_length;
    const char* p =
        DecodeEntry(data_ + current_, data_ + restarts_, &shared, &non_shared, &value_length);
    if (p == nullptr || key_.size() < shared) {
      CorruptionError();
      return false;
    }
    key_.resize(shared);
    key_.append(p, non_shared);
    value_ = std::string_view(p + non_shared, value_length);
    while (restart_index_ + 1 < num_restarts_ && RestartPoint(restart_index_ + 1) < current_) {
      ++restart_index_;
    }
    return true;
  }

  const std::shared_ptr<const Block> block_;
  const KeyComparator compare_;
  const char* const data_;
  const uint32_t restarts_;  // offset of the restart array = end of the entries
  const uint32_t num_restarts_;
  uint32_t current_;        // offset of the current entry; >= restarts_ if invalid
  uint32_t restart_index_;  // restart block containing current_
  std::string key_;
  std::string_view value_;
  Status status_;
};

std::unique_ptr<InternalIterator> Block::NewIterator(std::shared_ptr<const Block> block,
                                                     KeyComparator compare) {
  return std::make_unique<Iter>(std::move(block), compare);
}

}  // namespace ebb::storage
