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
inline const char* DecodeEntry(const char* p, const char* limit, uint32_t* shared,
                               uint32_t* non_shared, uint32_t* value_length) {
  if (limit - p < 3) return nullptr;
  *shared = static_cast<uint8_t>(p[0]);
  *non_shared = static_cast<uint8_t>(p[1]);
  *value_length = static_cast<uint8_t>(p[2]);
  if ((*shared | *non_shared | *value_length) < 128) {
    p += 3;  // fast path: all three lengths fit in one byte each
  } else {
    if ((p = GetVarint32Ptr(p, limit, shared)) == nullptr) return nullptr;
    if ((p = GetVarint32Ptr(p, limit, non_shared)) == nullptr) return nullptr;
    if ((p = GetVarint32Ptr(p, limit, value_length)) == nullptr) return nullptr;
  }
  if (static_cast<uint64_t>(*non_shared) + *value_length > static_cast<uint64_t>(limit - p)) {
    return nullptr;
  }
  return p;
}

}  // namespace

BlockCursor::BlockCursor(const Block& block, KeyComparator compare)
    : compare_(compare),
      data_(block.contents_.data()),
      restarts_(block.restart_offset_),
      num_restarts_(block.num_restarts_),
      current_(restarts_),
      restart_index_(num_restarts_),
      corrupted_(block.malformed()) {}

uint32_t BlockCursor::RestartPoint(uint32_t index) const {
  return DecodeFixed32(data_ + restarts_ + index * 4);
}

void BlockCursor::SeekToRestartPoint(uint32_t index) {
  key_ = {};
  restart_index_ = index;
  const uint32_t offset = RestartPoint(index);
  value_ = std::string_view(data_ + offset, 0);  // NextEntryOffset() == offset
}

void BlockCursor::CorruptionError() {
  MarkInvalid();
  corrupted_ = true;
  key_ = {};
  value_ = {};
}

bool BlockCursor::ParseNextKey() {
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
  if (shared == 0) {
    key_ = std::string_view(p, non_shared);  // stored whole: no copy
  } else {
    if (key_.data() == key_buf_.data()) {
      key_buf_.resize(shared);
    } else {
      key_buf_.assign(key_.data(), shared);  // key_ views the block, never key_buf_ here
    }
    key_buf_.append(p, non_shared);
    key_ = key_buf_;
  }
  value_ = std::string_view(p + non_shared, value_length);
  while (restart_index_ + 1 < num_restarts_ && RestartPoint(restart_index_ + 1) < current_) {
    ++restart_index_;
  }
  return true;
}

void BlockCursor::Seek(std::string_view target) {
  if (num_restarts_ == 0) return;
  // Binary search for the last restart point whose key < target.
  uint32_t left = 0, right = num_restarts_ - 1;
  while (left < right) {
    const uint32_t mid = (left + right + 1) / 2;
    // The next probe is the middle of [left, mid - 1] or of [mid, right]: start loading both
    // restart slots now, so the one taken is in cache when this compare has decided.
    __builtin_prefetch(data_ + restarts_ + ((left + mid) / 2) * 4);
    __builtin_prefetch(data_ + restarts_ + ((mid + right + 1) / 2) * 4);
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

void BlockCursor::SeekToFirst() {
  if (num_restarts_ == 0) return;
  SeekToRestartPoint(0);
  ParseNextKey();
}

void BlockCursor::SeekToLast() {
  if (num_restarts_ == 0) return;
  SeekToRestartPoint(num_restarts_ - 1);
  while (ParseNextKey() && NextEntryOffset() < restarts_) {
  }
}

void BlockCursor::Prev() {
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

// The InternalIterator over a block: a BlockCursor plus shared ownership of the block.
class Block::Iter final : public InternalIterator {
 public:
  Iter(std::shared_ptr<const Block> block, KeyComparator compare)
      : block_(std::move(block)), cursor_(*block_, compare) {}

  bool Valid() const override { return cursor_.Valid(); }
  Status status() const override {
    if (!cursor_.corrupted()) return Status::OK();
    return Status::Corruption(block_->malformed() ? "malformed block" : "bad entry in block");
  }
  std::string_view key() const override { return cursor_.key(); }
  std::string_view value() const override { return cursor_.value(); }
  void Next() override { cursor_.Next(); }
  void Prev() override { cursor_.Prev(); }
  void Seek(std::string_view target) override { cursor_.Seek(target); }
  void SeekToFirst() override { cursor_.SeekToFirst(); }
  void SeekToLast() override { cursor_.SeekToLast(); }

 private:
  const std::shared_ptr<const Block> block_;
  BlockCursor cursor_;
};

std::unique_ptr<InternalIterator> Block::NewIterator(std::shared_ptr<const Block> block,
                                                     KeyComparator compare) {
  return std::make_unique<Iter>(std::move(block), compare);
}

}  // namespace ebb::storage
