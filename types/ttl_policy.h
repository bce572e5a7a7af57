// TtlPolicy: decides the expiry of a string write (PUT, SET and the other string commands).
//
// Precedence (Riak's hierarchy, docs/commands.md "TTL precedence"): the write's own option (TTL,
// EX, PX, EXAT, PXAT, ...) wins; else the first `ttl-rule <glob> <duration>` whose glob matches the
// key; else `default-ttl`. NOTTL opts out of both rule and default: the row never expires. A rule
// or default of `unlimited` (ttl < 0) means "never expires" and still stops the search, so a rule
// can exempt keys from a default-ttl. A ttl of 0 expires the row at its own timestamp.
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

namespace ebb::types {

struct TtlRule {
  std::string pattern;  // a Redis glob over user keys
  int64_t ttl_ms = -1;  // < 0: never expires
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
  // Negative: never expires.
  int64_t TtlFor(std::string_view key) const;

  // The absolute expiry of a write of `key` with timestamp `ts_ms` and option `option`;
  // nullopt: never expires. Returns false (and leaves *expire_at unchanged) when ts + ttl
  // overflows a signed 64-bit millisecond count.
  bool ResolveExpireAt(std::string_view key, int64_t ts_ms, const ExpiryOption& option,
                       std::optional<int64_t>* expire_at) const;

  // The expiry the policy gives a write of `key` at `ts_ms` without its own option: a rule's or
  // the default's; nullopt when that is unlimited or so large that ts + ttl overflows.
  std::optional<int64_t> ExpireAt(std::string_view key, int64_t ts_ms) const;

 private:
  int64_t default_ttl_ms_ = -1;
  std::vector<TtlRule> rules_;
  Matcher match_;
};

}  // namespace ebb::types
