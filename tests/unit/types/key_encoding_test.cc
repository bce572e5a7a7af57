#include "types/key_encoding.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "common/key_slot.h"

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

namespace ebb::types {
namespace {

// The slot layout: 0x03 | slot:u16-BE | user_key and 0x04 | slot:u16-BE | varint len | user_key
// | version | element, with the slot of the key's hash tag (foo: 12182 = 0x2F96).
TEST(KeyEncodingTest, SlotLayoutGroupsRowsBySlot) {
  EXPECT_EQ(MetaKey(KeyLayout::kBySlot, 0, "foo"), std::string("\x03\x2f\x96"
                                                               "foo",
                                                               6));
  EXPECT_EQ(MetaKey(KeyLayout::kBySlot, 0, "{foo}x"), std::string("\x03\x2f\x96{foo}x", 9));
  EXPECT_EQ(MetaKey(KeyLayout::kByDatabase, 2, "foo"), MetaKey(2, "foo"));
  EXPECT_EQ(SubRowPrefix(KeyLayout::kBySlot, 0, "foo", 7), std::string("\x04\x2f\x96\x03"
                                                                       "foo"
                                                                       "\0\0\0\0\0\0\0\x07",
                                                                       15));
  EXPECT_EQ(SlotMetaPrefix(12182), std::string("\x03\x2f\x96", 3));
  EXPECT_EQ(SlotSubRowPrefix(16383), std::string("\x04\x3f\xff", 3));
  EXPECT_EQ(MetaKeyPrefix(KeyLayout::kBySlot, 0), std::string(1, '\x03'));
  EXPECT_EQ(SubRowDbPrefix(KeyLayout::kBySlot, 0), std::string(1, '\x04'));
  EXPECT_EQ(MetaKeyPosition(KeyLayout::kBySlot, "foo"), std::string("\x2f\x96"
                                                                    "foo",
                                                                    5));
  EXPECT_EQ(MetaKeyPosition(KeyLayout::kByDatabase, "foo"), "foo");
  // Every key of a slot is inside the slot's range, whatever its bytes.
  for (std::string_view key : {"foo", "{foo}", "{foo}\xff\xff", "a{foo}"}) {
    const std::string meta = MetaKey(KeyLayout::kBySlot, 0, key);
    EXPECT_TRUE(meta.starts_with(SlotMetaPrefix(KeySlot(key)))) << key;
  }
}

TEST(KeyEncodingTest, SlotLayoutKeysParse) {
  int db = -1;
  std::string_view user_key;
  KeyLayout layout = KeyLayout::kByDatabase;
  const std::string slot_key = MetaKey(KeyLayout::kBySlot, 0, "k");
  ASSERT_TRUE(ParseMetaKey(slot_key, &db, &user_key, &layout));
  EXPECT_EQ(db, 0);
  EXPECT_EQ(user_key, "k");
  EXPECT_EQ(layout, KeyLayout::kBySlot);
  const std::string db_key = MetaKey(3, "k");
  ASSERT_TRUE(ParseMetaKey(db_key, &db, &user_key, &layout));
  EXPECT_EQ(layout, KeyLayout::kByDatabase);
  EXPECT_EQ(db, 3);
  EXPECT_FALSE(ParseMetaKey(std::string("\x03\x00", 2), &db, &user_key));

  const std::string sub = SubRowPrefix(KeyLayout::kBySlot, 0, "log", 9) + "elem";
  SubRowKeyParts parts;
  ASSERT_TRUE(ParseSubRowKey(sub, &parts));
  EXPECT_EQ(parts.layout, KeyLayout::kBySlot);
  EXPECT_EQ(parts.db, 0);
  EXPECT_EQ(parts.user_key, "log");
  EXPECT_EQ(parts.version, 9u);
  EXPECT_EQ(parts.element, "elem");
  EXPECT_EQ(SubRowSeekPrefixLength(sub), sub.size() - 4);
  EXPECT_FALSE(ParseSubRowKey(std::string("\x04\x00", 2), &parts));
  EXPECT_FALSE(ParseMetaKey(sub, &db, &user_key));
  EXPECT_FALSE(ParseSubRowKey(MetaKey(KeyLayout::kBySlot, 0, "log"), &parts));
}

}  // namespace
}  // namespace ebb::types
