// TickThreshold: a threshold in microseconds tested against durations in CycleClock ticks, the
// ticks worked out again when the threshold changes.
#include "common/tick_threshold.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace ebb {
namespace {

// Ticks for `us` microseconds at the rate measured so far.
uint64_t TicksFor(int64_t us) {
  return static_cast<uint64_t>(static_cast<double>(us) * CycleClock::TicksPerMicrosecond());
}

TEST(TickThresholdTest, NegativeIsNeverAndZeroIsAlways) {
  TickThreshold threshold;
  EXPECT_FALSE(threshold.Reached(UINT64_MAX, -1));
  EXPECT_TRUE(threshold.Reached(0, 0));
}

TEST(TickThresholdTest, ADurationReachesItFromTheThresholdsTicksOn) {
  TickThreshold threshold;
  // Well either side of 10 ms: the rate sharpens between calls, never by a tenth.
  EXPECT_FALSE(threshold.Reached(TicksFor(9'000), 10'000));
  EXPECT_TRUE(threshold.Reached(TicksFor(11'000), 10'000));
}

TEST(TickThresholdTest, AChangedThresholdTakesEffectAtTheNextCall) {
  TickThreshold threshold;
  const uint64_t five_ms = TicksFor(5'000);
  EXPECT_TRUE(threshold.Reached(five_ms, 1'000));
  EXPECT_FALSE(threshold.Reached(five_ms, 1'000'000));
  EXPECT_TRUE(threshold.Reached(five_ms, 1'000));
  EXPECT_FALSE(threshold.Reached(five_ms, -1));
  EXPECT_TRUE(threshold.Reached(five_ms, 0));
}

}  // namespace
}  // namespace ebb
