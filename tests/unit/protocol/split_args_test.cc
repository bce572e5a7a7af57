#include "protocol/split_args.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ebb::protocol {
namespace {

using Args = std::vector<std::string>;

Args Split(std::string_view line) {
  Args out;
  EXPECT_TRUE(SplitArgs(line, &out)) << line;
  return out;
}

bool Fails(std::string_view line) {
  Args out;
  return !SplitArgs(line, &out) && out.empty();
}

TEST(SplitArgsTest, Whitespace) {
  EXPECT_EQ(Split(""), Args{});
  EXPECT_EQ(Split("   \t "), Args{});
  EXPECT_EQ(Split("  a   b\tc\r\n"), (Args{"a", "b", "c"}));
  EXPECT_EQ(Split("a\vb"), (Args{"a\vb"}));  // \v separates only between arguments
}

TEST(SplitArgsTest, Quotes) {
  EXPECT_EQ(Split("set \"a b\" 'c d'"), (Args{"set", "a b", "c d"}));
  EXPECT_EQ(Split("\"\\x41\\x4a\\x4B\""), (Args{"AJK"}));
  EXPECT_EQ(Split("\"\\x4\""), (Args{"x4"}));  // not two hex digits: \x is just 'x'
  EXPECT_EQ(Split("'\\n'"), (Args{"\\n"}));    // no escapes in single quotes
  EXPECT_EQ(Split("'\\''"), (Args{"'"}));
  EXPECT_EQ(Split("\"a\"\t'b'"), (Args{"a", "b"}));
  EXPECT_EQ(Split("k\"v w\""), (Args{"kv w"}));
}

TEST(SplitArgsTest, Unbalanced) {
  EXPECT_TRUE(Fails("\"foo"));
  EXPECT_TRUE(Fails("\"foo\"bar"));
  EXPECT_TRUE(Fails("'foo"));
  EXPECT_TRUE(Fails("'foo'bar"));
  EXPECT_TRUE(Fails("a \"b\\\""));
}

TEST(SplitArgsTest, NulEndsTheLine) {
  EXPECT_EQ(Split(std::string_view("a b\0c d", 7)), (Args{"a", "b"}));
  EXPECT_TRUE(Fails(std::string_view("\"a\0\"", 4)));
}

TEST(SplitArgsTest, TokensReportWhereUnquotedOnesStart) {
  std::vector<SplitToken> tokens;
  std::vector<std::string> values;
  ASSERT_TRUE(SplitArgs("  ab \"c\" d", [&](const SplitToken& t) {
    tokens.push_back(t);
    values.emplace_back(t.value);
  }));
  ASSERT_EQ(tokens.size(), 3u);
  EXPECT_EQ(tokens[0].start, 2u);
  EXPECT_FALSE(tokens[0].quoted);
  EXPECT_TRUE(tokens[1].quoted);
  EXPECT_EQ(tokens[2].start, 9u);
  EXPECT_EQ(values, (Args{"ab", "c", "d"}));
}

}  // namespace
}  // namespace ebb::protocol
