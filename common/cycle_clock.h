// CycleClock: a tick counter for timing short spans cheaply (INFO commandstats times every
// command), and its ticks in microseconds.
//
// On x86-64 a tick is a cycle of the invariant TSC (one instruction to read, where the steady
// clock costs a vDSO call); elsewhere it is a steady-clock nanosecond. The tick rate is
// measured against the steady clock over the process's life so far: from the first use of the
// clock to the call of TicksPerMicrosecond, so the conversion sharpens as the process runs.
// Thread-safety: thread-safe.
#pragma once

#include <chrono>
#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace ebb {

class CycleClock {
 public:
  // The current tick count; only differences mean anything.
  static uint64_t Now() {
#if defined(__x86_64__)
    return __rdtsc();
#else
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now().time_since_epoch())
                                     .count());
#endif
  }

  // Ticks per microsecond, measured since the clock's first use (at least one microsecond).
  static double TicksPerMicrosecond();
};

}  // namespace ebb
