#include "types/series_query.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace ebb::types {
namespace {

using Kind = LabelMatcher::Kind;

TEST(SeriesQueryTest, ParsesEveryMatcherForm) {
  struct Case {
    std::string text;
    Kind kind;
    std::string label;
    std::vector<std::string> values;
  };
  const std::vector<Case> cases = {
      {"a=b", Kind::kEqual, "a", {"b"}},
      {"a!=b", Kind::kNotEqual, "a", {"b"}},
      {"a=", Kind::kLacks, "a", {}},
      {"a!=", Kind::kHas, "a", {}},
      {"a=(b,c)", Kind::kIn, "a", {"b", "c"}},
      {"a!=(b)", Kind::kNotIn, "a", {"b"}},
      {"a=()", Kind::kIn, "a", {}},
      {"a=b=c", Kind::kEqual, "a", {"b=c"}},  // the first '=' splits
  };
  for (const Case& c : cases) {
    std::optional<LabelMatcher> m = ParseLabelMatcher(c.text);
    ASSERT_TRUE(m.has_value()) << c.text;
    EXPECT_EQ(m->kind, c.kind) << c.text;
    EXPECT_EQ(m->label, c.label) << c.text;
    EXPECT_EQ(m->values, c.values) << c.text;
  }
  for (const char* bad : {"", "ab", "=b", "!=b", "a=(b", "a=(b,)", "a=(,b)", "a!=(b,,c)"}) {
    EXPECT_FALSE(ParseLabelMatcher(bad).has_value()) << bad;
  }
  EXPECT_TRUE(RequiresValue(*ParseLabelMatcher("a=b")));
  EXPECT_TRUE(RequiresValue(*ParseLabelMatcher("a=()")));
  EXPECT_FALSE(RequiresValue(*ParseLabelMatcher("a!=b")));
  EXPECT_FALSE(RequiresValue(*ParseLabelMatcher("a=")));
}

TEST(SeriesQueryTest, MatchesAConjunction) {
  const SeriesLabels labels = {{"type", "temp"}, {"room", "hall"}};
  auto matches = [&](std::vector<std::string> texts) {
    std::vector<LabelMatcher> filter;
    for (const std::string& t : texts) filter.push_back(*ParseLabelMatcher(t));
    return MatchesLabels(filter, labels);
  };
  EXPECT_TRUE(matches({"type=temp", "room=(attic,hall)", "x=", "room!=", "x!=y", "x!=(y)"}));
  EXPECT_FALSE(matches({"type=temp", "room=attic"}));
  EXPECT_FALSE(matches({"type=temp", "room="}));
  EXPECT_FALSE(matches({"type=temp", "x!="}));
  EXPECT_FALSE(matches({"type=temp", "room!=hall"}));
  EXPECT_FALSE(matches({"type=temp", "room!=(hall,attic)"}));
  EXPECT_FALSE(matches({"type=()"}));
}

TEST(SeriesQueryTest, ReducesPerTimestampSkippingNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<std::vector<Sample>> inputs = {
      {{10, 1}, {20, nan}, {30, 5}},
      {{10, 3}, {20, nan}, {40, 7}},
      {{30, nan}},
  };
  std::vector<Sample> sum = ReduceSeries(inputs, Aggregator::kSum);
  ASSERT_EQ(sum.size(), 4u);
  EXPECT_EQ(sum[0].ts, 10);
  EXPECT_EQ(sum[0].value, 4);
  EXPECT_EQ(sum[1].ts, 20);
  EXPECT_TRUE(std::isnan(sum[1].value));  // every value NaN
  EXPECT_EQ(sum[2].ts, 30);
  EXPECT_EQ(sum[2].value, 5);
  EXPECT_EQ(sum[3].ts, 40);
  EXPECT_EQ(sum[3].value, 7);
  std::vector<Sample> var = ReduceSeries(inputs, Aggregator::kVarS);
  EXPECT_EQ(var[0].value, 2);  // {1, 3}: mean 2, (1 + 1) / (2 - 1)
  EXPECT_EQ(var[2].value, 0);
  EXPECT_EQ(ReduceSeries(inputs, Aggregator::kCount)[0].value, 2);
  EXPECT_TRUE(ReduceSeries({}, Aggregator::kMax).empty());
  EXPECT_FALSE(IsReducer(Aggregator::kFirst));
  EXPECT_FALSE(IsReducer(Aggregator::kLast));
  EXPECT_FALSE(IsReducer(Aggregator::kTwa));
  EXPECT_TRUE(IsReducer(Aggregator::kStdS));
}

}  // namespace
}  // namespace ebb::types
