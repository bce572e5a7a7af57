// MIGRATE between two spawned ebb servers: keys of every type move with their TTLs into the
// target's database and leave the source (or stay, with COPY); KEYS moves several at once; the
// target's refusals and an unreachable target reach the client in Redis's words and lose nothing.
// The form redis-cli --cluster reshard sends ("" 0 timeout AUTH pw REPLACE KEYS ...) keeps every
// key's value, timestamps, versions and TTL; each version keeps its own expiry; a cluster node
// sends RESTORE-ASKING.
#include <gtest/gtest.h>

#include <string>

#include "common/key_slot.h"
#include "server/services/server_context.h"
#include "tests/support/command_runner.h"
#include "tests/support/fake_cluster.h"
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

TEST_F(MigrateTest, ReshardFormKeepsTimestampsVersionsAndTtls) {
  EXPECT_EQ(T({"CONFIG", "SET", "requirepass", "pw"}), "OK");
  EXPECT_EQ(R({"PUT", "{s}row", "newer", "TS", "1700000000100"}), "OK");
  EXPECT_EQ(R({"PUT", "{s}row", "older", "TS", "1700000000050"}), "OK");  // out of order
  EXPECT_EQ(R({"TLOG", "INS", "{s}log", "a", "5"}), "OK");
  EXPECT_EQ(R({"TLOG", "INS", "{s}log", "b", "9"}), "OK");
  EXPECT_EQ(R({"TLOG", "TRIMAT", "{s}log", "6"}), "OK");
  EXPECT_EQ(R({"TREG", "SET", "{s}reg", "v", "7"}), "OK");
  EXPECT_EQ(R({"PEXPIRE", "{s}reg", "50000"}), "(integer) 1");
  const std::string row_meta = R({"GETMETA", "{s}row"});
  const std::string row_grace = R({"GET", "{s}row", "GRACE", "100"});
  EXPECT_EQ(R({"MIGRATE", "127.0.0.1", Port(), "", "0", "5000", "AUTH", "pw", "REPLACE", "KEYS",
               "{s}row", "{s}log", "{s}reg"}),
            "OK");
  EXPECT_EQ(R({"DBSIZE"}), "(integer) 0");
  EXPECT_EQ(T({"AUTH", "pw"}), "OK");
  EXPECT_EQ(T({"GET", "{s}row"}), "\"older\"");
  EXPECT_EQ(T({"GET", "{s}row", "GRACE", "100"}), row_grace);
  EXPECT_EQ(row_grace, "\"newer\"");
  EXPECT_EQ(T({"GETMETA", "{s}row"}), row_meta);
  EXPECT_EQ(T({"TLOG", "GET", "{s}log"}), "1) 1) \"b\"\n   2) (integer) 9");
  EXPECT_EQ(T({"TLOG", "CUTOFF", "{s}log"}), "(integer) 6");
  EXPECT_EQ(T({"TREG", "GET", "{s}reg"}), "1) \"v\"\n2) (integer) 7");
  const long long ttl = Cmd(target_conn_.get(), {"PTTL", "{s}reg"}).integer();
  EXPECT_GT(ttl, 40000);
  EXPECT_LE(ttl, 50000);
}

// Each version arrives with its own expiry (the payload carries them, RESTORE gets ttl 0): the
// version a read at GRACE 1000 takes expires at the same time as here, the one GRACE 0 takes
// never does.
TEST_F(MigrateTest, EveryVersionKeepsItsOwnExpiry) {
  EXPECT_EQ(R({"PUT", "r", "soon", "TTL", "100s"}), "OK");
  EXPECT_EQ(R({"PUT", "r", "never", "TS", "1"}), "OK");
  const auto expire_at = [](const Reply& meta) {
    EXPECT_EQ(meta.size(), 8u) << meta.ToString();
    return meta.size() == 8u ? meta.elements()[7].ToString() : "";
  };
  const std::string soon_at = expire_at(Cmd(conn_.get(), {"GETMETA", "r", "GRACE", "1000"}));
  EXPECT_NE(soon_at, "(integer) -1");
  EXPECT_EQ(R({"MIGRATE", "127.0.0.1", Port(), "r", "0", "5000"}), "OK");
  EXPECT_EQ(T({"GET", "r", "GRACE", "1000"}), "\"soon\"");
  EXPECT_EQ(expire_at(Cmd(target_conn_.get(), {"GETMETA", "r", "GRACE", "1000"})), soon_at);
  EXPECT_EQ(T({"GET", "r"}), "\"never\"");
  EXPECT_EQ(expire_at(Cmd(target_conn_.get(), {"GETMETA", "r"})), "(integer) -1");
  EXPECT_EQ(T({"PTTL", "r"}), "(integer) -1");
}

// A key whose versions the default grace hides (a newer value under an older tombstone written
// after it) is still a key some read returns: MIGRATE moves it whole and deletes it here.
TEST_F(MigrateTest, MovesAKeyTheDefaultGraceHides) {
  EXPECT_EQ(R({"PUT", "h", "v1", "TS", "2000"}), "OK");
  EXPECT_EQ(R({"DELETE", "h", "TS", "1000"}), "OK");
  EXPECT_EQ(R({"GET", "h"}), "(nil)");
  EXPECT_EQ(R({"MIGRATE", "127.0.0.1", Port(), "h", "0", "5000"}), "OK");
  EXPECT_EQ(T({"GET", "h"}), "(nil)");
  EXPECT_EQ(T({"GET", "h", "GRACE", "5000"}), "\"v1\"");
  EXPECT_EQ(R({"GET", "h", "GRACE", "5000"}), "(nil)");
  EXPECT_EQ(R({"MIGRATE", "127.0.0.1", Port(), "h", "0", "5000"}), "NOKEY");
}

TEST_F(MigrateTest, AClusterNodeSendsRestoreAsking) {
  CommandRunner node({"--cluster-enabled", "yes"});
  FakeCluster cluster;
  cluster.mine.insert(KeySlot("k"));
  node.context().set_cluster(&cluster);
  EXPECT_EQ(node.Do({"SET", "k", "v"}), "+OK");
  cluster.migrating[KeySlot("k")] = {"127.0.0.1", target_.port()};
  EXPECT_EQ(node.Do({"MIGRATE", "127.0.0.1", Port(), "", "0", "5000", "KEYS", "k"}), "+OK");
  EXPECT_EQ(node.Do({"GET", "k"}), "-ASK " + std::to_string(KeySlot("k")) + " 127.0.0.1:" + Port());
  EXPECT_EQ(T({"GET", "k"}), "\"v\"");
  EXPECT_NE(T({"INFO", "commandstats"}).find("cmdstat_restore-asking:calls=1,"), std::string::npos);
  node.context().set_cluster(nullptr);
}

}  // namespace
}  // namespace ebb::test
