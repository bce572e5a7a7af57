#include "storage/table/block_cache.h"

#include <list>
#include <mutex>
#include <unordered_map>

namespace ebb::storage {
namespace {

struct CacheKey {
  uint64_t file_number;
  uint64_t offset;
  bool operator==(const CacheKey&) const = default;
};

struct CacheKeyHash {
  size_t operator()(const CacheKey& k) const {
    uint64_t h = k.file_number * 0x9e3779b97f4a7c15ull ^ (k.offset + 0x632be59bd9b4e019ull);
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    return static_cast<size_t>(h ^ (h >> 32));
  }
};

constexpr size_t kShardedMinCapacity = 8 << 20;
constexpr size_t kNumShards = 16;

}  // namespace

class BlockCache::Shard {
 public:
  explicit Shard(size_t capacity) : capacity_(capacity) {}

  std::shared_ptr<const Block> Lookup(const CacheKey& key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    lru_.splice(lru_.begin(), lru_, it->second);  // most recently used to the front
    return it->second->block;
  }

  void Insert(const CacheKey& key, std::shared_ptr<const Block> block) {
    const size_t charge = block->size();
    std::lock_guard<std::mutex> lock(mu_);
    Erase(key);
    if (charge > capacity_) return;
    lru_.push_front(Entry{key, std::move(block), charge});
    index_[key] = lru_.begin();
    usage_ += charge;
    while (usage_ > capacity_) Erase(lru_.back().key);
  }

  void EraseFile(uint64_t file_number) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = lru_.begin(); it != lru_.end();) {
      auto next = std::next(it);
      if (it->key.file_number == file_number) Erase(it->key);
      it = next;
    }
  }

  size_t usage() const {
    std::lock_guard<std::mutex> lock(mu_);
    return usage_;
  }

 private:
  struct Entry {
    CacheKey key;
    std::shared_ptr<const Block> block;
    size_t charge;
  };

  // REQUIRES: mu_ held.
  void Erase(const CacheKey& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return;
    usage_ -= it->second->charge;
    lru_.erase(it->second);
    index_.erase(it);
  }

  const size_t capacity_;
  mutable std::mutex mu_;
  std::list<Entry> lru_;  // front = most recently used
  std::unordered_map<CacheKey, std::list<Entry>::iterator, CacheKeyHash> index_;
  size_t usage_ = 0;
};

BlockCache::BlockCache(size_t capacity_bytes) : capacity_(capacity_bytes) {
  const size_t shards = capacity_bytes >= kShardedMinCapacity ? kNumShards : 1;
  for (size_t i = 0; i < shards; ++i) {
    shards_.push_back(std::make_unique<Shard>(capacity_bytes / shards));
  }
}

BlockCache::~BlockCache() = default;

BlockCache::Shard& BlockCache::ShardFor(uint64_t file_number, uint64_t offset) {
  return *shards_[CacheKeyHash{}(CacheKey{file_number, offset}) % shards_.size()];
}

std::shared_ptr<const Block> BlockCache::Lookup(uint64_t file_number, uint64_t offset) {
  auto block = ShardFor(file_number, offset).Lookup(CacheKey{file_number, offset});
  (block ? hits_ : misses_).fetch_add(1, std::memory_order_relaxed);
  return block;
}

void BlockCache::Insert(uint64_t file_number, uint64_t offset, std::shared_ptr<const Block> block) {
  ShardFor(file_number, offset).Insert(CacheKey{file_number, offset}, std::move(block));
}

void BlockCache::EraseFile(uint64_t file_number) {
  for (auto& shard : shards_) shard->EraseFile(file_number);
}

size_t BlockCache::usage() const {
  size_t total = 0;
  for (const auto& shard : shards_) total += shard->usage();
  return total;
}

}  // namespace ebb::storage
