// TtlPolicy: precedence write option > first matching ttl-rule > default-ttl; NOTTL opts out.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>

#include "types/ttl_policy.h"

namespace ebb::types {
namespace {

// A tiny prefix glob ("abc*") or exact match, enough to test rule order.
bool PrefixGlob(std::string_view pattern, std::string_view key) {
  if (!pattern.empty() && pattern.back() == '*') {
    return key.substr(0, pattern.size() - 1) == pattern.substr(0, pattern.size() - 1);
  }
  return pattern == key;
}

std::optional<int64_t> Resolve(const TtlPolicy& policy, std::string_view key, int64_t ts,
                               ExpiryOption option) {
  std::optional<int64_t> at = -12345;  // sentinel: must be overwritten
  EXPECT_TRUE(policy.ResolveExpireAt(key, ts, option, &at));
  return at;
}

TEST(TtlPolicyTest, EmptyPolicyNeverExpires) {
  TtlPolicy policy;
  EXPECT_EQ(policy.TtlFor("k"), std::nullopt);
  EXPECT_EQ(Resolve(policy, "k", 1000, ExpiryOption::Policy()), std::nullopt);
}

TEST(TtlPolicyTest, DefaultTtlAppliesWhenNoRuleMatches) {
  TtlPolicy policy(5000, {{"session:*", 100}}, PrefixGlob);
  EXPECT_EQ(policy.TtlFor("user:1"), 5000);
  EXPECT_EQ(Resolve(policy, "user:1", 1000, ExpiryOption::Policy()), 6000);
}

TEST(TtlPolicyTest, FirstMatchingRuleWins) {
  TtlPolicy policy(5000, {{"a:b*", 10}, {"a:*", 20}, {"a:b:c", 30}}, PrefixGlob);
  EXPECT_EQ(policy.TtlFor("a:b:c"), 10);
  EXPECT_EQ(policy.TtlFor("a:x"), 20);
  EXPECT_EQ(policy.TtlFor("b"), 5000);
  EXPECT_EQ(Resolve(policy, "a:x", 100, ExpiryOption::Policy()), 120);
}

TEST(TtlPolicyTest, UnlimitedRuleExemptsFromDefault) {
  TtlPolicy policy(5000, {{"keep:*", -1}}, PrefixGlob);
  EXPECT_EQ(Resolve(policy, "keep:1", 100, ExpiryOption::Policy()), std::nullopt);
  EXPECT_EQ(Resolve(policy, "other", 100, ExpiryOption::Policy()), 5100);
}

TEST(TtlPolicyTest, ARuleWithExpirationOffGivesNoExpiryButStillMatchesFirst) {
  TtlPolicy policy(5000, {{"off:*", 10, /*expiration=*/false}, {"o*", 20}}, PrefixGlob);
  EXPECT_EQ(policy.TtlFor("off:1"), std::nullopt);  // not default-ttl, not the later rule
  EXPECT_EQ(Resolve(policy, "off:1", 100, ExpiryOption::Policy()), std::nullopt);
  EXPECT_EQ(policy.TtlFor("other"), 20);
  // The write's own option still applies.
  EXPECT_EQ(Resolve(policy, "off:1", 100, ExpiryOption::Relative(7)), 107);
}

TEST(TtlPolicyTest, AModeComesFromTheFirstMatchingRule) {
  TtlPolicy plain(5000, {{"a:*", 10}}, PrefixGlob);
  EXPECT_FALSE(plain.has_modes());
  TtlPolicy policy(5000,
                   {{"log:*", 10, true, storage::ExpiryMode::kWholeFile},
                    {"l*", 10, true, storage::ExpiryMode::kPerItem}},
                   PrefixGlob);
  EXPECT_TRUE(policy.has_modes());
  EXPECT_EQ(policy.ModeFor("log:1"), storage::ExpiryMode::kWholeFile);
  EXPECT_EQ(policy.ModeFor("lx"), storage::ExpiryMode::kPerItem);
  EXPECT_EQ(policy.ModeFor("other"), storage::ExpiryMode::kDefault);
}

TEST(TtlPolicyTest, WriteOptionBeatsRuleAndDefault) {
  TtlPolicy policy(5000, {{"a:*", 10}}, PrefixGlob);
  EXPECT_EQ(Resolve(policy, "a:1", 100, ExpiryOption::Relative(7)), 107);
  EXPECT_EQ(Resolve(policy, "a:1", 100, ExpiryOption::Absolute(99999)), 99999);
  EXPECT_EQ(Resolve(policy, "zzz", 100, ExpiryOption::Relative(7)), 107);
}

TEST(TtlPolicyTest, NoTtlOptsOutOfRuleAndDefault) {
  TtlPolicy policy(5000, {{"a:*", 10}}, PrefixGlob);
  EXPECT_EQ(Resolve(policy, "a:1", 100, ExpiryOption::None()), std::nullopt);
  EXPECT_EQ(Resolve(policy, "b", 100, ExpiryOption::None()), std::nullopt);
}

TEST(TtlPolicyTest, ZeroTtlExpiresAtTheWriteTimestamp) {
  TtlPolicy policy(0, {}, PrefixGlob);
  EXPECT_EQ(Resolve(policy, "k", 777, ExpiryOption::Policy()), 777);
  EXPECT_EQ(Resolve(TtlPolicy(), "k", 777, ExpiryOption::Relative(0)), 777);
}

TEST(TtlPolicyTest, OverflowIsReportedAndLeavesResultUntouched) {
  TtlPolicy policy(std::numeric_limits<int64_t>::max(), {}, PrefixGlob);
  std::optional<int64_t> at = 42;
  EXPECT_FALSE(policy.ResolveExpireAt("k", 10, ExpiryOption::Policy(), &at));
  EXPECT_EQ(at, 42);
  EXPECT_FALSE(TtlPolicy().ResolveExpireAt("k", std::numeric_limits<int64_t>::max(),
                                           ExpiryOption::Relative(1), &at));
  EXPECT_EQ(at, 42);
  // Negative timestamps (before 1970) are valid KV timestamps.
  EXPECT_TRUE(TtlPolicy().ResolveExpireAt("k", -100, ExpiryOption::Relative(50), &at));
  EXPECT_EQ(at, -50);
}

}  // namespace
}  // namespace ebb::types
