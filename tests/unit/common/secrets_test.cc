#include "common/secrets.h"

#include <gtest/gtest.h>

#include <string>

namespace ebb {
namespace {

TEST(SecretEqualsTest, EqualOnlyWhenEveryByteAndTheLengthMatch) {
  EXPECT_TRUE(SecretEquals("hunter2", "hunter2"));
  EXPECT_TRUE(SecretEquals("", ""));
  EXPECT_FALSE(SecretEquals("hunter2", "hunter3"));
  EXPECT_FALSE(SecretEquals("hunter2", "Hunter2"));
  EXPECT_FALSE(SecretEquals("hunter2", "hunter"));    // a prefix
  EXPECT_FALSE(SecretEquals("hunter2", "hunter22"));  // an extension
  EXPECT_FALSE(SecretEquals("hunter2", ""));
  EXPECT_FALSE(SecretEquals("", "x"));
  // The secret repeated: cycling over its bytes must not make a longer guess match.
  EXPECT_FALSE(SecretEquals("ab", "abab"));
  EXPECT_TRUE(SecretEquals(std::string("a\0b", 3), std::string("a\0b", 3)));
  EXPECT_FALSE(SecretEquals(std::string("a\0b", 3), std::string("a\0c", 3)));
}

}  // namespace
}  // namespace ebb
