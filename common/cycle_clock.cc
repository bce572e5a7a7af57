#include "common/cycle_clock.h"

namespace ebb {
namespace {

using cycle_clock_internal::Reading;

Reading Read() {
  return cycle_clock_internal::ReadPaired([] { return std::chrono::steady_clock::now(); },
                                          [] { return CycleClock::Now(); });
}

// Set at static initialization, so the measurement spans nearly the process's whole life.
const Reading kOrigin = Read();

}  // namespace

double CycleClock::TicksPerMicrosecond() {
  const Reading now = Read();
  const double elapsed_us =
      std::chrono::duration<double, std::micro>(now.time - kOrigin.time).count();
  if (elapsed_us < 1.0) return 1.0;
  return static_cast<double>(now.ticks - kOrigin.ticks) / elapsed_us;
}

}  // namespace ebb
