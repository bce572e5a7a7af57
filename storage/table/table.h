// Table: a read-only, open SST file (docs/sst-format.md).
//
// Open reads and verifies the footer, index, bloom filter and properties and keeps them in
// memory for the Table's life (index_bytes(), filter_bytes()): a point read of a key costs at
// most one data block read per table whose filter admits the key, and a key the filter rules
// out costs none. Data blocks are read on demand through the BlockCache (if any). Every block
// read verifies its crc32c; a mismatch (or any malformed structure) is a Corruption naming the
// file and the block offset — wrong data is never returned.
//
// Reads that must not wait for the disk carry a BlockFetch (block_fetch.h): a data block that is
// neither pinned there nor cached is then wanted instead of read, and the read returns
// Incomplete. That needs the Table to be owned by a shared_ptr (the want keeps it open); a
// Table owned otherwise reads such blocks inline. Sequential scans of a file read with direct
// I/O read ahead (readahead.h).
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
#include "storage/table/format.h"
#include "storage/table/table_builder.h"

namespace ebb::storage {

class Block;
class BlockCache;
class BlockFetch;
class Readahead;

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

class Table : public std::enable_shared_from_this<Table> {
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
  // blocks without inserting them in the cache (scans, compaction). `fetch`, when given, points
  // at the BlockFetch the iterator's block reads carry (nullptr: none); it is read at each
  // block read, so the owner of an iterator may change it between uses.
  std::unique_ptr<InternalIterator> NewIterator(bool fill_cache = true,
                                                BlockFetch* const* fetch = nullptr) const;
  // Point lookup without iterators. `lookup_key` is an internal key (LookupKey(user_key, seq)).
  // Unless the bloom filter rules the user key out, offers visitor(internal_key, encoded_row)
  // the table's entries >= lookup_key that have the same user key — its versions, newest first,
  // across data block boundaries — until the visitor returns false or they run out.
  // Returns OK (having offered nothing, or some) or the first read error / Corruption; the
  // views passed to the visitor are valid only during the call. fill_cache as NewIterator;
  // with a `fetch`, Incomplete when a block it needs is not in memory (block_fetch.h).
  Status Get(std::string_view lookup_key, bool fill_cache, EntryVisitor visitor,
             BlockFetch* fetch = nullptr) const;
  // False only if the bloom filter proves no version of `user_key` is in the table.
  bool KeyMayMatch(std::string_view user_key) const;
  const TableProperties& properties() const;
  // The approximate file offset where entries >= `internal_key` begin (the file's data size if
  // past the last key).
  uint64_t ApproximateOffsetOf(std::string_view internal_key) const;
  // Where the data blocks end: ApproximateOffsetOf of every key past the last.
  uint64_t DataSize() const;

  // Salvage (ebb-check --repair): offers `visitor` every entry of every data block that reads
  // intact, in order, reading on past damage: a block whose read fails, or the rest of a block
  // from a malformed entry on, is skipped and its Corruption appended to *damage. Returns a
  // Corruption only if the index itself is damaged (no later block can be found).
  Status Salvage(EntryVisitor visitor, std::vector<Status>* damage) const;

  // Reads the data block at `handle_encoding` (an index entry's value). For the iterators:
  // through `fetch` as Get does (nullptr: none), and through `readahead` (nullptr: none) when
  // the file is read with direct I/O.
  Status ReadDataBlock(std::string_view handle_encoding, bool fill_cache,
                       std::shared_ptr<const Block>* block, BlockFetch* fetch = nullptr,
                       Readahead* readahead = nullptr) const;

  // For the iterators: when `fetch` is cache_only, wants the (up to) n data blocks after the one
  // whose index entry is `index_key` that are not in memory. Reads nothing.
  void WantBlocksAfter(std::string_view index_key, size_t n, bool fill_cache,
                       BlockFetch* fetch) const;

  // For BlockFetch::Fill: verifies and decodes the block at `handle` from `data` (the block
  // and its trailer as read from the file), inserts it in the cache if `fill_cache`, and sets
  // *block. Corruption if `data` is short or damaged.
  Status InstallBlock(const BlockHandle& handle, std::string_view data, bool fill_cache,
                      std::shared_ptr<const Block>* block) const;

  uint64_t file_number() const;
  const RandomAccessFile& file() const;
  const std::string& name() const;  // the file's path, as errors name it
  // Memory held for the table's life: its index block and its bloom filter.
  size_t index_bytes() const;
  size_t filter_bytes() const;

 private:
  struct Rep;
  explicit Table(std::unique_ptr<Rep> rep);
  // The data block at `handle`: pinned in `fetch`, cached, wanted (Incomplete) or read.
  Status ReadData(const BlockHandle& handle, bool fill_cache, BlockFetch* fetch,
                  Readahead* readahead, std::shared_ptr<const Block>* block) const;
  std::unique_ptr<Rep> rep_;
};

}  // namespace ebb::storage
