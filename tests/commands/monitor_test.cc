// MONITOR as Redis 7 feeds it: every command once it has run, from every client, EXEC's
// commands and a script's calls ("lua") included, admin commands left out, secrets redacted,
// arguments quoted and escaped as Redis's sdscatrepr; RESET ends it.
#include "server/services/monitor.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "tests/support/command_runner.h"

namespace ebb::test {
namespace {

class MonitorTest : public CommandTest {
 protected:
  // What the monitor (client 1) was sent, its time stamps and addresses blanked.
  std::string Seen() {
    const std::regex stamp(R"(\+[0-9]+\.[0-9]{6} \[([0-9]+) [^\]]*\])");
    return std::regex_replace(Pushed(1), stamp, "[$1]");
  }
};

TEST(MonitorLineTest, QuotesAndEscapesAsRedis) {
  const std::vector<std::string_view> args = {"SET", "k", "a\"b\\c\n\r\t\a\b\x01\xff "};
  EXPECT_EQ(
      server::MonitorLine(1700000000123456, 3, "127.0.0.1:5555", args, std::vector<bool>(3, false)),
      R"(1700000000.123456 [3 127.0.0.1:5555] "SET" "k" "a\"b\\c\n\r\t\a\b\x01\xff ")");
  EXPECT_EQ(server::MonitorLine(1000001, 0, "lua", args, {false, false, true}),
            R"x(1.000001 [0 lua] "SET" "k" "(redacted)")x");
}

TEST_F(MonitorTest, EveryClientsCommandsOnceTheyRan) {
  ebb_->AddClient();
  EXPECT_EQ(DoAs(1, {"MONITOR"}), "+OK");
  EXPECT_EQ(Do({"SET", "k", "v"}), "+OK");
  EXPECT_EQ(Do({"SELECT", "2"}), "+OK");  // shown once it ran: in its new database, as Redis 7
  EXPECT_EQ(Do({"GET", "k"}), "nil");
  EXPECT_EQ(Do({"AUTH", "x"}).substr(0, 4), "-ERR");
  EXPECT_EQ(Do({"CONFIG", "GET", "port"}).substr(0, 1), "[");  // admin: not shown
  EXPECT_EQ(Seen(),
            "[0] \"SET\" \"k\" \"v\" [2] \"SELECT\" \"2\" [2] \"GET\" \"k\" "
            "[2] \"AUTH\" \"(redacted)\"");
}

TEST_F(MonitorTest, TransactionsAndScripts) {
  ebb_->AddClient();
  EXPECT_EQ(DoAs(1, {"MONITOR"}), "+OK");
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"INCR", "a"}), "+QUEUED");
  EXPECT_EQ(Do({"EXEC"}), "[:1]");
  EXPECT_EQ(Do({"EVAL", "return redis.call('GET', 'a')", "0"}), "$1");
  // A script is shown before it runs, so its calls follow it (EVAL's skip_monitor, as Redis).
  EXPECT_EQ(Seen(),
            "[0] \"MULTI\" [0] \"INCR\" \"a\" [0] \"EXEC\" "
            "[0] \"EVAL\" \"return redis.call('GET', 'a')\" \"0\" [0] \"GET\" \"a\"");
  // The script's call is marked as the script's.
  EXPECT_EQ(Do({"EVAL", "return redis.call('GET', 'a')", "0"}), "$1");
  EXPECT_NE(Pushed(1).find("[0 lua] \"GET\" \"a\""), std::string::npos);
}

TEST_F(MonitorTest, OnceAndUntilReset) {
  ebb_->AddClient();
  EXPECT_EQ(DoAs(1, {"MONITOR"}), "+OK");
  EXPECT_EQ(ebb_->RawAs(1, {"MONITOR"}), "");  // already monitoring: no reply, as Redis
  EXPECT_EQ(Do({"PING"}), "+PONG");
  EXPECT_EQ(Seen(), "[0] \"PING\"");  // one line, not two
  // CLIENT LIST flags a monitor O, as Redis.
  const std::string list = Do({"CLIENT", "LIST"});
  EXPECT_NE(list.find(" flags=O "), std::string::npos) << list;
  Pushed(1);
  EXPECT_EQ(DoAs(1, {"RESET"}), "+RESET");
  EXPECT_EQ(Do({"CLIENT", "LIST"}).find(" flags=O "), std::string::npos);
  Pushed(1);
  EXPECT_EQ(Do({"PING"}), "+PONG");
  EXPECT_EQ(Pushed(1), "");
}

}  // namespace
}  // namespace ebb::test
