// DiskReadLatency: how long the engine's reads of table blocks from disk took, as counts in
// fixed buckets (what a Prometheus histogram exports: storage::Stats::disk_read_latency).
//
//   auto latency = std::make_shared<DiskReadLatency>();
//   options.disk_read_latency = latency;   // the engine's inline block reads Record into it
//   latency->Record(std::chrono::microseconds(180));  // and the server's block reader
//   DiskReadHistogram h = latency->Snapshot();
//
// What is timed: one read of a data block that missed the block cache — by a table reader on
// the thread that needs the block (storage/table/table.cc: gets, scans and compactions that
// read a single block), and by the server's block reader (server/io/block_reader.h) from its
// Read call to the completion of that block's read. Readahead reads (many blocks at once, for
// scans and compactions) and the reads that open a table (footer, index, filter) are not.
// Thread-safety: Record and Snapshot from any thread, lock-free (relaxed atomics: a snapshot
// may see a read counted in `count` whose bucket or sum it does not see yet).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "storage/stats.h"

namespace ebb::storage {

class DiskReadLatency {
 public:
  // The upper bounds of the buckets, in microseconds; one more bucket holds what is slower.
  static constexpr std::array<uint64_t, 11> kBoundsUs = {50,   100,   250,   500,   1000,  2500,
                                                         5000, 10000, 25000, 50000, 100000};

  void Record(std::chrono::nanoseconds took) {
    const uint64_t ns = took.count() > 0 ? static_cast<uint64_t>(took.count()) : 0;
    size_t bucket = 0;
    while (bucket < kBoundsUs.size() && ns > kBoundsUs[bucket] * 1000) ++bucket;
    counts_[bucket].fetch_add(1, std::memory_order_relaxed);
    sum_ns_.fetch_add(ns, std::memory_order_relaxed);
    count_.fetch_add(1, std::memory_order_relaxed);
  }

  DiskReadHistogram Snapshot() const {
    DiskReadHistogram h;
    h.bounds_us.assign(kBoundsUs.begin(), kBoundsUs.end());
    h.counts.resize(counts_.size());
    for (size_t i = 0; i < counts_.size(); ++i) {
      h.counts[i] = counts_[i].load(std::memory_order_relaxed);
    }
    h.sum_ns = sum_ns_.load(std::memory_order_relaxed);
    h.count = count_.load(std::memory_order_relaxed);
    return h;
  }

 private:
  std::array<std::atomic<uint64_t>, kBoundsUs.size() + 1> counts_{};
  std::atomic<uint64_t> sum_ns_{0};
  std::atomic<uint64_t> count_{0};
};

// Times one read from its construction to its destruction and Records it into `latency`
// (nothing when it is null).
class DiskReadTimer {
 public:
  explicit DiskReadTimer(DiskReadLatency* latency)
      : latency_(latency),
        start_(latency != nullptr ? std::chrono::steady_clock::now()
                                  : std::chrono::steady_clock::time_point{}) {}
  ~DiskReadTimer() {
    if (latency_ != nullptr) latency_->Record(std::chrono::steady_clock::now() - start_);
  }
  DiskReadTimer(const DiskReadTimer&) = delete;
  DiskReadTimer& operator=(const DiskReadTimer&) = delete;

 private:
  DiskReadLatency* latency_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace ebb::storage
