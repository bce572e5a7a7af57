// Restartable commands (server/dispatch/dispatcher.h): a command whose reads need table blocks that
// are not in memory runs again once they are read, and a user sees exactly what an engine that read
// them on the spot would have shown.
//
// The same seeded script of commands of every type runs on two runners: one with every row in
// its memtable (its reads never touch a table), one whose memtable is flushed every few
// commands and whose block cache keeps nothing, so every read of a row in a table file comes
// back incomplete at first and runs again. Every reply must match. (Writes keep timestamps in
// order: how compaction resolves out-of-order versions is the engine's contract, not this
// test's.) And the contract holds: no handler read a block inline (none reads after its first
// write), and an incomplete run never replied (CommandRunner checks). A rerun may find the files
// changed by a background compaction and want new blocks; past the bound on rounds a request
// reads inline (disk_wait_fallbacks), which is recorded, not asserted.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "tests/support/command_runner.h"
#include "tests/support/test_seed.h"

namespace ebb::test {
namespace {

using Args = std::vector<std::string>;

class Script {
 public:
  explicit Script(uint64_t seed) : rng_(seed) {}

  Args Next() {
    switch (Pick(30)) {
      case 0:
        return {"GET", Str()};
      case 1:
        return {"SET", Str(), Val(), Pick(2) ? "NX" : "XX", "GET"};
      case 2:
        return {"SET", Str(), Val()};
      case 3: {
        Args a = {"MGET"};
        for (int i = 0; i < 6; ++i) a.push_back(Str());
        return a;
      }
      case 4:
        return {"MSET", Str(), Val(), Str(), Val()};
      case 5:
        return {"MSETNX", Str(), Val(), Str(), Val()};
      case 6:
        return {"DEL", Str(), Str(), Log(), Reg()};
      case 7:
        return {"EXISTS", Str(), Str(), Log(), Reg(), Str()};
      case 8:
        return {"INCRBY", Counter(), std::to_string(Pick(100))};
      case 9:
        return {"APPEND", Str(), Val()};
      case 10:
        return {Pick(2) ? "GETDEL" : "STRLEN", Str()};
      case 11:
        return {"GETEX", Str(), "PX", std::to_string(1000 + Pick(100000))};
      case 12:
        return {Pick(2) ? "TTL" : "PERSIST", Any()};
      case 13:
        return {"EXPIRE", Any(), std::to_string(10 + Pick(1000)), Pick(2) ? "GT" : "NX"};
      case 14:
        return {"PUT", Str(), Val()};
      case 15:
        return {Pick(2) ? "GET" : "GETMETA", Str(), "GRACE", std::to_string(Pick(600))};
      case 16:
        return {"TLOG", "INS", Log(), Val(), std::to_string(Pick(500))};
      case 17:
        return {"TLOG", "GET", Log(), std::to_string(1 + Pick(40))};
      case 18:
        return {"TLOG", Pick(2) ? "SIZE" : "CUTOFF", Log()};
      case 19:
        return {"TLOG", "TRIM", Log(), std::to_string(Pick(30))};
      case 20:
        return {"TREG", "SET", Reg(), Val(), std::to_string(Pick(500))};
      case 21:
        return {"TREG", "GET", Reg()};
      case 22:
        return {"TYPE", Any()};
      case 23:
        return {"SETBIT", Str(), std::to_string(Pick(200)), std::to_string(Pick(2))};
      case 24:
        return {"BITFIELD", Str(), "INCRBY", "u8", std::to_string(Pick(100)),
                "1",        "GET", "i4",     "0"};
      case 25:
        return {"BITOP", Pick(2) ? "AND" : "XOR", Str(), Str(), Str()};
      case 26:
        switch (Pick(5)) {
          case 0:
            return {"BITCOUNT", Str()};
          case 1:
            return {"GETBIT", Str(), std::to_string(Pick(100))};
          case 2:
            return {"LCS", Str(), Str()};
          case 3:
            return {"TOUCH", Str(), Log(), Reg()};
          default:
            return {"OBJECT", "ENCODING", Any()};
        }
      case 27:
        return {"INCRBYFLOAT", Counter(), "0.5"};
      case 28: {
        // Two names of one kind, so the kinds' own commands keep finding their type.
        const int kind = Pick(3);
        auto name = [&] { return kind == 0 ? Log() : kind == 1 ? Reg() : Str(); };
        switch (Pick(4)) {
          case 0:
            return {"RENAME", name(), name()};
          case 1:
            return {"RENAMENX", name(), name()};
          case 2:
            return {"COPY", name(), name(), "REPLACE"};
          default:
            return {"MOVE", name(), "1"};
        }
      }
      default:
        switch (Pick(3)) {
          case 0:
            return {"DBSIZE"};
          case 1:
            return {"KEYS", "s*"};
          default:
            return {"SCAN", "0", "COUNT", std::to_string(1 + Pick(20))};
        }
    }
  }

 private:
  int Pick(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(n)); }
  std::string Str() { return "s" + std::to_string(Pick(60)); }
  std::string Counter() { return "c" + std::to_string(Pick(5)); }
  std::string Log() { return "log" + std::to_string(Pick(6)); }
  std::string Reg() { return "reg" + std::to_string(Pick(6)); }
  std::string Any() {
    switch (Pick(3)) {
      case 0:
        return Log();
      case 1:
        return Reg();
      default:
        return Str();
    }
  }
  std::string Val() { return std::string(20 + Pick(200), static_cast<char>('a' + Pick(26))); }

  std::mt19937_64 rng_;
};

long long Info(CommandRunner& ebb, const char* section, const char* field) {
  return InfoField(ebb.Cmd({"INFO", section}).str(), field);
}

TEST(RestartTest, CommandsThatWaitForBlocksReplyAsIfTheyHadReadThemInline) {
  const uint64_t seed = TestSeed(22);
  SCOPED_TRACE("EBB_TEST_SEED=" + std::to_string(seed));
  CommandRunner in_memory;
  CommandRunner on_disk({"--block-cache-size", "0", "--block-size", "512"});
  for (CommandRunner* ebb : {&in_memory, &on_disk}) {
    ASSERT_EQ(ebb->Do({"DEBUG", "CLOCK", "SET", "1700000000000"}), "+OK");
  }
  Script script(seed);
  for (int i = 0; i < 3000; ++i) {
    if (i % 25 == 0) {
      ASSERT_EQ(on_disk.Do({"DEBUG", "FLUSH-MEMTABLE"}), "+OK");
    }
    if (i % 700 == 350) {
      ASSERT_EQ(on_disk.Do({"DEBUG", "COMPACT"}), "+OK");
    }
    if (i % 100 == 99) {
      for (CommandRunner* ebb : {&in_memory, &on_disk}) {
        ASSERT_EQ(ebb->Do({"DEBUG", "CLOCK", "ADVANCE", "7000"}), "+OK");
      }
    }
    const Args args = script.Next();
    ASSERT_EQ(on_disk.Raw(args), in_memory.Raw(args))
        << "command " << i << ": " << args[0] << " " << (args.size() > 1 ? args[1] : "");
  }
  EXPECT_GT(on_disk.reruns(), 500u);
  EXPECT_EQ(in_memory.reruns(), 0u);
  EXPECT_EQ(Info(on_disk, "stats", "inline_block_reads"), 0);
  ::testing::Test::RecordProperty("disk_wait_fallbacks",
                                  std::to_string(Info(on_disk, "stats", "disk_wait_fallbacks")));
  EXPECT_EQ(Info(on_disk, "stats", "disk_waits"), static_cast<long long>(on_disk.reruns()));
  // Counters count each request once, however many runs it took.
  EXPECT_EQ(Info(on_disk, "stats", "keyspace_hits"), Info(in_memory, "stats", "keyspace_hits"));
  EXPECT_EQ(Info(on_disk, "stats", "keyspace_misses"), Info(in_memory, "stats", "keyspace_misses"));
  EXPECT_EQ(Info(on_disk, "stats", "total_error_replies"),
            Info(in_memory, "stats", "total_error_replies"));
}

// A command with many keys on disk (MGET, DEL, EXISTS) wants all their blocks in one round and
// then answers once; DEL's count is right although its first run saw none of the keys.
TEST(RestartTest, MultiKeyCommandsAskForEveryBlockInOneRound) {
  CommandRunner ebb({"--block-cache-size", "0", "--block-size", "256"});
  Args mset = {"MSET"};
  for (int i = 0; i < 200; ++i) {
    mset.push_back("k" + std::to_string(i));
    mset.push_back(std::string(100, static_cast<char>('a' + i % 26)));
  }
  ASSERT_EQ(ebb.Do(mset), "+OK");
  ASSERT_EQ(ebb.Do({"DEBUG", "FLUSH-MEMTABLE"}), "+OK");
  uint64_t before = ebb.reruns();
  EXPECT_EQ(ebb.Do({"MGET", "k0", "k50", "k100", "k150", "k199", "nokey"}),
            "[$" + std::string(100, 'a') + ",$" + std::string(100, 'y') + ",$" +
                std::string(100, 'w') + ",$" + std::string(100, 'u') + ",$" +
                std::string(100, 'r') + ",nil]");
  EXPECT_EQ(ebb.reruns() - before, 1u);
  before = ebb.reruns();
  EXPECT_EQ(ebb.Do({"EXISTS", "k1", "k61", "k121", "k181", "nokey"}), ":4");
  EXPECT_EQ(ebb.reruns() - before, 1u);
  before = ebb.reruns();
  EXPECT_EQ(ebb.Do({"DEL", "k2", "k62", "k122", "nokey"}), ":3");
  EXPECT_EQ(ebb.reruns() - before, 1u);
  EXPECT_EQ(ebb.Do({"EXISTS", "k2", "k62", "k122"}), ":0");
  EXPECT_EQ(InfoField(ebb.Cmd({"INFO", "stats"}).str(), "inline_block_reads"), 0);
}

}  // namespace
}  // namespace ebb::test
