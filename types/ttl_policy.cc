#include "types/ttl_policy.h"

#include "common/glob.h"

namespace ebb::types {

TtlPolicy::TtlPolicy(int64_t default_ttl_ms, std::vector<TtlRule> rules, Matcher match)
    : default_ttl_ms_(default_ttl_ms), rules_(std::move(rules)), match_(std::move(match)) {
  if (!match_) {
    match_ = [](std::string_view pattern, std::string_view key) { return GlobMatch(pattern, key); };
  }
}

std::optional<int64_t> TtlPolicy::ExpireAt(std::string_view key, int64_t ts_ms) const {
  std::optional<int64_t> expire_at;
  if (!ResolveExpireAt(key, ts_ms, ExpiryOption::Policy(), &expire_at)) return std::nullopt;
  return expire_at;
}

const TtlRule* TtlPolicy::RuleFor(std::string_view key) const {
  for (const TtlRule& rule : rules_) {
    if (match_(rule.pattern, key)) return &rule;
  }
  return nullptr;
}

std::optional<int64_t> TtlPolicy::TtlFor(std::string_view key) const {
  const TtlRule* rule = RuleFor(key);
  const int64_t ttl = rule == nullptr ? default_ttl_ms_ : rule->expiration ? rule->ttl_ms : -1;
  if (ttl < 0) return std::nullopt;
  return ttl;
}

storage::ExpiryMode TtlPolicy::ModeFor(std::string_view key) const {
  const TtlRule* rule = RuleFor(key);
  return rule == nullptr ? storage::ExpiryMode::kDefault : rule->mode;
}

bool TtlPolicy::has_modes() const {
  for (const TtlRule& rule : rules_) {
    if (rule.mode != storage::ExpiryMode::kDefault) return true;
  }
  return false;
}

bool TtlPolicy::ResolveExpireAt(std::string_view key, int64_t ts_ms, const ExpiryOption& option,
                                std::optional<int64_t>* expire_at) const {
  int64_t ttl_ms = 0;
  switch (option.kind) {
    case ExpiryOption::Kind::kNone:
      *expire_at = std::nullopt;
      return true;
    case ExpiryOption::Kind::kAbsolute:
      *expire_at = option.value;
      return true;
    case ExpiryOption::Kind::kRelative:
      ttl_ms = option.value;
      break;
    case ExpiryOption::Kind::kPolicy: {
      const std::optional<int64_t> ttl = TtlFor(key);
      if (!ttl) {
        *expire_at = std::nullopt;
        return true;
      }
      ttl_ms = *ttl;
      break;
    }
  }
  int64_t at = 0;
  if (__builtin_add_overflow(ts_ms, ttl_ms, &at)) return false;
  *expire_at = at;
  return true;
}

}  // namespace ebb::types
