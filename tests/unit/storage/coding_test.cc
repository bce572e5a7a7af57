#include "storage/util/coding.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

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

// Every width, with and without bytes after the varint (the decoder reads 8 bytes at once when
// they are there), and encodings with needless continuation bytes: the value a byte-by-byte
// decode gives, and the byte after the varint.
TEST(Coding, VarintOfEveryWidthDecodesWithOrWithoutBytesAfterIt) {
  std::vector<std::string> encodings;
  for (int bits = 0; bits <= 64; bits++) {
    const uint64_t v = bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
    for (uint64_t value : {v, v ^ uint64_t{0x5555555555555555}, v & uint64_t{0xa5a5a5a5a5a5a5a5}}) {
      std::string buf;
      PutVarint64(&buf, value);
      encodings.push_back(buf);
    }
  }
  for (int padded = 2; padded <= 9; padded++) {  // 5 written in `padded` bytes
    std::string buf(1, '\x85');
    buf.append(static_cast<size_t>(padded - 2), '\x80');
    buf.push_back('\x00');
    encodings.push_back(buf);
  }
  for (const std::string& encoding : encodings) {
    uint64_t expected = 0;
    for (size_t i = 0; i < encoding.size(); i++) {
      expected |= static_cast<uint64_t>(static_cast<uint8_t>(encoding[i]) & 0x7f) << (7 * i);
    }
    for (size_t after : {0, 1, 7, 9}) {
      const std::string buf = encoding + std::string(after, '\xff');
      uint64_t got = 0;
      const char* end = GetVarint64Ptr(buf.data(), buf.data() + buf.size(), &got);
      ASSERT_EQ(end, buf.data() + encoding.size()) << encoding.size() << " + " << after;
      EXPECT_EQ(got, expected) << encoding.size() << " + " << after;
    }
  }
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

TEST(Coding, Varint32RejectsValuesAboveUint32AndLeavesInput) {
  std::string buf;
  PutVarint64(&buf, uint64_t{UINT32_MAX} + 1);
  std::string_view in = buf;
  uint32_t v = 7;
  EXPECT_FALSE(GetVarint32(&in, &v));
  EXPECT_EQ(in.size(), buf.size());
  buf.clear();
  PutVarint32(&buf, UINT32_MAX);
  in = buf;
  ASSERT_TRUE(GetVarint32(&in, &v));
  EXPECT_EQ(v, UINT32_MAX);
  EXPECT_TRUE(in.empty());
}

TEST(Coding, EmptyAndOverlongVarintsAreRejected) {
  std::string_view empty;
  uint64_t v64;
  uint32_t v32;
  EXPECT_FALSE(GetVarint64(&empty, &v64));
  EXPECT_FALSE(GetVarint32(&empty, &v32));
  const std::string overlong(11, '\x80');  // never terminates within 10 bytes
  std::string_view in = overlong;
  EXPECT_FALSE(GetVarint64(&in, &v64));
}

TEST(Coding, PointerFormsReturnTheByteAfterTheVarint) {
  std::string buf;
  PutVarint32(&buf, 5);    // 1 byte: the inline path
  PutVarint32(&buf, 300);  // 2 bytes: the out-of-line path
  PutVarint64(&buf, 1ull << 50);
  const char* p = buf.data();
  const char* limit = p + buf.size();
  uint32_t a = 0, b = 0;
  uint64_t c = 0;
  p = GetVarint32Ptr(p, limit, &a);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p, buf.data() + 1);
  p = GetVarint32Ptr(p, limit, &b);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p, buf.data() + 3);
  p = GetVarint64Ptr(p, limit, &c);
  EXPECT_EQ(p, limit);
  EXPECT_EQ(a, 5u);
  EXPECT_EQ(b, 300u);
  EXPECT_EQ(c, 1ull << 50);
  // A varint cut off by limit is malformed even if the byte after limit would finish it.
  EXPECT_EQ(GetVarint32Ptr(buf.data() + 1, buf.data() + 2, &b), nullptr);
  EXPECT_EQ(GetVarint64Ptr(limit, limit, &c), nullptr);
}

}  // namespace
}  // namespace ebb::storage
