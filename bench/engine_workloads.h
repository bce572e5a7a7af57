// engine_bench's workloads (LevelDB/RocksDB db_bench names), each a timed loop over a
// BenchEngine, plus the key/value generators and the on-disk size probe they share.
//
// Keys are 16 bytes: the key number as 16 decimal digits ("0000000000000042"). A "miss" key
// replaces the last digit by ':' (which sorts right after '9'), so misses fall between existing
// keys and must be rejected by the bloom filter / index, not by the key range. Values are 100
// bytes cut from a random buffer. All randomness is seeded, so both engines see the same keys
// in the same order.
// Thread-safety: none; each workload is driven by the calling thread.
#pragma once

#include <cstdint>
#include <string>

#include "bench/engine_adapters.h"

namespace ebb::bench {

constexpr size_t kKeySize = 16;
constexpr size_t kValueSize = 100;

// One timed run of one workload on one engine.
struct Measurement {
  uint64_t ops = 0;
  uint64_t found = 0;      // reads that found a row / seeks that landed on one / rows scanned
  double seconds = 0;      // wall clock
  double cpu_seconds = 0;  // CPU time of the whole process (every thread) over the same span
  double ops_per_sec() const { return seconds > 0 ? static_cast<double>(ops) / seconds : 0; }
  // Throughput per CPU second: less sensitive than ops_per_sec to other processes' load, but it
  // counts background work (flush, compaction) only while the workload runs.
  double ops_per_cpu_sec() const {
    return cpu_seconds > 0 ? static_cast<double>(ops) / cpu_seconds : 0;
  }
};

// The 16-byte key for key number i; `miss` makes the in-range key that is never written.
std::string MakeKey(uint64_t i, bool miss = false);

// fillseq: keys 0..num-1 in order.
Measurement FillSeq(BenchEngine& e, uint64_t num);
// fillrandom: keys 0..num-1, each once, in a seeded random order (so later reads can all hit).
// With ttl_ms > 0 (the TTL workload) every key whose number is not a multiple of
// `live_every` gets that TTL; the others never expire. With `group_live` the rows that never
// expire take key numbers after all the others (num + i), so the two kinds fill separate key
// ranges (as session keys and user keys do) instead of alternating.
Measurement FillRandom(BenchEngine& e, uint64_t num, uint64_t seed, int64_t ttl_ms = 0,
                       uint64_t live_every = 0, bool group_live = false);
// overwrite: `num` puts of random keys in 0..num-1 (with repetition) over an existing fill.
Measurement Overwrite(BenchEngine& e, uint64_t num, uint64_t seed);
// readrandom: `reads` point reads of random keys in 0..num-1; `miss` reads absent keys instead.
Measurement ReadRandom(BenchEngine& e, uint64_t reads, uint64_t num, bool miss, uint64_t seed);
// readseq: one full forward scan; ops = rows seen.
Measurement ReadSeq(BenchEngine& e);
// seekrandom: `seeks` seeks of one iterator to random existing keys, reading the row found.
Measurement SeekRandom(BenchEngine& e, uint64_t seeks, uint64_t num, uint64_t seed);

// Bytes of the files under dir: all of them, and the table files (*.sst) alone. Files that
// vanish while being counted (background deletions) are skipped.
struct DiskUsage {
  uint64_t total = 0;
  uint64_t sst = 0;
};
DiskUsage BytesOnDisk(const std::string& dir);

}  // namespace ebb::bench
