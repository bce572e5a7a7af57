// TtlPolicy: the expiry a write gets when it names none — `ttl-rule` and `default-ttl`, on every
// type (docs/expiry.md, "TTL policy on every type").
//
// Precedence (Riak's hierarchy, docs/commands.md "TTL precedence"): the write's own option (TTL,
// EX, PX, EXAT, PXAT, ...) wins; else the first `ttl-rule <glob> <duration> [expiration on|off]
// [mode per-item|whole-file]` whose glob matches the key; else `default-ttl`. NOTTL opts out of
// both rule and default: the row never expires. The first matching rule stops the search even
// when it gives no expiry — a duration of `unlimited` (ttl < 0) or `expiration off` (Riak's
// per-bucket switch: the rule keeps its duration but assigns none) — so a rule can exempt keys
// from a default-ttl. The option parser refuses durations of 0 (they would expire every write at
// once); a policy built with one expires a row at its own timestamp.
// What the TTL means per type: a string row or TREG expires at (write time + ttl), renewed by
// each accepted write; a TLOG created under a rule keeps each entry for `ttl` after the entry's
// own timestamp (a retention window). A rule's mode says how expired rows of its keys leave the
// disk (storage::ExpiryMode).
//
// The policy only records expiry; whether anything expires (`expiration off`) is the engine's
// read side (storage::DB::SetExpirationEnabled). Rules match keys with Redis's glob
// (common/glob.h) unless a test gives another matcher.
// Thread-safety: a TtlPolicy is a value; const methods may run concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/compaction_filter.h"

namespace ebb::types {

struct TtlRule {
  std::string pattern;     // a Redis glob over user keys
  int64_t ttl_ms = -1;     // < 0: never expires
  bool expiration = true;  // false: matching keys get no expiry from the policy
  storage::ExpiryMode mode = storage::ExpiryMode::kDefault;
  bool operator==(const TtlRule&) const = default;
};

// The expiry a write asked for itself.
struct ExpiryOption {
  enum class Kind {
    kPolicy,    // no option given: ttl-rule, then default-ttl
    kNone,      // NOTTL: never expires
    kRelative,  // TTL / EX / PX: expire_at = ts + value (ms)
    kAbsolute,  // EXAT / PXAT: expire_at = value (unix ms)
  };
  Kind kind = Kind::kPolicy;
  int64_t value = 0;

  static ExpiryOption Policy() { return {}; }
  static ExpiryOption None() { return {Kind::kNone, 0}; }
  static ExpiryOption Relative(int64_t ms) { return {Kind::kRelative, ms}; }
  static ExpiryOption Absolute(int64_t unix_ms) { return {Kind::kAbsolute, unix_ms}; }
};

class TtlPolicy {
 public:
  using Matcher = std::function<bool(std::string_view pattern, std::string_view key)>;

  // An empty policy: no rules, nothing expires by default.
  TtlPolicy() = default;
  // `match` decides whether a rule's pattern matches a key (default: GlobMatch).
  TtlPolicy(int64_t default_ttl_ms, std::vector<TtlRule> rules, Matcher match = nullptr);

  // The ttl (ms) the policy gives `key`: the first matching rule's, else default-ttl.
  // nullopt: the key gets no expiry.
  std::optional<int64_t> TtlFor(std::string_view key) const;
  // The expiry mode of the first matching rule (kDefault when none matches).
  storage::ExpiryMode ModeFor(std::string_view key) const;
  // Whether some rule matches `key` (else the policy's expiry is default-ttl's).
  bool HasRuleFor(std::string_view key) const { return RuleFor(key) != nullptr; }
  // True when some rule has a mode other than kDefault (ModeFor is worth asking).
  bool has_modes() const;

  // The absolute expiry of a write of `key` with timestamp `ts_ms` and option `option`;
  // nullopt: never expires. Returns false (and leaves *expire_at unchanged) when ts + ttl
  // overflows a signed 64-bit millisecond count.
  bool ResolveExpireAt(std::string_view key, int64_t ts_ms, const ExpiryOption& option,
                       std::optional<int64_t>* expire_at) const;

  // The expiry the policy gives a write of `key` at `ts_ms` without its own option: a rule's or
  // the default's; nullopt when that is unlimited or so large that ts + ttl overflows.
  std::optional<int64_t> ExpireAt(std::string_view key, int64_t ts_ms) const;

 private:
  const TtlRule* RuleFor(std::string_view key) const;

  int64_t default_ttl_ms_ = -1;
  std::vector<TtlRule> rules_;
  Matcher match_;
};

}  // namespace ebb::types
