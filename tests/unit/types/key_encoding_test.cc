#include "types/key_encoding.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace ebb::types {
namespace {

TEST(KeyEncodingTest, MetaKeyLayoutIsTagDbThenUserKey) {
  EXPECT_EQ(MetaKey(0, "k"), std::string("\x01\x00k", 3));
  EXPECT_EQ(MetaKey(255, ""), std::string("\x01\xff", 2));
  EXPECT_EQ(MetaKeyPrefix(3), std::string("\x01\x03", 2));
}

TEST(KeyEncodingTest, MetaKeyRoundTripsBinaryKeys) {
  const std::string binary("a\0b\xff", 4);
  for (int db : {0, 1, 15, 255}) {
    for (std::string_view user_key :
         {std::string_view(), std::string_view("x"), std::string_view(binary)}) {
      int got_db = -1;
      std::string_view got_key;
      std::string key = MetaKey(db, user_key);
      ASSERT_TRUE(ParseMetaKey(key, &got_db, &got_key));
      EXPECT_EQ(got_db, db);
      EXPECT_EQ(got_key, user_key);
    }
  }
}

TEST(KeyEncodingTest, ParseRejectsOtherKeySpaces) {
  int db = 0;
  std::string_view user_key;
  SubRowKeyParts parts;
  EXPECT_FALSE(ParseMetaKey("", &db, &user_key));
  EXPECT_FALSE(ParseMetaKey(std::string("\x01", 1), &db, &user_key));
  EXPECT_FALSE(ParseMetaKey(SubRowKey(0, "k", 1, "e"), &db, &user_key));
  EXPECT_FALSE(ParseMetaKey(SystemKey("version-hwm"), &db, &user_key));
  EXPECT_FALSE(ParseSubRowKey(MetaKey(0, "k"), &parts));
  // A sub-row key cut inside its version does not parse.
  std::string sub = SubRowKey(0, "k", 7, "");
  EXPECT_FALSE(ParseSubRowKey(std::string_view(sub).substr(0, sub.size() - 1), &parts));
}

TEST(KeyEncodingTest, MetaKeysOfOneDbSortLikeUserKeysAndStayInsideTheirBounds) {
  std::vector<std::string> user_keys = {"",         "a",   "ab", "b", std::string("a\0", 2),
                                        "\xff\xff", "\x7f"};
  std::vector<std::string> sorted = user_keys;
  std::sort(sorted.begin(), sorted.end());
  for (int db : {0, 7, 255}) {
    std::vector<std::string> engine;
    for (const auto& k : user_keys) engine.push_back(MetaKey(db, k));
    std::sort(engine.begin(), engine.end());
    for (size_t i = 0; i < sorted.size(); ++i) {
      EXPECT_EQ(engine[i], MetaKey(db, sorted[i]));
      EXPECT_GE(engine[i], MetaKeyPrefix(db));
      EXPECT_LT(engine[i], MetaKeyUpperBound(db));
    }
  }
  // Databases do not interleave, and no metadata key falls in the sub-row space.
  EXPECT_LT(MetaKey(0, "\xff\xff\xff"), MetaKey(1, ""));
  EXPECT_LT(MetaKey(255, "\xff\xff\xff"), SubRowKey(0, "", 0, ""));
  EXPECT_EQ(MetaKeyUpperBound(255), std::string("\x02", 1));
}

TEST(KeyEncodingTest, SeekPrefixOfASubRowIsItsIncarnationPrefix) {
  const std::string prefix = SubRowPrefix(3, std::string("lo\0g", 4), 42);
  EXPECT_EQ(SubRowSeekPrefixLength(SubRowKey(3, std::string("lo\0g", 4), 42, "element")),
            prefix.size());
  EXPECT_EQ(SubRowSeekPrefixLength(prefix), prefix.size());  // a scan's seek target
  EXPECT_EQ(SubRowSeekPrefixLength(MetaKey(3, "log")), 0u);
  EXPECT_EQ(SubRowSeekPrefixLength(prefix.substr(0, prefix.size() - 1)), 0u);  // cut short
}

TEST(KeyEncodingTest, SubRowKeyRoundTripsAndSortsByVersionThenElement) {
  const std::string key("k\0\xff", 3);
  SubRowKeyParts parts;
  std::string sub = SubRowKey(9, key, 0x0102030405060708ull, std::string("e\0", 2));
  ASSERT_TRUE(ParseSubRowKey(sub, &parts));
  EXPECT_EQ(parts.db, 9);
  EXPECT_EQ(parts.user_key, key);
  EXPECT_EQ(parts.version, 0x0102030405060708ull);
  EXPECT_EQ(parts.element, std::string("e\0", 2));
  EXPECT_TRUE(sub.starts_with(SubRowPrefix(9, key, 0x0102030405060708ull)));

  EXPECT_LT(SubRowKey(0, "k", 1, "zzz"), SubRowKey(0, "k", 2, ""));
  EXPECT_LT(SubRowKey(0, "k", 255, ""), SubRowKey(0, "k", 256, ""));
  EXPECT_LT(SubRowKey(0, "k", 5, "a"), SubRowKey(0, "k", 5, "b"));
}

TEST(KeyEncodingTest, SubRowPrefixesOfDifferentKeysNeverNest) {
  // "k" with version bytes must not look like a prefix of a longer key's sub-rows.
  std::string short_prefix = SubRowPrefix(0, "k", 0);
  std::string long_key = SubRowKey(0, std::string("k\0\0\0\0\0\0\0\0", 9), 0, "");
  EXPECT_FALSE(long_key.starts_with(short_prefix));
  EXPECT_FALSE(SubRowKey(1, "k", 0, "").starts_with(short_prefix));
}

TEST(KeyEncodingTest, PrefixUpperBoundIsTheSmallestKeyAboveThePrefix) {
  EXPECT_EQ(PrefixUpperBound("ab"), "ac");
  EXPECT_EQ(PrefixUpperBound(std::string("a\xff", 2)), "b");
  EXPECT_EQ(PrefixUpperBound(std::string("\xff\xff", 2)), "");
  std::string prefix = SubRowPrefix(0, "log", 42);
  std::string bound = PrefixUpperBound(prefix);
  EXPECT_LT(SubRowKey(0, "log", 42, "\xff\xff\xff"), bound);
  EXPECT_GE(SubRowKey(0, "log", 43, ""), bound);
}

TEST(KeyEncodingTest, Fixed64BigEndianRoundTripsAndPreservesOrder) {
  std::mt19937_64 rng(42);
  std::vector<uint64_t> values = {0, 1, 255, 256, ~0ull, 1ull << 63};
  for (int i = 0; i < 200; ++i) values.push_back(rng());
  for (uint64_t a : values) {
    std::string ea;
    PutFixed64BE(&ea, a);
    ASSERT_EQ(ea.size(), 8u);
    std::string_view in = ea;
    uint64_t back = 0;
    ASSERT_TRUE(GetFixed64BE(&in, &back));
    EXPECT_EQ(back, a);
    EXPECT_TRUE(in.empty());
    for (uint64_t b : {values[0], values[3], values[4], values[10]}) {
      std::string eb;
      PutFixed64BE(&eb, b);
      EXPECT_EQ(a < b, ea < eb) << a << " vs " << b;
    }
  }
  std::string_view short_input("1234567");
  uint64_t v;
  EXPECT_FALSE(GetFixed64BE(&short_input, &v));
}

}  // namespace
}  // namespace ebb::types
