// Hash: LevelDB's 32-bit Murmur-like hash, used by the bloom filter (persisted through filter
// bits, so its output must never change) and the block cache's sharding.
// Hash64: a 64-bit hash that reads 8 bytes at a time, for in-memory indexes only (the memtable's
// key index): nothing persists it, so it may change. About half the instructions of
// std::hash<std::string_view> (Murmur2) on a 16-byte key; like it, unseeded.
// Thread-safe (pure functions).
#pragma once

#include <cstddef>
#include <cstdint>

namespace ebb::storage {

uint32_t Hash(const char* data, size_t n, uint32_t seed);
uint64_t Hash64(const char* data, size_t n);

}  // namespace ebb::storage
