// BlockFetch: the data blocks one pass of reads needed and did not find in memory, and the
// blocks fetched for it — RocksDB's `read_tier = kBlockCacheTier` and the retry that goes with
// it, for a caller that must not wait for the disk (ebb-server's command thread).
//
// A read that carries a BlockFetch (ReadOptions::block_fetch) looks for each data block it
// needs first among the blocks pinned here, then in the block cache. While the fetch is
// cache_only(), a block found in neither is not read: it is added to wants() and the read
// returns Status::Incomplete (an iterator becomes invalid with that status; other reads of the
// pass go on and add their own wants, so a pass asks for everything it can find out it needs
// in one round). Otherwise the block is read on the spot, as without a BlockFetch, and counted
// in inline_reads(). Index and filter blocks are always in memory (table.h), so only data
// blocks are ever wanted.
//
// The driver of the pass then reads every wanted block — all at once, elsewhere — and hands
// each one's bytes, or the error its read gave, to Fill. Fill verifies the block (checksum,
// decompression), puts it in the block cache when the read that wanted it fills the cache, and
// pins it here. Then the driver runs the pass again from its start (BeginPass). The rerun finds
// the pinned blocks whatever the cache evicted meanwhile, so every round gets further; a block
// whose read failed gives the rerun that error, and only this fetch's reads see it.
// EndRequest ends the request the passes ran for: it drops the wants, the round count and the
// pins (unless a lookahead keeps them).
//
// Seek hints. A point read (Table::Get) whose block was wanted notes which block of the table
// its key led to (NoteBlockFor); the rerun takes that block from the pins (PinnedBlockFor)
// instead of searching the table's index and filter again, after checking that the block still
// fits the key. Hints go with the pins.
//
// Lookahead. A driver that has further requests queued behind an incomplete one (a pipeline)
// may run them too, read-only, before it reads the blocks: BeginLookahead starts a pass that
// adds to the wants instead of replacing them and keeps every pin until Release, so one round
// of reads serves the whole queue.
//
// Writes. A write that carries the fetch (WriteOptions::block_fetch) is refused with
// Incomplete, changing nothing, once a read of the pass came back Incomplete: the pass will run
// again, so it must not have changed anything. A write that is let through ends cache_only: a
// pass that wrote cannot run again, so its later reads read inline.
//
// Example (what the server's dispatcher and connection do for one command):
//   fetch.BeginPass(/*cache_only=*/true);
//   run the command with reads and writes carrying &fetch;
//   while (fetch.incomplete()) {
//     for each i: read wants()[i] (one io_uring submission for all), then Fill(i, ...);
//     fetch.BeginPass(fetch.rounds() < kMaxRounds); run the command again;
//   }
//   fetch.EndRequest();
//
// Thread-safety: one thread at a time. wants() may be read by other threads (the readers)
// while the owner does not change the fetch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "storage/env/aligned_buffer.h"
#include "storage/status.h"
#include "storage/table/block_address.h"
#include "storage/table/format.h"

namespace ebb::storage {

class Block;
class RandomAccessFile;
class Table;

class BlockFetch {
 public:
  // One block to read: [read_offset, read_offset + read_length) of `file`, through fd() when it
  // is >= 0 (else file->Read), into a buffer aligned to `alignment`. The range is the block and
  // its trailer, widened to the file's alignment (direct I/O); a read of it may end short at the
  // end of the file.
  struct Want {
    std::shared_ptr<const Table> table;  // keeps the file open while the block is read
    BlockHandle handle;
    bool fill_cache = true;
    const RandomAccessFile* file = nullptr;  // table's file
    int fd = -1;
    size_t alignment = 1;
    uint64_t read_offset = 0;
    size_t read_length = 0;
  };

  BlockFetch() = default;
  ~BlockFetch();
  BlockFetch(const BlockFetch&) = delete;
  BlockFetch& operator=(const BlockFetch&) = delete;

  // Starts a pass — the first or a rerun — with no wants. Counts the previous pass in rounds()
  // if it came back incomplete. REQUIRES: every want of the previous pass was Filled.
  void BeginPass(bool cache_only) {
    ClearWants();
    cache_only_ = cache_only;
  }
  bool cache_only() const { return cache_only_; }
  // Blocks the pass needs, in the order it found out; each at most once.
  const std::vector<Want>& wants() const { return wants_; }
  // True when a read of the pass came back Incomplete.
  bool incomplete() const { return !wants_.empty(); }

  // The result of reading wants()[i]: `data` is what the read returned from read_offset on (it
  // may end short at the end of the file), or `read_error` when the read failed. Pins the block
  // or the error (a short or damaged block pins a Corruption). REQUIRES: i < wants().size().
  void Fill(size_t i, const Status& read_error, std::string_view data);

  // Reads `want` on the calling thread (through want.file->Read) into *buffer (made to fit);
  // *data views what was read. For readers that may wait: reader threads, tests, tools.
  static Status ReadWant(const Want& want, AlignedBuffer* buffer, std::string_view* data);
  // Reads every want on the calling thread and Fills it.
  void ReadAndFillAll();

  // Starts a lookahead pass (above): cache only, adding to wants(); pins kept until Release.
  void BeginLookahead();
  // Bytes the wants will read.
  size_t wanted_bytes() const { return wanted_bytes_; }

  // Passes of the current request that came back incomplete.
  size_t rounds() const { return rounds_; }
  // Bytes of the blocks pinned for reruns.
  size_t pinned_bytes() const { return pinned_bytes_; }
  // Blocks read on the spot by reads of this fetch while it was not cache_only (since it was
  // made; nothing resets the count).
  uint64_t inline_reads() const { return inline_reads_; }

  // Ends the request: drops the wants and the pins (unless a lookahead keeps them), rounds() back
  // to 0, cache_only() false.
  void EndRequest() {
    cache_only_ = false;
    ClearWants();
    rounds_ = 0;
    if (!keep_pins_ && (!pins_.empty() || !hints_.empty())) DropPins();
  }
  // EndRequest, and drops every pin (a lookahead's too).
  void Release();

  // --- For the table reader (storage/table/table.cc) and the engine's writes.

  // True (and *block or *error set) when a block or error is pinned for (file, offset).
  bool FindPinned(uint64_t file_number, uint64_t offset, std::shared_ptr<const Block>* block,
                  Status* error) const;
  // Adds the block `handle` of `table` to the wants unless it is wanted already.
  void AddWant(std::shared_ptr<const Table> table, const BlockHandle& handle, bool fill_cache);
  void CountInlineRead() { ++inline_reads_; }
  // Seek hints (above): the block at `offset` of table `file_number` is where `user_key` led.
  void NoteBlockFor(uint64_t file_number, std::string_view user_key, uint64_t offset);
  // The block, pinned without error, that a pass noted for `user_key` in the table (*offset set),
  // or nullptr. A hint may be wrong for the key (hashes collide): the caller checks the block.
  std::shared_ptr<const Block> PinnedBlockFor(uint64_t file_number, std::string_view user_key,
                                              uint64_t* offset) const;
  // A write of the pass is about to be made: false if it must be refused (incomplete());
  // otherwise ends cache_only and returns true.
  bool AdmitWrite();

 private:
  struct Pin {
    std::shared_ptr<const Block> block;  // nullptr when the read failed
    Status error;
  };
  // Hints are looked for one by one: a request keeps this many at most (a lookahead's point
  // reads are at most 64).
  static constexpr size_t kMaxHints = 64;
  struct Hint {
    uint64_t file_number;
    size_t key_hash;
    uint64_t offset;
  };

  // Drops the wants of an incomplete pass (counting it in rounds_); nothing if there are none.
  // Every command passes here twice, inline: a set's clear() writes its whole bucket array, so
  // only sets that hold something are cleared.
  void ClearWants() {
    if (!wants_.empty()) ClearWantsOfAnIncompletePass();
  }
  void ClearWantsOfAnIncompletePass();
  // Drops every pin and hint (pinned_bytes_ back to 0).
  void DropPins();

  bool cache_only_ = false;
  bool keep_pins_ = false;  // a lookahead's pins wait for later requests
  std::vector<Want> wants_;
  size_t wanted_bytes_ = 0;
  std::unordered_set<BlockAddress, BlockAddressHash> wanted_;  // the keys of wants_
  std::unordered_map<BlockAddress, Pin, BlockAddressHash> pins_;
  std::vector<Hint> hints_;  // at most kMaxHints, each for a block wanted since the pins began
  size_t rounds_ = 0;
  size_t pinned_bytes_ = 0;
  uint64_t inline_reads_ = 0;
};

}  // namespace ebb::storage
