// CRC-32C: known answers (RFC 3720 test vectors), hardware == software, Extend, Mask.
#include "storage/util/crc32c.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace ebb::storage::crc32c {
namespace {

TEST(Crc32cTest, StandardResults) {
  std::string buf(32, '\0');
  EXPECT_EQ(Value(buf), 0x8a9136aau);
  buf.assign(32, '\xff');
  EXPECT_EQ(Value(buf), 0x62a8ab43u);
  for (int i = 0; i < 32; ++i) buf[i] = static_cast<char>(i);
  EXPECT_EQ(Value(buf), 0x46dd794eu);
  for (int i = 0; i < 32; ++i) buf[i] = static_cast<char>(31 - i);
  EXPECT_EQ(Value(buf), 0x113fdb5cu);
  EXPECT_EQ(Value("123456789"), 0xe3069283u);
}

TEST(Crc32cTest, HardwareMatchesPortableAtEveryLengthAndAlignment) {
  std::mt19937 rng(7);
  std::string data(300, '\0');
  for (char& c : data) c = static_cast<char>(rng());
  for (size_t start = 0; start < 9; ++start) {
    for (size_t n = 0; start + n <= data.size(); n += 1 + n / 8) {
      ASSERT_EQ(Extend(0, data.data() + start, n), ExtendPortable(0, data.data() + start, n))
          << start << " " << n;
    }
  }
}

// Blocks of 4 KiB and more take the hardware path's three interleaved streams (768 bytes at a
// time, joined by shifting): every length around those steps, from any starting crc.
TEST(Crc32cTest, HardwareMatchesPortableOnLongInputs) {
  std::mt19937 rng(11);
  std::string data(10016, '\0');  // room for the longest length from every start
  for (char& c : data) c = static_cast<char>(rng());
  const uint32_t seed = Value("seed");
  for (size_t n : {767, 768, 769, 775, 776, 1535, 1536, 1537, 4096, 4101, 8192, 9999}) {
    for (size_t start = 0; start < 9; ++start) {
      ASSERT_EQ(Extend(0, data.data() + start, n), ExtendPortable(0, data.data() + start, n))
          << start << " " << n;
      ASSERT_EQ(Extend(seed, data.data() + start, n), ExtendPortable(seed, data.data() + start, n))
          << start << " " << n;
    }
  }
  std::string zeros(4096, '\0');
  EXPECT_EQ(Extend(0, zeros.data(), zeros.size()), ExtendPortable(0, zeros.data(), zeros.size()));
}

TEST(Crc32cTest, ExtendEqualsWhole) {
  const std::string a = "hello ", b = "world";
  EXPECT_EQ(Extend(Value(a), b.data(), b.size()), Value(a + b));
  EXPECT_NE(Value("a"), Value("foo"));
}

TEST(Crc32cTest, Mask) {
  const uint32_t crc = Value("foo");
  EXPECT_NE(crc, Mask(crc));
  EXPECT_NE(crc, Mask(Mask(crc)));
  EXPECT_EQ(crc, Unmask(Mask(crc)));
  EXPECT_EQ(crc, Unmask(Unmask(Mask(Mask(crc)))));
}

}  // namespace
}  // namespace ebb::storage::crc32c
