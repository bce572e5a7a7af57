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
#include <type_traits>
#include <vector>

#include "storage/env/file.h"
#include "storage/format/internal_iterator.h"
#include "storage/format/table_properties.h"
#include "storage/status.h"
#include "storage/table/table_builder.h"

namespace ebb::storage {

class Block;
class BlockCache;

// A non-owning reference to a callable `bool(std::string_view internal_key, std::string_view
// encoded_row)` that returns false to stop. Unlike std::function it never allocates.
// REQUIRES: the callable outlives the EntryVisitor (pass lambdas straight to the call).
class EntryVisitor {
 public:
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, EntryVisitor>>>
  EntryVisitor(F&& f)  // NOLINT(google-explicit-constructor): used like a function parameter
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_(&Call<std::remove_reference_t<F>>) {}

  bool operator()(std::string_view internal_key, std::string_view encoded_row) const {
    return call_(object_, internal_key, encoded_row);
  }

 private:
  template <typename F>
  static bool Call(void* f, std::string_view key, std::string_view value) {
    return (*static_cast<F*>(f))(key, value);
  }

  void* object_;
  bool (*call_)(void*, std::string_view, std::string_view);
};

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
  // Point lookup without iterators. `lookup_key` is an internal key (LookupKey(user_key, seq)).
  // Unless the bloom filter rules the user key out, offers visitor(internal_key, encoded_row)
  // the table's entries >= lookup_key that have the same user key — its versions, newest first,
  // across data block boundaries — until the visitor returns false or they run out.
  // Returns OK (having offered nothing, or some) or the first read error / Corruption; the
  // views passed to the visitor are valid only during the call. fill_cache as NewIterator.
  Status Get(std::string_view lookup_key, bool fill_cache, EntryVisitor visitor) const;
  // False only if the bloom filter proves no version of `user_key` is in the table.
  bool KeyMayMatch(std::string_view user_key) const;
  const TableProperties& properties() const;
  // The approximate file offset where entries >= `internal_key` begin (the file's data size if
  // past the last key).
  uint64_t ApproximateOffsetOf(std::string_view internal_key) const;
  // Where the data blocks end: ApproximateOffsetOf of every key past the last.
  uint64_t DataSize() const;
  // Memory the open table holds for as long as it is open: its index block and bloom filter.
  size_t MetadataBytes() const;

  // Salvage (ebb-check --repair): offers `visitor` every entry of every data block that reads
  // intact, in order, reading on past damage: a block whose read fails, or the rest of a block
  // from a malformed entry on, is skipped and its Corruption appended to *damage. Returns a
  // Corruption only if the index itself is damaged (no later block can be found).
  Status Salvage(EntryVisitor visitor, std::vector<Status>* damage) const;

  // Reads the data block at `handle_encoding` (an index entry's value). For the iterator.
  Status ReadDataBlock(std::string_view handle_encoding, bool fill_cache,
                       std::shared_ptr<const Block>* block) const;

 private:
  struct Rep;
  explicit Table(std::unique_ptr<Rep> rep);
  std::unique_ptr<Rep> rep_;
};

}  // namespace ebb::storage
