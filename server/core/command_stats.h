// CommandStats: INFO commandstats and errorstats — per command row, how often it ran, for how
// long, how often it was refused before running and how often it replied an error; per error
// code ("ERR", "WRONGTYPE", ...), how many error replies carried it. CONFIG RESETSTAT clears it.
//
// Rows are numbered by the command table (CommandSpec::id); the dispatcher counts every request
// it answers (server/dispatch/dispatcher.h), EXEC's queued commands included, as Redis does:
//   calls          the handler ran to completion (a run that came back incomplete and ran
//                  again counts once);
//   ticks          the handler's time over those calls, in CycleClock ticks (common/
//                  cycle_clock.h; INFO prints microseconds);
//   rejected_calls refused before the handler ran (arity, NOAUTH, OOM, MISCONF, ...);
//   failed_calls   the handler ran and replied an error.
// With latency-tracking on, each call's time also goes into the row's LatencyHistogram (INFO
// latencystats), made at the row's first recorded call.
// Like Redis, at most kMaxErrorCodes distinct codes are tracked; errors with other codes still
// count in total_error_replies but in no errorstat line.
// Thread-safety: none; the command (io) thread only.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "server/core/latency_histogram.h"

namespace ebb::server {

struct CommandCallStats {
  uint64_t calls = 0;
  uint64_t ticks = 0;
  uint64_t rejected_calls = 0;
  uint64_t failed_calls = 0;
  // The calls' times (latency-tracking), made at the first one recorded.
  std::unique_ptr<LatencyHistogram> latency;

  // Adds one call's time to `latency`.
  void RecordLatency(uint64_t call_ticks) {
    if (!latency) latency = std::make_unique<LatencyHistogram>();
    latency->Record(call_ticks);
  }
};

class CommandStats {
 public:
  static constexpr size_t kMaxErrorCodes = 128;

  // The counters of row `id` (zero until counted). REQUIRES: id < the table's row count.
  CommandCallStats& row(size_t id) {
    if (id >= rows_.size()) rows_.resize(id + 1);
    return rows_[id];
  }
  const CommandCallStats* find(size_t id) const { return id < rows_.size() ? &rows_[id] : nullptr; }

  // Counts one error reply by its code: the text up to the first space, as Redis's
  // errorstats (a reply with no space counts as a whole; "-" is not part of the code).
  void CountError(std::string_view error_text);
  // Error code -> replies carrying it, in code order (INFO errorstats).
  const std::map<std::string, uint64_t, std::less<>>& errors() const { return errors_; }

  void Reset() {
    rows_.clear();
    errors_.clear();
  }

 private:
  std::vector<CommandCallStats> rows_;
  std::map<std::string, uint64_t, std::less<>> errors_;
};

}  // namespace ebb::server
