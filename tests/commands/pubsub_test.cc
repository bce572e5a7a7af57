// Pub/Sub and keyspace notifications through the command layer, as Redis 7 answers them
// (tests/unit/pubsub.tcl, pubsubshard.tcl): confirmations and counts, messages to channel,
// pattern and shard subscribers, the RESP2 subscriber-mode rules, RESP3 pushes, PUBSUB
// introspection, CLIENT LIST fields, and the keyspace events of every kind of write.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/command_runner.h"

namespace ebb::test {
namespace {

class PubSubTest : public CommandTest {
 protected:
  // Runs `command`, then the events it published to client `subscriber` (pattern-subscribed to
  // __keyevent@0__:*) as "event:key", space separated.
  std::string EventsOf(size_t subscriber, std::initializer_list<std::string_view> command) {
    ebb_->Do(command);
    std::string out;
    for (const Reply& m : ParseAll(ebb_->TakePushed(subscriber))) {
      const std::vector<Reply> e = m.elements();
      out += (out.empty() ? "" : " ") + e[2].str().substr(15) + ":" + e[3].str();
    }
    return out;
  }
};

TEST_F(PubSubTest, SubscribeConfirmsEachChannelWithTheCount) {
  EXPECT_EQ(ebb_->Raw({"SUBSCRIBE", "a", "b", "a"}),
            "*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n"
            "*3\r\n$9\r\nsubscribe\r\n$1\r\nb\r\n:2\r\n"
            "*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:2\r\n");
  EXPECT_EQ(ebb_->Raw({"PSUBSCRIBE", "a*"}), "*3\r\n$10\r\npsubscribe\r\n$2\r\na*\r\n:3\r\n");
  EXPECT_EQ(ebb_->Raw({"UNSUBSCRIBE", "b", "zz"}),
            "*3\r\n$11\r\nunsubscribe\r\n$1\r\nb\r\n:2\r\n"
            "*3\r\n$11\r\nunsubscribe\r\n$2\r\nzz\r\n:2\r\n");
  EXPECT_EQ(ebb_->Raw({"PUNSUBSCRIBE"}), "*3\r\n$12\r\npunsubscribe\r\n$2\r\na*\r\n:1\r\n");
  EXPECT_EQ(ebb_->Raw({"UNSUBSCRIBE"}), "*3\r\n$11\r\nunsubscribe\r\n$1\r\na\r\n:0\r\n");
  // Nothing left: one confirmation with a null name.
  EXPECT_EQ(ebb_->Raw({"UNSUBSCRIBE"}), "*3\r\n$11\r\nunsubscribe\r\n$-1\r\n:0\r\n");
  EXPECT_EQ(Do({"SUBSCRIBE"}), "-ERR wrong number of arguments for 'subscribe' command");
}

TEST_F(PubSubTest, PublishReachesChannelAndPatternSubscribers) {
  const size_t a = ebb_->AddClient(), b = ebb_->AddClient();
  ebb_->DoAs(a, {"SUBSCRIBE", "news.tech"});
  ebb_->DoAs(b, {"PSUBSCRIBE", "news.*", "*.tech"});
  EXPECT_EQ(Do({"PUBLISH", "news.tech", "hello"}), ":3");
  EXPECT_EQ(Pushed(a), "[$message,$news.tech,$hello]");
  EXPECT_EQ(Pushed(b),
            "[$pmessage,$*.tech,$news.tech,$hello] [$pmessage,$news.*,$news.tech,$hello]");
  EXPECT_EQ(Do({"PUBLISH", "news.art", "x"}), ":1");
  EXPECT_EQ(Pushed(a), "");
  EXPECT_EQ(Pushed(b), "[$pmessage,$news.*,$news.art,$x]");
  EXPECT_EQ(Do({"PUBLISH", "nobody", "x"}), ":0");
}

TEST_F(PubSubTest, ShardChannelsAreTheirOwnNamespace) {
  const size_t a = ebb_->AddClient();
  EXPECT_EQ(ebb_->RawAs(a, {"SSUBSCRIBE", "s1", "s2"}),
            "*3\r\n$10\r\nssubscribe\r\n$2\r\ns1\r\n:1\r\n"
            "*3\r\n$10\r\nssubscribe\r\n$2\r\ns2\r\n:2\r\n");
  EXPECT_EQ(Do({"PUBLISH", "s1", "m"}), ":0");
  EXPECT_EQ(Do({"SPUBLISH", "s1", "m"}), ":1");
  EXPECT_EQ(Pushed(a), "[$smessage,$s1,$m]");
  EXPECT_EQ(Do({"PUBSUB", "SHARDCHANNELS"}), "[$s1,$s2]");
  EXPECT_EQ(Do({"PUBSUB", "SHARDCHANNELS", "*2"}), "[$s2]");
  EXPECT_EQ(Do({"PUBSUB", "SHARDNUMSUB", "s1", "zz"}), "[$s1,:1,$zz,:0]");
  EXPECT_EQ(Do({"PUBSUB", "CHANNELS"}), "[]");
  EXPECT_EQ(ebb_->RawAs(a, {"SUNSUBSCRIBE"}),
            "*3\r\n$12\r\nsunsubscribe\r\n$2\r\ns1\r\n:1\r\n"
            "*3\r\n$12\r\nsunsubscribe\r\n$2\r\ns2\r\n:0\r\n");
}

TEST_F(PubSubTest, PubSubIntrospection) {
  const size_t a = ebb_->AddClient(), b = ebb_->AddClient();
  ebb_->DoAs(a, {"SUBSCRIBE", "c1", "c2"});
  ebb_->DoAs(b, {"SUBSCRIBE", "c1"});
  ebb_->DoAs(b, {"PSUBSCRIBE", "p*", "q*"});
  EXPECT_EQ(Do({"PUBSUB", "CHANNELS"}), "[$c1,$c2]");
  EXPECT_EQ(Do({"PUBSUB", "CHANNELS", "*2"}), "[$c2]");
  EXPECT_EQ(Do({"PUBSUB", "NUMSUB", "c1", "c2", "c3"}), "[$c1,:2,$c2,:1,$c3,:0]");
  EXPECT_EQ(Do({"PUBSUB", "NUMSUB"}), "[]");
  EXPECT_EQ(Do({"PUBSUB", "NUMPAT"}), ":2");
  EXPECT_EQ(Do({"PUBSUB", "NOPE"}), "-ERR unknown subcommand 'NOPE'. Try PUBSUB HELP.");
  // CLIENT LIST shows the counts and the P flag; TYPE pubsub selects subscribers.
  const std::string list = Cmd({"CLIENT", "LIST", "TYPE", "pubsub"}).str();
  EXPECT_NE(list.find("flags=P db=0 sub=2 psub=0 ssub=0 multi=-1"), std::string::npos) << list;
  EXPECT_NE(list.find("flags=P db=0 sub=1 psub=2 ssub=0 multi=-1"), std::string::npos) << list;
  EXPECT_EQ(list.find("sub=0 psub=0"), std::string::npos) << list;
  // A disconnect (RESET here) removes every subscription.
  EXPECT_EQ(ebb_->DoAs(b, {"RESET"}), "+RESET");
  EXPECT_EQ(Do({"PUBSUB", "NUMPAT"}), ":0");
  EXPECT_EQ(Do({"PUBSUB", "NUMSUB", "c1"}), "[$c1,:1]");
}

TEST_F(PubSubTest, Resp2SubscriberModeAllowsOnlyItsCommands) {
  EXPECT_EQ(ebb_->Raw({"SUBSCRIBE", "c"}), "*3\r\n$9\r\nsubscribe\r\n$1\r\nc\r\n:1\r\n");
  EXPECT_EQ(Do({"GET", "k"}),
            "-ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / "
            "RESET are allowed in this context");
  EXPECT_EQ(Do({"CLIENT", "LIST"}),
            "-ERR Can't execute 'client|list': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / "
            "QUIT / RESET are allowed in this context");
  EXPECT_EQ(Do({"PING"}), "[$pong,$]");
  EXPECT_EQ(Do({"PING", "hi"}), "[$pong,$hi]");
  EXPECT_EQ(Do({"PSUBSCRIBE", "x*"}), "[$psubscribe,$x*,:2]");
  EXPECT_EQ(Do({"UNSUBSCRIBE"}), "[$unsubscribe,$c,:1]");
  EXPECT_EQ(Do({"PUNSUBSCRIBE"}), "[$punsubscribe,$x*,:0]");
  // Out of subscriber mode: everything runs again.
  EXPECT_EQ(Do({"PING"}), "+PONG");
  EXPECT_EQ(Do({"GET", "k"}), "nil");
}

TEST_F(PubSubTest, Resp3SubscribersGetPushesAndRunAnyCommand) {
  const size_t a = ebb_->AddClient();
  ebb_->RawAs(a, {"HELLO", "3"});
  EXPECT_EQ(ebb_->RawAs(a, {"SUBSCRIBE", "c"}), ">3\r\n$9\r\nsubscribe\r\n$1\r\nc\r\n:1\r\n");
  EXPECT_EQ(ebb_->RawAs(a, {"PING"}), "+PONG\r\n");
  EXPECT_EQ(ebb_->RawAs(a, {"SET", "k", "v"}), "+OK\r\n");
  EXPECT_EQ(Do({"PUBLISH", "c", "m"}), ":1");
  EXPECT_EQ(ebb_->TakePushed(a), ">3\r\n$7\r\nmessage\r\n$1\r\nc\r\n$1\r\nm\r\n");
  EXPECT_EQ(ebb_->RawAs(a, {"UNSUBSCRIBE"}), ">3\r\n$11\r\nunsubscribe\r\n$1\r\nc\r\n:0\r\n");
}

TEST_F(PubSubTest, ClientReplyOffSilencesRepliesButNotMessages) {
  const size_t a = ebb_->AddClient();
  EXPECT_EQ(ebb_->RawAs(a, {"CLIENT", "REPLY", "OFF"}), "");
  EXPECT_EQ(ebb_->RawAs(a, {"SET", "k", "v"}), "");
  EXPECT_EQ(ebb_->RawAs(a, {"SUBSCRIBE", "c"}), "*3\r\n$9\r\nsubscribe\r\n$1\r\nc\r\n:1\r\n");
  EXPECT_EQ(Do({"PUBLISH", "c", "m"}), ":1");
  EXPECT_EQ(ebb_->TakePushed(a), "*3\r\n$7\r\nmessage\r\n$1\r\nc\r\n$1\r\nm\r\n");
  EXPECT_EQ(ebb_->RawAs(a, {"UNSUBSCRIBE"}), "*3\r\n$11\r\nunsubscribe\r\n$1\r\nc\r\n:0\r\n");
  EXPECT_EQ(ebb_->RawAs(a, {"CLIENT", "REPLY", "ON"}), "+OK\r\n");
  EXPECT_EQ(ebb_->RawAs(a, {"GET", "k"}), "$1\r\nv\r\n");
  EXPECT_EQ(ebb_->RawAs(a, {"CLIENT", "REPLY", "SKIP"}), "");
  EXPECT_EQ(ebb_->RawAs(a, {"GET", "k"}), "");
  EXPECT_EQ(ebb_->RawAs(a, {"GET", "k"}), "$1\r\nv\r\n");
  EXPECT_EQ(ebb_->DoAs(a, {"CLIENT", "REPLY", "MAYBE"}), "-ERR syntax error");
}

TEST_F(PubSubTest, KeyspaceNotificationsAreOffByDefault) {
  const size_t a = ebb_->AddClient();
  ebb_->DoAs(a, {"PSUBSCRIBE", "*"});
  EXPECT_EQ(Do({"SET", "k", "v"}), "+OK");
  EXPECT_EQ(Pushed(a), "");
  EXPECT_EQ(Do({"CONFIG", "GET", "notify-keyspace-events"}), "[$notify-keyspace-events,$]");
}

TEST_F(PubSubTest, NotifyKeyspaceEventsParsesRedisClasses) {
  EXPECT_EQ(Do({"CONFIG", "SET", "notify-keyspace-events", "KEA"}), "+OK");
  EXPECT_EQ(Do({"CONFIG", "GET", "notify-keyspace-events"}), "[$notify-keyspace-events,$AKE]");
  EXPECT_EQ(Do({"CONFIG", "SET", "notify-keyspace-events", "Egx$"}), "+OK");
  EXPECT_EQ(Do({"CONFIG", "GET", "notify-keyspace-events"}), "[$notify-keyspace-events,$g$xE]");
  EXPECT_EQ(Do({"CONFIG", "SET", "notify-keyspace-events", "KQ"}),
            "-ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') - "
            "Invalid event class character. Use 'Ag$lshzxeKEtmdnT'.");
}

TEST_F(PubSubTest, EveryWriteNotifiesItsEvent) {
  const size_t a = ebb_->AddClient();
  EXPECT_EQ(Do({"CONFIG", "SET", "notify-keyspace-events", "KEA"}), "+OK");
  ebb_->DoAs(a, {"PSUBSCRIBE", "__keyevent@0__:*"});
  auto events = [&](std::initializer_list<std::string_view> write) { return EventsOf(a, write); };
  EXPECT_EQ(events({"SET", "s", "1"}), "set:s");
  EXPECT_EQ(events({"SET", "s", "1", "EX", "100"}), "set:s expire:s");
  EXPECT_EQ(events({"SET", "s", "2", "NX"}), "");
  EXPECT_EQ(events({"SETNX", "n", "1"}), "set:n");
  EXPECT_EQ(events({"SETEX", "x", "10", "v"}), "set:x expire:x");
  EXPECT_EQ(events({"GETSET", "s", "3"}), "set:s");
  EXPECT_EQ(events({"MSET", "m1", "1", "m2", "2"}), "set:m1 set:m2");
  EXPECT_EQ(events({"MSETNX", "m1", "1", "m3", "3"}), "");
  EXPECT_EQ(events({"APPEND", "s", "x"}), "append:s");
  EXPECT_EQ(events({"SETRANGE", "s", "0", "y"}), "setrange:s");
  EXPECT_EQ(events({"INCR", "i"}), "incrby:i");
  EXPECT_EQ(events({"DECRBY", "i", "5"}), "incrby:i");
  EXPECT_EQ(events({"EXPIRE", "i", "100"}), "expire:i");
  EXPECT_EQ(events({"PERSIST", "i"}), "persist:i");
  EXPECT_EQ(events({"PERSIST", "i"}), "");
  EXPECT_EQ(events({"GETEX", "i", "PX", "5000"}), "expire:i");
  EXPECT_EQ(events({"PEXPIREAT", "i", "1"}), "del:i");
  EXPECT_EQ(events({"DEL", "s", "nothing", "n"}), "del:s del:n");
  EXPECT_EQ(events({"GETDEL", "m1"}), "del:m1");
  EXPECT_EQ(events({"PUT", "p", "v", "TS", "5"}), "put:p");
  EXPECT_EQ(events({"DELETE", "p"}), "delete:p");
  EXPECT_EQ(events({"TLOG", "INS", "log", "e", "5"}), "tlog_ins:log");
  EXPECT_EQ(events({"TLOG", "TRIM", "log", "0"}), "tlog_trim:log");
  EXPECT_EQ(events({"TLOG", "TRIMAT", "log", "9"}), "tlog_trim:log");
  EXPECT_EQ(events({"TLOG", "CLR", "log"}), "tlog_clr:log");
  EXPECT_EQ(events({"TREG", "SET", "reg", "v", "5"}), "treg_set:reg");
  EXPECT_EQ(events({"FLUSHALL"}), "");
}

// Classes n and m, as Redis 7: outside A; "new" when a command creates a key, before the
// command's own event; "keymiss" when a read finds no key (writes that find none do not).
TEST_F(PubSubTest, NewKeyAndKeyMissEvents) {
  const size_t a = ebb_->AddClient();
  ebb_->DoAs(a, {"PSUBSCRIBE", "__keyevent@0__:*"});
  auto events = [&](std::initializer_list<std::string_view> command) {
    return EventsOf(a, command);
  };
  EXPECT_EQ(Do({"CONFIG", "SET", "notify-keyspace-events", "KEA"}), "+OK");
  EXPECT_EQ(events({"SET", "s", "1"}), "set:s");
  EXPECT_EQ(events({"GET", "missing"}), "");

  EXPECT_EQ(Do({"CONFIG", "SET", "notify-keyspace-events", "En$"}), "+OK");
  EXPECT_EQ(Do({"CONFIG", "GET", "notify-keyspace-events"}), "[$notify-keyspace-events,$$En]");
  EXPECT_EQ(events({"SET", "fresh", "1"}), "new:fresh set:fresh");
  EXPECT_EQ(events({"SET", "fresh", "2"}), "set:fresh");
  EXPECT_EQ(events({"MSET", "m1", "1", "fresh", "3", "m2", "2"}),
            "new:m1 set:m1 set:fresh new:m2 set:m2");
  EXPECT_EQ(events({"INCR", "counter"}), "new:counter incrby:counter");
  EXPECT_EQ(events({"TLOG", "INS", "log", "e", "5"}), "new:log");  // T is not selected
  EXPECT_EQ(events({"TLOG", "INS", "log", "f", "6"}), "");
  EXPECT_EQ(events({"SET", "nx", "1", "NX", "GET"}), "new:nx set:nx");
  EXPECT_EQ(events({"SETNX", "nx", "2"}), "");
  EXPECT_EQ(events({"MULTI"}), "");
  EXPECT_EQ(events({"SET", "tx", "1"}), "");
  EXPECT_EQ(events({"EXEC"}), "new:tx set:tx");

  EXPECT_EQ(Do({"CONFIG", "SET", "notify-keyspace-events", "Em"}), "+OK");
  EXPECT_EQ(events({"GET", "nothing"}), "keymiss:nothing");
  EXPECT_EQ(events({"GET", "s"}), "");
  EXPECT_EQ(events({"MGET", "s", "x", "y"}), "keymiss:x keymiss:y");
  EXPECT_EQ(events({"EXISTS", "s", "z"}), "keymiss:z");
  EXPECT_EQ(events({"TYPE", "z"}), "keymiss:z");
  EXPECT_EQ(events({"TTL", "z"}), "keymiss:z");
  EXPECT_EQ(events({"STRLEN", "z"}), "keymiss:z");
  EXPECT_EQ(events({"SET", "z", "1"}), "");  // a write's lookup is not a miss
  EXPECT_EQ(events({"INCR", "w"}), "");
  EXPECT_EQ(events({"SET", "s", "2", "EX", "1"}), "");
  EXPECT_EQ(Do({"DEBUG", "CLOCK", "ADVANCE", "2000"}), "+OK");
  EXPECT_EQ(events({"GET", "s"}), "keymiss:s");  // expired
}

TEST_F(PubSubTest, KeyspaceChannelCarriesTheEventAndClassesFilter) {
  const size_t a = ebb_->AddClient();
  EXPECT_EQ(Do({"CONFIG", "SET", "notify-keyspace-events", "K$"}), "+OK");
  ebb_->DoAs(a, {"SUBSCRIBE", "__keyspace@0__:k"});
  EXPECT_EQ(Do({"SET", "k", "v"}), "+OK");
  EXPECT_EQ(Pushed(a), "[$message,$__keyspace@0__:k,$set]");
  EXPECT_EQ(Do({"EXPIRE", "k", "10"}), ":1");  // g is not selected
  EXPECT_EQ(Pushed(a), "");
  EXPECT_EQ(Do({"TREG", "SET", "k2", "v", "1"}), "+OK");
  EXPECT_EQ(Do({"SELECT", "3"}), "+OK");
  EXPECT_EQ(Do({"SET", "k", "v"}), "+OK");  // another database, another channel
  EXPECT_EQ(Pushed(a), "");
}

TEST_F(PubSubTest, TransactionsPublishWhenTheyRun) {
  const size_t a = ebb_->AddClient();
  EXPECT_EQ(Do({"CONFIG", "SET", "notify-keyspace-events", "E$"}), "+OK");
  ebb_->DoAs(a, {"SUBSCRIBE", "__keyevent@0__:set"});
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"SET", "k", "v"}), "+QUEUED");
  EXPECT_EQ(Do({"PUBLISH", "__keyevent@0__:set", "by hand"}), "+QUEUED");
  EXPECT_EQ(Pushed(a), "");
  EXPECT_EQ(Do({"EXEC"}), "[+OK,:1]");
  EXPECT_EQ(Pushed(a), "[$message,$__keyevent@0__:set,$k] [$message,$__keyevent@0__:set,$by hand]");
}

}  // namespace
}  // namespace ebb::test
