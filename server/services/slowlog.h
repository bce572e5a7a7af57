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

#include "common/tick_threshold.h"

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
  // `threshold_us` (negative: never; 0: always). Cheap (common/tick_threshold.h); inline: every
  // command asks.
  bool IsSlow(uint64_t ticks, int64_t threshold_us) {
    return threshold_.Reached(ticks, threshold_us);
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
  std::deque<Entry> entries_;  // newest first
  uint64_t next_id_ = 0;
  TickThreshold threshold_;
};

}  // namespace ebb::server
