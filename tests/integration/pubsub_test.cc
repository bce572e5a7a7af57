// Pub/Sub over real sockets: messages to several subscribers, RESP3 pushes, a transaction with
// WATCH across two connections, and client-output-buffer-limit pubsub — a subscriber that never
// reads is disconnected at its limit while the other subscribers and clients keep being served.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

std::string Message(std::string_view channel, std::string_view payload) {
  return "*3\r\n$7\r\nmessage\r\n$" + std::to_string(channel.size()) + "\r\n" +
         std::string(channel) + "\r\n$" + std::to_string(payload.size()) + "\r\n" +
         std::string(payload) + "\r\n";
}

TEST(PubSubServerTest, MessagesReachEverySubscriberInOrder) {
  TestServer server;
  ASSERT_TRUE(server.Start()) << server.error();
  RawConnection a(server.port()), b(server.port());
  ASSERT_TRUE(a.Send("SUBSCRIBE news\r\n"));
  ASSERT_TRUE(b.Send("PSUBSCRIBE n*\r\n"));
  EXPECT_EQ(a.ReadUntil(":1\r\n"), "*3\r\n$9\r\nsubscribe\r\n$4\r\nnews\r\n:1\r\n");
  EXPECT_EQ(b.ReadUntil(":1\r\n"), "*3\r\n$10\r\npsubscribe\r\n$2\r\nn*\r\n:1\r\n");
  RedisConnection publisher = server.Connect();
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(Cmd(publisher.get(), {"PUBLISH", "news", "m" + std::to_string(i)}).integer(), 2);
  }
  std::string expected;
  for (int i = 0; i < 20; ++i) expected += Message("news", "m" + std::to_string(i));
  EXPECT_EQ(a.ReadExactly(expected.size()), expected);
  const std::string first = "*4\r\n$8\r\npmessage\r\n$2\r\nn*\r\n$4\r\nnews\r\n$2\r\nm0\r\n";
  EXPECT_EQ(b.ReadExactly(first.size()), first);
}

TEST(PubSubServerTest, Resp3SubscriberGetsPushesBetweenReplies) {
  TestServer server;
  ASSERT_TRUE(server.Start()) << server.error();
  RawConnection a(server.port());
  ASSERT_TRUE(a.Send("HELLO 3\r\n"));
  a.ReadUntil("modules\r\n*0\r\n");
  ASSERT_TRUE(a.Send("SUBSCRIBE c\r\n"));
  EXPECT_EQ(a.ReadUntil(":1\r\n"), ">3\r\n$9\r\nsubscribe\r\n$1\r\nc\r\n:1\r\n");
  // A subscriber publishing to itself gets the push before the reply, as in Redis.
  ASSERT_TRUE(a.Send("PUBLISH c hi\r\n"));
  EXPECT_EQ(a.ReadUntil(":1\r\n"), ">3\r\n$7\r\nmessage\r\n$1\r\nc\r\n$2\r\nhi\r\n:1\r\n");
  ASSERT_TRUE(a.Send("GET nothing\r\n"));
  EXPECT_EQ(a.ReadUntil("\r\n"), "_\r\n");
}

TEST(PubSubServerTest, NonReadingSubscriberIsDisconnectedAtItsLimitOthersServed) {
  TestServer server;
  ASSERT_TRUE(server.Start({"--client-output-buffer-limit", "pubsub", "1mb", "256kb", "60"}))
      << server.error();
  RawConnection hog(server.port()), reader(server.port());
  ASSERT_TRUE(hog.Send("SUBSCRIBE c\r\n"));
  ASSERT_TRUE(reader.Send("SUBSCRIBE c\r\n"));
  ASSERT_EQ(hog.ReadUntil(":1\r\n"), "*3\r\n$9\r\nsubscribe\r\n$1\r\nc\r\n:1\r\n");
  ASSERT_EQ(reader.ReadUntil(":1\r\n"), "*3\r\n$9\r\nsubscribe\r\n$1\r\nc\r\n:1\r\n");
  RedisConnection publisher = server.Connect();
  const std::string payload(64 * 1024, 'x');
  const std::string message = Message("c", payload);
  long long receivers = 2;
  int published = 0;
  // 64 KB each: once the kernel's socket buffers of the hog are full, its unsent messages pass
  // 1 MB within 16 more; the reader reads each one.
  for (; published < 400 && receivers == 2; ++published) {
    receivers = Cmd(publisher.get(), {"PUBLISH", "c", payload}).integer();
    ASSERT_EQ(reader.ReadExactly(message.size()), message);
  }
  EXPECT_EQ(receivers, 1) << "after " << published << " messages";
  EXPECT_TRUE(hog.WaitClosed(10000));
  EXPECT_EQ(InfoField(publisher.get(), "stats", "client_output_buffer_limit_disconnections"), 1);
  // The reader and everyone else are served on.
  EXPECT_EQ(Cmd(publisher.get(), {"PUBLISH", "c", "after"}).integer(), 1);
  EXPECT_EQ(reader.ReadExactly(Message("c", "after").size()), Message("c", "after"));
  EXPECT_EQ(Cmd(publisher.get(), {"PUBSUB", "NUMSUB", "c"})[1].integer(), 1);
}

TEST(PubSubServerTest, WatchAcrossConnectionsAndATransactionAcknowledgedOnce) {
  TestServer server;
  ASSERT_TRUE(server.Start({"--wal-fsync", "always"})) << server.error();
  RedisConnection a = server.Connect(), b = server.Connect();
  EXPECT_EQ(Cmd(a.get(), {"WATCH", "k"}).str(), "OK");
  EXPECT_EQ(Cmd(b.get(), {"SET", "k", "other"}).str(), "OK");
  EXPECT_EQ(Cmd(a.get(), {"MULTI"}).str(), "OK");
  EXPECT_EQ(Cmd(a.get(), {"SET", "k", "mine"}).str(), "QUEUED");
  EXPECT_TRUE(Cmd(a.get(), {"EXEC"}).is_nil());
  const long long syncs = InfoField(a.get(), "stats", "wal_group_commits");
  // Pipelined as redis-py sends a transactional pipeline.
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"MULTI"}, {"SET", "k", "1"}, {"INCR", "k"}, {"TLOG", "INS", "l", "e", "3"}, {"EXEC"}}) {
    Append(a.get(), args);
  }
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(ReadReply(a.get()).is_status());
  EXPECT_EQ(Canon(ReadReply(a.get())), "[+OK,:2,+OK]");
  // One group commit covered the whole transaction (and the INFO read after it).
  EXPECT_EQ(InfoField(a.get(), "stats", "wal_group_commits"), syncs + 1);
  server.Kill();
  ASSERT_TRUE(server.Start({"--wal-fsync", "always"})) << server.error();
  RedisConnection c = server.Connect();
  EXPECT_EQ(Cmd(c.get(), {"GET", "k"}).str(), "2");
  EXPECT_EQ(Cmd(c.get(), {"TLOG", "SIZE", "l"}).integer(), 1);
}

TEST(PubSubServerTest, ExpiredEventsFireOnTheirOwnAfterARestart) {
  TestServer server;
  const std::vector<std::string> args = {"--notify-keyspace-events", "Ex"};
  ASSERT_TRUE(server.Start(args)) << server.error();
  {
    RedisConnection c = server.Connect();
    EXPECT_EQ(Cmd(c.get(), {"SET", "soon", "v", "PX", "2500"}).str(), "OK");
    EXPECT_EQ(Cmd(c.get(), {"TLOG", "INS", "log", "e", "1"}).str(), "OK");
    EXPECT_EQ(Cmd(c.get(), {"PEXPIRE", "log", "2600"}).integer(), 1);
  }
  server.Kill();
  ASSERT_TRUE(server.Start(args)) << server.error();  // the index is rebuilt from the data
  RawConnection listener(server.port());
  ASSERT_TRUE(listener.Send("SUBSCRIBE __keyevent@0__:expired\r\n"));
  listener.ReadUntil(":1\r\n");
  // Nobody reads the keys: the events come by themselves, once each.
  const std::string expected =
      Message("__keyevent@0__:expired", "soon") + Message("__keyevent@0__:expired", "log");
  EXPECT_EQ(listener.ReadExactly(expected.size(), 10000), expected);
  EXPECT_EQ(listener.ReadExactly(1, 300), "");
  RedisConnection c = server.Connect();
  EXPECT_EQ(InfoField(c.get(), "stats", "expired_keys"), 2);
}

// Classes n and m through a real server: "new" once per key created (not when it is overwritten)
// and "keymiss" once per read that finds nothing, with the data in table files (reads that wait
// for the disk run a command more than once; its events are published once).
TEST(PubSubServerTest, NewAndKeymissEventsReachASubscriber) {
  TestServer server;
  ASSERT_TRUE(server.Start({"--notify-keyspace-events", "Enm", "--memtable-size", "65536"}))
      << server.error();
  RawConnection listener(server.port());
  ASSERT_TRUE(listener.Send("PSUBSCRIBE __keyevent@0__:*\r\n"));
  listener.ReadUntil(":1\r\n");
  RedisConnection c = server.Connect();
  EXPECT_EQ(Cmd(c.get(), {"SET", "k", "v"}).str(), "OK");
  EXPECT_EQ(Cmd(c.get(), {"SET", "k", "w"}).str(), "OK");
  for (int i = 0; i < 200; i++) {
    ASSERT_EQ(Cmd(c.get(), {"SET", "filler" + std::to_string(i), std::string(1000, 'x')}).str(),
              "OK");
  }
  EXPECT_EQ(Cmd(c.get(), {"DEBUG", "FLUSH-MEMTABLE"}).str(), "OK");
  EXPECT_TRUE(Cmd(c.get(), {"GET", "missing"}).is_nil());
  EXPECT_EQ(Cmd(c.get(), {"GET", "k"}).str(), "w");
  auto pmessage = [](std::string_view event, std::string_view key) {
    const std::string channel = "__keyevent@0__:" + std::string(event);
    return "*4\r\n$8\r\npmessage\r\n$16\r\n__keyevent@0__:*\r\n$" + std::to_string(channel.size()) +
           "\r\n" + channel + "\r\n$" + std::to_string(key.size()) + "\r\n" + std::string(key) +
           "\r\n";
  };
  std::string expected = pmessage("new", "k");
  for (int i = 0; i < 200; i++) expected += pmessage("new", "filler" + std::to_string(i));
  expected += pmessage("keymiss", "missing");
  EXPECT_EQ(listener.ReadExactly(expected.size(), 10000), expected);
  EXPECT_EQ(listener.ReadExactly(1, 300), "");  // nothing twice
}

}  // namespace
}  // namespace ebb::test
