// HELP replies, generated from the rows, word for word as the containers have always answered.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/command_runner.h"

namespace ebb::test {
namespace {

class HelpTest : public CommandTest {
 protected:
  std::vector<std::string> Lines(std::initializer_list<std::string_view> args) {
    std::vector<std::string> out;
    Reply reply = Cmd(args);
    EXPECT_TRUE(reply.is_array()) << reply.ToString();
    for (const Reply& line : reply.elements()) {
      EXPECT_TRUE(line.is_status());
      out.push_back(line.str());
    }
    return out;
  }
};

TEST_F(HelpTest, Tlog) {
  EXPECT_EQ(Lines({"TLOG", "HELP"}),
            (std::vector<std::string>{
                "TLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                "INS <key> <value> <timestamp>",
                "    Insert a value/timestamp entry; ignored if a duplicate or below the cutoff.",
                "GET <key> [<count>]",
                "    Return the [value, timestamp] entries, newest first, at most <count> of them.",
                "RANGE <key> <from> <to> [COUNT <count>] [REV]",
                "    Return the [value, timestamp] entries whose timestamps are in [<from>, <to>]",
                "    ('-', '+': either end), newest first (REV: oldest first), at most <count> of "
                "them.",
                "RANGE <key> <from> <to> [COUNT <count>] [REV] [ALIGN <align>] AGGREGATION "
                "count|first|last <bucket> [BUCKETTIMESTAMP -|~|+]",
                "    Return one [value, timestamp] pair per bucket of <bucket> timestamps holding",
                "    entries: how many, the first or the last value (ALIGN, BUCKETTIMESTAMP: as "
                "TS.RANGE).",
                "SIZE <key>",
                "    Return the number of entries in the log.",
                "CUTOFF <key>",
                "    Return the cutoff timestamp of the log.",
                "TRIMAT <key> <timestamp>",
                "    Raise the cutoff to <timestamp>, discarding older entries.",
                "TRIM <key> <count>",
                "    Raise the cutoff to the timestamp of entry <count>-1 (0: same as CLR).",
                "CLR <key>",
                "    Raise the cutoff past the newest entry, emptying the log.",
                "HELP",
                "    Print this help.",
            }));
}

TEST_F(HelpTest, Treg) {
  EXPECT_EQ(Lines({"treg", "help"}),
            (std::vector<std::string>{
                "TREG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                "SET <key> <value> <timestamp>",
                "    Set the register if <timestamp> is newer (or equal with a greater value).",
                "GET <key>",
                "    Return the [value, timestamp] pair, or nil if the key does not exist.",
                "HELP",
                "    Print this help.",
            }));
}

TEST_F(HelpTest, Client) {
  EXPECT_EQ(
      Lines({"CLIENT", "HELP"}),
      (std::vector<std::string>{
          "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
          "GETNAME",
          "    Return the name of the current connection.",
          "ID",
          "    Return the ID of the current connection.",
          "INFO",
          "    Return information about the current client connection.",
          "KILL <ip:port>",
          "    Kill connection made from <ip:port>.",
          "KILL <option> <value> [<option> <value> [...]]",
          "    Kill connections. Options are: ID <client-id>, ADDR <ip:port>, LADDR <ip:port>,",
          "    TYPE normal, USER default, SKIPME (YES|NO).",
          "LIST [TYPE normal] [ID <id> [<id> ...]]",
          "    Return information about client connections.",
          "SETINFO <LIB-NAME|LIB-VER> <value>",
          "    Set client library name or version.",
          "REPLY (ON|OFF|SKIP)",
          "    Control the replies sent to the current connection.",
          "SETNAME <name>",
          "    Assign the name <name> to the current connection.",
          "HELP",
          "    Print this help.",
      }));
}

TEST_F(HelpTest, ConfigCommandAndDebug) {
  EXPECT_EQ(Lines({"CONFIG", "HELP"}),
            (std::vector<std::string>{
                "CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                "GET <pattern>",
                "    Return parameters matching the glob-like <pattern> and their values.",
                "SET <directive> <value>",
                "    Set the configuration <directive> to <value>.",
                "RESETSTAT",
                "    Reset statistics reported by the INFO command.",
                "REWRITE",
                "    Rewrite the configuration file.",
                "HELP",
                "    Print this help.",
            }));
  EXPECT_EQ(Lines({"COMMAND", "HELP"}),
            (std::vector<std::string>{
                "COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                "(no subcommand)",
                "    Return details about all commands.",
                "COUNT",
                "    Return the total number of commands in this server.",
                "LIST [FILTERBY (MODULE <module-name>|ACLCAT <category>|PATTERN <pattern>)]",
                "    Return a list of all commands in this server.",
                "INFO [<command-name> ...]",
                "    Return details about multiple commands.",
                "DOCS [<command-name> ...]",
                "    Return documentation details about multiple commands.",
                "GETKEYS <full-command>",
                "    Return the keys from a full Redis command.",
                "HELP",
                "    Print this help.",
            }));
  const std::vector<std::string> debug = Lines({"DEBUG", "HELP"});
  ASSERT_EQ(debug.size(), 39u);
  EXPECT_EQ(debug[0], "DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
  EXPECT_EQ(debug[1], "OBJECT <key>");
  EXPECT_EQ(debug[3], "SLEEP <seconds>");
  EXPECT_EQ(debug[5], "CLOCK GET");
  EXPECT_EQ(debug[15], "DIGEST");
  EXPECT_EQ(debug[17], "DIGEST-LOGICAL");
  EXPECT_EQ(debug[19], "PEER-LINK <host> <port> UP|DOWN");
  EXPECT_EQ(debug[21], "PEER-APPLY <origin-id> <db> [OFFSET <n>] <op> [<arg> ...]");
  EXPECT_EQ(debug[23], "PEER-COLLECT [<origin-id> <offset> ...]");
  EXPECT_EQ(debug[25], "DISK-FAULT ON [ENOSPC|EIO]");
  EXPECT_EQ(debug[26],
            "    Fail every write-out, fsync and file creation in the data directory (default "
            "ENOSPC).");
  EXPECT_EQ(debug[27], "DISK-FAULT HOLD");
  EXPECT_EQ(debug[29], "DISK-FAULT OFF");
  EXPECT_EQ(debug[31], "POWER-CUT [<seed>]");
  EXPECT_EQ(debug[33], "BLOCK-READ-DELAY <ms>");
  EXPECT_EQ(debug[35], "PROTOCOL <type>");
  EXPECT_EQ(debug[38], "    Print this help.");
}

}  // namespace
}  // namespace ebb::test
