// TickThreshold: whether a duration counted in CycleClock ticks reaches a threshold given in
// microseconds, asked once per command (SLOWLOG's and LATENCY's thresholds). The threshold is
// turned into ticks only when it changes or every kRecheckCalls calls, as the tick rate sharpens
// while the process runs (common/cycle_clock.h): the per-call test is one comparison, with no
// clock read and no division.
// Thread-safety: none; one thread asks.
#pragma once

#include <cstdint>

#include "common/cycle_clock.h"

namespace ebb {

class TickThreshold {
 public:
  static constexpr uint32_t kRecheckCalls = 65536;

  // Whether `ticks` reaches `threshold_us` (negative: never; 0: always).
  bool Reached(uint64_t ticks, int64_t threshold_us) {
    if (threshold_us < 0) return false;
    if (threshold_us != threshold_us_ || ++calls_since_check_ >= kRecheckCalls) [[unlikely]] {
      Recalibrate(threshold_us);
    }
    return ticks >= threshold_ticks_;
  }

 private:
  void Recalibrate(int64_t threshold_us) {
    threshold_us_ = threshold_us;
    threshold_ticks_ = static_cast<uint64_t>(static_cast<double>(threshold_us) *
                                             CycleClock::TicksPerMicrosecond());
    calls_since_check_ = 0;
  }

  int64_t threshold_us_ = -1;  // what threshold_ticks_ was worked out for
  uint64_t threshold_ticks_ = 0;
  uint32_t calls_since_check_ = 0;
};

}  // namespace ebb
