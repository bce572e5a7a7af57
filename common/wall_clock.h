// The system's wall clock, for what is reported to people rather than decided by the data:
// client ages and idle times, INFO's uptime and server_time_usec, TIME, the server's periodic
// checks. Data decisions (timestamps, expiry) use storage::Clock, which tests can pin.
// Thread-safety: safe from any thread.
#pragma once

#include <cstdint>

namespace ebb {

// Milliseconds since the Unix epoch (may step backwards with the system time).
int64_t WallMs();
// Microseconds since the Unix epoch.
int64_t WallUs();

}  // namespace ebb
