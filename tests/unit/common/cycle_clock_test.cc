// CycleClock: each end of its rate's measurement pairs a tick count with the clock read around it
// (ReadPaired), so a thread preempted while reading pairs no tick count with a time a slice
// later.
#include "common/cycle_clock.h"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

namespace ebb {
namespace {

using std::chrono::microseconds;
using std::chrono::steady_clock;

// A scripted clock: each call returns the next of `times` (microseconds from an epoch).
struct ScriptedNow {
  std::vector<int64_t> times;
  size_t next = 0;
  steady_clock::time_point operator()() {
    return steady_clock::time_point(microseconds(times.at(next++)));
  }
};

TEST(CycleClockTest, AReadingPreemptedBetweenItsClocksIsReadAgain) {
  // The first attempt's clock readings lie 4 ms apart (preempted); the second's 2 us.
  ScriptedNow now{{1000, 5000, 6000, 6002}};
  uint64_t tick = 0;
  const cycle_clock_internal::Reading r =
      cycle_clock_internal::ReadPaired([&] { return now(); }, [&] { return ++tick; });
  EXPECT_EQ(r.ticks, 2u);
  EXPECT_EQ(r.time, steady_clock::time_point(microseconds(6001)));
  EXPECT_EQ(now.next, 4u);  // no third attempt
}

TEST(CycleClockTest, WhenEveryAttemptIsWideTheTightestIsKept) {
  ScriptedNow now;
  for (int i = 0; i < cycle_clock_internal::kTries; ++i) {
    const int64_t start = 100'000 * (i + 1);
    now.times.push_back(start);
    now.times.push_back(start + (i == 3 ? 50 : 900));  // attempt 3 is the tightest
  }
  uint64_t tick = 0;
  const cycle_clock_internal::Reading r =
      cycle_clock_internal::ReadPaired([&] { return now(); }, [&] { return ++tick; });
  EXPECT_EQ(r.ticks, 4u);
  EXPECT_EQ(r.time, steady_clock::time_point(microseconds(400'025)));
  EXPECT_EQ(now.next, now.times.size());
}

}  // namespace
}  // namespace ebb
