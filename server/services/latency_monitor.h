// LatencyMonitor: LATENCY's table of latency events, as Redis 7 keeps it (latency.c).
//
// An event is a kind of work that may hold clients up: a command (`command`, or `fast-command`
// for a row flagged fast), the expire cycle, a command's wait for the disk, and the engine's own
// work (storage/engine_latency.h). When one occurrence takes at least latency-monitor-threshold
// milliseconds (0: the monitor is off) it becomes a sample of its event: the unix second it was
// seen and its milliseconds. Per event the monitor keeps the newest kHistoryLen samples, one per
// second (a second's later samples keep only the largest), and the largest ever seen (the
// all-time max); an event exists from its first sample until LATENCY RESET. The event names and
// their meanings are in docs/commands.md, "LATENCY".
//
// The io thread owns the table. Work on the io thread adds its samples at once (AddIfNeeded);
// the engine's threads and the disk reads only note their longest occurrence, which Collect
// drains into the table — every server cron (100 ms) and before every LATENCY subcommand reads
// it — stamped with the second of collection.
// Thread-safety: none; the command (io) thread only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "common/tick_threshold.h"

namespace ebb::storage {
class EngineLatency;
}

namespace ebb::server {

class LatencyMonitor {
 public:
  static constexpr size_t kHistoryLen = 160;

  struct Sample {
    int64_t time_s;
    uint32_t latency_ms;
  };
  struct Series {
    std::deque<Sample> samples;  // oldest first, at most kHistoryLen, one per second
    uint32_t max_ms = 0;         // all time (since the event's last RESET)
  };

  // Adds a sample of `event` when the monitor is on (threshold_ms > 0) and `latency_ms` reaches
  // the threshold.
  void AddIfNeeded(std::string_view event, uint64_t latency_ms, int64_t now_s,
                   int64_t threshold_ms) {
    if (threshold_ms > 0 && latency_ms >= static_cast<uint64_t>(threshold_ms)) {
      Add(event, latency_ms, now_s);
    }
  }
  // Whether a command that took `ticks` (CycleClock) reaches `threshold_ms` (0: the monitor is
  // off, never). Cheap (common/tick_threshold.h): the dispatcher asks for every command, and
  // turns ticks into milliseconds only for those that reach it.
  bool CommandReaches(uint64_t ticks, int64_t threshold_ms) {
    return threshold_ms > 0 &&
           command_threshold_.Reached(ticks, std::min(threshold_ms, INT64_MAX / 1000) * 1000);
  }
  // Adds a sample unconditionally (Redis's latencyAddSample).
  void Add(std::string_view event, uint64_t latency_ms, int64_t now_s);

  // Forgets the events named `event` (compared case-insensitively, as Redis); returns how many.
  size_t Reset(std::string_view event);
  // Forgets every event; returns how many there were.
  size_t ResetAll();

  // The event named exactly `event`, or nullptr.
  const Series* Find(std::string_view event) const;
  // Every event, by name.
  const std::map<std::string, Series, std::less<>>& events() const { return events_; }

  // The engine's notes (nullptr: none). main and the test runner install the one the engine was
  // opened with.
  void set_engine(std::shared_ptr<storage::EngineLatency> engine) { engine_ = std::move(engine); }
  // Drains the engine's longest occurrences and `longest_disk_wait_us` (the longest wait of a
  // command for the disk since the last call, 0: none) into the table as samples of `now_s`,
  // those at least `threshold_ms` long (0: drained and dropped).
  void Collect(uint64_t longest_disk_wait_us, int64_t now_s, int64_t threshold_ms);

 private:
  std::map<std::string, Series, std::less<>> events_;
  std::shared_ptr<storage::EngineLatency> engine_;
  TickThreshold command_threshold_;
};

}  // namespace ebb::server
