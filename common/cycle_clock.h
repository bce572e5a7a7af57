// CycleClock: a tick counter for timing short spans cheaply (INFO commandstats times every
// command), and its ticks in microseconds.
//
// On x86-64 a tick is a cycle of the invariant TSC (one instruction to read, where the steady
// clock costs a vDSO call); elsewhere it is a steady-clock nanosecond. The tick rate is
// measured against the steady clock over the process's life so far: from the first use of the
// clock to the call of TicksPerMicrosecond, so the conversion sharpens as the process runs. Each
// end pairs a tick count with the steady clock read around it (ReadPaired).
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

namespace cycle_clock_internal {

// A tick count and the steady-clock time it was read at.
struct Reading {
  uint64_t ticks = 0;
  std::chrono::steady_clock::time_point time;
};

// The two are read one after the other, and a thread preempted between them would pair a tick
// count with a later time (by a whole time slice on a busy machine: a 50 ms span was once
// measured as 47). So the tick count is read between two readings of the clock (`now`) and paired
// with their midpoint, and a pair read across more than kTight is read again, up to kTries
// times, keeping the tightest. `now` and `ticks` are the clocks (a test's fakes).
inline constexpr std::chrono::nanoseconds kTight{20'000};
inline constexpr int kTries = 8;
template <typename Now, typename Ticks>
Reading ReadPaired(Now now, Ticks ticks) {
  Reading best;
  auto best_width = std::chrono::steady_clock::duration::max();
  for (int attempt = 0; attempt < kTries && best_width > kTight; ++attempt) {
    const std::chrono::steady_clock::time_point before = now();
    const uint64_t count = ticks();
    const std::chrono::steady_clock::time_point after = now();
    if (after - before < best_width) {
      best_width = after - before;
      best = {count, before + (after - before) / 2};
    }
  }
  return best;
}

}  // namespace cycle_clock_internal

}  // namespace ebb
