#include "server/core/errors.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ebb::server {
namespace {

TEST(ErrorsTest, UnknownCommandListsArgsLikeRedis) {
  std::vector<std::string_view> args = {"a", "b"};
  EXPECT_EQ(UnknownCommandError("foo", args),
            "ERR unknown command 'foo', with args beginning with: 'a' 'b' ");
  EXPECT_EQ(UnknownCommandError("foo", {}),
            "ERR unknown command 'foo', with args beginning with: ");
}

TEST(ErrorsTest, UnknownCommandTruncatesLikeRedis) {
  std::string name(200, 'n');
  std::string a1(100, 'a');
  std::string a2(100, 'b');
  std::string a3 = "c";
  std::vector<std::string_view> args = {a1, a2, a3};
  // Redis: name cut to 128; args appended while the list is < 128 bytes, each cut to
  // 128 - (list length before it): a1 whole (list 103 bytes), a2 cut to 25, then stop.
  std::string expected = "ERR unknown command '" + std::string(128, 'n') +
                         "', with args beginning with: '" + a1 + "' '" + std::string(25, 'b') +
                         "' ";
  EXPECT_EQ(UnknownCommandError(name, args), expected);
}

TEST(ErrorsTest, SubcommandAndArityTexts) {
  EXPECT_EQ(UnknownSubcommandError("config", "foo"),
            "ERR unknown subcommand 'foo'. Try CONFIG HELP.");
  EXPECT_EQ(WrongArgsError("tlog|ins"), "ERR wrong number of arguments for 'tlog|ins' command");
  EXPECT_EQ(InvalidExpireTimeError("set"), "ERR invalid expire time in 'set' command");
  EXPECT_EQ(InvalidDurationError("5x"), "ERR invalid duration '5x'");
}

TEST(ErrorsTest, ActiveActiveTexts) {
  EXPECT_EQ(PeerLinkedError("10.0.0.1:7000"), "ERR peer 10.0.0.1:7000 is already linked");
  EXPECT_EQ(ClockSkewError("99", 5000),
            "ERR timestamp 99 is more than max-clock-skew (5000 ms) ahead of this node's clock");
}

}  // namespace
}  // namespace ebb::server
