#include "storage/db/table_cache.h"

namespace ebb::storage {

// Milestone 1: no table files exist yet (nothing flushes); the SST layer is wired in next.
TableCache::TableCache(std::string dir, std::shared_ptr<FileSystem> fs, BlockCache* block_cache,
                       int capacity)
    : dir_(std::move(dir)), fs_(std::move(fs)), block_cache_(block_cache), capacity_(capacity) {}
TableCache::~TableCache() = default;

Status TableCache::NewIterator(const FileMetaData&, bool, std::unique_ptr<InternalIterator>*) {
  return Status::NotSupported("table files are not readable by this build");
}
Status TableCache::NewIteratorIfMayMatch(const FileMetaData&, std::string_view, bool,
                                         std::unique_ptr<InternalIterator>*) {
  return Status::NotSupported("table files are not readable by this build");
}
void TableCache::Evict(uint64_t) {}

}  // namespace ebb::storage
