#include "common/glob.h"

#include <gtest/gtest.h>

#include <string>

namespace ebb {
namespace {

TEST(GlobTest, RedisKeysPatterns) {
  // The patterns of Redis's KEYS documentation and keyspace tests.
  EXPECT_TRUE(GlobMatch("h?llo", "hello"));
  EXPECT_TRUE(GlobMatch("h?llo", "hallo"));
  EXPECT_FALSE(GlobMatch("h?llo", "hllo"));
  EXPECT_TRUE(GlobMatch("h*llo", "hllo"));
  EXPECT_TRUE(GlobMatch("h*llo", "heeeello"));
  EXPECT_TRUE(GlobMatch("h[ae]llo", "hello"));
  EXPECT_TRUE(GlobMatch("h[ae]llo", "hallo"));
  EXPECT_FALSE(GlobMatch("h[ae]llo", "hillo"));
  EXPECT_TRUE(GlobMatch("h[^e]llo", "hallo"));
  EXPECT_FALSE(GlobMatch("h[^e]llo", "hello"));
  EXPECT_TRUE(GlobMatch("h[a-b]llo", "hbllo"));
  EXPECT_FALSE(GlobMatch("h[a-b]llo", "hcllo"));
  EXPECT_TRUE(GlobMatch("foo*", "foo_a"));
  EXPECT_TRUE(GlobMatch("foo*", "foo"));
  EXPECT_FALSE(GlobMatch("foo*", "fo"));
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_TRUE(GlobMatch("*", "anything"));
  EXPECT_TRUE(GlobMatch("", ""));
  EXPECT_FALSE(GlobMatch("", "a"));
  EXPECT_FALSE(GlobMatch("a", ""));
  EXPECT_TRUE(GlobMatch("a**b", "ab"));
  EXPECT_TRUE(GlobMatch("*a*", "bab"));
}

TEST(GlobTest, EscapesAndBrackets) {
  EXPECT_TRUE(GlobMatch("h\\*llo", "h*llo"));
  EXPECT_FALSE(GlobMatch("h\\*llo", "hello"));
  EXPECT_TRUE(GlobMatch("\\?", "?"));
  EXPECT_FALSE(GlobMatch("\\?", "a"));
  EXPECT_TRUE(GlobMatch("[\\]]", "]"));
  EXPECT_TRUE(GlobMatch("[z-a]", "m"));  // reversed range, as Redis
  EXPECT_TRUE(GlobMatch("a[bc", "ab"));  // unclosed set: ends with the pattern, as Redis
  EXPECT_TRUE(GlobMatch("a[bc", "ac"));
  EXPECT_FALSE(GlobMatch("a[bc", "ad"));
  EXPECT_TRUE(GlobMatch("x\\", "x\\"));  // trailing backslash is literal
}

TEST(GlobTest, BinarySafeAndCase) {
  EXPECT_TRUE(GlobMatch(std::string("a\0*", 3), std::string("a\0bc", 4)));
  EXPECT_FALSE(GlobMatch(std::string("a\0", 2), "a"));
  EXPECT_TRUE(GlobMatch("\xff?", "\xff\x01"));
  EXPECT_FALSE(GlobMatch("PORT", "port"));
  EXPECT_TRUE(GlobMatch("PORT", "port", /*nocase=*/true));
  EXPECT_TRUE(GlobMatch("[A-C]x", "bx", /*nocase=*/true));
  EXPECT_TRUE(GlobMatch("*-FSYNC", "wal-fsync", /*nocase=*/true));
}

TEST(GlobTest, PathologicalPatternFinishes) {
  // Redis's "stringmatchlen fuzz / exponential" case: without the skip of longer matches this
  // takes exponential time.
  const std::string text(50, 'a');
  EXPECT_FALSE(GlobMatch("a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", text));
  EXPECT_TRUE(GlobMatch("a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a", text));
}

}  // namespace
}  // namespace ebb
