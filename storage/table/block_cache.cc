#include "storage/table/block_cache.h"

#include <mutex>
#include <unordered_map>

#include "storage/table/block_address.h"

namespace ebb::storage {
namespace {

constexpr size_t kShardedMinCapacity = 8 << 20;
constexpr size_t kNumShards = 16;

}  // namespace

// One shard: a hash map whose entries are also threaded on an intrusive LRU list, so a hit is
// one hash lookup plus pointer moves and an insert allocates one map node.
class BlockCache::Shard {
 public:
  explicit Shard(size_t capacity) : capacity_(capacity) {
    head_.prev = head_.next = &head_;  // empty circular list
  }

  std::shared_ptr<const Block> Lookup(const BlockAddress& key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = index_.find(key);
    if (it == index_.end()) {
      ++misses_;
      return nullptr;
    }
    ++hits_;
    Entry* e = &it->second;
    Unlink(e);
    LinkFront(e);  // most recently used
    return e->block;
  }

  void Insert(const BlockAddress& key, std::shared_ptr<const Block> block) {
    const size_t charge = block->size();
    std::shared_ptr<const Block> dropped;  // released after the lock (frees outside it)
    std::lock_guard<std::mutex> lock(mu_);
    if (charge > capacity_) {
      auto it = index_.find(key);
      if (it != index_.end()) dropped = Erase(it);
      return;
    }
    auto [it, inserted] = index_.try_emplace(key);
    Entry* e = &it->second;
    if (inserted) {
      e->key = key;
    } else {
      usage_ -= e->charge;
      Unlink(e);
      dropped = std::move(e->block);
    }
    e->block = std::move(block);
    e->charge = charge;
    LinkFront(e);
    usage_ += charge;
    while (usage_ > capacity_) Erase(index_.find(head_.prev->key));  // least recently used
  }

  void EraseFile(uint64_t file_number) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = index_.begin(); it != index_.end();) {
      if (it->first.file_number == file_number) {
        usage_ -= it->second.charge;
        Unlink(&it->second);
        it = index_.erase(it);
      } else {
        ++it;
      }
    }
  }

  size_t usage() const {
    std::lock_guard<std::mutex> lock(mu_);
    return usage_;
  }
  uint64_t hits() const {
    std::lock_guard<std::mutex> lock(mu_);
    return hits_;
  }
  uint64_t misses() const {
    std::lock_guard<std::mutex> lock(mu_);
    return misses_;
  }

 private:
  struct Entry {
    Entry* prev = nullptr;
    Entry* next = nullptr;
    BlockAddress key{};
    std::shared_ptr<const Block> block;
    size_t charge = 0;
  };
  using Index = std::unordered_map<BlockAddress, Entry, BlockAddressHash>;

  // REQUIRES: mu_ held (for all below).
  void Unlink(Entry* e) {
    e->prev->next = e->next;
    e->next->prev = e->prev;
  }
  void LinkFront(Entry* e) {
    e->next = head_.next;
    e->prev = &head_;
    head_.next->prev = e;
    head_.next = e;
  }
  // Removes the entry; returns its block so the caller decides where it is released.
  std::shared_ptr<const Block> Erase(Index::iterator it) {
    std::shared_ptr<const Block> block = std::move(it->second.block);
    usage_ -= it->second.charge;
    Unlink(&it->second);
    index_.erase(it);
    return block;
  }

  const size_t capacity_;
  mutable std::mutex mu_;
  Entry head_;   // sentinel: head_.next = most recently used, head_.prev = least
  Index index_;  // map nodes never move, so Entry pointers stay valid until erased
  size_t usage_ = 0;
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
};

BlockCache::BlockCache(size_t capacity_bytes) : capacity_(capacity_bytes) {
  const size_t shards = capacity_bytes >= kShardedMinCapacity ? kNumShards : 1;
  for (size_t i = 0; i < shards; ++i) {
    shards_.push_back(std::make_unique<Shard>(capacity_bytes / shards));
  }
}

BlockCache::~BlockCache() = default;

BlockCache::Shard& BlockCache::ShardFor(uint64_t file_number, uint64_t offset) {
  return *shards_[BlockAddressHash{}(BlockAddress{file_number, offset}) % shards_.size()];
}

std::shared_ptr<const Block> BlockCache::Lookup(uint64_t file_number, uint64_t offset) {
  return ShardFor(file_number, offset).Lookup(BlockAddress{file_number, offset});
}

void BlockCache::Insert(uint64_t file_number, uint64_t offset, std::shared_ptr<const Block> block) {
  ShardFor(file_number, offset).Insert(BlockAddress{file_number, offset}, std::move(block));
}

void BlockCache::EraseFile(uint64_t file_number) {
  for (auto& shard : shards_) shard->EraseFile(file_number);
}

size_t BlockCache::usage() const {
  size_t total = 0;
  for (const auto& shard : shards_) total += shard->usage();
  return total;
}

uint64_t BlockCache::hits() const {
  uint64_t total = 0;
  for (const auto& shard : shards_) total += shard->hits();
  return total;
}

uint64_t BlockCache::misses() const {
  uint64_t total = 0;
  for (const auto& shard : shards_) total += shard->misses();
  return total;
}

}  // namespace ebb::storage
