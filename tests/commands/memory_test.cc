// MEMORY USAGE (a key's name and DUMP payload bytes, for every type), MALLOC-STATS, PURGE and
// HELP, with Redis 7's replies and errors.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/command_runner.h"

namespace ebb::test {
namespace {

class MemoryTest : public CommandTest {
 protected:
  long long Usage(std::string_view key) {
    const Reply r = Cmd({"MEMORY", "USAGE", key});
    EXPECT_TRUE(r.is_integer()) << r.ToString();
    return r.is_integer() ? r.integer() : -1;
  }
};

TEST_F(MemoryTest, UsageOfEveryType) {
  EXPECT_EQ(Do({"MEMORY", "USAGE", "none"}), "nil");
  ASSERT_EQ(Do({"SET", "small", "v"}), "+OK");
  ASSERT_EQ(Do({"SET", "large", std::string(1000, 'x')}), "+OK");
  EXPECT_GT(Usage("small"), 5);
  EXPECT_GT(Usage("large"), Usage("small") + 900);
  ASSERT_EQ(Do({"TREG", "SET", "reg", "value", "1"}), "+OK");
  EXPECT_GT(Usage("reg"), 8);
  ASSERT_EQ(Do({"TLOG", "INS", "log", "entry", "1"}), "+OK");
  const long long one_entry = Usage("log");
  for (int i = 2; i <= 100; ++i) {
    ASSERT_EQ(Do({"TLOG", "INS", "log", "entry", std::to_string(i)}), "+OK");
  }
  EXPECT_GT(Usage("log"), one_entry + 99 * 5);  // grows with the entries
  // The rows, wherever they live: the same after a restart.
  const long long before = Usage("large");
  ebb_->Reopen();
  EXPECT_EQ(Usage("large"), before);
  ASSERT_EQ(Do({"DEL", "large"}), ":1");
  EXPECT_EQ(Do({"MEMORY", "USAGE", "large"}), "nil");
}

TEST_F(MemoryTest, UsageOptions) {
  ASSERT_EQ(Do({"SET", "k", "v"}), "+OK");
  EXPECT_EQ(Cmd({"MEMORY", "USAGE", "k", "SAMPLES", "0"}).integer(), Usage("k"));
  EXPECT_EQ(Cmd({"MEMORY", "USAGE", "k", "samples", "5"}).integer(), Usage("k"));
  EXPECT_EQ(Do({"MEMORY", "USAGE", "k", "SAMPLES", "-1"}), "-ERR syntax error");
  EXPECT_EQ(Do({"MEMORY", "USAGE", "k", "SAMPLES", "x"}),
            "-ERR value is not an integer or out of range");
  EXPECT_EQ(Do({"MEMORY", "USAGE", "k", "SAMPLES"}), "-ERR syntax error");
  EXPECT_EQ(Do({"MEMORY", "USAGE", "k", "FAST"}), "-ERR syntax error");
  EXPECT_EQ(Do({"MEMORY", "USAGE"}), "-ERR wrong number of arguments for 'memory|usage' command");
}

TEST_F(MemoryTest, AllocatorSubcommands) {
  const Reply stats = Cmd({"MEMORY", "MALLOC-STATS"});
  ASSERT_TRUE(stats.is_string()) << stats.ToString();
  EXPECT_NE(stats.str().find("<malloc"), std::string::npos) << stats.str();
  EXPECT_EQ(Do({"MEMORY", "PURGE"}), "+OK");
  EXPECT_EQ(Do({"MEMORY", "NOPE"}), "-ERR unknown subcommand 'NOPE'. Try MEMORY HELP.");
  const Reply help = Cmd({"MEMORY", "HELP"});
  ASSERT_TRUE(help.is_array());
  std::string all;
  for (const Reply& line : help.elements()) all += line.str() + "\n";
  for (const char* line : {"USAGE <key> [SAMPLES <count>]\n", "MALLOC-STATS\n", "PURGE\n"}) {
    EXPECT_NE(all.find(line), std::string::npos) << all;
  }
}

}  // namespace
}  // namespace ebb::test
