// DEBUG: refused unless enable-debug-command allows it; the clock hooks TTL tests rely on, the
// engine hooks, and the errors of a bad subcommand or argument count.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/command_runner.h"

namespace ebb::test {
namespace {

constexpr const char* kRefused =
    "-ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you "
    "can run it from a local connection, otherwise you need to set this option in the "
    "configuration file, and then restart the server.";

class DebugTest : public CommandTest {};

TEST_F(DebugTest, RefusedByDefault) {
  CommandRunner refusing({"--enable-debug-command", "no"});
  EXPECT_EQ(refusing.Do({"DEBUG", "CLOCK", "GET"}), kRefused);
  EXPECT_EQ(refusing.Do({"DEBUG", "SLEEP", "0"}), kRefused);
}

TEST_F(DebugTest, ClockPinAndAdvance) {
  EXPECT_GT(Cmd({"DEBUG", "CLOCK", "GET"}).integer(), 1600000000000LL);
  EXPECT_EQ(Do({"DEBUG", "CLOCK", "SET", "5000000"}), "+OK");
  EXPECT_EQ(Do({"DEBUG", "CLOCK", "GET"}), ":5000000");
  EXPECT_EQ(Do({"DEBUG", "CLOCK", "ADVANCE", "1500"}), "+OK");
  EXPECT_EQ(Do({"debug", "clock", "get"}), ":5001500");
  EXPECT_EQ(Do({"TIME"}), "[$5001,$500000]");
  EXPECT_EQ(Do({"DEBUG", "CLOCK", "SET", "x"}), "-ERR value is not an integer or out of range");
  EXPECT_EQ(Do({"DEBUG", "CLOCK", "ADVANCE", "-1"}), "-ERR the clock only moves forward");
  const std::string clock_usage =
      "-ERR unknown subcommand or wrong number of arguments for 'clock'. Try DEBUG HELP.";
  EXPECT_EQ(Do({"DEBUG", "CLOCK", "GET", "1"}), clock_usage);
  EXPECT_EQ(Do({"DEBUG", "CLOCK", "SET"}), clock_usage);
  EXPECT_EQ(Do({"DEBUG", "CLOCK", "SET", "1", "2"}), clock_usage);
  EXPECT_EQ(Do({"DEBUG", "CLOCK", "BACK", "1"}), clock_usage);
  EXPECT_EQ(Do({"DEBUG", "CLOCK"}),
            "-ERR unknown subcommand or wrong number of arguments for 'CLOCK'. Try DEBUG HELP.");
}

TEST_F(DebugTest, SleepFlushCompactAndErrors) {
  EXPECT_EQ(Do({"DEBUG", "SLEEP", "0.01"}), "+OK");
  EXPECT_EQ(Do({"DEBUG", "SLEEP", "-1"}), "-ERR value is not a valid float");
  EXPECT_EQ(Do({"DEBUG", "SLEEP", "soon"}), "-ERR value is not a valid float");
  EXPECT_EQ(Do({"DEBUG", "FLUSH-MEMTABLE"}), "+OK");
  EXPECT_EQ(Do({"debug", "compact"}), "+OK");
  EXPECT_EQ(Do({"DEBUG", "NOPE"}),
            "-ERR unknown subcommand or wrong number of arguments for 'NOPE'. Try DEBUG HELP.");
  EXPECT_EQ(Do({"DEBUG", "COMPACT", "now"}),
            "-ERR unknown subcommand or wrong number of arguments for 'COMPACT'. Try DEBUG HELP.");
  EXPECT_EQ(Do({"DEBUG"}), "-ERR wrong number of arguments for 'debug' command");
  EXPECT_GT(Cmd({"DEBUG", "HELP"}).size(), 4u);
}

// DEBUG OBJECT: Redis's `field:value` line with the fields ebb answers; a missing key is an
// error, as Redis.
TEST_F(DebugTest, ObjectDescribesAKey) {
  EXPECT_EQ(Do({"SET", "n", "12345"}), "+OK");
  EXPECT_EQ(Do({"DEBUG", "CLOCK", "ADVANCE", "7000"}), "+OK");
  const std::string line = Do({"DEBUG", "OBJECT", "n"});
  const std::string dump = Cmd({"DUMP", "n"}).str();
  EXPECT_EQ(line, "+refcount:1 encoding:int serializedlength:" + std::to_string(dump.size()) +
                      " lru_seconds_idle:7");
  EXPECT_EQ(Do({"TLOG", "INS", "log", "a", "1"}), "+OK");
  EXPECT_NE(Do({"DEBUG", "OBJECT", "log"}).find(" encoding:tlog "), std::string::npos);
  EXPECT_EQ(Do({"DEBUG", "OBJECT", "nosuch"}), "-ERR no such key");
  EXPECT_EQ(Do({"DEBUG", "OBJECT"}),
            "-ERR unknown subcommand or wrong number of arguments for 'OBJECT'. Try DEBUG HELP.");
}

// What a disk fault does to writes and replies needs the connection's WAL write-out: that is
// tests/integration/disk_fault_test.cc. Here: the subcommand's arguments.
TEST_F(DebugTest, DiskFaultArguments) {
  EXPECT_EQ(Do({"DEBUG", "DISK-FAULT", "ON"}), "+OK");
  EXPECT_EQ(Do({"DEBUG", "DISK-FAULT", "OFF"}), "+OK");
  EXPECT_EQ(Do({"DEBUG", "DISK-FAULT", "ON", "EPERM"}), "-ERR syntax error");
  EXPECT_EQ(
      Do({"DEBUG", "DISK-FAULT", "OFF", "now"}),
      "-ERR unknown subcommand or wrong number of arguments for 'disk-fault'. Try DEBUG HELP.");
  EXPECT_EQ(
      Do({"DEBUG", "DISK-FAULT", "MAYBE"}),
      "-ERR unknown subcommand or wrong number of arguments for 'disk-fault'. Try DEBUG HELP.");
}

}  // namespace
}  // namespace ebb::test
