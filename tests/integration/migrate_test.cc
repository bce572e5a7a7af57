// MIGRATE between two spawned ebb servers: keys of every type move with their TTLs into the
// target's database and leave the source (or stay, with COPY); KEYS moves several at once; the
// target's refusals and an unreachable target reach the client in Redis's words and lose nothing.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

class MigrateTest : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    ASSERT_TRUE(target_.Start()) << target_.error();
    target_conn_ = target_.Connect();
    ASSERT_TRUE(target_conn_ != nullptr);
  }
  std::string T(std::initializer_list<std::string_view> args) {
    return Cmd(target_conn_.get(), args).ToString();
  }
  std::string Port() const { return std::to_string(target_.port()); }

  TestServer target_;
  RedisConnection target_conn_;
};

TEST_F(MigrateTest, MovesAKeyWithItsTtlIntoTheTargetDatabase) {
  EXPECT_EQ(R({"SET", "s", "hello", "PX", "100000"}), "OK");
  EXPECT_EQ(R({"MIGRATE", "127.0.0.1", Port(), "s", "2", "5000"}), "OK");
  EXPECT_EQ(R({"EXISTS", "s"}), "(integer) 0");
  EXPECT_EQ(T({"SELECT", "2"}), "OK");
  EXPECT_EQ(T({"GET", "s"}), "\"hello\"");
  const long long ttl = Cmd(target_conn_.get(), {"PTTL", "s"}).integer();
  EXPECT_GT(ttl, 90000);
  EXPECT_LE(ttl, 100000);
}

TEST_F(MigrateTest, KeysMovesSeveralOfEveryTypeAndSkipsMissingOnes) {
  EXPECT_EQ(R({"SET", "a", "1"}), "OK");
  EXPECT_EQ(R({"TLOG", "INS", "log", "x", "5"}), "OK");
  EXPECT_EQ(R({"TREG", "SET", "reg", "v", "7"}), "OK");
  EXPECT_EQ(R({"PUT", "row", "p", "TS", "42"}), "OK");
  EXPECT_EQ(R({"MIGRATE", "127.0.0.1", Port(), "", "0", "5000", "KEYS", "a", "log", "reg", "row",
               "missing"}),
            "OK");
  EXPECT_EQ(R({"DBSIZE"}), "(integer) 0");
  EXPECT_EQ(T({"GET", "a"}), "\"1\"");
  EXPECT_EQ(T({"TLOG", "GET", "log"}), "1) 1) \"x\"\n   2) (integer) 5");
  EXPECT_EQ(T({"TREG", "GET", "reg"}), "1) \"v\"\n2) (integer) 7");
  EXPECT_EQ(T({"GETMETA", "row"}).find("42") != std::string::npos, true) << T({"GETMETA", "row"});
  EXPECT_EQ(R({"MIGRATE", "127.0.0.1", Port(), "", "0", "5000", "KEYS", "gone", "also"}), "NOKEY");
}

TEST_F(MigrateTest, CopyKeepsTheSourceAndReplaceOverwritesTheTarget) {
  EXPECT_EQ(R({"SET", "k", "new"}), "OK");
  EXPECT_EQ(T({"SET", "k", "old"}), "OK");
  EXPECT_EQ(R({"MIGRATE", "127.0.0.1", Port(), "k", "0", "5000", "COPY"}),
            "(error) ERR Target instance replied with error: BUSYKEY Target key name already "
            "exists.");
  EXPECT_EQ(R({"GET", "k"}), "\"new\"");  // refused there: kept here
  EXPECT_EQ(T({"GET", "k"}), "\"old\"");
  EXPECT_EQ(R({"MIGRATE", "127.0.0.1", Port(), "k", "0", "5000", "COPY", "REPLACE"}), "OK");
  EXPECT_EQ(R({"GET", "k"}), "\"new\"");
  EXPECT_EQ(T({"GET", "k"}), "\"new\"");
}

TEST_F(MigrateTest, AuthenticatesWithTheTargetsPassword) {
  EXPECT_EQ(T({"CONFIG", "SET", "requirepass", "pw"}), "OK");
  EXPECT_EQ(R({"SET", "k", "v"}), "OK");
  EXPECT_EQ(R({"MIGRATE", "127.0.0.1", Port(), "k", "0", "5000"}),
            "(error) ERR Target instance replied with error: NOAUTH Authentication required.");
  EXPECT_EQ(R({"GET", "k"}), "\"v\"");
  EXPECT_EQ(R({"MIGRATE", "127.0.0.1", Port(), "k", "0", "5000", "AUTH2", "default", "pw"}), "OK");
  EXPECT_EQ(R({"EXISTS", "k"}), "(integer) 0");
  EXPECT_EQ(T({"AUTH", "pw"}), "OK");
  EXPECT_EQ(T({"GET", "k"}), "\"v\"");
}

TEST_F(MigrateTest, ErrorsLoseNothing) {
  EXPECT_EQ(R({"SET", "k", "v"}), "OK");
  const std::string closed = std::to_string(TestServer::FreePort());
  EXPECT_EQ(R({"MIGRATE", "127.0.0.1", closed, "k", "0", "1000"}),
            "(error) IOERR error or timeout connecting to the client");
  EXPECT_EQ(R({"MIGRATE", "127.0.0.1", Port(), "k", "0", "1000", "KEYS", "k"}),
            "(error) ERR When using MIGRATE KEYS option, the key argument must be set to the "
            "empty string");
  EXPECT_EQ(R({"MIGRATE", "127.0.0.1", Port(), "k", "x", "1000"}),
            "(error) ERR value is not an integer or out of range");
  EXPECT_EQ(R({"MIGRATE", "127.0.0.1", Port(), "k", "0", "1000", "AUTH"}),
            "(error) ERR syntax error");
  EXPECT_EQ(R({"GET", "k"}), "\"v\"");
  EXPECT_EQ(T({"EXISTS", "k"}), "(integer) 0");
}

}  // namespace
}  // namespace ebb::test
