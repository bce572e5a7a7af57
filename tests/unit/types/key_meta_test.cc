#include "types/key_meta.h"

#include <gtest/gtest.h>

#include "storage/util/coding.h"

namespace ebb::types {
namespace {

TEST(KeyMetaTest, TypeTagsAreTheOnDiskNumbers) {
  EXPECT_EQ(EncodeMetaValue(KeyType::kString, "v"), std::string("\x00v", 2));
  EXPECT_EQ(EncodeMetaValue(KeyType::kTreg, ""), std::string("\x01", 1));
  EXPECT_EQ(EncodeMetaValue(KeyType::kTlog, "p"), std::string("\x02p", 2));
}

TEST(KeyMetaTest, ValueRoundTripsBinaryPayloads) {
  const std::string payload("\0\xff\x01x", 4);
  for (KeyType type : {KeyType::kString, KeyType::kTreg, KeyType::kTlog}) {
    std::string value = EncodeMetaValue(type, payload);
    KeyType got;
    std::string_view got_payload;
    ASSERT_TRUE(DecodeMetaValue(value, &got, &got_payload));
    EXPECT_EQ(got, type);
    EXPECT_EQ(got_payload, payload);
  }
}

TEST(KeyMetaTest, DecodeRejectsEmptyAndUnknownTags) {
  KeyType type;
  std::string_view payload;
  EXPECT_FALSE(DecodeMetaValue("", &type, &payload));
  EXPECT_FALSE(DecodeMetaValue(std::string("\x05x", 2), &type, &payload));
  EXPECT_FALSE(DecodeMetaValue(std::string("\xff", 1), &type, &payload));
}

// Tag 4 is a time series (types/series.h), a collection TYPE names as RedisTimeSeries does.
TEST(KeyMetaTest, SeriesTag) {
  KeyType type = KeyType::kString;
  std::string_view payload;
  const std::string value("\x04x", 2);  // outlives `payload`, a view into it
  ASSERT_TRUE(DecodeMetaValue(value, &type, &payload));
  EXPECT_EQ(type, KeyType::kSeries);
  EXPECT_EQ(payload, "x");
  EXPECT_TRUE(IsCollectionType(KeyType::kSeries));
  EXPECT_EQ(KeyTypeName(KeyType::kSeries), "TSDB-TYPE");
  EXPECT_EQ(KeyTypeFromName("tsdb-type"), KeyType::kSeries);
}

// Tag 3 is a string in Redis's raw encoding: a string to every reader.
TEST(KeyMetaTest, RawStringTagIsAString) {
  KeyType type = KeyType::kTlog;
  std::string_view payload;
  bool raw = false;
  const std::string raw_value("\x03x", 2), plain_value("\x00x", 2);
  ASSERT_TRUE(DecodeMetaValue(raw_value, &type, &payload, &raw));
  EXPECT_EQ(type, KeyType::kString);
  EXPECT_EQ(payload, "x");
  EXPECT_TRUE(raw);
  ASSERT_TRUE(DecodeMetaValue(plain_value, &type, &payload, &raw));
  EXPECT_EQ(payload, "x");
  EXPECT_FALSE(raw);
  EXPECT_EQ(EncodeMetaValue(KeyType::kString, "x", /*raw_string=*/true), std::string("\x03x", 2));
  EXPECT_EQ(EncodeMetaValue(KeyType::kString, "x"), std::string("\x00x", 2));
}

TEST(KeyMetaTest, TypeNamesMatchTypeReplies) {
  EXPECT_EQ(KeyTypeName(KeyType::kString), "string");
  EXPECT_EQ(KeyTypeName(KeyType::kTreg), "treg");
  EXPECT_EQ(KeyTypeName(KeyType::kTlog), "tlog");
  EXPECT_EQ(KeyTypeFromName("STRING"), KeyType::kString);
  EXPECT_EQ(KeyTypeFromName("Tlog"), KeyType::kTlog);
  EXPECT_EQ(KeyTypeFromName("treg"), KeyType::kTreg);
  EXPECT_EQ(KeyTypeFromName("list"), std::nullopt);
  EXPECT_EQ(KeyTypeFromName(""), std::nullopt);
}

TEST(KeyMetaTest, OnlyTlogIsACollectionAndItsPayloadStartsWithTheVersion) {
  EXPECT_TRUE(IsCollectionType(KeyType::kTlog));
  EXPECT_FALSE(IsCollectionType(KeyType::kString));
  EXPECT_FALSE(IsCollectionType(KeyType::kTreg));
  std::string payload;
  storage::PutVarint64(&payload, 300);
  payload.append("rest");
  uint64_t version = 0;
  ASSERT_TRUE(DecodeCollectionVersion(payload, &version));
  EXPECT_EQ(version, 300u);
  EXPECT_FALSE(DecodeCollectionVersion("", &version));
  EXPECT_FALSE(DecodeCollectionVersion(std::string("\x80", 1), &version));
}

}  // namespace
}  // namespace ebb::types
