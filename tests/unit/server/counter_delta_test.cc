// The counter's delta and row names (server/active_active/counters.h): every delta round-trips,
// and anything out of shape — a peer that is not ebb, or a damaged row — is refused whole.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server/active_active/counters.h"
#include "types/string_rank.h"

namespace ebb::server {
namespace {

CounterDelta Sample() {
  CounterDelta delta;
  delta.key = "k";
  types::CounterBase base;
  base.ts = 1700000000000;
  base.value = "10";
  base.expire_at = 1700000060000;
  base.observed = {{"a", 0, 3, 9}, {"b", 7, 1, -2}};
  delta.base = base;
  delta.records = {{"a", 0, 4, 10, 1.25L}, {"c", 8, 1, -1, -0.1L}};
  return delta;
}

TEST(CounterDeltaTest, RoundTrips) {
  for (types::CounterBase::Kind kind :
       {types::CounterBase::Kind::kValue, types::CounterBase::Kind::kTombstone,
        types::CounterBase::Kind::kReduced}) {
    CounterDelta delta = Sample();
    delta.base->kind = kind;
    if (kind == types::CounterBase::Kind::kTombstone) {
      delta.base->value.clear();
      delta.base->expire_at = INT64_MAX;
    } else if (kind == types::CounterBase::Kind::kReduced) {
      delta.base->value = types::StringDigest("10");
    }
    CounterDelta parsed;
    ASSERT_TRUE(ParseCounterDelta(CounterDeltaArgs(delta), &parsed));
    EXPECT_EQ(parsed.key, delta.key);
    EXPECT_EQ(parsed.base, delta.base);
    EXPECT_EQ(parsed.records, delta.records);
  }
  CounterDelta records_only = Sample();
  records_only.base.reset();
  CounterDelta parsed;
  ASSERT_TRUE(ParseCounterDelta(CounterDeltaArgs(records_only), &parsed));
  EXPECT_FALSE(parsed.base.has_value());
  EXPECT_EQ(parsed.records.size(), 2u);
}

bool CounterDeltaParses(std::vector<std::string> args) {
  CounterDelta parsed;
  return ParseCounterDelta(args, &parsed);
}

TEST(CounterDeltaTest, RefusesWhatIsOutOfShape) {
  const std::vector<std::string> good = CounterDeltaArgs(Sample());
  CounterDelta parsed;
  // Every truncation but the one that ends after the base or a whole record.
  for (size_t n = 0; n < good.size(); n++) {
    const std::vector<std::string> cut(good.begin(), good.begin() + static_cast<long>(n));
    const bool whole = n == 18 || n == 24;  // after the base; after the first record
    EXPECT_EQ(ParseCounterDelta(cut, &parsed), whole) << n;
  }
  for (size_t i = 1; i < good.size(); i++) {
    std::vector<std::string> bad = good;
    bad[i] = "x";
    if (i == 1 || i == 6 || i == 8 || i == 13 || i == 19 || i == 25) continue;  // free text
    EXPECT_FALSE(ParseCounterDelta(bad, &parsed)) << i;
  }
  std::vector<std::string> unsorted = good;
  std::swap(unsorted[8], unsorted[13]);  // observed origins out of order
  EXPECT_FALSE(ParseCounterDelta(unsorted, &parsed));
  EXPECT_FALSE(CounterDeltaParses({"counter", "k"}));  // nothing to merge
  // More observed entries than arguments.
  EXPECT_FALSE(CounterDeltaParses({"counter", "k", "BASE", "value", "1", "NOTTL", "v", "99"}));
  EXPECT_FALSE(
      CounterDeltaParses({"counter", "k", "BY", "a", "-1", "1", "1", "0"}));  // a negative ts
  EXPECT_FALSE(CounterDeltaParses({"counter", "k", "BY", "a", "0", "0", "1", "0"}));  // seq 0
  EXPECT_TRUE(CounterDeltaParses({"counter", "k", "BY", "a", "0", "1", "1", "0x8p-3"}));
  // A float total has one spelling: the hex form FloatTotalText writes.
  EXPECT_FALSE(CounterDeltaParses({"counter", "k", "BY", "a", "0", "1", "1", "1.0"}));
  EXPECT_FALSE(CounterDeltaParses({"counter", "k", "BY", "a", "0", "1", "1", "inf"}));
  EXPECT_FALSE(CounterDeltaParses({"counter", "k", "BY", "a", "0", "1", "1", "nan"}));
  EXPECT_FALSE(
      CounterDeltaParses({"counter", "k", "BASE", "tombstone", "1", "5", "", "0"}));  // expiry
  EXPECT_TRUE(CounterDeltaParses({"counter", "k", "BASE", "value", "1", "NOTTL", "v", "0"}));
}

TEST(CounterDeltaTest, RowNames) {
  int db = 0;
  std::string_view key;
  const std::string name = CounterRowName(3, "a:b");  // `key` views into it
  ASSERT_TRUE(ParseCounterRowName(name, &db, &key));
  EXPECT_EQ(db, 3);
  EXPECT_EQ(key, "a:b");
  EXPECT_FALSE(ParseCounterRowName("aa-key:3:k", &db, &key));
  EXPECT_FALSE(ParseCounterRowName("aa-ctr:x:k", &db, &key));
  EXPECT_FALSE(ParseCounterRowName("aa-ctr::k", &db, &key));
}

}  // namespace
}  // namespace ebb::server
