// The number parsing and case folding every layer shares (Redis's string2ll rules, TLOG's
// digits, string2ld).
#include "common/strings.h"

#include <gtest/gtest.h>

#include <charconv>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <string_view>

namespace ebb {
namespace {

TEST(ParseInt64Test, AcceptsWhatRedisString2llAccepts) {
  int64_t v = 1;
  EXPECT_TRUE(ParseInt64("0", &v));
  EXPECT_EQ(v, 0);
  EXPECT_TRUE(ParseInt64("42", &v));
  EXPECT_EQ(v, 42);
  EXPECT_TRUE(ParseInt64("-17", &v));
  EXPECT_EQ(v, -17);
  EXPECT_TRUE(ParseInt64("9223372036854775807", &v));
  EXPECT_EQ(v, std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(ParseInt64("-9223372036854775808", &v));
  EXPECT_EQ(v, std::numeric_limits<int64_t>::min());
}

TEST(ParseInt64Test, RejectsEverythingElse) {
  int64_t v = 7;
  for (const char* bad : {"", "-", "-0", "+1", " 1", "1 ", "01", "00", "1_000", "0x10", "1.5", "1a",
                          "9223372036854775808", "-9223372036854775809", "18446744073709551616",
                          "abc", "1e3", "99999999999999999999999"}) {
    EXPECT_FALSE(ParseInt64(bad, &v)) << bad;
  }
  EXPECT_EQ(v, 7);  // untouched on failure
}

TEST(ParseUint64Test, FullUnsignedRange) {
  uint64_t v = 0;
  EXPECT_TRUE(ParseUint64("18446744073709551615", &v));
  EXPECT_EQ(v, std::numeric_limits<uint64_t>::max());
  EXPECT_FALSE(ParseUint64("18446744073709551616", &v));
  EXPECT_FALSE(ParseUint64("-1", &v));
  EXPECT_FALSE(ParseUint64("+1", &v));
  EXPECT_FALSE(ParseUint64("007", &v));
  EXPECT_FALSE(ParseUint64("", &v));
  EXPECT_TRUE(ParseUint64("0", &v));
  EXPECT_EQ(v, 0u);
}

TEST(ParseDigitsTest, DigitsOnlyLeadingZerosAllowedWithinUint64) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  uint64_t v = 7;
  EXPECT_TRUE(ParseDigits("0", &v));
  EXPECT_EQ(v, 0u);
  EXPECT_TRUE(ParseDigits("000000000042", &v));  // redis-benchmark's __rand_int__
  EXPECT_EQ(v, 42u);
  EXPECT_TRUE(ParseDigits("18446744073709551615", &v));
  EXPECT_EQ(v, kMax);
  EXPECT_TRUE(ParseDigits("0018446744073709551615", &v));
  EXPECT_EQ(v, kMax);
  for (std::string_view bad : {"", "-1", "-0", "+1", " 1", "1 ", "1.0", "0x10", "1_000", "1e3",
                               "18446744073709551616", "99999999999999999999"}) {
    EXPECT_FALSE(ParseDigits(bad, &v)) << bad;
  }
  EXPECT_EQ(v, kMax);
}

// ParseDigits takes eight digits a step: every length, every position of a bad byte and the
// bytes either side of '0' and '9' must still read as one digit at a time does.
TEST(ParseDigitsTest, AgreesWithFromCharsAtEveryLengthAndPosition) {
  std::mt19937_64 rng(7);
  for (size_t length = 1; length <= 24; length++) {
    for (int round = 0; round < 200; round++) {
      std::string text(length, '0');
      for (char& c : text) c = static_cast<char>('0' + rng() % 10);
      uint64_t want = 0;
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), want);
      const bool fits = error == std::errc() && end == text.data() + text.size();
      uint64_t got = 1;
      EXPECT_EQ(ParseDigits(text, &got), fits) << text;
      if (fits) {
        EXPECT_EQ(got, want) << text;
      }
    }
    for (size_t at = 0; at < length; at++) {
      for (char bad : {'/', ':', ' ', '-', '\0', '\xff', '\xb0', 'a'}) {
        std::string text(length, '9');
        text[at] = bad;
        uint64_t got = 1;
        EXPECT_FALSE(ParseDigits(text, &got)) << length << " " << at << " " << int(bad);
        EXPECT_EQ(got, 1u);
      }
    }
  }
  uint64_t v = 0;
  EXPECT_TRUE(ParseDigits("00000000000000000000000018446744073709551615", &v));
  EXPECT_EQ(v, std::numeric_limits<uint64_t>::max());
  EXPECT_FALSE(ParseDigits("00000000000000000000000018446744073709551616", &v));
  EXPECT_TRUE(ParseDigits("1844674407370955161", &v));  // the last length the steps take whole
  EXPECT_EQ(v, 1844674407370955161u);
}

TEST(ParseDoubleTest, AcceptsNumbersRejectsJunk) {
  double d = 0;
  EXPECT_TRUE(ParseDouble("1.5", &d));
  EXPECT_DOUBLE_EQ(d, 1.5);
  EXPECT_TRUE(ParseDouble("-3e2", &d));
  EXPECT_DOUBLE_EQ(d, -300);
  EXPECT_FALSE(ParseDouble("", &d));
  EXPECT_FALSE(ParseDouble(" 1", &d));
  EXPECT_FALSE(ParseDouble("\t1", &d));
  EXPECT_FALSE(ParseDouble("1x", &d));
  EXPECT_FALSE(ParseDouble("nan", &d));
}

TEST(CaseFoldingTest, AsciiOnly) {
  EXPECT_EQ(AsciiLower("GeT-Meta_1\xC3\x89"), "get-meta_1\xC3\x89");
  EXPECT_EQ(AsciiUpper("tlog|ins"), "TLOG|INS");
  EXPECT_TRUE(EqualsIgnoreCase("KeepTTL", "KEEPTTL"));
  EXPECT_FALSE(EqualsIgnoreCase("KEEPTTL", "KEEPTT"));
  EXPECT_FALSE(EqualsIgnoreCase("\xC3\x89", "\xC3\xA9"));  // no Unicode folding
  EXPECT_FALSE(EqualsIgnoreCase("[", "{"));                // '[' + 32 is '{': not letters
}

}  // namespace
}  // namespace ebb
