// DEBUG from a real loopback connection: `enable-debug-command local` allows it (the rest of
// DEBUG is tested in-process, tests/commands/debug_test.cc).
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

}  // namespace
}  // namespace ebb::test
