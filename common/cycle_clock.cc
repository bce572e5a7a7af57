#include "common/cycle_clock.h"

namespace ebb {
namespace {

struct Origin {
  uint64_t ticks = CycleClock::Now();
  std::chrono::steady_clock::time_point time = std::chrono::steady_clock::now();
};

// Set at static initialization, so the measurement spans nearly the process's whole life.
const Origin kOrigin;

}  // namespace

double CycleClock::TicksPerMicrosecond() {
  const uint64_t ticks = Now() - kOrigin.ticks;
  const auto elapsed = std::chrono::duration_cast<std::chrono::microseconds>(
                           std::chrono::steady_clock::now() - kOrigin.time)
                           .count();
  if (elapsed <= 0) return 1.0;
  return static_cast<double>(ticks) / static_cast<double>(elapsed);
}

}  // namespace ebb
