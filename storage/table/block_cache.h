// BlockCache: a bounded LRU cache of uncompressed SST blocks shared by every open table.
//
// Key: (file number, block offset) — file numbers are never reused, so entries of a deleted file
// are merely dead weight until evicted (EraseFile drops them at once). Charge: the block's size.
// Blocks are handed out as shared_ptr<const Block>: an evicted block stays valid while an
// iterator still holds it. A hit costs one hash lookup; an insert one map node. The cache is split
// into shards (by key hash), each with its own mutex and capacity_bytes / shards of the budget;
// small caches (< 8 MiB) use a single shard so their eviction order is exact LRU. A block bigger
// than a shard's capacity is not cached. Thread-safety: every method is safe to call concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "storage/table/block.h"

namespace ebb::storage {

class BlockCache {
 public:
  explicit BlockCache(size_t capacity_bytes);
  ~BlockCache();

  BlockCache(const BlockCache&) = delete;
  BlockCache& operator=(const BlockCache&) = delete;

  // The cached block, marked most recently used; nullptr on a miss. Counts a hit or a miss.
  std::shared_ptr<const Block> Lookup(uint64_t file_number, uint64_t offset);
  // Caches `block` (replacing an entry with the same key), evicting least recently used blocks
  // until usage <= capacity.
  void Insert(uint64_t file_number, uint64_t offset, std::shared_ptr<const Block> block);
  // Drops every block of `file_number`.
  void EraseFile(uint64_t file_number);

  size_t capacity() const { return capacity_; }
  size_t usage() const;     // bytes charged by cached blocks
  uint64_t hits() const;    // Lookups that found their block
  uint64_t misses() const;  // Lookups that did not

 private:
  class Shard;
  Shard& ShardFor(uint64_t file_number, uint64_t offset);

  const size_t capacity_;
  std::vector<std::unique_ptr<Shard>> shards_;
};

}  // namespace ebb::storage
