// Generic key commands through a real ebb-server, as Redis's own keyspace.tcl checks them:
// DEL/UNLINK, EXISTS (repeats counted), TYPE, KEYS patterns, RANDOMKEY, DBSIZE, FLUSHDB/FLUSHALL,
// separate databases — with DEBUG CLOCK instead of sleeping for expiry.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "tests/support/command_runner.h"
#include "tests/support/test_constants.h"

namespace ebb::test {
namespace {

class KeysTest : public CommandTest {
 protected:
  void SetUp() override {
    CommandTest::SetUp();
    PinClock(kPinnedNowMs);
  }
  // The elements of an array reply as strings, sorted.
  std::vector<std::string> Sorted(const std::vector<std::string>& args) {
    Reply reply = Cmd(args);
    EXPECT_TRUE(reply.is_array()) << reply.ToString();
    std::vector<std::string> out;
    for (const Reply& e : reply.elements()) out.push_back(e.str());
    std::sort(out.begin(), out.end());
    return out;
  }
};

TEST_F(KeysTest, DelSingleAndVarargs) {
  ASSERT_EQ(R({"SET", "x", "foo"}), "OK");
  EXPECT_EQ(R({"DEL", "x"}), "(integer) 1");
  EXPECT_EQ(R({"GET", "x"}), "(nil)");
  for (const char* k : {"foo1", "foo2", "foo3"}) ASSERT_EQ(R({"SET", k, "a"}), "OK");
  EXPECT_EQ(R({"DEL", "foo1", "foo2", "foo3", "foo4"}), "(integer) 3");
  EXPECT_EQ(R({"MGET", "foo1", "foo2", "foo3"}), "1) (nil)\n2) (nil)\n3) (nil)");
  ASSERT_EQ(R({"SET", "u", "a"}), "OK");
  EXPECT_EQ(R({"UNLINK", "u", "u", "missing"}), "(integer) 1");
  EXPECT_EQ(R({"DEL"}), "(error) ERR wrong number of arguments for 'del' command");
}

TEST_F(KeysTest, DelAgainstAnExpiredKeyReturnsZero) {
  ASSERT_EQ(R({"SET", "foo", "bar"}), "OK");
  ASSERT_EQ(R({"PEXPIRE", "foo", "1"}), "(integer) 1");
  ASSERT_EQ(R({"DEBUG", "CLOCK", "ADVANCE", "2"}), "OK");
  EXPECT_EQ(R({"DEL", "foo"}), "(integer) 0");
}

TEST_F(KeysTest, ExistsCountsRepeatsAndSeesDeletion) {
  ASSERT_EQ(R({"SET", "newkey", "test"}), "OK");
  EXPECT_EQ(R({"EXISTS", "newkey"}), "(integer) 1");
  EXPECT_EQ(R({"EXISTS", "newkey", "newkey", "nokey", "newkey"}), "(integer) 3");
  ASSERT_EQ(R({"DEL", "newkey"}), "(integer) 1");
  EXPECT_EQ(R({"EXISTS", "newkey"}), "(integer) 0");
  ASSERT_EQ(R({"SET", "emptykey", ""}), "OK");  // zero-length values exist too
  EXPECT_EQ(R({"EXISTS", "emptykey"}), "(integer) 1");
}

TEST_F(KeysTest, TypeOfEachKind) {
  ASSERT_EQ(R({"SET", "s", "v"}), "OK");
  ASSERT_EQ(R({"TREG", "SET", "r", "v", "1"}), "OK");
  ASSERT_EQ(R({"TLOG", "INS", "l", "v", "1"}), "OK");
  EXPECT_EQ(R({"TYPE", "s"}), "string");
  EXPECT_EQ(R({"TYPE", "r"}), "treg");
  EXPECT_EQ(R({"TYPE", "l"}), "tlog");
  EXPECT_EQ(R({"TYPE", "missing"}), "none");
  ASSERT_EQ(R({"DEL", "l"}), "(integer) 1");
  EXPECT_EQ(R({"TYPE", "l"}), "none");
}

TEST_F(KeysTest, KeysWithPatterns) {
  for (const char* k : {"key_x", "key_y", "key_z", "foo_a", "foo_b", "foo_c"}) {
    ASSERT_EQ(R({"SET", k, "hello"}), "OK");
  }
  EXPECT_EQ(Sorted({"KEYS", "foo*"}), (std::vector<std::string>{"foo_a", "foo_b", "foo_c"}));
  EXPECT_EQ(Sorted({"KEYS", "*"}),
            (std::vector<std::string>{"foo_a", "foo_b", "foo_c", "key_x", "key_y", "key_z"}));
  EXPECT_EQ(Sorted({"KEYS", "key_[xy]"}), (std::vector<std::string>{"key_x", "key_y"}));
  EXPECT_EQ(Sorted({"KEYS", "?oo_?"}), (std::vector<std::string>{"foo_a", "foo_b", "foo_c"}));
  EXPECT_EQ(R({"DBSIZE"}), "(integer) 6");
  EXPECT_EQ(R({"DEL", "key_x", "key_y", "key_z", "foo_a", "foo_b", "foo_c"}), "(integer) 6");
  EXPECT_EQ(R({"KEYS", "*"}), "(empty array)");
  EXPECT_EQ(R({"DBSIZE"}), "(integer) 0");
}

TEST_F(KeysTest, KeysPatternWithLongNestedStarsEndsQuickly) {
  ASSERT_EQ(R({"SET", std::string(50, 'a'), "v"}), "OK");
  EXPECT_EQ(R({"KEYS", "a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b"}),
            "(empty array)");
}

TEST_F(KeysTest, KeysStarTwiceWithALongKey) {
  ASSERT_EQ(R({"SET", "dlskeriewrioeuwqoirueioqwrueoqwrueqw", "test"}), "OK");
  EXPECT_EQ(Sorted({"KEYS", "*"}),
            std::vector<std::string>{"dlskeriewrioeuwqoirueioqwrueoqwrueqw"});
  EXPECT_EQ(Sorted({"KEYS", "*"}),
            std::vector<std::string>{"dlskeriewrioeuwqoirueioqwrueoqwrueqw"});
}

TEST_F(KeysTest, ExpiredKeysAreInvisibleToKeysDbsizeAndType) {
  ASSERT_EQ(R({"SET", "stay", "1"}), "OK");
  ASSERT_EQ(R({"SET", "go", "1", "PX", "100"}), "OK");
  EXPECT_EQ(R({"DBSIZE"}), "(integer) 2");
  ASSERT_EQ(R({"DEBUG", "CLOCK", "ADVANCE", "100"}), "OK");
  EXPECT_EQ(R({"DBSIZE"}), "(integer) 1");
  EXPECT_EQ(Sorted({"KEYS", "*"}), std::vector<std::string>{"stay"});
  EXPECT_EQ(R({"TYPE", "go"}), "none");
  EXPECT_EQ(R({"EXISTS", "go"}), "(integer) 0");
}

TEST_F(KeysTest, DatabasesAreSeparate) {
  ASSERT_EQ(R({"SELECT", "9"}), "OK");
  ASSERT_EQ(R({"SET", "mykey", "foo"}), "OK");
  ASSERT_EQ(R({"SELECT", "10"}), "OK");
  ASSERT_EQ(R({"SET", "mykey", "bar"}), "OK");
  EXPECT_EQ(R({"DBSIZE"}), "(integer) 1");
  ASSERT_EQ(R({"SELECT", "9"}), "OK");
  EXPECT_EQ(R({"GET", "mykey"}), "\"foo\"");
  ASSERT_EQ(R({"FLUSHDB"}), "OK");
  EXPECT_EQ(R({"DBSIZE"}), "(integer) 0");
  ASSERT_EQ(R({"SELECT", "10"}), "OK");
  EXPECT_EQ(R({"GET", "mykey"}), "\"bar\"");
  ASSERT_EQ(R({"SELECT", "0"}), "OK");
  ASSERT_EQ(R({"SET", "zero", "z"}), "OK");
  ASSERT_EQ(R({"FLUSHALL", "SYNC"}), "OK");
  EXPECT_EQ(R({"DBSIZE"}), "(integer) 0");
  ASSERT_EQ(R({"SELECT", "10"}), "OK");
  EXPECT_EQ(R({"DBSIZE"}), "(integer) 0");
}

TEST_F(KeysTest, FlushOptions) {
  ASSERT_EQ(R({"SET", "a", "1"}), "OK");
  EXPECT_EQ(R({"FLUSHDB", "ASYNC"}), "OK");
  EXPECT_EQ(R({"DBSIZE"}), "(integer) 0");
  EXPECT_EQ(R({"FLUSHDB", "LAZY"}), "(error) ERR syntax error");
  EXPECT_EQ(R({"FLUSHALL", "SYNC", "ASYNC"}), "(error) ERR syntax error");
  ASSERT_EQ(R({"TLOG", "INS", "log", "a", "5"}), "OK");
  ASSERT_EQ(R({"FLUSHALL", "async"}), "OK");
  EXPECT_EQ(R({"TLOG", "SIZE", "log"}), "(integer) 0");
  EXPECT_EQ(R({"TLOG", "CUTOFF", "log"}), "(integer) 0");
}

TEST_F(KeysTest, RandomKey) {
  EXPECT_EQ(R({"RANDOMKEY"}), "(nil)");
  ASSERT_EQ(R({"SET", "x", "10"}), "OK");
  ASSERT_EQ(R({"DEL", "x"}), "(integer) 1");
  EXPECT_EQ(R({"RANDOMKEY"}), "(nil)");
  ASSERT_EQ(R({"SET", "foo", "x"}), "OK");
  ASSERT_EQ(R({"SET", "bar", "y"}), "OK");
  std::set<std::string> seen;
  for (int i = 0; i < 100 && seen.size() < 2; ++i) seen.insert(Cmd({"RANDOMKEY"}).str());
  EXPECT_EQ(seen, (std::set<std::string>{"bar", "foo"}));
}

// Above 10,000 keys DBSIZE and INFO keyspace give the engine's estimate (the line says so), and
// RANDOMKEY still answers; FLUSHDB empties the database at once, whatever its size.
TEST_F(KeysTest, LargeDatabasesAreEstimatedAndSaySo) {
  ASSERT_EQ(R({"SET", "small", "1"}), "OK");
  EXPECT_EQ(Cmd({"INFO", "keyspace"}).str(), "# Keyspace\r\ndb0:keys=1,expires=0,avg_ttl=0\r\n");
  for (int chunk = 0; chunk < 12; ++chunk) {
    std::vector<std::string> mset = {"MSET"};
    for (int i = 0; i < 1000; ++i) {
      mset.push_back("key:" + std::to_string(chunk * 1000 + i));
      mset.push_back("v");
    }
    ASSERT_EQ(R(mset), "OK");
  }
  EXPECT_EQ(R({"DBSIZE"}), "(integer) 12001");  // all in the memtable: its count is exact
  EXPECT_EQ(Cmd({"INFO", "keyspace"}).str(),
            "# Keyspace\r\ndb0:keys=12001,expires=0,avg_ttl=0,estimated=1\r\n");
  EXPECT_TRUE(Cmd({"RANDOMKEY"}).is_string());
  EXPECT_EQ(R({"FLUSHDB", "ASYNC"}), "OK");
  EXPECT_EQ(R({"DBSIZE"}), "(integer) 0");
  EXPECT_EQ(Cmd({"INFO", "keyspace"}).str(), "# Keyspace\r\n");
}

TEST_F(KeysTest, DeletionSurvivesRestart) {
  ASSERT_EQ(R({"SET", "kept", "1"}), "OK");
  ASSERT_EQ(R({"SET", "gone", "1"}), "OK");
  ASSERT_EQ(R({"DEL", "gone"}), "(integer) 1");
  ASSERT_EQ(R({"SELECT", "3"}), "OK");
  ASSERT_EQ(R({"SET", "in3", "1"}), "OK");
  ebb_->Reopen();
  EXPECT_EQ(Sorted({"KEYS", "*"}), std::vector<std::string>{"kept"});
  ASSERT_EQ(R({"SELECT", "3"}), "OK");
  EXPECT_EQ(Sorted({"KEYS", "*"}), std::vector<std::string>{"in3"});
}

}  // namespace
}  // namespace ebb::test
