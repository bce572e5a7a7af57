// Table: a read-only, open SST file (docs/sst-format.md).
//
// Open reads and verifies the footer, index, bloom filter and properties and keeps them in
// memory. Data blocks are read on demand through the BlockCache (if any). Every block read
// verifies its crc32c; a mismatch (or any malformed structure) is a Corruption naming the file
// and the block offset — wrong data is never returned.
// Thread-safety: a Table is immutable after Open; any number of threads may create and use
// iterators concurrently (each iterator is used by one thread). Iterators reference the Table:
// destroy them before it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "storage/env/file.h"
#include "storage/format/internal_iterator.h"
#include "storage/format/table_properties.h"
#include "storage/status.h"
#include "storage/table/table_builder.h"

namespace ebb::storage {

class Block;
class BlockCache;

class Table {
 public:
  // Opens the SST in `file` of `file_size` bytes. `file_number` keys the block cache; `cache`
  // may be nullptr. The reader needs none of `options` today (the file describes its own
  // compression and filter); it is accepted so reading options can be added compatibly.
  static Status Open(const TableOptions& options, std::unique_ptr<RandomAccessFile> file,
                     uint64_t file_size, uint64_t file_number, BlockCache* cache,
                     std::string name_for_errors, std::unique_ptr<Table>* table);
  ~Table();

  Table(const Table&) = delete;
  Table& operator=(const Table&) = delete;

  // A two-level iterator (index -> data blocks) over every entry. fill_cache=false reads
  // blocks without inserting them in the cache (scans, compaction).
  std::unique_ptr<InternalIterator> NewIterator(bool fill_cache = true) const;
  // False only if the bloom filter proves no version of `user_key` is in the table.
  bool KeyMayMatch(std::string_view user_key) const;
  const TableProperties& properties() const;
  // The approximate file offset where entries >= `internal_key` begin (the file's data size if
  // past the last key).
  uint64_t ApproximateOffsetOf(std::string_view internal_key) const;

  // Reads the data block at `handle_encoding` (an index entry's value). For the iterator.
  Status ReadDataBlock(std::string_view handle_encoding, bool fill_cache,
                       std::shared_ptr<const Block>* block) const;

 private:
  struct Rep;
  explicit Table(std::unique_ptr<Rep> rep);
  std::unique_ptr<Rep> rep_;
};

}  // namespace ebb::storage
