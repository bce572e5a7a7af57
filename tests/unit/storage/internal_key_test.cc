#include "storage/format/internal_key.h"

#include <gtest/gtest.h>

namespace ebb::storage {
namespace {

std::string IKey(std::string_view user, uint64_t seq, RowKind kind = RowKind::kValue) {
  std::string k;
  AppendInternalKey(&k, user, seq, kind);
  return k;
}

TEST(InternalKey, NewerVersionsOfAKeySortFirst) {
  EXPECT_LT(CompareInternalKeys(IKey("a", 9), IKey("a", 3)), 0);
  EXPECT_LT(CompareInternalKeys(IKey("a", 3), IKey("b", 9)), 0);
  EXPECT_LT(CompareInternalKeys(IKey("a", 1), IKey("ab", 1)), 0);       // prefix first
  EXPECT_LT(CompareInternalKeys(IKey("\x01", 1), IKey("\xff", 1)), 0);  // unsigned bytes
}

TEST(InternalKey, ParsesWhatItEncodes) {
  ParsedInternalKey p;
  const std::string key = IKey("user", 42, RowKind::kTombstone);  // p views into it
  ASSERT_TRUE(ParseInternalKey(key, &p));
  EXPECT_EQ(p.user_key, "user");
  EXPECT_EQ(p.sequence, 42u);
  EXPECT_EQ(p.kind, RowKind::kTombstone);
  EXPECT_FALSE(ParseInternalKey("short", &p));
}

TEST(EncodedRow, RowsWithoutMetaCostOneByte) {
  std::string row;
  AppendEncodedRow(&row, RowMeta{}, "v");
  EXPECT_EQ(row.size(), 2u);
  RowMeta meta;
  std::string_view value;
  ASSERT_TRUE(DecodeRow(row, &meta, &value));
  EXPECT_FALSE(meta.timestamp_ms);
  EXPECT_FALSE(meta.expire_at_ms);
  EXPECT_EQ(value, "v");
}

TEST(EncodedRow, MetaRoundTripsIncludingNegativeTimestamps) {
  RowMeta in{.timestamp_ms = -5, .expire_at_ms = 1'700'000'000'000};
  std::string row;
  AppendEncodedRow(&row, in, "value");
  EXPECT_EQ(row.size(), EncodedRowLength(in, "value"));
  RowMeta out;
  std::string_view value;
  ASSERT_TRUE(DecodeRow(row, &out, &value));
  EXPECT_EQ(out, in);
  EXPECT_EQ(value, "value");
  EXPECT_FALSE(DecodeRow(std::string("\x80", 1), &out, &value));  // unknown flag bit
}

}  // namespace
}  // namespace ebb::storage
