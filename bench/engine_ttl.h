// engine_bench's TTL workload: how soon each engine gives back the disk space of expired rows.
//
// Both engines share one ManualClock. Fill `num` keys in random order; every key number that is
// not a multiple of live_every gets a TTL, the rest never expire (the "live" data). Flush. Then
// move the clock to the expiry and, for `rounds` rounds, let `round_ms` of real time pass (the
// engines' background threads run; nothing else is called) and sample the bytes on disk,
// advancing the clock by a quarter of ebb's purge deadline after each round until it reaches
// expiry + purge deadline, where it stays. Finally force a full
// compaction on both (ebb CompactAll, RocksDB CompactRange to the bottom level): what remains is
// the live size. RocksDB drops expired rows only when a compaction runs (its expiry filter);
// ebb schedules that compaction itself (whole-file expiry, purge deadline).
// Thread-safety: none; run from one thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/engine_adapters.h"
#include "bench/engine_workloads.h"

namespace ebb::bench {

struct TtlConfig {
  BenchSettings settings;  // clock and purge deadline are set by RunTtlWorkload
  std::string dir;         // parent directory for the two databases
  uint64_t num = 1'000'000;
  uint64_t live_every = 10;  // 1 row in 10 never expires
  bool group_live = false;   // FillRandom's group_live: live rows in a key range of their own
  int64_t ttl_ms = 3'600'000;
  int64_t purge_deadline_ms = 600'000;
  int rounds = 12;
  int round_ms = 1000;
};

struct TtlSample {
  std::string step;
  int64_t past_expiry_ms = 0;  // clock - expiry of the TTL rows (negative: not yet expired)
  double real_s = 0;           // real seconds since the fill was flushed
  DiskUsage ebb, rocks;
  uint64_t ebb_live = 0, rocks_live = 0;  // BenchEngine::LiveTableBytes
};

struct TtlResult {
  Measurement ebb_fill, rocks_fill;
  // ebb's reclaimed bytes by source, sampled before the forced compaction.
  BenchEngine::Reclaimed ebb_reclaimed;
  std::vector<TtlSample> samples;  // after fill, each round, after the forced compaction
  uint64_t ebb_live_rows = 0, rocks_live_rows = 0, expected_live_rows = 0;
};

TtlResult RunTtlWorkload(const TtlConfig& config);

// Prints the Markdown table of samples and when each engine got back to its live size.
void PrintTtlReport(const TtlConfig& config, const TtlResult& result);

}  // namespace ebb::bench
