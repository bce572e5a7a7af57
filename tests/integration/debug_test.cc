// DEBUG from a real loopback connection: `enable-debug-command local` allows it, and DEBUG
// PROTOCOL's samples of every RESP type, byte for byte in RESP3 and RESP2 (the rest of DEBUG is
// tested in-process, tests/commands/debug_test.cc).
#include <gtest/gtest.h>

#include <string>

#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

TEST(DebugLocalTest, LocalAllowsLoopbackClients) {
  TestServer server;
  ASSERT_TRUE(server.Start({"--enable-debug-command", "local"})) << server.error();
  RedisConnection c = server.Connect();
  EXPECT_TRUE(Cmd(c.get(), {"DEBUG", "CLOCK", "GET"}).is_integer());
}

TEST(DebugLocalTest, ProtocolAnswersASampleOfEachRespType) {
  TestServer server;
  ASSERT_TRUE(server.Start()) << server.error();
  RawConnection c(server.port());
  auto ask = [&](std::string_view type, std::string_view want) {
    ASSERT_TRUE(c.Send("DEBUG PROTOCOL " + std::string(type) + "\r\n"));
    EXPECT_EQ(c.ReadExactly(want.size()), want) << type;
  };
  ask("push", "-ERR RESP2 is not supported by this command\r\n");
  ask("attrib", "$39\r\nSome real reply following the attribute\r\n");
  ask("map", "*6\r\n:0\r\n:0\r\n:1\r\n:1\r\n:2\r\n:0\r\n");
  ASSERT_TRUE(c.Send("HELLO 3\r\n"));
  c.ReadUntil("modules\r\n*0\r\n");  // HELLO's map ends with the empty modules array
  ask("string", "$11\r\nHello World\r\n");
  ask("integer", ":12345\r\n");
  ask("double", ",3.141\r\n");
  ask("bignum", "(1234567999999999999999999999999999999\r\n");
  ask("null", "_\r\n");
  ask("array", "*3\r\n:0\r\n:1\r\n:2\r\n");
  ask("set", "~3\r\n:0\r\n:1\r\n:2\r\n");
  ask("map", "%3\r\n:0\r\n#f\r\n:1\r\n#t\r\n:2\r\n#f\r\n");
  ask("attrib",
      "|1\r\n$14\r\nkey-popularity\r\n*2\r\n$7\r\nkey:123\r\n:90\r\n"
      "$39\r\nSome real reply following the attribute\r\n");
  ask("push",
      ">2\r\n$16\r\nserver-cpu-usage\r\n:42\r\n"
      "$40\r\nSome real reply following the push reply\r\n");
  ask("true", "#t\r\n");
  ask("false", "#f\r\n");
  ask("verbatim", "=29\r\ntxt:This is a verbatim\nstring\r\n");
  ask("bogus",
      "-ERR Wrong protocol type name. Please use one of the following: "
      "string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false\r\n");
}

}  // namespace
}  // namespace ebb::test
