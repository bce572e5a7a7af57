// COMMAND GETKEYS: the keys a command names, by its row's key positions, EVAL's and FCALL's
// numkeys included, with Redis's errors.
#include <gtest/gtest.h>

#include "tests/support/command_runner.h"

namespace ebb::test {
namespace {

class CommandGetKeysTest : public CommandTest {};

TEST_F(CommandGetKeysTest, FixedKeyPositions) {
  EXPECT_EQ(Do({"COMMAND", "GETKEYS", "SET", "k", "v"}), "[$k]");
  EXPECT_EQ(Do({"COMMAND", "GETKEYS", "DEL", "a", "b", "c"}), "[$a,$b,$c]");
  EXPECT_EQ(Do({"COMMAND", "GETKEYS", "MSET", "a", "1", "b", "2"}), "[$a,$b]");
  EXPECT_EQ(Do({"COMMAND", "GETKEYS", "TLOG", "INS", "log", "v", "1"}), "[$log]");
}

TEST_F(CommandGetKeysTest, EvalAndFcallKeysFollowNumkeys) {
  EXPECT_EQ(Do({"COMMAND", "GETKEYS", "EVAL", "return 1", "2", "a", "b", "arg"}), "[$a,$b]");
  EXPECT_EQ(Do({"COMMAND", "GETKEYS", "EVALSHA_RO", "x", "1", "a"}), "[$a]");
  EXPECT_EQ(Do({"COMMAND", "GETKEYS", "FCALL", "f", "1", "k", "arg"}), "[$k]");
  EXPECT_EQ(Do({"COMMAND", "GETKEYS", "FCALL_RO", "f", "0", "arg"}), "[]");
  // A count that does not fit names no key (EVAL may have none), as in Redis.
  EXPECT_EQ(Do({"COMMAND", "GETKEYS", "EVAL", "return 1", "3", "a"}), "[]");
  EXPECT_EQ(Do({"COMMAND", "GETKEYS", "EVAL", "return 1", "x", "a"}), "[]");
}

TEST_F(CommandGetKeysTest, MigrateKeysFollowKeysWhenItsKeyIsEmpty) {
  EXPECT_EQ(Do({"COMMAND", "GETKEYS", "MIGRATE", "h", "1", "k", "0", "5"}), "[$k]");
  EXPECT_EQ(Do({"COMMAND", "GETKEYS", "MIGRATE", "h", "1", "", "0", "5", "COPY", "AUTH", "keys",
                "KEYS", "a", "b"}),
            "[$a,$b]");
  EXPECT_EQ(Do({"COMMAND", "GETKEYS", "MIGRATE", "h", "1", "", "0", "5", "AUTH2", "u", "keys",
                "keys", "a"}),
            "[$a]");
  // A key argument that is not empty is the one key, KEYS or not (MIGRATE itself refuses both).
  EXPECT_EQ(Do({"COMMAND", "GETKEYS", "MIGRATE", "h", "1", "k", "0", "5", "KEYS", "a"}), "[$k]");
}

TEST_F(CommandGetKeysTest, Errors) {
  EXPECT_EQ(Do({"COMMAND", "GETKEYS", "NOSUCH", "a"}), "-ERR Invalid command specified");
  EXPECT_EQ(Do({"COMMAND", "GETKEYS", "PING", "a"}), "-ERR The command has no key arguments");
  EXPECT_EQ(Do({"COMMAND", "GETKEYS", "EXPIRE", "a"}),
            "-ERR Invalid number of arguments specified for command");
  EXPECT_EQ(Do({"COMMAND", "GETKEYS", "EVAL", "return 1"}),
            "-ERR Invalid number of arguments specified for command");
  EXPECT_EQ(Do({"COMMAND", "GETKEYS"}),
            "-ERR wrong number of arguments for 'command|getkeys' command");
}

}  // namespace
}  // namespace ebb::test
