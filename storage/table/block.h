// Block: an immutable, uncompressed SST block (data, index or metaindex) and its iterator.
//
//   block   = entry* restart:fixed32{num_restarts} num_restarts:fixed32
//   entry   = shared:varint32 non_shared:varint32 value_length:varint32
//             key_delta[non_shared] value[value_length]
// Keys are prefix-compressed against the previous key; every kRestartInterval-th entry stores
// its whole key (shared = 0) and its offset is listed in the restart array, so Seek is a binary
// search over restarts, then a short linear scan. See docs/sst-format.md.
// Thread-safety: a Block is immutable after construction; any number of iterators may read it
// concurrently. Each iterator is used by one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "storage/format/internal_iterator.h"

namespace ebb::storage {

// Orders keys within a block: CompareInternalKeys for data and index blocks, CompareUserKeys
// (bytewise) for the metaindex.
using KeyComparator = int (*)(std::string_view, std::string_view);

class Block {
 public:
  // Takes the uncompressed contents (without the 5-byte trailer). If they are malformed, every
  // iterator reports Corruption.
  explicit Block(std::string contents);

  size_t size() const { return contents_.size(); }
  std::string_view contents() const { return contents_; }
  bool malformed() const { return num_restarts_ == 0; }

  // An iterator that shares ownership of `block`, so the block outlives cache eviction.
  static std::unique_ptr<InternalIterator> NewIterator(std::shared_ptr<const Block> block,
                                                       KeyComparator compare);

 private:
  friend class BlockCursor;
  class Iter;

  std::string contents_;
  uint32_t restart_offset_ = 0;  // where the restart array begins
  uint32_t num_restarts_ = 0;    // 0 if malformed
};

// BlockCursor: a position in a Block without virtual calls or heap allocation of its own, for
// hot paths (Table::Get); Block's iterator is built on it. Same contract as InternalIterator:
// Seek = first entry >= target; once an entry is malformed the cursor is invalid and
// corrupted() is true. key() and value() stay valid until the cursor moves.
// REQUIRES: the Block outlives the cursor. Thread-safety: one thread per cursor.
class BlockCursor {
 public:
  BlockCursor(const Block& block, KeyComparator compare);

  bool Valid() const { return current_ < restarts_; }
  bool corrupted() const { return corrupted_; }  // malformed block or entry
  std::string_view key() const { return key_; }
  std::string_view value() const { return value_; }

  void Seek(std::string_view target);
  void SeekToFirst();
  void SeekToLast();
  void Next() { ParseNextKey(); }
  void Prev();

 private:
  uint32_t RestartPoint(uint32_t index) const;
  uint32_t NextEntryOffset() const {
    return static_cast<uint32_t>(value_.data() + value_.size() - data_);
  }
  void SeekToRestartPoint(uint32_t index);
  void MarkInvalid() {
    current_ = restarts_;
    restart_index_ = num_restarts_;
  }
  void CorruptionError();
  // Decodes the entry at NextEntryOffset(); false at the end or on corruption.
  bool ParseNextKey();

  const KeyComparator compare_;
  const char* const data_;
  const uint32_t restarts_;  // offset of the restart array = end of the entries
  const uint32_t num_restarts_;
  uint32_t current_;        // offset of the current entry; >= restarts_ if invalid
  uint32_t restart_index_;  // restart block containing current_
  bool corrupted_ = false;
  // key_ views the block itself for an entry stored whole (shared == 0), else key_buf_.
  std::string_view key_;
  std::string key_buf_;
  std::string_view value_;
};

}  // namespace ebb::storage
