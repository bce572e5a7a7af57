// SLOWLOG as Redis 7 keeps it: entries newest first with id, unix time, microseconds, arguments
// (at most 32, each at most 128 bytes, secrets redacted), client address and name; EXEC's
// commands logged one by one and EXEC not; a script logged, not its calls; the two options;
// GET's count and its errors; RESET and HELP.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/command_runner.h"

namespace ebb::test {
namespace {

class SlowlogTest : public CommandTest {
 protected:
  // The argument lists of the newest `count` entries, newest first, one "a b c" string each.
  std::vector<std::string> Logged(int count) {
    const Reply entries = Cmd({"SLOWLOG", "GET", std::to_string(count)});
    std::vector<std::string> out;
    for (const Reply& entry : entries.elements()) {
      std::string line;
      for (const Reply& arg : entry[3].elements()) line += (line.empty() ? "" : " ") + arg.str();
      out.push_back(line);
    }
    return out;
  }
  void LogEverything() { ASSERT_EQ(Do({"CONFIG", "SET", "slowlog-log-slower-than", "0"}), "+OK"); }
};

TEST_F(SlowlogTest, OptionsAndDefaults) {
  EXPECT_EQ(Do({"CONFIG", "GET", "slowlog-*"}),
            "[$slowlog-log-slower-than,$10000,$slowlog-max-len,$128]");
  EXPECT_EQ(Do({"SLOWLOG", "LEN"}), ":0");
  EXPECT_EQ(Do({"CONFIG", "SET", "slowlog-log-slower-than", "-2"}).substr(0, 30),
            "-ERR CONFIG SET failed (possib");
}

TEST_F(SlowlogTest, EntriesNewestFirstWithRedisShape) {
  LogEverything();
  EXPECT_EQ(Do({"CLIENT", "SETNAME", "writer"}), "+OK");
  EXPECT_EQ(Do({"SET", "k", "v"}), "+OK");
  EXPECT_EQ(Do({"GET", "k"}), "$v");
  const Reply entries = Cmd({"SLOWLOG", "GET", "2"});
  ASSERT_EQ(entries.size(), 2u) << entries.ToString();
  const Reply& newest = entries[0];
  ASSERT_EQ(newest.size(), 6u);
  EXPECT_TRUE(newest[0].is_integer());
  EXPECT_EQ(newest[0].integer(), entries[1][0].integer() + 1);  // ids count up
  EXPECT_GT(newest[1].integer(), 1600000000);                   // unix seconds
  EXPECT_GE(newest[2].integer(), 0);                            // microseconds
  EXPECT_EQ(Canon(newest[3]), "[$GET,$k]");
  EXPECT_EQ(Canon(entries[1][3]), "[$SET,$k,$v]");
  EXPECT_TRUE(newest[4].is_string());
  EXPECT_EQ(newest[5].str(), "writer");
  // GET's default is 10, -1 is all; LEN counts every entry (the SLOWLOG calls too).
  EXPECT_EQ(Cmd({"SLOWLOG", "GET"}).size(), 5u);
  EXPECT_EQ(Do({"SLOWLOG", "LEN"}), ":6");
  EXPECT_EQ(Cmd({"SLOWLOG", "GET", "-1"}).size(), 7u);
  EXPECT_EQ(Cmd({"SLOWLOG", "GET", "0"}).size(), 0u);
}

TEST_F(SlowlogTest, LongArgumentsAndListsAreShortened) {
  LogEverything();
  std::vector<std::string> mset = {"MSET"};
  for (int i = 0; i < 20; ++i) mset.insert(mset.end(), {"k" + std::to_string(i), "v"});
  ASSERT_EQ(Do(mset), "+OK");
  const Reply args = Cmd({"SLOWLOG", "GET", "1"})[0][3];
  ASSERT_EQ(args.size(), 32u);
  EXPECT_EQ(args[30].str(), "v");
  EXPECT_EQ(args[31].str(), "... (10 more arguments)");
  ASSERT_EQ(Do({"SET", "big", std::string(200, 'x')}), "+OK");
  EXPECT_EQ(Cmd({"SLOWLOG", "GET", "1"})[0][3][2].str(),
            std::string(128, 'x') + "... (72 more bytes)");
}

TEST_F(SlowlogTest, SecretsAreRedacted) {
  LogEverything();
  Do({"AUTH", "not-the-password"});
  Do({"AUTH", "someone", "secret"});
  Do({"CONFIG", "SET", "requirepass", "hunter2", "maxclients", "100"});
  Do({"ACL", "SETUSER", "alice", "on", ">pw", "~*"});
  Do({"HELLO", "2", "AUTH", "default", "secret", "SETNAME", "n"});
  EXPECT_EQ(Logged(5), (std::vector<std::string>{
                           "HELLO 2 AUTH (redacted) (redacted) SETNAME n",
                           "ACL SETUSER (redacted) (redacted) (redacted) (redacted)",
                           "CONFIG SET requirepass (redacted) maxclients 100",
                           "AUTH (redacted) (redacted)",
                           "AUTH (redacted)",
                       }));
}

TEST_F(SlowlogTest, TransactionsAndScripts) {
  LogEverything();
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"SET", "a", "1"}), "+QUEUED");
  EXPECT_EQ(Do({"INCR", "a"}), "+QUEUED");
  EXPECT_EQ(Do({"EXEC"}), "[+OK,:2]");
  EXPECT_EQ(Do({"EVAL", "return redis.call('GET', 'a')", "0"}), "$2");
  EXPECT_EQ(Logged(4), (std::vector<std::string>{"EVAL return redis.call('GET', 'a') 0", "INCR a",
                                                 "SET a 1", "MULTI"}));
}

TEST_F(SlowlogTest, ThresholdMaxLenAndReset) {
  EXPECT_EQ(Do({"CONFIG", "SET", "slowlog-log-slower-than", "-1"}), "+OK");
  Do({"PING"});
  EXPECT_EQ(Do({"SLOWLOG", "LEN"}), ":0");
  EXPECT_EQ(Do({"CONFIG", "SET", "slowlog-log-slower-than", "60000000"}), "+OK");  // a minute
  Do({"PING"});
  EXPECT_EQ(Do({"SLOWLOG", "LEN"}), ":0");
  LogEverything();
  EXPECT_EQ(Do({"CONFIG", "SET", "slowlog-max-len", "2"}), "+OK");
  for (int i = 0; i < 5; ++i) Do({"PING"});
  EXPECT_EQ(Do({"SLOWLOG", "LEN"}), ":2");
  EXPECT_EQ(Do({"SLOWLOG", "RESET"}), "+OK");
  EXPECT_EQ(Do({"SLOWLOG", "LEN"}), ":1");        // the RESET itself, logged once it ran
  EXPECT_EQ(Do({"CONFIG", "RESETSTAT"}), "+OK");  // leaves the slow log alone
  EXPECT_EQ(Do({"SLOWLOG", "LEN"}), ":2");
}

TEST_F(SlowlogTest, Errors) {
  EXPECT_EQ(Do({"SLOWLOG", "GET", "-2"}), "-ERR count should be greater than or equal to -1");
  EXPECT_EQ(Do({"SLOWLOG", "GET", "x"}), "-ERR value is not an integer or out of range");
  EXPECT_EQ(Do({"SLOWLOG", "get", "1", "2"}),
            "-ERR unknown subcommand or wrong number of arguments for 'get'. Try SLOWLOG HELP.");
  EXPECT_EQ(Do({"SLOWLOG", "LEN", "1"}),
            "-ERR wrong number of arguments for 'slowlog|len' command");
  EXPECT_EQ(Do({"SLOWLOG", "NOPE"}), "-ERR unknown subcommand 'NOPE'. Try SLOWLOG HELP.");
  const Reply help = Cmd({"SLOWLOG", "HELP"});
  ASSERT_TRUE(help.is_array());
  std::string all;
  for (const Reply& line : help.elements()) all += line.str() + "\n";
  for (const char* line : {"GET [<count>]\n", "LEN\n", "RESET\n", "HELP\n"}) {
    EXPECT_NE(all.find(line), std::string::npos) << all;
  }
}

}  // namespace
}  // namespace ebb::test
