// TableCache: open SST files (Table objects), kept in an LRU of at most `capacity` tables
// (Options::max_open_files), sharing one BlockCache. An open table holds its index and bloom
// filter in memory (table.h); Usage() sums them. Tables are opened for direct reads when
// `direct_reads` is set (Options::use_direct_reads) and the file system allows it.
//
// Iterators it returns keep their Table alive even if it is evicted meanwhile.
// Thread-safety: every method is safe to call concurrently.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "storage/db/version_edit.h"
#include "storage/env/file.h"
#include "storage/format/internal_iterator.h"
#include "storage/table/table.h"

namespace ebb::storage {

class BlockCache;
class DiskReadLatency;

class TableCache {
 public:
  // `read_latency` (may be null; outlives the cache) receives the durations of the tables'
  // data block reads (TableOptions::read_latency).
  TableCache(std::string dir, std::shared_ptr<FileSystem> fs, BlockCache* block_cache, int capacity,
             bool direct_reads = false, DiskReadLatency* read_latency = nullptr);
  ~TableCache();

  // An iterator over every entry of the table `file`; `fetch` as Table::NewIterator.
  Status NewIterator(const FileMetaData& file, bool fill_cache,
                     std::unique_ptr<InternalIterator>* iter, BlockFetch* const* fetch = nullptr);
  // Table::Get on the table `file` (bloom check, then the versions of lookup_key's user key,
  // newest first, offered to `visitor` until it returns false), through `fetch` (nullptr:
  // none). The table stays open meanwhile.
  Status Get(const FileMetaData& file, std::string_view lookup_key, bool fill_cache,
             EntryVisitor visitor, BlockFetch* fetch = nullptr);
  // The share (0 to 1) of the data of table `file` whose user keys lie in [lower, upper) (empty
  // `upper`: no bound), from its index alone (Table::ApproximateOffsetOf).
  Status ApproximateShare(const FileMetaData& file, std::string_view lower, std::string_view upper,
                          double* share);
  // Opens the table `file` unless it is open, so later reads find its index and filter in
  // memory (the engine's background thread warms new and recovered files).
  Status Warm(const FileMetaData& file);
  // Forgets a deleted file.
  void Evict(uint64_t number);

  struct Usage {
    size_t tables = 0;         // open
    size_t direct_tables = 0;  // of those, read with direct I/O
    size_t index_bytes = 0;    // their index blocks
    size_t filter_bytes = 0;   // their bloom filters
  };
  Usage GetUsage() const;
  size_t capacity() const { return capacity_; }

 private:
  Status FindTable(const FileMetaData& file, std::shared_ptr<Table>* table);

  const std::string dir_;
  const std::shared_ptr<FileSystem> fs_;
  BlockCache* const block_cache_;
  const size_t capacity_;
  const bool direct_reads_;
  DiskReadLatency* const read_latency_;
  mutable std::mutex mu_;
  Usage usage_;              // of tables_
  std::list<uint64_t> lru_;  // front = most recently used
  struct Entry {
    std::shared_ptr<Table> table;
    std::list<uint64_t>::iterator lru_pos;
  };
  std::unordered_map<uint64_t, Entry> tables_;
};

}  // namespace ebb::storage
