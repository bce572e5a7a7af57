// SeriesRuleRegister (types/series_rule_register.h): the encoding round-trips, the order is
// (ms, origin) then the bytes, and malformed bytes are refused.
#include "types/series_rule_register.h"

#include <gtest/gtest.h>

#include <string>

namespace ebb::types {
namespace {

SeriesRuleRegister Rule(int64_t ms, const std::string& origin) {
  SeriesRuleRegister reg;
  reg.ms = ms;
  reg.origin = origin;
  reg.present = true;
  reg.source = "src";
  reg.rule = SeriesRule{.dest = "dst", .aggregator = Aggregator::kMax, .bucket_ms = 60, .align = 7};
  return reg;
}

TEST(SeriesRuleRegisterTest, RoundTripsWithAndWithoutARule) {
  const SeriesRuleRegister reg = Rule(1900, "n1");
  SeriesRuleRegister decoded;
  ASSERT_TRUE(DecodeSeriesRuleRegister(EncodeSeriesRuleRegister(reg), "dst", &decoded));
  EXPECT_EQ(decoded, reg);
  SeriesRuleRegister none;
  none.ms = 5;
  none.origin = "n2";
  none.rule.dest = "dst";
  ASSERT_TRUE(DecodeSeriesRuleRegister(EncodeSeriesRuleRegister(none), "dst", &decoded));
  EXPECT_EQ(decoded, none);
  EXPECT_FALSE(decoded.present);
  // A floor makes it version 2; without one it is version 1, as before floors existed.
  SeriesRuleRegister floored = Rule(1900, "n1");
  floored.floor = 1549;
  const std::string bytes = EncodeSeriesRuleRegister(floored);
  EXPECT_EQ(bytes[0], 2);
  EXPECT_EQ(EncodeSeriesRuleRegister(reg)[0], 1);
  ASSERT_TRUE(DecodeSeriesRuleRegister(bytes, "dst", &decoded));
  EXPECT_EQ(decoded, floored);
}

TEST(SeriesRuleRegisterTest, OrdersByStampThenBytes) {
  EXPECT_TRUE(Rule(1, "b").Below(Rule(2, "a")));
  EXPECT_TRUE(Rule(2, "a").Below(Rule(2, "b")));
  SeriesRuleRegister other = Rule(2, "a");
  other.rule.bucket_ms = 61;
  EXPECT_NE(Rule(2, "a").Below(other), other.Below(Rule(2, "a")));
  EXPECT_FALSE(Rule(2, "a").Below(Rule(2, "a")));
}

TEST(SeriesRuleRegisterTest, RefusesMalformedBytes) {
  const std::string good = EncodeSeriesRuleRegister(Rule(1, "n"));
  SeriesRuleRegister decoded;
  EXPECT_FALSE(DecodeSeriesRuleRegister("", "d", &decoded));
  EXPECT_FALSE(DecodeSeriesRuleRegister(good + "x", "d", &decoded));
  EXPECT_FALSE(DecodeSeriesRuleRegister(good.substr(0, good.size() - 1), "d", &decoded));
  std::string version = good;
  version[0] = 2;  // a version 2 register without its floor
  EXPECT_FALSE(DecodeSeriesRuleRegister(version, "d", &decoded));
  EXPECT_FALSE(DecodeSeriesRuleRegister(version + std::string(1, '\0'), "d", &decoded));
  version[0] = 3;
  EXPECT_FALSE(DecodeSeriesRuleRegister(version + "x", "d", &decoded));
  SeriesRuleRegister zero = Rule(1, "n");
  zero.rule.bucket_ms = 0;
  EXPECT_FALSE(DecodeSeriesRuleRegister(EncodeSeriesRuleRegister(zero), "d", &decoded));
  SeriesRuleRegister aggregator = Rule(1, "n");
  aggregator.rule.aggregator = static_cast<Aggregator>(13);
  EXPECT_FALSE(DecodeSeriesRuleRegister(EncodeSeriesRuleRegister(aggregator), "d", &decoded));
}

}  // namespace
}  // namespace ebb::types
