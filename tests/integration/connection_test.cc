// Connection commands through a real server: PING ECHO AUTH SELECT QUIT RESET CLIENT.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

TEST(ConnectionTest, PingEchoSelect) {
  TestServer server;
  ASSERT_TRUE(server.Start()) << server.error();
  RedisConnection c = server.Connect();
  EXPECT_EQ(Cmd(c.get(), {"PING"}).ToString(), "PONG");
  EXPECT_EQ(Cmd(c.get(), {"PING", "hi"}).ToString(), "\"hi\"");
  EXPECT_EQ(Cmd(c.get(), {"PING", "a", "b"}).str(),
            "ERR wrong number of arguments for 'ping' command");
  EXPECT_EQ(Cmd(c.get(), {"ECHO", std::string("a\0b", 3)}).str(), std::string("a\0b", 3));
  EXPECT_EQ(Cmd(c.get(), {"SELECT", "15"}).ToString(), "OK");
  EXPECT_EQ(Cmd(c.get(), {"SELECT", "16"}).str(), "ERR DB index is out of range");
  EXPECT_EQ(Cmd(c.get(), {"SELECT", "-1"}).str(), "ERR DB index is out of range");
  EXPECT_EQ(Cmd(c.get(), {"SELECT", "x"}).str(), "ERR value is not an integer or out of range");
  EXPECT_EQ(Cmd(c.get(), {"SELECT", "99999999999"}).str(),
            "ERR value is out of range, value must between -2147483648 and 2147483647");
  EXPECT_NE(Cmd(c.get(), {"CLIENT", "INFO"}).str().find(" db=15 "), std::string::npos);
}

TEST(ConnectionTest, AuthWithRequirepass) {
  TestServer server;
  ASSERT_TRUE(server.Start({"--requirepass", "s3cret"})) << server.error();
  RedisConnection c = server.Connect();
  EXPECT_EQ(Cmd(c.get(), {"PING"}).str(), "NOAUTH Authentication required.");
  EXPECT_EQ(Cmd(c.get(), {"ECHO", "x"}).str(), "NOAUTH Authentication required.");
  EXPECT_EQ(Cmd(c.get(), {"AUTH", "wrong"}).str(),
            "WRONGPASS invalid username-password pair or user is disabled.");
  EXPECT_EQ(Cmd(c.get(), {"AUTH", "bob", "s3cret"}).str(),
            "WRONGPASS invalid username-password pair or user is disabled.");
  EXPECT_EQ(Cmd(c.get(), {"HELLO", "2"}).str().rfind("NOAUTH HELLO must be called", 0), 0u);
  EXPECT_EQ(Cmd(c.get(), {"AUTH", "s3cret"}).ToString(), "OK");
  EXPECT_EQ(Cmd(c.get(), {"PING"}).ToString(), "PONG");
  // RESET drops the authentication.
  EXPECT_EQ(Cmd(c.get(), {"RESET"}).ToString(), "RESET");
  EXPECT_EQ(Cmd(c.get(), {"PING"}).str(), "NOAUTH Authentication required.");
  EXPECT_EQ(Cmd(c.get(), {"AUTH", "default", "s3cret"}).ToString(), "OK");
  EXPECT_EQ(Cmd(c.get(), {"PING"}).ToString(), "PONG");

  RedisConnection d = server.Connect();
  Reply hello = Cmd(d.get(), {"HELLO", "2", "AUTH", "default", "s3cret", "SETNAME", "n1"});
  ASSERT_EQ(hello.size(), 14u) << hello.ToString();
  EXPECT_EQ(Cmd(d.get(), {"CLIENT", "GETNAME"}).str(), "n1");
}

TEST(ConnectionTest, UnauthenticatedClientsGetTighterProtocolLimits) {
  TestServer server;
  ASSERT_TRUE(server.Start({"--requirepass", "pw"})) << server.error();
  RawConnection c(server.port());
  ASSERT_TRUE(c.Send("*20\r\n"));
  EXPECT_EQ(c.ReadUntil("\r\n"), "-ERR Protocol error: unauthenticated multibulk length\r\n");
  EXPECT_TRUE(c.WaitClosed());
}

TEST(ConnectionTest, AuthWithoutPasswordConfigured) {
  TestServer server;
  ASSERT_TRUE(server.Start()) << server.error();
  RedisConnection c = server.Connect();
  EXPECT_EQ(Cmd(c.get(), {"AUTH", "x"}).str(),
            "ERR AUTH <password> called without any password configured for the default user. "
            "Are you sure your configuration is correct?");
  EXPECT_EQ(Cmd(c.get(), {"AUTH", "default", "anything"}).ToString(), "OK");
  EXPECT_EQ(Cmd(c.get(), {"AUTH", "a", "b", "c"}).str(), "ERR syntax error");
}

TEST(ConnectionTest, QuitRepliesThenCloses) {
  TestServer server;
  ASSERT_TRUE(server.Start()) << server.error();
  RawConnection c(server.port());
  ASSERT_TRUE(c.Send("PING\r\nQUIT\r\nPING\r\n"));
  EXPECT_EQ(c.ReadExactly(12), "+PONG\r\n+OK\r\n");
  EXPECT_TRUE(c.WaitClosed());
}

TEST(ConnectionTest, ResetRestoresDefaults) {
  TestServer server;
  ASSERT_TRUE(server.Start()) << server.error();
  RedisConnection c = server.Connect();
  ASSERT_EQ(Cmd(c.get(), {"SELECT", "3"}).ToString(), "OK");
  ASSERT_EQ(Cmd(c.get(), {"CLIENT", "SETNAME", "x"}).ToString(), "OK");
  EXPECT_EQ(Cmd(c.get(), {"RESET"}).ToString(), "RESET");
  std::string info = Cmd(c.get(), {"CLIENT", "INFO"}).str();
  EXPECT_NE(info.find(" db=0 "), std::string::npos) << info;
  EXPECT_NE(info.find(" name= "), std::string::npos) << info;
}

TEST(ConnectionTest, ClientIdNameListInfo) {
  TestServer server;
  ASSERT_TRUE(server.Start()) << server.error();
  RedisConnection a = server.Connect();
  RedisConnection b = server.Connect();
  long long id_a = Cmd(a.get(), {"CLIENT", "ID"}).integer();
  long long id_b = Cmd(b.get(), {"CLIENT", "ID"}).integer();
  EXPECT_GT(id_a, 0);
  EXPECT_GT(id_b, id_a);
  EXPECT_TRUE(Cmd(a.get(), {"CLIENT", "GETNAME"}).is_nil());
  EXPECT_EQ(Cmd(a.get(), {"CLIENT", "SETNAME", "alpha"}).ToString(), "OK");
  EXPECT_EQ(Cmd(a.get(), {"CLIENT", "SETNAME", "a b"}).str(),
            "ERR Client names cannot contain spaces, newlines or special characters.");
  EXPECT_EQ(Cmd(a.get(), {"CLIENT", "GETNAME"}).str(), "alpha");
  EXPECT_EQ(Cmd(a.get(), {"CLIENT", "SETINFO", "LIB-NAME", "mylib"}).ToString(), "OK");
  EXPECT_EQ(Cmd(a.get(), {"CLIENT", "SETINFO", "bogus", "1"}).str(),
            "ERR Unrecognized option 'bogus'");

  std::string list = Cmd(b.get(), {"CLIENT", "LIST"}).str();
  std::string line_a = "id=" + std::to_string(id_a) + " ";
  EXPECT_EQ(list.rfind(line_a, 0), 0u) << list;  // ascending ids
  EXPECT_NE(list.find(" name=alpha "), std::string::npos) << list;
  EXPECT_NE(list.find(" lib-name=mylib "), std::string::npos) << list;
  EXPECT_NE(list.find("id=" + std::to_string(id_b) + " "), std::string::npos);
  EXPECT_NE(list.find("cmd=client|list"), std::string::npos);
  std::string only_b = Cmd(b.get(), {"CLIENT", "LIST", "ID", std::to_string(id_b)}).str();
  EXPECT_EQ(only_b.rfind("id=" + std::to_string(id_b) + " ", 0), 0u);
  EXPECT_EQ(only_b.find("name=alpha"), std::string::npos);
  EXPECT_EQ(Cmd(a.get(), {"CLIENT", "NOPE"}).str(),
            "ERR unknown subcommand 'NOPE'. Try CLIENT HELP.");
}

TEST(ConnectionTest, ClientKillById) {
  TestServer server;
  ASSERT_TRUE(server.Start()) << server.error();
  RedisConnection killer = server.Connect();
  RedisConnection victim = server.Connect();
  long long victim_id = Cmd(victim.get(), {"CLIENT", "ID"}).integer();
  EXPECT_EQ(Cmd(killer.get(), {"CLIENT", "KILL", "ID", std::to_string(victim_id)}).integer(), 1);
  EXPECT_TRUE(Cmd(victim.get(), {"PING"}).is_io_error());
  EXPECT_EQ(Cmd(killer.get(), {"CLIENT", "KILL", "ID", std::to_string(victim_id)}).integer(), 0);
  EXPECT_EQ(Cmd(killer.get(), {"CLIENT", "KILL", "1.2.3.4:5"}).str(), "ERR No such client");
  EXPECT_EQ(Cmd(killer.get(), {"CLIENT", "KILL", "ID", "x"}).str(),
            "ERR client-id should be greater than 0");
  EXPECT_EQ(Cmd(killer.get(), {"PING"}).ToString(), "PONG");
}

TEST(ConnectionTest, ClientKillByAddressOldForm) {
  TestServer server;
  ASSERT_TRUE(server.Start()) << server.error();
  RedisConnection killer = server.Connect();
  RedisConnection victim = server.Connect();
  std::string info = Cmd(victim.get(), {"CLIENT", "INFO"}).str();
  size_t at = info.find(" addr=") + 6;
  std::string addr = info.substr(at, info.find(' ', at) - at);
  EXPECT_EQ(Cmd(killer.get(), {"CLIENT", "KILL", addr}).ToString(), "OK");
  EXPECT_TRUE(Cmd(victim.get(), {"PING"}).is_io_error());
}

}  // namespace
}  // namespace ebb::test
