#include "server/commands/arg_parser.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "protocol/reply_writer.h"
#include "server/errors.h"

namespace ebb::server {
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
  for (const char* bad :
       {"", "-", "-0", "+1", " 1", "1 ", "01", "00", "1_000", "0x10", "1.5", "9223372036854775808",
        "-9223372036854775809", "abc", "1e3", "99999999999999999999999"}) {
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
  EXPECT_TRUE(ParseUint64("0", &v));
  EXPECT_EQ(v, 0u);
}

TEST(ParseDoubleTest, AcceptsNumbersRejectsJunk) {
  double d = 0;
  EXPECT_TRUE(ParseDouble("1.5", &d));
  EXPECT_DOUBLE_EQ(d, 1.5);
  EXPECT_TRUE(ParseDouble("-3e2", &d));
  EXPECT_DOUBLE_EQ(d, -300);
  EXPECT_FALSE(ParseDouble("", &d));
  EXPECT_FALSE(ParseDouble(" 1", &d));
  EXPECT_FALSE(ParseDouble("1x", &d));
  EXPECT_FALSE(ParseDouble("nan", &d));
}

std::vector<std::string_view> Args(const std::vector<std::string>& storage) {
  return std::vector<std::string_view>(storage.begin(), storage.end());
}

TEST(ArgParserTest, ParsesTokensAndValues) {
  std::vector<std::string> s = {"SET", "k", "v", "nx", "EX", "10"};
  auto args = Args(s);
  ArgParser p(args, 3);
  bool nx = false;
  int64_t ex = 0;
  while (p.HasMore()) {
    if (p.Token("NX")) {
      nx = true;
    } else if (p.Token("EX")) {
      ex = p.Int64();
    } else {
      p.SyntaxError();
    }
  }
  EXPECT_FALSE(p.Failed());
  EXPECT_TRUE(nx);
  EXPECT_EQ(ex, 10);
}

TEST(ArgParserTest, LatchesTheFirstError) {
  std::vector<std::string> s = {"SET", "k", "v", "EX", "ten", "BOGUS"};
  auto args = Args(s);
  ArgParser p(args, 3);
  int loops = 0;
  while (p.HasMore() && loops++ < 10) {
    if (p.Token("EX")) {
      p.Int64();
    } else {
      p.SyntaxError();
    }
  }
  EXPECT_TRUE(p.Failed());
  EXPECT_EQ(p.error(), kNotInteger);
  std::string out;
  protocol::ReplyWriter w(&out);
  p.ReplyError(w);
  EXPECT_EQ(out, "-ERR value is not an integer or out of range\r\n");
}

TEST(ArgParserTest, MissingValueIsSyntaxError) {
  std::vector<std::string> s = {"SET", "k", "v", "EX"};
  auto args = Args(s);
  ArgParser p(args, 3);
  EXPECT_TRUE(p.Token("ex"));
  EXPECT_EQ(p.Int64(), 0);
  EXPECT_TRUE(p.Failed());
  EXPECT_EQ(p.error(), kSyntaxError);
  EXPECT_FALSE(p.HasMore());
}

TEST(ArgParserTest, RangeCheck) {
  std::vector<std::string> s = {"X", "-5"};
  auto args = Args(s);
  ArgParser p(args, 1);
  p.Int64InRange(0, 100, kMustBePositive);
  EXPECT_EQ(p.error(), kMustBePositive);
}

}  // namespace
}  // namespace ebb::server
