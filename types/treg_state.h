// TregState: a timestamped register (last write wins, Jylis's TREG CRDT) as a plain value.
//
// The reference model of a TREG: the engine-backed Treg (types/treg.h) answers exactly as this.
// State: absent, or one (value, ts) pair. A write (value, ts) takes effect when the register is
// absent, when ts > current ts, or when ts == current ts and value > current value (bytewise
// unsigned, a prefix smaller than its extensions); otherwise it is ignored. Merge keeps the
// greater (ts, value) pair — commutative, associative and idempotent; absent is the bottom.
//
// Thread-safety: a value type; no internal synchronisation.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ebb::types {

// True when the write (value, ts) wins over the current (cur_value, cur_ts).
inline bool TregWins(std::string_view value, uint64_t ts, std::string_view cur_value,
                     uint64_t cur_ts) {
  if (ts != cur_ts) return ts > cur_ts;
  return value > cur_value;
}

class TregState {
 public:
  TregState() = default;
  TregState(std::string_view value, uint64_t ts) : present_(true), value_(value), ts_(ts) {}

  // Applies the write; returns true when it took effect (the state changed).
  bool Set(std::string_view value, uint64_t ts) {
    if (present_ && !TregWins(value, ts, value_, ts_)) return false;
    present_ = true;
    value_.assign(value);
    ts_ = ts;
    return true;
  }

  void Merge(const TregState& other) {
    if (other.present_) Set(other.value_, other.ts_);
  }

  bool present() const { return present_; }
  // REQUIRES for value() and ts(): present().
  const std::string& value() const { return value_; }
  uint64_t ts() const { return ts_; }

  bool operator==(const TregState&) const = default;

 private:
  bool present_ = false;
  std::string value_;
  uint64_t ts_ = 0;
};

}  // namespace ebb::types
