// Options for opening the engine, writing and reading.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/row.h"

namespace ebb::storage {

class BlockFetch;
class Clock;
class CompactionFilter;
class DiskReadLatency;
class EngineLatency;
class FileSystem;
struct ReadStateHold;
class Snapshot;

// on-disk: never change (stored per block in SST files).
enum class Compression : uint8_t { kNone = 0, kLz4 = 1, kZstd = 2 };

enum class WalFsync { kAlways, kEverySec, kNo };

// How much of a user key is its seek prefix, or 0 for none (Options::seek_prefix_length).
using SeekPrefixLength = size_t (*)(std::string_view user_key);

struct Options {
  // Where "now" comes from. nullptr: a SystemClock owned by the engine.
  std::shared_ptr<Clock> clock;
  // The file layer (tests inject faults through it). nullptr: the POSIX file system.
  std::shared_ptr<FileSystem> file_system;
  // Called by compaction for every value row; nullptr: none. Must outlive the DB.
  std::shared_ptr<CompactionFilter> compaction_filter;
  // Optional: how much of a user key is its seek prefix (the part a range scan seeks to, such
  // as one log's entries share), or 0 for none. REQUIRES: every key that starts with a key's
  // prefix has a prefix of the same length. The memtable then finds the smallest key of a
  // prefix without a skiplist search. nullptr: no prefixes.
  SeekPrefixLength seek_prefix_length = nullptr;
  // Optional: user-key prefixes whose keys live in table files of their own (no prefix empty or
  // starting with another). No table a flush or compaction writes spans the edge of such a
  // prefix's range, so keys written in order under one (the active-active origin log) flush to
  // files that overlap no other: such a file moves down the levels without a rewrite, and a
  // range deletion of the oldest keys drops whole files (storage/db/file_regions.h). Their
  // files have no bloom filter: keys under such a prefix are for scans (a point read of one
  // still finds it, by reading the block the index names).
  std::vector<std::string> separate_file_prefixes;
  // Optional: where the engine's threads record how long their work took (WAL fsyncs, flushes,
  // compactions, whole-file drops: storage/engine_latency.h). nullptr: not recorded.
  std::shared_ptr<EngineLatency> engine_latency;
  // Optional: where reads of table blocks from disk record how long they took
  // (storage/disk_read_latency.h); shared so the server's block reader records into it too.
  // nullptr: the DB keeps its own (DB::disk_read_latency).
  std::shared_ptr<DiskReadLatency> disk_read_latency;

  size_t memtable_size = 64 << 20;      // a memtable this big is frozen and flushed
  size_t block_size = 4 << 10;          // target uncompressed size of an SST data block
  size_t block_cache_size = 256 << 20;  // bytes of uncompressed blocks kept in the LRU cache
  int bloom_bits_per_key = 10;          // 0 disables bloom filters
  Compression compression = Compression::kLz4;
  WalFsync wal_fsync = WalFsync::kEverySec;

  // Leveled compaction: L0 is compacted when it has this many files; level 1 holds
  // level1_max_bytes, each deeper level level_size_multiplier times more.
  int l0_compaction_trigger = 4;
  int l0_stop_writes_trigger = 12;  // writes wait while L0 has this many files
  // Frozen memtables waiting for their flush; a write that fills the active memtable waits
  // while there are this many. Memtable memory is bounded by (1 + this) * memtable_size, plus
  // one write's worth each.
  int max_frozen_memtables = 2;
  uint64_t level1_max_bytes = 256ull << 20;
  int level_size_multiplier = 10;
  uint64_t target_file_size = 64ull << 20;
  int max_open_files = 1000;  // table cache capacity
  // Table files are read with O_DIRECT (where the file system allows it), so the block cache is
  // the only cache of their blocks and reads that miss it go to the device (RocksDB's
  // use_direct_reads). Sequential scans then read ahead themselves (storage/table/readahead.h).
  bool use_direct_reads = false;

  // Expiry (Riak's modes; Lethe's purge bound).
  bool expiration_enabled = true;                  // false: expiry is recorded but nothing expires
  bool whole_file_expiry = true;                   // drop fully expired files by a manifest edit
  int64_t purge_deadline_ms = 24ll * 3600 * 1000;  // expired bytes gone this long after expiry

  bool create_if_missing = true;
};

struct WriteOptions {
  // The version's timestamp. Absent: the row carries no timestamp.
  std::optional<int64_t> timestamp_ms;
  // Expiry, relative: expire_at = (timestamp_ms, or the clock's now if absent) + ttl_ms.
  std::optional<int64_t> ttl_ms;
  // Expiry, absolute (ms since epoch). Wins over ttl_ms when both are set.
  std::optional<int64_t> expire_at_ms;
  // Under WalFsync::kAlways a write is fdatasync'ed before it returns, unless defer_sync is set:
  // then the caller must call DB::SyncWal() before it acknowledges the write (group commit).
  bool defer_sync = false;
  // The pass of reads this write belongs to (storage/table/block_fetch.h, "Writes"): when one
  // of its reads came back Incomplete the write is refused with Incomplete and changes nothing;
  // otherwise the pass's later reads read inline. nullptr: none.
  BlockFetch* block_fetch = nullptr;
};

struct ReadOptions {
  // Provided, not implicit: for the implicit constructor GCC 12 zero-fills all 128 bytes with
  // `rep stosq` (the bounds' payloads too), where this one stores the members' initializers
  // only. Every point read builds one (about 1.5% of a GET's CPU at P=16 went to the fill).
  ReadOptions() {}  // NOLINT(modernize-use-equals-default)

  // The SlateDB RFC's retrieval grace: <= 0 takes the most recently written version; > 0 keeps
  // walking older versions while their timestamp > best.ts - grace and takes the greatest
  // timestamp seen (ties: the more recently written). See db.h, Get.
  int64_t retrieval_grace_ms = 0;
  // Read as of this snapshot; nullptr: the latest state.
  const Snapshot* snapshot = nullptr;
  // Iterators only: bounds on user keys, [lower_bound, upper_bound). Empty optional: unbounded.
  std::optional<std::string> lower_bound;
  std::optional<std::string> upper_bound;
  // Iterators only, with retrieval_grace_ms <= 0: also show the keys whose most recently written
  // version is a tombstone or an expired value (the key's dead version: its kind is not shown;
  // Get with dead_version tells it). Keys ending in a wipe or hidden by a range deletion are
  // still skipped. What an active-active snapshot lists: deletions travel too.
  bool include_dead = false;
  bool fill_cache = true;
  // DB::Get only, optional: when the key is absent because of the version the read rule took
  // (a tombstone, a wipe or an expired value), receives that version; reset otherwise (a live
  // key, or no version at all). Lets the layer above count the keys it found expired (INFO
  // expired_keys) and learn a deleted key's timestamp without a second read.
  std::optional<DeadVersion>* dead_version = nullptr;
  // Reads that must not wait for the disk (storage/table/block_fetch.h): a data block found
  // neither pinned in the fetch nor in the block cache is wanted there, and the read returns
  // Incomplete (Get) or the iterator becomes invalid with that status. nullptr: blocks are read
  // inline.
  BlockFetch* block_fetch = nullptr;
  // Get and GetPinned only, optional: the read state the caller holds for a run of point reads
  // (DB::HoldReadState). While it is the published one the read walks it without taking the
  // state itself, and a value GetPinned leaves in a memtable stays valid while the hold is held
  // (the row holds no pin of its own); a stale hold, or one of another DB, is passed over.
  const ReadStateHold* held_state = nullptr;
};

}  // namespace ebb::storage
