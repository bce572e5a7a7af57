// EngineLatency: the longest time each kind of the engine's own work took since someone last
// looked — what the server's latency monitor (LATENCY, server/services/latency_monitor.h) reports
// as the engine's events, without the engine knowing about the monitor.
//
//   auto latency = std::make_shared<EngineLatency>();
//   options.engine_latency = latency;              // the engine's threads Record into it
//   uint64_t us = latency->Take(EngineEvent::kWalFsync);   // the reader drains it
//
// Events (their names are the LATENCY event names; docs/commands.md, "LATENCY"):
//   wal-fsync         one fdatasync of the WAL (a write under `always`, a group commit, the
//                     once-a-second sync, a range deletion, the old WAL when a new one
//                     replaces it);
//   memtable-flush    writing one frozen memtable to a level-0 table, until it is installed;
//   compaction        one compaction job (level 0, level size, range deletions, manual);
//   purge-compaction  one compaction run because expired rows reached their purge deadline or
//                     a purge hint (expired bytes rewritten away);
//   file-drop         one manifest edit dropping whole table files that are fully expired or
//                     covered by a range deletion (no rewrite).
// Each is timed from its start to its end, waits for the engine's lock included.
// Thread-safety: Record from any thread, lock-free (an atomic maximum); Take from any thread.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ebb::storage {

enum class EngineEvent : uint8_t {
  kWalFsync,
  kMemtableFlush,
  kCompaction,
  kPurgeCompaction,
  kFileDrop
};

class EngineLatency {
 public:
  static constexpr size_t kEvents = 5;

  // The event's LATENCY name ("wal-fsync", ...).
  static std::string_view Name(EngineEvent event);

  // One occurrence of `event` took `us` microseconds: kept if it is the longest since the last
  // Take.
  void Record(EngineEvent event, uint64_t us) {
    std::atomic<uint64_t>& slot = longest_us_[static_cast<size_t>(event)];
    uint64_t seen = slot.load(std::memory_order_relaxed);
    while (us > seen && !slot.compare_exchange_weak(seen, us, std::memory_order_relaxed)) {
    }
  }
  // The longest occurrence of `event` since the last Take, in microseconds (0: none), and
  // forgets it.
  uint64_t Take(EngineEvent event) {
    return longest_us_[static_cast<size_t>(event)].exchange(0, std::memory_order_relaxed);
  }

 private:
  std::array<std::atomic<uint64_t>, kEvents> longest_us_{};
};

// Times one occurrence of an event from its construction to its destruction (or Cancel) and
// Records it; does nothing when `latency` is null.
class EngineLatencyTimer {
 public:
  EngineLatencyTimer(EngineLatency* latency, EngineEvent event)
      : latency_(latency), event_(event), start_(std::chrono::steady_clock::now()) {}
  ~EngineLatencyTimer() {
    if (latency_ == nullptr) return;
    const auto took = std::chrono::steady_clock::now() - start_;
    latency_->Record(
        event_,
        static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(took).count()));
  }
  EngineLatencyTimer(const EngineLatencyTimer&) = delete;
  EngineLatencyTimer& operator=(const EngineLatencyTimer&) = delete;
  // The occurrence did not happen after all (nothing to drop): records nothing.
  void Cancel() { latency_ = nullptr; }

 private:
  EngineLatency* latency_;
  EngineEvent event_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace ebb::storage
