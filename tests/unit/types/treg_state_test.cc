// TregState: the TREG reference model — last write wins by (ts, value), and the merge laws.
#include "types/treg_state.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>

#include "tests/support/test_constants.h"

namespace ebb::types {
namespace {

TEST(TregStateTest, StartsAbsentAndFirstWriteWins) {
  TregState r;
  EXPECT_FALSE(r.present());
  EXPECT_TRUE(r.Set("", 0));  // even the smallest write beats absent
  EXPECT_TRUE(r.present());
  EXPECT_EQ(r.value(), "");
  EXPECT_EQ(r.ts(), 0u);
}

TEST(TregStateTest, NewerTimestampWinsOlderIgnored) {
  TregState r;
  r.Set("a", 10);
  EXPECT_TRUE(r.Set("a", 11));
  EXPECT_FALSE(r.Set("zzz", 9));
  EXPECT_EQ(r.value(), "a");
  EXPECT_EQ(r.ts(), 11u);
}

TEST(TregStateTest, EqualTimestampGreaterValueWins) {
  TregState r;
  r.Set("b", 5);
  EXPECT_FALSE(r.Set("a", 5));
  EXPECT_FALSE(r.Set("b", 5));                    // identical: no change
  EXPECT_TRUE(r.Set("ba", 5));                    // an extension beats its prefix
  EXPECT_TRUE(r.Set(std::string("\xff", 1), 5));  // bytes compare unsigned
  EXPECT_EQ(r.value(), std::string("\xff", 1));
}

TEST(TregStateTest, MaxTimestampAndBinaryValues) {
  TregState r;
  std::string v("\0\r\n", 3);
  r.Set(v, test::kMaxTimestamp);
  EXPECT_FALSE(r.Set("x", test::kMaxTimestamp - 1));
  EXPECT_EQ(r.value(), v);
  EXPECT_EQ(r.ts(), test::kMaxTimestamp);
}

TregState RandomTregState(std::mt19937_64& rng) {
  TregState r;
  int ops = static_cast<int>(rng() % 4);
  for (int i = 0; i < ops; ++i) {
    std::string value(rng() % 3, 'a');
    for (char& c : value) c = static_cast<char>("a\0\xff"[rng() % 3]);
    r.Set(value, rng() % 2 ? test::kMaxTimestamp : rng() % 5);
  }
  return r;
}

TregState Merged(TregState a, const TregState& b) {
  a.Merge(b);
  return a;
}

TEST(TregStateTest, MergeIsCommutativeAssociativeIdempotent) {
  std::mt19937_64 rng(4242);
  for (int i = 0; i < 5000; ++i) {
    TregState a = RandomTregState(rng), b = RandomTregState(rng), c = RandomTregState(rng);
    ASSERT_EQ(Merged(a, b), Merged(b, a)) << "iteration " << i;
    ASSERT_EQ(Merged(Merged(a, b), c), Merged(a, Merged(b, c))) << "iteration " << i;
    ASSERT_EQ(Merged(a, a), a) << "iteration " << i;
  }
}

}  // namespace
}  // namespace ebb::types
