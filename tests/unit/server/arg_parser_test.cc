#include "server/core/arg_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "protocol/reply_writer.h"
#include "server/core/errors.h"

namespace ebb::server {
namespace {

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
  EXPECT_FALSE(p.failed());
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
  EXPECT_TRUE(p.failed());
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
  EXPECT_TRUE(p.failed());
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

// Redis's [A | B]: the same option again is allowed, another of the group is a syntax error.
TEST(ArgParserTest, OptionGroupsAllowRepeatsAndRefuseCombinations) {
  std::vector<std::string> s = {"SET", "k", "v", "ex", "1", "EX", "2", "NX", "nx"};
  auto args = Args(s);
  ArgParser p(args, 3);
  OptionGroup expiry, condition;
  int64_t ex = 0;
  while (p.HasMore()) {
    if (p.Choice({"EX", "PX"}, &expiry) >= 0) {
      ex = p.Int64();
    } else if (p.Choice({"NX", "XX"}, &condition) < 0) {
      p.SyntaxError();
    }
  }
  EXPECT_TRUE(p.Finish());
  EXPECT_EQ(ex, 2);
  EXPECT_EQ(expiry.chosen, 0);
  EXPECT_EQ(condition.chosen, 0);

  s = {"SET", "k", "v", "EX", "1", "PX", "2"};
  args = Args(s);
  ArgParser q(args, 3);
  OptionGroup group;
  while (q.HasMore()) {
    if (q.Choice({"EX", "PX"}, &group) >= 0) {
      q.Int64();
    } else {
      q.SyntaxError();
    }
  }
  EXPECT_FALSE(q.Finish());
  EXPECT_EQ(q.error(), kSyntaxError);
  EXPECT_EQ(q.position(), 6u);  // stopped at PX's value
}

TEST(ArgParserTest, FinishRefusesArgumentsLeftUnread) {
  std::vector<std::string> s = {"GET", "k", "extra"};
  auto args = Args(s);
  ArgParser p(args, 1);
  EXPECT_EQ(p.Next(), "k");
  EXPECT_FALSE(p.Finish());
  EXPECT_EQ(p.error(), kSyntaxError);
}

TEST(ArgParserTest, DigitsTakeLeadingZerosAndCustomErrors) {
  std::vector<std::string> s = {"TLOG", "007", "-1", "x"};
  auto args = Args(s);
  ArgParser p(args, 1);
  EXPECT_EQ(p.Digits(), 7u);
  EXPECT_EQ(p.Digits(), 0u);
  EXPECT_EQ(p.error(), kNotInteger);
  ArgParser q(args, 3);
  q.Int64(kInvalidCursor);
  EXPECT_EQ(q.error(), kInvalidCursor);
}

}  // namespace
}  // namespace ebb::server
