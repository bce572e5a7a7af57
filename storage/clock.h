// Clock: where the engine, and everything above it, learns what time it is.
//
// "Now" decides default write timestamps, expiry on every read path, TTL replies and what
// compaction may purge. It is injected so tests drive time instead of sleeping.
// Thread-safety: every implementation here is safe to call from any thread.
#pragma once

#include <atomic>
#include <cstdint>

namespace ebb::storage {

class Clock {
 public:
  virtual ~Clock() = default;
  // Milliseconds since the Unix epoch. SystemClock never goes backwards; a test clock goes
  // wherever the test sets it.
  virtual int64_t NowMs() const = 0;
};

// The system's wall clock, made monotonic: a step backwards of the system time is absorbed by
// returning the greatest value seen so far.
class SystemClock final : public Clock {
 public:
  int64_t NowMs() const override;

 private:
  mutable std::atomic<int64_t> last_ms_{0};
};

// A clock that moves only when told to. For tests.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(int64_t start_ms = 0) : now_ms_(start_ms) {}
  int64_t NowMs() const override { return now_ms_.load(std::memory_order_acquire); }
  void Set(int64_t ms) { now_ms_.store(ms, std::memory_order_release); }
  void Advance(int64_t ms) { now_ms_.fetch_add(ms, std::memory_order_acq_rel); }

 private:
  std::atomic<int64_t> now_ms_;
};

// The server's clock: the system clock until a test pins it (DEBUG CLOCK SET), from then on a
// manual clock that moves only by Set and Advance.
class PinnableClock final : public Clock {
 public:
  int64_t NowMs() const override;
  void Pin(int64_t ms);
  void Advance(int64_t ms);  // pins at the current time first if not yet pinned
  bool pinned() const { return pinned_.load(std::memory_order_acquire); }

 private:
  SystemClock system_;
  std::atomic<bool> pinned_{false};
  std::atomic<int64_t> pinned_ms_{0};
};

}  // namespace ebb::storage
