// Write stalls through the server: when the engine cannot take more writes until a flush
// finishes (DEBUG DISK-FAULT HOLD makes new table files wait, as a disk that cannot keep up),
// the connections whose writes must wait get no reply yet, while every other connection's
// reads — and PING — are answered at once; the held writes are answered +OK, in order, once the
// flush goes on, and every one of them is there.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

constexpr int kValueBytes = 4096;

std::string SetCommand(const std::string& key) {
  const std::string value(kValueBytes, 'v');
  return "*3\r\n$3\r\nSET\r\n$" + std::to_string(key.size()) + "\r\n" + key + "\r\n$" +
         std::to_string(value.size()) + "\r\n" + value + "\r\n";
}

TEST(WriteStallTest, StalledWritersWaitWhileOtherConnectionsAreServed) {
  TestServer server;
  ASSERT_TRUE(server.Start({"--memtable-size", "64kb", "--wal-fsync", "everysec"}))
      << server.error();
  RedisConnection c = server.Connect();
  ASSERT_EQ(Cmd(c.get(), {"SET", "before", "b"}).ToString(), "OK");
  ASSERT_EQ(Cmd(c.get(), {"DEBUG", "DISK-FAULT", "HOLD"}).ToString(), "OK");

  // Writes one SET at a time until one gets no reply: three memtables' worth at most.
  RawConnection writer(server.port());
  ASSERT_TRUE(writer.connected());
  int answered = 0;
  bool stalled = false;
  for (int i = 0; i < 200 && !stalled; i++) {
    ASSERT_TRUE(writer.Send(SetCommand("w" + std::to_string(i))));
    const std::string reply = writer.ReadExactly(5, 1000);
    if (reply.empty()) {
      stalled = true;
    } else {
      ASSERT_EQ(reply, "+OK\r\n") << i;
      answered++;
    }
  }
  ASSERT_TRUE(stalled) << answered << " writes answered while flushes were held";
  EXPECT_LE(answered * kValueBytes, 3 * 64 * 1024 + 2 * kValueBytes);

  // Another writer waits too; reads, PING and INFO on other connections are answered.
  RawConnection second(server.port());
  ASSERT_TRUE(second.Send("SET second s\r\nGET before\r\n"));
  EXPECT_EQ(Cmd(c.get(), {"GET", "before"}).str(), "b");
  EXPECT_EQ(Cmd(c.get(), {"GET", "w0"}).str(), std::string(kValueBytes, 'v'));
  EXPECT_EQ(Cmd(c.get(), {"PING"}).ToString(), "PONG");
  EXPECT_GE(InfoField(c.get(), "storage", "write_stalls"), 1);
  EXPECT_EQ(second.ReadExactly(5, 300), "");  // its SET waits, and the GET behind it
  EXPECT_EQ(writer.ReadExactly(5, 300), "");

  ASSERT_EQ(Cmd(c.get(), {"DEBUG", "DISK-FAULT", "OFF"}).ToString(), "OK");
  EXPECT_EQ(writer.ReadExactly(5, 10000), "+OK\r\n");
  EXPECT_EQ(second.ReadExactly(5 + 7, 10000), "+OK\r\n$1\r\nb\r\n");
  for (int i = 0; i <= answered; i++) {
    EXPECT_EQ(Cmd(c.get(), {"STRLEN", "w" + std::to_string(i)}).integer(), kValueBytes) << i;
  }
  EXPECT_EQ(Cmd(c.get(), {"GET", "second"}).str(), "s");
  // Nothing is held any more.
  ASSERT_TRUE(writer.Send(SetCommand("after")));
  EXPECT_EQ(writer.ReadExactly(5, 10000), "+OK\r\n");
}

}  // namespace
}  // namespace ebb::test
