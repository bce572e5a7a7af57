// Wire-level behaviour: pipelining, inline commands, RESP3, protocol errors.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

class ProtocolTest : public ServerTest {};

std::string Bulk(const std::string& s) {
  return "$" + std::to_string(s.size()) + "\r\n" + s + "\r\n";
}

TEST_F(ProtocolTest, ThousandPipelinedCommandsInOneWriteAnsweredInOrder) {
  RawConnection c(server_.port());
  ASSERT_TRUE(c.connected());
  std::string request, expected;
  for (int i = 0; i < 1000; ++i) {
    std::string v = "v" + std::to_string(i);
    request += "*2\r\n$4\r\nECHO\r\n" + Bulk(v);
    expected += Bulk(v);
  }
  ASSERT_TRUE(c.Send(request));
  EXPECT_EQ(c.ReadExactly(expected.size()), expected);
}

TEST_F(ProtocolTest, HiredisPipelineOfMixedCommands) {
  RedisConnection c = server_.Connect();
  ASSERT_TRUE(c && !c->err);
  for (int i = 0; i < 200; ++i) {
    Append(c.get(), {"ECHO", std::to_string(i)});
    Append(c.get(), {"PING"});
  }
  for (int i = 0; i < 200; ++i) {
    Reply echo = ReadReply(c.get());
    ASSERT_EQ(echo.str(), std::to_string(i)) << echo.ToString();
    ASSERT_EQ(ReadReply(c.get()).str(), "PONG");
  }
}

TEST_F(ProtocolTest, LargeBinaryArgumentRoundTrips) {
  RedisConnection c = server_.Connect();
  std::string big(3 << 20, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 31 + 7);
  Reply r = Cmd(c.get(), {"ECHO", big});
  ASSERT_TRUE(r.is_string()) << r.ToString();
  EXPECT_EQ(r.str(), big);
}

TEST_F(ProtocolTest, InlineCommands) {
  RawConnection c(server_.port());
  ASSERT_TRUE(c.Send("PING\r\n"));
  EXPECT_EQ(c.ReadUntil("\r\n"), "+PONG\r\n");
  ASSERT_TRUE(c.Send("echo \"a b\\x41\" \r\n"));
  EXPECT_EQ(c.ReadExactly(10), "$4\r\na bA\r\n");
  ASSERT_TRUE(c.Send("\r\necho 'x y'\n"));  // an empty line is skipped; LF alone ends a line
  EXPECT_EQ(c.ReadExactly(9), "$3\r\nx y\r\n");
  EXPECT_TRUE(c.Send("ping\n"));
  EXPECT_EQ(c.ReadExactly(7), "+PONG\r\n");
}

TEST_F(ProtocolTest, ProtocolErrorIsAnsweredThenConnectionClosed) {
  RawConnection c(server_.port());
  ASSERT_TRUE(c.Send("PING\r\n*1\r\n$abc\r\n"));
  EXPECT_EQ(c.ReadUntil("length\r\n"), "+PONG\r\n-ERR Protocol error: invalid bulk length\r\n");
  EXPECT_TRUE(c.WaitClosed());

  RawConnection d(server_.port());
  ASSERT_TRUE(d.Send("echo \"foo\r\n"));
  EXPECT_EQ(d.ReadUntil("\r\n"), "-ERR Protocol error: unbalanced quotes in request\r\n");
  EXPECT_TRUE(d.WaitClosed());

  RawConnection e(server_.port());
  ASSERT_TRUE(e.Send("*2\r\n$4\r\nECHO\r\nxx\r\n"));
  EXPECT_EQ(e.ReadUntil("\r\n"), "-ERR Protocol error: expected '$', got 'x'\r\n");
  EXPECT_TRUE(e.WaitClosed());

  // The server keeps serving others.
  RedisConnection ok = server_.Connect();
  EXPECT_EQ(Cmd(ok.get(), {"PING"}).str(), "PONG");
}

TEST_F(ProtocolTest, Hello3SwitchesToResp3) {
  RawConnection c(server_.port());
  ASSERT_TRUE(c.Send("HELLO 3\r\n"));
  std::string hello = c.ReadUntil("$7\r\nmodules\r\n*0\r\n");
  EXPECT_EQ(hello.rfind("%7\r\n$6\r\nserver\r\n$3\r\nebb\r\n$7\r\nversion\r\n", 0), 0u) << hello;
  EXPECT_NE(hello.find("$5\r\nproto\r\n:3\r\n"), std::string::npos) << hello;
  EXPECT_NE(hello.find("$4\r\nmode\r\n$10\r\nstandalone\r\n$4\r\nrole\r\n$6\r\nmaster\r\n"),
            std::string::npos);
  ASSERT_TRUE(c.Send("CLIENT GETNAME\r\n"));
  EXPECT_EQ(c.ReadExactly(3), "_\r\n");  // RESP3 null
  ASSERT_TRUE(c.Send("CONFIG GET port\r\n"));
  std::string port = std::to_string(server_.port());
  std::string expected = "%1\r\n$4\r\nport\r\n" + Bulk(port);
  EXPECT_EQ(c.ReadExactly(expected.size()), expected);
  ASSERT_TRUE(c.Send("INFO persistence\r\n"));
  std::string header = c.ReadUntil("\r\n");
  ASSERT_EQ(header.substr(0, 1), "=") << header;  // a verbatim string
  std::string info = c.ReadExactly(std::stoul(header.substr(1)) + 2);
  EXPECT_EQ(info.rfind("txt:# Persistence\r\n", 0), 0u) << info;
  EXPECT_NE(info.find("loading:0\r\n"), std::string::npos) << info;
  ASSERT_TRUE(c.Send("HELLO 2\r\n"));
  std::string back = c.ReadUntil("$7\r\nmodules\r\n*0\r\n");
  EXPECT_EQ(back.rfind("*14\r\n", 0), 0u) << back;
  ASSERT_TRUE(c.Send("CLIENT GETNAME\r\n"));
  EXPECT_EQ(c.ReadExactly(5), "$-1\r\n");
}

TEST_F(ProtocolTest, HelloRejectsOtherVersions) {
  RedisConnection c = server_.Connect();
  EXPECT_EQ(Cmd(c.get(), {"HELLO", "4"}).str(), "NOPROTO unsupported protocol version");
  EXPECT_EQ(Cmd(c.get(), {"HELLO", "x"}).str(),
            "ERR Protocol version is not an integer or out of range");
  EXPECT_EQ(Cmd(c.get(), {"HELLO", "2", "BOGUS"}).str(),
            "ERR Syntax error in HELLO option 'BOGUS'");
  Reply r = Cmd(c.get(), {"HELLO", "2", "SETNAME", "me"});
  ASSERT_EQ(r.size(), 14u) << r.ToString();
  EXPECT_EQ(r[0].str(), "server");
  EXPECT_EQ(r[1].str(), "ebb");
  EXPECT_EQ(Cmd(c.get(), {"CLIENT", "GETNAME"}).str(), "me");
}

TEST_F(ProtocolTest, UnknownCommandAndArityErrors) {
  RedisConnection c = server_.Connect();
  EXPECT_EQ(Cmd(c.get(), {"NOSUCH", "a", "b"}).str(),
            "ERR unknown command 'NOSUCH', with args beginning with: 'a' 'b' ");
  EXPECT_EQ(Cmd(c.get(), {"ECHO"}).str(), "ERR wrong number of arguments for 'echo' command");
  EXPECT_EQ(Cmd(c.get(), {"config", "nope"}).str(),
            "ERR unknown subcommand 'nope'. Try CONFIG HELP.");
  EXPECT_EQ(Cmd(c.get(), {"CONFIG", "GET"}).str(),
            "ERR wrong number of arguments for 'config|get' command");
}

// A connection hints the engine at the keys its queued requests name before it runs them
// (Connection::HintQueuedKeys). Whatever the pipeline holds, each reply is the one the request
// would get alone: writes ahead of reads of their key, several keys, an inline request with a
// quoted key, requests that name no key or no command, a value past the hint window, and a
// request that arrives in two writes.
TEST_F(ProtocolTest, PipelinedKeyedRequestsAnswerAsIfSentOneByOne) {
  RawConnection c(server_.port());
  ASSERT_TRUE(c.connected());
  const auto multibulk = [](std::initializer_list<std::string> args) {
    std::string out = "*" + std::to_string(args.size()) + "\r\n";
    for (const std::string& arg : args) out += Bulk(arg);
    return out;
  };
  const std::string big(5000, 'b');
  std::string request, expected;
  request += multibulk({"SET", "k1", "v1"});
  expected += "+OK\r\n";
  request += multibulk({"GET", "k1"});
  expected += Bulk("v1");
  request += "GET \"k1\"\r\n";
  expected += Bulk("v1");
  request += multibulk({"MGET", "k1", "none", "k2"});
  expected += "*3\r\n" + Bulk("v1") + "$-1\r\n$-1\r\n";
  request += multibulk({"SET", "k2", big});
  expected += "+OK\r\n";
  request += multibulk({"GET", "k2"});
  expected += Bulk(big);
  request += multibulk({"NOSUCH", "k1"});
  expected += "-ERR unknown command 'NOSUCH', with args beginning with: 'k1' \r\n";
  request += multibulk({"GET"});
  expected += "-ERR wrong number of arguments for 'get' command\r\n";
  request += multibulk({"DEL", "k1"});
  expected += ":1\r\n";
  request += multibulk({"GET", "k1"});
  expected += "$-1\r\n";
  for (int i = 0; i < 40; i++) {
    request += multibulk({"SET", "n" + std::to_string(i), std::to_string(i)});
    expected += "+OK\r\n";
  }
  for (int i = 0; i < 40; i++) {
    request += multibulk({"GET", "n" + std::to_string(39 - i)});
    expected += Bulk(std::to_string(39 - i));
  }
  const std::string cut = multibulk({"GET", "k2"});
  request += cut.substr(0, cut.size() - 3);
  ASSERT_TRUE(c.Send(request));
  const std::string before_cut = expected;
  EXPECT_EQ(c.ReadExactly(before_cut.size()), before_cut);
  ASSERT_TRUE(c.Send(cut.substr(cut.size() - 3)));
  EXPECT_EQ(c.ReadExactly(Bulk(big).size()), Bulk(big));
}

}  // namespace
}  // namespace ebb::test
