// Client limits: maxclients, client-output-buffer-limit (a client that never reads), the query
// buffer limit, the idle timeout.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

TEST(LimitsTest, MaxClientsRejectsWithRedisError) {
  TestServer server;
  ASSERT_TRUE(server.Start({"--maxclients", "2"})) << server.error();
  RedisConnection a = server.Connect();
  // Wait until the startup probe's connection is gone and only `a` is connected.
  ASSERT_EQ(WaitInfoField(a.get(), "clients", "connected_clients", 1), 1);
  RedisConnection b = server.Connect();
  ASSERT_EQ(Cmd(b.get(), {"PING"}).str(), "PONG");
  RawConnection c(server.port());
  EXPECT_EQ(c.ReadUntil("\r\n"), "-ERR max number of clients reached\r\n");
  EXPECT_TRUE(c.WaitClosed());
  EXPECT_EQ(Cmd(a.get(), {"PING"}).str(), "PONG");
  EXPECT_EQ(InfoField(a.get(), "stats", "rejected_connections"), 1);
}

TEST(LimitsTest, ClientThatNeverReadsIsDisconnectedOthersServed) {
  TestServer server;
  ASSERT_TRUE(server.Start({"--client-output-buffer-limit", "normal", "0", "256kb", "1"}))
      << server.error();
  RedisConnection observer = server.Connect();
  RawConnection hog(server.port());
  std::string request;
  for (int i = 0; i < 2000; ++i) request += "COMMAND DOCS\r\n";  // ~28 KB in, many MB out
  ASSERT_TRUE(hog.Send(request));
  // The hog never reads. Others keep being served while its output is stuck, and it is
  // disconnected once its output stayed above the soft limit for 1 s.
  long long disconnects = -1;
  for (int i = 0; i < 100 && disconnects != 1; ++i) {
    ASSERT_EQ(Cmd(observer.get(), {"PING"}).str(), "PONG");
    disconnects = InfoField(observer.get(), "stats", "client_output_buffer_limit_disconnections");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(disconnects, 1);
  EXPECT_TRUE(hog.WaitClosed(10000));
  EXPECT_EQ(Cmd(observer.get(), {"PING"}).str(), "PONG");
}

TEST(LimitsTest, HardOutputLimitDisconnectsAtOnce) {
  TestServer server;
  ASSERT_TRUE(server.Start({"--client-output-buffer-limit", "normal", "64kb", "0", "0"}))
      << server.error();
  RedisConnection c = server.Connect();
  Reply r = Cmd(c.get(), {"COMMAND", "DOCS"});  // one reply over 64 KB
  EXPECT_TRUE(r.is_io_error()) << r.ToString().substr(0, 100);
  RedisConnection d = server.Connect();
  EXPECT_EQ(Cmd(d.get(), {"PING"}).str(), "PONG");
}

TEST(LimitsTest, QueryBufferLimitClosesConnection) {
  TestServer server;
  ASSERT_TRUE(server.Start({"--client-query-buffer-limit", "1mb"})) << server.error();
  RawConnection c(server.port());
  std::string big = "*2\r\n$4\r\nECHO\r\n$3000000\r\n" + std::string(1500000, 'x');
  c.Send(big);  // may fail part-way once the server closes
  EXPECT_TRUE(c.WaitClosed());
  RedisConnection d = server.Connect();
  EXPECT_EQ(Cmd(d.get(), {"PING"}).str(), "PONG");
}

TEST(LimitsTest, ProtoMaxBulkLen) {
  TestServer server;
  ASSERT_TRUE(server.Start({"--proto-max-bulk-len", "1mb"})) << server.error();
  RawConnection c(server.port());
  ASSERT_TRUE(c.Send("*2\r\n$4\r\nECHO\r\n$2000000\r\n"));
  EXPECT_EQ(c.ReadUntil("\r\n"), "-ERR Protocol error: invalid bulk length\r\n");
  EXPECT_TRUE(c.WaitClosed());
}

TEST(LimitsTest, IdleTimeoutClosesIdleClients) {
  TestServer server;
  ASSERT_TRUE(server.Start({"--timeout", "1"})) << server.error();
  RawConnection c(server.port());
  ASSERT_TRUE(c.Send("PING\r\n"));
  EXPECT_EQ(c.ReadUntil("\r\n"), "+PONG\r\n");
  EXPECT_TRUE(c.WaitClosed(10000));
}

}  // namespace
}  // namespace ebb::test
