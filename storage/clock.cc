#include "storage/clock.h"

#include <chrono>

namespace ebb::storage {

int64_t SystemClock::NowMs() const {
  const int64_t wall = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
  int64_t last = last_ms_.load(std::memory_order_relaxed);
  while (wall > last && !last_ms_.compare_exchange_weak(last, wall, std::memory_order_relaxed)) {
  }
  return wall > last ? wall : last;
}

int64_t PinnableClock::NowMs() const {
  if (pinned_.load(std::memory_order_acquire)) return pinned_ms_.load(std::memory_order_acquire);
  return system_.NowMs();
}

void PinnableClock::Pin(int64_t ms) {
  pinned_ms_.store(ms, std::memory_order_release);
  pinned_.store(true, std::memory_order_release);
}

void PinnableClock::Advance(int64_t ms) {
  if (!pinned()) Pin(system_.NowMs());
  pinned_ms_.fetch_add(ms, std::memory_order_acq_rel);
}

}  // namespace ebb::storage
