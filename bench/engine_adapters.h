// BenchEngine: the few operations engine_bench's workloads need, implemented once for ebb's
// engine (storage::DB, engine_ebb.cc) and once for RocksDB (engine_rocksdb.cc), so that every
// workload runs the same code against both.
//
// Both are opened with the same settings (see BenchSettings): WAL on without fsync, a 64 MiB
// memtable, 4 KiB blocks, a bloom filter of 10 bits per key, no compression, the same block
// cache size. Expiry: ebb stores it natively (WriteOptions::ttl_ms against its Clock); RocksDB
// gets an 8-byte expire_at prepended to every value and a CompactionFilter that drops rows whose
// expire_at <= the same clock's now (RocksDB's DBWithTTL would read the real time, which the
// benchmark cannot move).
//
// A failed engine call is fatal: the adapter prints the status and exits (this is a benchmark).
// Thread-safety: one BenchEngine is driven by one thread; engines run their own background
// threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "storage/clock.h"

namespace ebb::bench {

struct BenchSettings {
  size_t memtable_size = 64 << 20;
  size_t block_size = 4 << 10;
  size_t block_cache_size = 256 << 20;
  int bloom_bits_per_key = 10;
  // Where "now" comes from for expiry. nullptr: the engine's own real-time clock.
  std::shared_ptr<storage::ManualClock> clock;
  // RocksDB only. true: the WAL is buffered in the process and handed to the OS in large writes,
  // as ebb's WAL is under WalFsync::kNo (its file layer buffers 64 KiB); false: RocksDB's default,
  // one write(2) per Put.
  bool rocksdb_manual_wal_flush = true;
  // ebb only: expired bytes must be gone this long after they expire (RocksDB has no such bound).
  int64_t purge_deadline_ms = 24ll * 3600 * 1000;
};

// A positioned read over the engine's live keys; reused across many seeks.
class BenchCursor {
 public:
  virtual ~BenchCursor() = default;
  // Positions at the first key >= target; returns false if there is none. On success the
  // key and value have been read (their sizes are added to *bytes).
  virtual bool Seek(std::string_view target, uint64_t* bytes) = 0;
};

class BenchEngine {
 public:
  virtual ~BenchEngine() = default;
  virtual const char* name() const = 0;
  // Writes key -> value. ttl_ms > 0: the row expires ttl_ms after the clock's now.
  virtual void Put(std::string_view key, std::string_view value, int64_t ttl_ms) = 0;
  // Reads the live value of key into *value; false if absent (or expired).
  virtual bool Get(std::string_view key, std::string* value) = 0;
  // Reads every live key and value in order; returns how many.
  virtual uint64_t ScanAll() = 0;
  virtual std::unique_ptr<BenchCursor> NewCursor() = 0;
  // Writes the memtable to a table file; returns when it is installed.
  virtual void Flush() = 0;
  // Flushes, then compacts everything to the last level (expired rows are dropped on the way).
  virtual void CompactAll() = 0;
  // Bytes of the table files the engine's current version lists (what it still needs). Files
  // on disk beyond these are obsolete ones not yet deleted.
  virtual uint64_t LiveTableBytes() = 0;
  // Where reclaimed table bytes came from so far: whole files dropped without a rewrite, and
  // compactions (bytes read minus bytes written). Zero for an engine that does not report them.
  struct Reclaimed {
    uint64_t whole_file_bytes = 0;
    uint64_t whole_files = 0;
    uint64_t compaction_bytes_read = 0;
    uint64_t compaction_bytes_written = 0;
  };
  virtual Reclaimed ReclaimedSoFar() { return {}; }
};

// Opens (creating) a database in `dir`, which must not exist yet or be empty.
std::unique_ptr<BenchEngine> OpenEbb(const BenchSettings& settings, const std::string& dir);
std::unique_ptr<BenchEngine> OpenRocksDb(const BenchSettings& settings, const std::string& dir);
// "major.minor.patch" of the RocksDB headers the benchmark was built with.
std::string RocksDbVersion();

}  // namespace ebb::bench
