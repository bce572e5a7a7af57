#include "bench/engine_ttl.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <thread>

namespace ebb::bench {
namespace {

constexpr int64_t kStartMs = 1'700'000'000'000;  // the ManualClock's start (2023-11-14)

double MiB(uint64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

// The first round whose bytes (as `bytes` measures them) are within 5% (or 64 KiB) of `live`,
// the size of the engine's live tables after the forced full compaction; nullptr if none.
const TtlSample* FirstAtLiveSize(const TtlResult& r, uint64_t live,
                                 const std::function<uint64_t(const TtlSample&)>& bytes) {
  const uint64_t slack = std::max<uint64_t>(live / 20, 64 << 10);
  for (size_t i = 1; i + 1 < r.samples.size(); i++) {
    if (bytes(r.samples[i]) <= live + slack) return &r.samples[i];
  }
  return nullptr;
}

void PrintVerdict(const char* what, const TtlConfig& config, const TtlSample* at) {
  if (at == nullptr) {
    std::printf("- %s: not back to the live size in any round.\n", what);
    return;
  }
  std::printf(
      "- %s: back to the live size (within 5%%) at %s: clock = expiry + %lld s, %s the purge "
      "deadline of %lld s.\n",
      what, at->step.c_str(), static_cast<long long>(at->past_expiry_ms / 1000),
      at->past_expiry_ms <= config.purge_deadline_ms ? "within" : "after",
      static_cast<long long>(config.purge_deadline_ms / 1000));
}

}  // namespace

TtlResult RunTtlWorkload(const TtlConfig& config) {
  auto clock = std::make_shared<storage::ManualClock>(kStartMs);
  BenchSettings settings = config.settings;
  settings.clock = clock;
  settings.purge_deadline_ms = config.purge_deadline_ms;
  const std::string tag = config.group_live ? "-grouped" : "";
  const std::string ebb_dir = config.dir + "/ebb-ttl" + tag;
  const std::string rocks_dir = config.dir + "/rocksdb-ttl" + tag;

  TtlResult r;
  auto ebb = OpenEbb(settings, ebb_dir);
  r.ebb_fill = FillRandom(*ebb, config.num, 5, config.ttl_ms, config.live_every, config.group_live);
  ebb->Flush();
  std::fprintf(stderr, "  ttl fill: ebb %.0f ops/s\n", r.ebb_fill.ops_per_sec());
  auto rocks = OpenRocksDb(settings, rocks_dir);
  r.rocks_fill =
      FillRandom(*rocks, config.num, 5, config.ttl_ms, config.live_every, config.group_live);
  rocks->Flush();
  std::fprintf(stderr, "  ttl fill: RocksDB %.0f ops/s\n", r.rocks_fill.ops_per_sec());

  const int64_t expiry = kStartMs + config.ttl_ms;  // the clock did not move during the fill
  const auto start = std::chrono::steady_clock::now();
  const auto sample = [&](std::string step) {
    TtlSample s{std::move(step),
                clock->NowMs() - expiry,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                BytesOnDisk(ebb_dir),
                BytesOnDisk(rocks_dir),
                ebb->LiveTableBytes(),
                rocks->LiveTableBytes()};
    std::fprintf(stderr, "  %s: SSTs on disk (live) ebb %.1f (%.1f) MiB, RocksDB %.1f (%.1f) MiB\n",
                 s.step.c_str(), MiB(s.ebb.sst), MiB(s.ebb_live), MiB(s.rocks.sst),
                 MiB(s.rocks_live));
    r.samples.push_back(std::move(s));
  };
  sample("after fill + flush");
  clock->Set(expiry);
  // The clock walks to the purge deadline in quarters, then stays there: whatever is reclaimed
  // after that was reclaimed within the deadline (plus the real time the compaction took).
  for (int round = 1; round <= config.rounds; round++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(config.round_ms));
    sample("round " + std::to_string(round));
    clock->Set(
        std::min(clock->NowMs() + config.purge_deadline_ms / 4, expiry + config.purge_deadline_ms));
  }
  r.ebb_reclaimed = ebb->ReclaimedSoFar();
  ebb->CompactAll();
  rocks->CompactAll();
  sample("forced full compaction");

  r.ebb_live_rows = ebb->ScanAll();
  r.rocks_live_rows = rocks->ScanAll();
  r.expected_live_rows =
      config.live_every ? (config.num + config.live_every - 1) / config.live_every : 0;
  return r;
}

void PrintTtlReport(const TtlConfig& config, const TtlResult& r) {
  std::printf(
      "\n### TTL, %s: bytes on disk until expired rows are reclaimed\n\n"
      "%llu keys filled in random order, %llu%% with a %lld s TTL, the rest never expiring (%s); "
      "ebb's purge deadline %lld s. The clock is a ManualClock shared by both engines; each "
      "round lets %d ms of real time pass with no calls into either engine, then moves the clock "
      "by a quarter of the purge deadline, up to expiry + the deadline, where it stays. RocksDB "
      "expiry: an 8-byte expire_at prepended to each "
      "value and a CompactionFilter dropping expired rows (so its rows are 8 bytes longer). "
      "SST = table files on disk; live SST = the table files the engine's current version lists "
      "(the rest are obsolete files not deleted yet); dir = every file (WAL, manifest, logs).\n\n",
      config.group_live ? "grouped keys" : "interleaved keys",
      static_cast<unsigned long long>(config.num),
      static_cast<unsigned long long>(config.live_every ? 100 - 100 / config.live_every : 100),
      static_cast<long long>(config.ttl_ms / 1000),
      config.group_live ? "in a key range of their own" : "every tenth key",
      static_cast<long long>(config.purge_deadline_ms / 1000), config.round_ms);
  std::printf(
      "| step | real s | clock − expiry (s) | ebb SST MiB | ebb live SST MiB | ebb dir MiB | "
      "RocksDB SST MiB | RocksDB live SST MiB | RocksDB dir MiB |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const TtlSample& s : r.samples) {
    std::printf("| %s | %.1f | %lld | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", s.step.c_str(),
                s.real_s, static_cast<long long>(s.past_expiry_ms / 1000), MiB(s.ebb.sst),
                MiB(s.ebb_live), MiB(s.ebb.total), MiB(s.rocks.sst), MiB(s.rocks_live),
                MiB(s.rocks.total));
  }
  std::printf("\n");
  const TtlSample& last = r.samples.back();
  PrintVerdict("ebb, SST bytes on disk", config,
               FirstAtLiveSize(r, last.ebb_live, [](const TtlSample& s) { return s.ebb.sst; }));
  PrintVerdict("ebb, SST bytes its version lists", config,
               FirstAtLiveSize(r, last.ebb_live, [](const TtlSample& s) { return s.ebb_live; }));
  PrintVerdict("RocksDB, SST bytes on disk", config,
               FirstAtLiveSize(r, last.rocks_live, [](const TtlSample& s) { return s.rocks.sst; }));
  PrintVerdict(
      "RocksDB, SST bytes its version lists", config,
      FirstAtLiveSize(r, last.rocks_live, [](const TtlSample& s) { return s.rocks_live; }));
  const BenchEngine::Reclaimed& e = r.ebb_reclaimed;
  const uint64_t rewritten = e.compaction_bytes_read > e.compaction_bytes_written
                                 ? e.compaction_bytes_read - e.compaction_bytes_written
                                 : 0;
  std::printf(
      "- ebb, where the reclaimed table bytes came from before the forced compaction: %.2f MiB "
      "by dropping %llu whole files, %.2f MiB by compaction rewrites (%.2f MiB read, %.2f MiB "
      "written).\n",
      MiB(e.whole_file_bytes), static_cast<unsigned long long>(e.whole_files), MiB(rewritten),
      MiB(e.compaction_bytes_read), MiB(e.compaction_bytes_written));
  std::printf("- live rows after expiry: ebb %llu, RocksDB %llu, expected %llu.\n",
              static_cast<unsigned long long>(r.ebb_live_rows),
              static_cast<unsigned long long>(r.rocks_live_rows),
              static_cast<unsigned long long>(r.expected_live_rows));
}

}  // namespace ebb::bench
