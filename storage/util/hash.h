// Hash: LevelDB's 32-bit Murmur-like hash, used by the bloom filter (persisted through filter
// bits, so its output must never change) and the block cache's sharding.
// Thread-safe (pure function).
#pragma once

#include <cstddef>
#include <cstdint>

namespace ebb::storage {

uint32_t Hash(const char* data, size_t n, uint32_t seed);

}  // namespace ebb::storage
