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

// The value of `field` ("qbuf", "tot-mem", ...) in the CLIENT LIST line of client `id`; -1 if
// the client is not listed.
long long ClientListField(redisContext* observer, long long id, const std::string& field) {
  const std::string list = Cmd(observer, {"CLIENT", "LIST"}).str();
  const std::string line_start = "id=" + std::to_string(id) + " ";
  size_t line = list.find(line_start);
  if (line != 0) line = list.find("\n" + line_start);
  if (line == std::string::npos) return -1;
  const size_t at = list.find(" " + field + "=", line);
  if (at == std::string::npos) return -1;
  return std::stoll(list.substr(at + field.size() + 2));
}

// A big request's buffers are given back once the connection goes idle (Redis's clientsCron),
// and CLIENT LIST shows it: qbuf and omem empty, tot-mem back to kilobytes.
TEST(LimitsTest, IdleConnectionsGiveBackBigRequestBuffers) {
  TestServer server;
  ASSERT_TRUE(server.Start()) << server.error();
  RedisConnection observer = server.Connect();
  RedisConnection big = server.Connect();
  const long long big_id = Cmd(big.get(), {"CLIENT", "ID"}).integer();
  // Half of a 16 MB SET: CLIENT LIST shows it waiting in the query buffer.
  const std::string value(16 << 20, 'v');
  const std::string set =
      "*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$" + std::to_string(value.size()) + "\r\n" + value + "\r\n";
  ASSERT_EQ(redisAppendFormattedCommand(big.get(), set.data(), set.size() / 2), REDIS_OK);
  int done = 0;
  ASSERT_EQ(redisBufferWrite(big.get(), &done), REDIS_OK);
  for (int i = 0; i < 100 && !done; ++i) ASSERT_EQ(redisBufferWrite(big.get(), &done), REDIS_OK);
  long long qbuf = 0;
  for (int i = 0; i < 100 && qbuf < static_cast<long long>(set.size() / 2); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    qbuf = ClientListField(observer.get(), big_id, "qbuf");
  }
  EXPECT_EQ(qbuf, static_cast<long long>(set.size() / 2));
  EXPECT_GE(ClientListField(observer.get(), big_id, "tot-mem"), qbuf);
  ASSERT_EQ(redisAppendFormattedCommand(big.get(), set.data() + set.size() / 2,
                                        set.size() - set.size() / 2),
            REDIS_OK);
  // A 16 MB SET takes more than the usual 5 s reply timeout under ThreadSanitizer while other
  // tests load the machine.
  ASSERT_EQ(redisSetTimeout(big.get(), timeval{60, 0}), REDIS_OK);
  void* raw = nullptr;
  ASSERT_EQ(redisGetReply(big.get(), &raw), REDIS_OK);
  EXPECT_EQ(ReplyFromHiredis(big.get(), raw).str(), "OK");

  RawConnection args(server.port());  // a million empty arguments
  std::string request = "*1048576\r\n";
  for (int i = 0; i < 1048576; ++i) request += "$0\r\n\r\n";
  ASSERT_TRUE(args.Send(request));
  EXPECT_EQ(args.ReadUntil("\r\n", 10000).substr(0, 23), "-ERR unknown command ''");
  ASSERT_TRUE(args.Send("CLIENT ID\r\n"));
  const std::string id_reply = args.ReadUntil("\r\n");
  ASSERT_EQ(id_reply[0], ':') << id_reply;
  const long long args_id = std::stoll(id_reply.substr(1));

  // Idle for 2 s, then the next cron (every 100 ms) shrinks them; bounded wait.
  long long big_mem = -1, args_mem = -1;
  for (int i = 0; i < 100; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    big_mem = ClientListField(observer.get(), big_id, "tot-mem");
    args_mem = ClientListField(observer.get(), args_id, "tot-mem");
    if (big_mem >= 0 && big_mem < 200000 && args_mem >= 0 && args_mem < 200000) break;
  }
  EXPECT_GE(big_mem, 0);
  EXPECT_LT(big_mem, 200000);
  EXPECT_GE(args_mem, 0);
  EXPECT_LT(args_mem, 200000);
  for (const long long id : {big_id, args_id}) {
    EXPECT_EQ(ClientListField(observer.get(), id, "qbuf"), 0);
    EXPECT_LT(ClientListField(observer.get(), id, "qbuf-free"), 32768);
    EXPECT_LT(ClientListField(observer.get(), id, "argv-mem"), 32768);
    EXPECT_EQ(ClientListField(observer.get(), id, "omem"), 0);
  }
  // The connections still work, and the value is whole.
  EXPECT_EQ(Cmd(big.get(), {"STRLEN", "big"}).integer(), 16 << 20);
  ASSERT_TRUE(args.Send("PING\r\n"));
  EXPECT_EQ(args.ReadUntil("\r\n"), "+PONG\r\n");
}

// While a client is not reading, CLIENT LIST shows its pending output in omem and tot-mem.
TEST(LimitsTest, ClientListShowsPendingOutput) {
  TestServer server;
  ASSERT_TRUE(server.Start()) << server.error();
  RedisConnection observer = server.Connect();
  ASSERT_EQ(Cmd(observer.get(), {"SET", "v", std::string(1 << 20, 'x')}).str(), "OK");
  RawConnection hog(server.port());
  ASSERT_TRUE(hog.Send("CLIENT ID\r\n"));
  const std::string id_reply = hog.ReadUntil("\r\n");
  ASSERT_EQ(id_reply[0], ':') << id_reply;
  const long long id = std::stoll(id_reply.substr(1));
  std::string request;
  for (int i = 0; i < 32; ++i) request += "GET v\r\n";  // 32 MB out, never read
  ASSERT_TRUE(hog.Send(request));
  long long omem = 0;
  for (int i = 0; i < 100 && omem < (1 << 20); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    omem = ClientListField(observer.get(), id, "omem");
  }
  EXPECT_GE(omem, 1 << 20);
  EXPECT_GE(ClientListField(observer.get(), id, "tot-mem"), omem);
}

}  // namespace
}  // namespace ebb::test
