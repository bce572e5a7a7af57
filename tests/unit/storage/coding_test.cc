#include "storage/util/coding.h"

#include <gtest/gtest.h>

#include <limits>

namespace ebb::storage {
namespace {

TEST(Coding, VarintRoundTripsAcrossWidths) {
  std::string buf;
  const uint64_t values[] = {0, 1, 127, 128, 16383, 16384, 1ull << 35, UINT64_MAX};
  for (uint64_t v : values) PutVarint64(&buf, v);
  std::string_view in = buf;
  for (uint64_t v : values) {
    uint64_t got = 0;
    ASSERT_TRUE(GetVarint64(&in, &got));
    EXPECT_EQ(got, v);
  }
  EXPECT_TRUE(in.empty());
}

TEST(Coding, TruncatedVarintIsRejected) {
  std::string buf;
  PutVarint64(&buf, 1ull << 40);
  std::string_view in(buf.data(), buf.size() - 1);
  uint64_t v;
  EXPECT_FALSE(GetVarint64(&in, &v));
}

TEST(Coding, ZigZagKeepsSignedExtremes) {
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{1}, std::numeric_limits<int64_t>::min(),
                    std::numeric_limits<int64_t>::max()}) {
    EXPECT_EQ(UnZigZag(ZigZag(v)), v);
  }
}

TEST(Coding, LengthPrefixedRejectsShortInput) {
  std::string buf;
  PutLengthPrefixed(&buf, "hello");
  std::string_view in(buf.data(), 3);
  std::string_view out;
  EXPECT_FALSE(GetLengthPrefixed(&in, &out));
  in = buf;
  ASSERT_TRUE(GetLengthPrefixed(&in, &out));
  EXPECT_EQ(out, "hello");
}

}  // namespace
}  // namespace ebb::storage
