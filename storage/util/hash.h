// Hash: LevelDB's 32-bit Murmur-like hash, used by the bloom filters of tables written before the
// cache-local encoding (persisted through their bits, so its output must never change) and the
// block cache's sharding.
// Hash64: a 64-bit hash that reads 8 bytes at a time, for the memtable's key index and the
// cache-local bloom filter, which persists it through its bits: its output must never change.
// About half the instructions of std::hash<std::string_view> (Murmur2) on a 16-byte key; like it,
// unseeded.
// Thread-safe (pure functions).
#pragma once

#include <cstddef>
#include <cstdint>

namespace ebb::storage {

uint32_t Hash(const char* data, size_t n, uint32_t seed);
uint64_t Hash64(const char* data, size_t n);

}  // namespace ebb::storage
