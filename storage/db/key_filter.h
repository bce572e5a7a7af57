// KeyFilter: a blocked Bloom filter over the distinct user keys of one memtable, so a point read
// of a key the memtable never saw skips the skiplist search (about one cache miss instead of a
// dozen). Each key sets kProbes bits inside one 64-byte block chosen by a 64-bit hash.
//
// Sized once at construction; with ~10 bits per key the false-positive rate is about 1%, and it
// grows gracefully past that (more false positives, never a false negative).
// Thread-safety: one writer (Add, under the DB mutex) concurrently with any number of readers;
// a key added before a reader synchronized with the writer (the DB mutex) is always seen.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

namespace ebb::storage {

class KeyFilter {
 public:
  // `bits`: filter size; rounded up to whole 512-bit blocks, at least one.
  explicit KeyFilter(size_t bits);

  void Add(std::string_view key);
  // False only if `key` was never added.
  bool MayContain(std::string_view key) const;

 private:
  static constexpr int kProbes = 6;
  static constexpr size_t kWordsPerBlock = 8;  // 64 bytes

  // The first word of the key's block, and the hash that picks bits inside it.
  const std::atomic<uint64_t>* Block(uint64_t hash) const;

  size_t num_blocks_;
  std::unique_ptr<std::atomic<uint64_t>[]> words_;
};

}  // namespace ebb::storage
