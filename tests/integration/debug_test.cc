// DEBUG: refused unless enable-debug-command allows it; the clock hooks TTL tests rely on.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

constexpr const char* kRefused =
    "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you "
    "can run it from a local connection, otherwise you need to set this option in the "
    "configuration file, and then restart the server.";

TEST(DebugTest, RefusedByDefault) {
  TestServer server;
  ASSERT_TRUE(server.Start({"--enable-debug-command", "no"})) << server.error();
  RedisConnection c = server.Connect();
  EXPECT_EQ(Cmd(c.get(), {"DEBUG", "CLOCK", "GET"}).str(), kRefused);
  EXPECT_EQ(Cmd(c.get(), {"DEBUG", "SLEEP", "0"}).str(), kRefused);
}

TEST(DebugTest, LocalAllowsLoopbackClients) {
  TestServer server;
  ASSERT_TRUE(server.Start({"--enable-debug-command", "local"})) << server.error();
  RedisConnection c = server.Connect();
  EXPECT_TRUE(Cmd(c.get(), {"DEBUG", "CLOCK", "GET"}).is_integer());
}

TEST(DebugTest, ClockPinAndAdvance) {
  TestServer server;
  ASSERT_TRUE(server.Start()) << server.error();
  RedisConnection c = server.Connect();
  long long now = Cmd(c.get(), {"DEBUG", "CLOCK", "GET"}).integer();
  EXPECT_GT(now, 1600000000000LL);
  EXPECT_EQ(Cmd(c.get(), {"DEBUG", "CLOCK", "SET", "5000000"}).ToString(), "OK");
  EXPECT_EQ(Cmd(c.get(), {"DEBUG", "CLOCK", "GET"}).integer(), 5000000);
  EXPECT_EQ(Cmd(c.get(), {"DEBUG", "CLOCK", "ADVANCE", "1500"}).ToString(), "OK");
  EXPECT_EQ(Cmd(c.get(), {"DEBUG", "CLOCK", "GET"}).integer(), 5001500);
  Reply time = Cmd(c.get(), {"TIME"});
  EXPECT_EQ(time[0].str(), "5001");
  EXPECT_EQ(time[1].str(), "500000");
  EXPECT_EQ(Cmd(c.get(), {"DEBUG", "CLOCK", "SET", "x"}).str(),
            "ERR value is not an integer or out of range");
  EXPECT_EQ(Cmd(c.get(), {"DEBUG", "CLOCK", "ADVANCE", "-1"}).str(),
            "ERR the clock only moves forward");
}

TEST(DebugTest, SleepFlushCompactAndErrors) {
  TestServer server;
  ASSERT_TRUE(server.Start()) << server.error();
  RedisConnection c = server.Connect();
  EXPECT_EQ(Cmd(c.get(), {"DEBUG", "SLEEP", "0.01"}).ToString(), "OK");
  EXPECT_EQ(Cmd(c.get(), {"DEBUG", "FLUSH-MEMTABLE"}).ToString(), "OK");
  EXPECT_EQ(Cmd(c.get(), {"debug", "compact"}).ToString(), "OK");
  EXPECT_EQ(Cmd(c.get(), {"DEBUG", "NOPE"}).str(),
            "ERR unknown subcommand or wrong number of arguments for 'NOPE'. Try DEBUG HELP.");
  EXPECT_EQ(Cmd(c.get(), {"DEBUG"}).str(), "ERR wrong number of arguments for 'debug' command");
  EXPECT_GT(Cmd(c.get(), {"DEBUG", "HELP"}).size(), 4u);
}

}  // namespace
}  // namespace ebb::test
