// SlowLog: SLOWLOG GET / LEN / RESET — the commands that ran longer than
// `slowlog-log-slower-than` microseconds, newest first, at most `slowlog-max-len` of them, as
// Redis 7 keeps them (slowlog.c).
//
// The dispatcher offers every command a client ran (server/dispatch/dispatcher.h): top-level
// commands and those EXEC runs, not EXEC itself, not the commands a script calls (the script is
// logged) nor a peer's deltas. An entry keeps what Redis keeps: a unique id, the unix time the
// command ended, its duration in microseconds, its arguments (at most kMaxArgs: past that the last
// is
// "... (N more arguments)"; each at most kMaxArgBytes: past that "... (N more bytes)" is
// appended; the arguments of commands that carry secrets — AUTH, HELLO with AUTH, MIGRATE with
// AUTH/AUTH2 — are "(redacted)" as Redis redacts them), the client's address and its name.
// CONFIG RESETSTAT does not clear it; SLOWLOG RESET does.
// Thread-safety: none; the command (io) thread only.
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ebb::server {

class Client;
struct CommandSpec;

class SlowLog {
 public:
  static constexpr size_t kMaxArgs = 32;
  static constexpr size_t kMaxArgBytes = 128;

  struct Entry {
    uint64_t id;
    int64_t unix_time_s;
    uint64_t duration_us;
    std::vector<std::string> args;
    std::string client_addr;
    std::string client_name;
  };

  // Whether a command that took `ticks` (CycleClock) is logged under a threshold of
  // `threshold_us` (negative: never; 0: always). Cheap: the threshold in ticks is worked out
  // again only when it changes or every kRecheckCalls calls (the tick rate sharpens over time).
  // Inline: every command asks.
  bool IsSlow(uint64_t ticks, int64_t threshold_us) {
    if (threshold_us < 0) return false;
    if (threshold_us != threshold_us_ || ++calls_since_check_ >= kRecheckCalls) [[unlikely]] {
      Recalibrate(threshold_us);
    }
    return ticks >= threshold_ticks_;
  }

  // Adds an entry for the command `spec` ran with `args`, then drops the oldest entries past
  // `max_len` (as Redis, a smaller slowlog-max-len takes effect at the next entry).
  void Add(const CommandSpec& spec, std::span<const std::string_view> args, const Client& client,
           uint64_t ticks, int64_t unix_time_s, size_t max_len);

  // SLOWLOG GET count: the newest `count` entries, newest first.
  std::vector<const Entry*> Newest(size_t count) const;
  size_t size() const { return entries_.size(); }
  // SLOWLOG RESET: every entry gone (ids keep counting, as Redis).
  void Reset() { entries_.clear(); }

 private:
  static constexpr uint32_t kRecheckCalls = 65536;
  // Works threshold_ticks_ out for `threshold_us` from the tick rate measured so far.
  void Recalibrate(int64_t threshold_us);

  std::deque<Entry> entries_;  // newest first
  uint64_t next_id_ = 0;
  int64_t threshold_us_ = -1;  // what threshold_ticks_ was worked out for
  uint64_t threshold_ticks_ = 0;
  uint32_t calls_since_check_ = 0;
};

}  // namespace ebb::server
