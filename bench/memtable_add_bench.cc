// memtable_add_bench: the time of each MemTable::Add while one memtable fills to 64 MiB with
// small keys (16-byte keys, 8-byte values: the server benchmark's SET), as the engine fills
// it: one writer, huge arena blocks from a pool. Prints the slowest Adds and where they fell
// (distinct keys so far, the key index's slots), to show whether a growth of the key index
// stalls one Add. Each Add is timed in the thread's CPU time (page faults included, time the
// thread spent preempted on a busy machine not): the wall time of a slow Add is shown beside
// it. A benchmark, not a test: the figures depend on the machine and its load.
//
// Usage: memtable_add_bench [rounds]   (default 3; each round fills a fresh memtable)
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "storage/db/arena.h"
#include "storage/db/memtable.h"
#include "storage/format/internal_key.h"

namespace {

using ebb::storage::HugeBlockPool;
using ebb::storage::MemTable;
using ebb::storage::RowKind;
using ebb::storage::RowMeta;

constexpr size_t kMemtableBytes = 64 << 20;

struct Sample {
  double us = 0;  // thread CPU time
  double wall_us = 0;
  long faults = 0;  // page faults the Add took (minor and major)
  size_t keys = 0;
  size_t slots = 0;
};

long ThreadFaults() {
  rusage usage;
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_minflt + usage.ru_majflt;
}

double ThreadCpuUs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

// Fills one memtable; returns every Add's time, in order.
std::vector<Sample> FillOnce(const std::shared_ptr<HugeBlockPool>& pool) {
  auto mem = std::make_shared<MemTable>(kMemtableBytes, nullptr, pool);
  std::string row;
  ebb::storage::AppendEncodedRow(&row, RowMeta{}, "vvvvvvvv");
  std::vector<Sample> samples;
  char key[32];
  for (size_t i = 0; mem->ApproximateMemoryUsage() < kMemtableBytes; i++) {
    std::snprintf(key, sizeof(key), "key:%012zu", i * 2654435761u % 1000000007u);
    const auto start = std::chrono::steady_clock::now();
    const long faults_start = ThreadFaults();
    const double cpu_start = ThreadCpuUs();
    mem->Add(i + 1, RowKind::kValue, key, row);
    const double cpu_us = ThreadCpuUs() - cpu_start;
    const long faults = ThreadFaults() - faults_start;
    const auto end = std::chrono::steady_clock::now();
    samples.push_back({cpu_us, std::chrono::duration<double, std::micro>(end - start).count(),
                       faults, i + 1, mem->index_slots()});
  }
  return samples;
}

void Report(int round, const std::vector<Sample>& samples) {
  double total = 0;
  for (const Sample& s : samples) total += s.us;
  std::vector<Sample> slowest = samples;
  std::sort(slowest.begin(), slowest.end(),
            [](const Sample& a, const Sample& b) { return a.us > b.us; });
  const size_t n = samples.size();
  std::printf(
      "round %d: %zu Adds (distinct keys), CPU %.2f us mean, p99.99 %.1f us; index %zu slots\n",
      round, n, total / static_cast<double>(n), slowest[n / 10000].us, samples.back().slots);
  for (size_t i = 0; i < 5 && i < n; i++) {
    std::printf(
        "  slowest %zu: %.1f us CPU (%.1f us wall, %ld page faults) at key %zu (index %zu slots)\n",
        i + 1, slowest[i].us, slowest[i].wall_us, slowest[i].faults, slowest[i].keys,
        slowest[i].slots);
  }
  // The Add that started the last doubling, and the slowest Add over the next old-slots / 8
  // new keys (the span of an incremental copy).
  size_t grew = 0;
  for (size_t i = 1; i < n; i++) {
    if (samples[i].slots != samples[i - 1].slots) grew = i;
  }
  if (grew == 0) return;
  const size_t span = samples[grew].slots / 16;
  double worst = 0;
  for (size_t i = grew; i < n && i < grew + span; i++) worst = std::max(worst, samples[i].us);
  std::printf(
      "  last doubling at key %zu to %zu slots: that Add %.1f us CPU, the worst of it and the next "
      "%zu %.1f us CPU\n",
      samples[grew].keys, samples[grew].slots, samples[grew].us, span, worst);
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
  // As the engine's: the pool holds one memtable's blocks, so later rounds reuse faulted blocks.
  auto pool = std::make_shared<HugeBlockPool>(kMemtableBytes);
  for (int round = 1; round <= rounds; round++) {
    std::vector<Sample> samples = FillOnce(pool);
    Report(round, samples);
  }
  return 0;
}
