// The human-readable LATENCY replies: DOCTOR's report and GRAPH's ASCII graph, as Redis 7 words
// and draws them (latency.c, sparkline.c). DOCTOR keeps Redis's words for the events Redis has
// (command, fast-command, expire-cycle), leaving out what does not apply to ebb (an allocator to
// rebuild with, eviction, hz); the engine's events and disk-read get advice of ebb's own.
// Thread-safety: pure functions of their arguments.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "server/services/latency_monitor.h"

namespace ebb::server {

// What DOCTOR's advice depends on besides the events.
struct LatencyReportSettings {
  int64_t threshold_ms = 0;            // latency-monitor-threshold
  int64_t slowlog_slower_than_us = 0;  // slowlog-log-slower-than
  bool wal_fsync_always = false;       // wal-fsync always
};

// LATENCY DOCTOR: Redis's "I'm sorry, Dave" when monitoring is off and nothing was recorded;
// its healthy report when no event exists; else one line per event (samples, average, mean
// deviation, period, all-time max) and the advice the events call for.
std::string LatencyDoctorReport(const LatencyMonitor& monitor,
                                const LatencyReportSettings& settings, int64_t now_s);

// LATENCY GRAPH: "<event> - high H ms, low L ms (all time high M ms)", a rule of 80 '-', then
// the samples as a filled sparkline four rows high, 80 columns per band, each column labelled
// vertically with how long ago it was seen (42s, 3m, 2h, 1d).
std::string LatencyGraph(std::string_view event, const LatencyMonitor::Series& series,
                         int64_t now_s);

}  // namespace ebb::server
