// TLOG and TREG state that must outlive a command: restarts, memtable flushes and compactions
// (which drop cut and orphaned entries), whole-key expiry and DEL.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

class TlogPersistTest : public ServerTest {};

TEST_F(TlogPersistTest, WholeKeyExpiryAndTypes) {
  ASSERT_EQ(Do({"DEBUG", "CLOCK", "SET", "1700000000000"}), "+OK");  // time stands still
  Do({"TLOG", "INS", "log", "a", "1"});
  Do({"TLOG", "TRIMAT", "log", "1"});
  Do({"TREG", "SET", "reg", "v", "1"});
  EXPECT_EQ(Do({"TYPE", "log"}), "+tlog");
  EXPECT_EQ(Do({"TYPE", "reg"}), "+treg");
  EXPECT_EQ(Do({"PEXPIRE", "log", "1000"}), ":1");
  EXPECT_EQ(Do({"PEXPIRE", "reg", "1000"}), ":1");
  // Writes keep the whole-key expiry.
  EXPECT_EQ(Do({"TLOG", "INS", "log", "b", "2"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "TRIMAT", "log", "2"}), "+OK");
  EXPECT_EQ(Do({"TREG", "SET", "reg", "w", "2"}), "+OK");
  EXPECT_EQ(Do({"PTTL", "log"}), ":1000");
  EXPECT_EQ(Do({"PTTL", "reg"}), ":1000");
  ASSERT_EQ(Do({"DEBUG", "CLOCK", "ADVANCE", "1000"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "GET", "log"}), "[]");
  EXPECT_EQ(Do({"TLOG", "SIZE", "log"}), ":0");
  EXPECT_EQ(Do({"TLOG", "CUTOFF", "log"}), ":0");  // the cutoff expired with the key
  EXPECT_EQ(Do({"TREG", "GET", "reg"}), "nil");
  EXPECT_EQ(Do({"EXISTS", "log", "reg"}), ":0");
  // A new incarnation starts from cutoff 0 and no expiry.
  EXPECT_EQ(Do({"TLOG", "INS", "log", "old", "0"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "GET", "log"}), "[[$old,:0]]");
  EXPECT_EQ(Do({"PTTL", "log"}), ":-1");
}

TEST_F(TlogPersistTest, DelRemovesTheCutoffAndAnEmptyLogWithACutoffExists) {
  EXPECT_EQ(Do({"TLOG", "TRIMAT", "log", "50"}), "+OK");
  EXPECT_EQ(Do({"EXISTS", "log"}), ":1");
  EXPECT_EQ(Do({"TYPE", "log"}), "+tlog");
  EXPECT_EQ(Do({"TLOG", "INS", "log", "old", "49"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "SIZE", "log"}), ":0");
  EXPECT_EQ(Do({"DEL", "log"}), ":1");
  EXPECT_EQ(Do({"EXISTS", "log"}), ":0");
  EXPECT_EQ(Do({"TLOG", "INS", "log", "old", "49"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "GET", "log"}), "[[$old,:49]]");
  EXPECT_EQ(Do({"TLOG", "CUTOFF", "log"}), ":0");
}

TEST_F(TlogPersistTest, PersistsAcrossRestartsFlushesAndCompactions) {
  Do({"TLOG", "INS", "log", "a", "10"});
  Do({"TLOG", "INS", "log", std::string("b\0c", 3), "20"});
  Do({"TLOG", "INS", "log", "old", "5"});
  Do({"TLOG", "TRIMAT", "log", "8"});
  Do({"TREG", "SET", "reg", "first", "3"});
  ASSERT_EQ(Do({"DEBUG", "FLUSH-MEMTABLE"}), "+OK");
  Do({"TLOG", "INS", "log", "c", "30"});
  Do({"TREG", "SET", "reg", "second", "4"});
  const std::string log = std::string("[[$c,:30],[$b\0c,:20],[$a,:10]]", 30);
  ASSERT_TRUE(server_.Restart()) << server_.error();
  Reconnect();
  EXPECT_EQ(Do({"TLOG", "GET", "log"}), log);
  EXPECT_EQ(Do({"TLOG", "CUTOFF", "log"}), ":8");
  EXPECT_EQ(Do({"TLOG", "SIZE", "log"}), ":3");
  EXPECT_EQ(Do({"TREG", "GET", "reg"}), "[$second,:4]");
  ASSERT_EQ(Do({"DEBUG", "COMPACT"}), "+OK");
  EXPECT_EQ(Do({"TLOG", "GET", "log"}), log);
  EXPECT_EQ(Do({"TLOG", "INS", "log", "too old", "7"}), "+OK");  // the cutoff survived
  Do({"TLOG", "CLR", "log"});
  ASSERT_TRUE(server_.Restart()) << server_.error();
  Reconnect();
  EXPECT_EQ(Do({"TLOG", "GET", "log"}), "[]");
  EXPECT_EQ(Do({"TLOG", "CUTOFF", "log"}), ":31");
  EXPECT_EQ(Do({"TREG", "GET", "reg"}), "[$second,:4]");
}

}  // namespace
}  // namespace ebb::test
