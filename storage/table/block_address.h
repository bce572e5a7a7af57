// BlockAddress: where a table block lies across every table of the engine, the key of the
// block cache (block_cache.h) and of a read pass's pinned blocks (block_fetch.h). File numbers
// are never reused, so an address names one block for good.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ebb::storage {

struct BlockAddress {
  uint64_t file_number;
  uint64_t offset;  // the block's handle offset in that file
  bool operator==(const BlockAddress&) const = default;
};

// Mixes both halves, so that the blocks of one file spread over a hash table's buckets (and the
// block cache's shards).
struct BlockAddressHash {
  size_t operator()(const BlockAddress& a) const {
    uint64_t h = a.file_number * 0x9e3779b97f4a7c15ull ^ (a.offset + 0x632be59bd9b4e019ull);
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    return static_cast<size_t>(h ^ (h >> 32));
  }
};

}  // namespace ebb::storage
