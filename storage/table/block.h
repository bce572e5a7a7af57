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
  class Iter;

  std::string contents_;
  uint32_t restart_offset_ = 0;  // where the restart array begins
  uint32_t num_restarts_ = 0;    // 0 if malformed
};

}  // namespace ebb::storage
