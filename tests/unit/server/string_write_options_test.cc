// ParseStringWriteOptions: a PUT, SET or DELETE read for its canonical active-active delta.
#include "server/active_active/string_write_options.h"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

namespace ebb::server {
namespace {

using Outcome = StringWriteOptions::Outcome;
using Expiry = StringWriteOptions::Expiry;

StringWriteOptions Parse(std::string_view name, std::vector<std::string_view> args) {
  return ParseStringWriteOptions(name, args);
}

TEST(StringWriteOptionsTest, NoOptionsTakeTheClockAndThePolicy) {
  const StringWriteOptions o = Parse("set", {"SET", "k", "v"});
  EXPECT_EQ(o.outcome, Outcome::kParsed);
  EXPECT_FALSE(o.ts.has_value());
  EXPECT_EQ(o.expiry, Expiry::kDefault);
}

TEST(StringWriteOptionsTest, PutReadsTsAndItsExpiries) {
  StringWriteOptions o = Parse("put", {"PUT", "k", "v", "TS", "42", "PXAT", "1000"});
  EXPECT_EQ(o.outcome, Outcome::kParsed);
  EXPECT_EQ(o.ts, 42);
  EXPECT_EQ(o.expiry, Expiry::kAt);
  EXPECT_EQ(o.expire_at, 1000);
  EXPECT_FALSE(o.ttl_relative);

  o = Parse("put", {"PUT", "k", "v", "ttl", "2s"});
  EXPECT_EQ(o.expiry, Expiry::kAt);
  EXPECT_TRUE(o.ttl_relative);
  EXPECT_EQ(o.ttl, 2000);

  o = Parse("put", {"PUT", "k", "v", "NOTTL", "TS", "7"});
  EXPECT_EQ(o.expiry, Expiry::kNone);
  EXPECT_EQ(o.ts, 7);

  o = Parse("put", {"PUT", "k", "v", "EXAT", "3"});
  EXPECT_EQ(o.expire_at, 3000);
}

TEST(StringWriteOptionsTest, SetReadsRelativeExpiries) {
  StringWriteOptions o = Parse("set", {"SET", "k", "v", "EX", "5"});
  EXPECT_EQ(o.expiry, Expiry::kAt);
  EXPECT_TRUE(o.ttl_relative);
  EXPECT_EQ(o.ttl, 5000);
  o = Parse("set", {"SET", "k", "v", "px", "5"});
  EXPECT_EQ(o.ttl, 5);
}

TEST(StringWriteOptionsTest, DeleteReadsOnlyTs) {
  EXPECT_EQ(Parse("delete", {"DELETE", "k", "TS", "9"}).ts, 9);
  EXPECT_EQ(Parse("delete", {"DELETE", "k", "PXAT", "9"}).outcome, Outcome::kValidate);
}

TEST(StringWriteOptionsTest, ConditionalSetIsRefusedByName) {
  const StringWriteOptions o = Parse("set", {"SET", "k", "v", "EX", "5", "Nx"});
  EXPECT_EQ(o.outcome, Outcome::kConditional);
  EXPECT_EQ(o.conditional, "nx");
  EXPECT_EQ(Parse("set", {"SET", "k", "v", "KEEPTTL"}).conditional, "keepttl");
}

TEST(StringWriteOptionsTest, WhatTheHandlerMustJudgeIsLeftToIt) {
  // Two different expiry options, before a conditional one: the handler's syntax error first.
  EXPECT_EQ(Parse("set", {"SET", "k", "v", "EX", "5", "PX", "3", "NX"}).outcome,
            Outcome::kValidate);
  EXPECT_EQ(Parse("set", {"SET", "k", "v", "EX"}).outcome, Outcome::kValidate);
  EXPECT_EQ(Parse("set", {"SET", "k", "v", "EX", "0"}).outcome, Outcome::kValidate);
  EXPECT_EQ(Parse("set", {"SET", "k", "v", "EX", "x"}).outcome, Outcome::kValidate);
  EXPECT_EQ(Parse("set", {"SET", "k", "v", "TS", "5"}).outcome, Outcome::kValidate);
  EXPECT_EQ(Parse("put", {"PUT", "k", "v", "TTL", "soon"}).outcome, Outcome::kValidate);
  EXPECT_EQ(Parse("put", {"PUT", "k", "v", "EXAT", "9223372036854776"}).outcome,
            Outcome::kValidate);
  // The same option twice is the handler's to accept: the last one counts.
  const StringWriteOptions o = Parse("set", {"SET", "k", "v", "EX", "5", "EX", "6"});
  EXPECT_EQ(o.outcome, Outcome::kParsed);
  EXPECT_EQ(o.ttl, 6000);
}

}  // namespace
}  // namespace ebb::server
