#include "common/units.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace ebb {
namespace {

int64_t Duration(std::string_view text) {
  int64_t ms = -999;
  EXPECT_TRUE(ParseDuration(text, &ms)) << text;
  return ms;
}

bool BadDuration(std::string_view text) {
  int64_t ms = 12345;
  bool ok = ParseDuration(text, &ms);
  return !ok && ms == 12345;
}

TEST(UnitsTest, DurationEveryUnit) {
  EXPECT_EQ(Duration("0"), 0);
  EXPECT_EQ(Duration("1500"), 1500);
  EXPECT_EQ(Duration("1500ms"), 1500);
  EXPECT_EQ(Duration("90s"), 90000);
  EXPECT_EQ(Duration("5m"), 300000);
  EXPECT_EQ(Duration("2h"), 7200000);
  EXPECT_EQ(Duration("3d"), 3 * 86400000LL);
  EXPECT_EQ(Duration("1w"), 7 * 86400000LL);
  EXPECT_EQ(Duration("1f"), 14 * 86400000LL);
  EXPECT_EQ(Duration("unlimited"), -1);
}

TEST(UnitsTest, DurationCombinations) {
  EXPECT_EQ(Duration("2d7h32m"), 2 * 86400000LL + 7 * 3600000LL + 32 * 60000LL);
  EXPECT_EQ(Duration("1m30s"), 90000);
  EXPECT_EQ(Duration("1s500ms"), 1500);
  EXPECT_EQ(Duration("1f1w1d1h1m1s1ms"),
            21 * 86400000LL + 86400000LL + 3600000LL + 60000LL + 1000LL + 1);
  EXPECT_EQ(Duration("0s"), 0);
}

TEST(UnitsTest, DurationInvalidForms) {
  for (std::string_view bad : {"",
                               "5x",
                               "m",
                               "-5s",
                               "-1",
                               "+5",
                               "5 s",
                               " 5s",
                               "5s ",
                               "1.5s",
                               "5S",
                               "5M",
                               "Unlimited",
                               "unlimitedx",
                               "1h30",
                               "s5",
                               "5mss",
                               "0x10",
                               "9223372036854775808",
                               "106751991168d",
                               "9223372036854775807ms1ms",
                               "99999999999999999999999"}) {
    EXPECT_TRUE(BadDuration(bad)) << "'" << bad << "'";
  }
  EXPECT_EQ(Duration("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(Duration("106751991167d"), 106751991167LL * 86400000LL);
}

TEST(UnitsTest, FormatDurationRoundTrips) {
  EXPECT_EQ(FormatDuration(-1), "unlimited");
  EXPECT_EQ(FormatDuration(0), "0");
  EXPECT_EQ(FormatDuration(1500), "1s500ms");
  EXPECT_EQ(FormatDuration(90000), "1m30s");
  EXPECT_EQ(FormatDuration(86400000), "1d");
  EXPECT_EQ(FormatDuration(2 * 86400000LL + 7 * 3600000LL + 32 * 60000LL), "2d7h32m");
  for (int64_t v : {int64_t{0}, int64_t{1}, int64_t{999}, int64_t{1000}, int64_t{3600001},
                    int64_t{1} << 40, INT64_MAX}) {
    EXPECT_EQ(Duration(FormatDuration(v)), v) << v;
  }
}

uint64_t Memory(std::string_view text) {
  uint64_t bytes = 999;
  EXPECT_TRUE(ParseMemorySize(text, &bytes)) << text;
  return bytes;
}

TEST(UnitsTest, MemorySizes) {
  EXPECT_EQ(Memory("0"), 0u);
  EXPECT_EQ(Memory("4096"), 4096u);
  EXPECT_EQ(Memory("10b"), 10u);
  EXPECT_EQ(Memory("1k"), 1000u);
  EXPECT_EQ(Memory("1kb"), 1024u);
  EXPECT_EQ(Memory("1KB"), 1024u);
  EXPECT_EQ(Memory("2m"), 2000000u);
  EXPECT_EQ(Memory("2mb"), 2u << 20);
  EXPECT_EQ(Memory("3Mb"), 3u << 20);
  EXPECT_EQ(Memory("1g"), 1000000000u);
  EXPECT_EQ(Memory("1gb"), 1u << 30);
  EXPECT_EQ(Memory("18446744073709551615"), UINT64_MAX);
  uint64_t bytes = 0;
  for (std::string_view bad : {"", "-1", "1t", "1.5mb", " 1mb", "1 mb", "kb", "1kbb",
                               "18446744073709551616", "17179869184gb"}) {
    EXPECT_FALSE(ParseMemorySize(bad, &bytes)) << "'" << bad << "'";
  }
  EXPECT_EQ(FormatMemorySize(67108864), "67108864");
}

}  // namespace
}  // namespace ebb
