// Redis Cluster's routing through the command layer (server/dispatch/cluster_redirect.h), against a
// fake slot table: which requests run here and which get -MOVED, -ASK, -TRYAGAIN, -CROSSSLOT or
// -CLUSTERDOWN, as Redis 7 answers them (tests/unit/cluster/*.tcl, getNodeByQuery) — single and
// multi-key commands, MULTI/EXEC, scripts, ASKING (one command only), READONLY on a replica,
// RESTORE-ASKING, and the commands a cluster node refuses (SELECT n, MOVE, COPY ... DB).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/key_slot.h"
#include "server/services/server_context.h"
#include "tests/support/cluster_command_test.h"
#include "tests/support/command_runner.h"

namespace ebb::test {
namespace {

using server::cluster::NodeAddress;

const NodeAddress kOther{"127.0.0.1", 7001};
const NodeAddress kThird{"127.0.0.1", 7002};

// Keys and their slots (CLUSTER KEYSLOT of redis-server): foo 12182, bar 5061.
const int kFoo = KeySlot("foo");
const int kBar = KeySlot("bar");

class ClusterRoutingTest : public ClusterCommandTest {
 protected:
  static std::string Moved(int slot, const NodeAddress& to = kOther) {
    return "-MOVED " + std::to_string(slot) + " " + to.host + ":" + std::to_string(to.port);
  }
  static std::string Ask(int slot, const NodeAddress& to = kOther) {
    return "-ASK " + std::to_string(slot) + " " + to.host + ":" + std::to_string(to.port);
  }
};

TEST_F(ClusterRoutingTest, SingleKeyRunsHereOrIsMovedOrNotServed) {
  cluster_.mine.insert(kFoo);
  cluster_.others[kBar] = kOther;
  EXPECT_EQ(Do({"SET", "foo", "1"}), "+OK");
  EXPECT_EQ(Do({"GET", "foo"}), "$1");
  EXPECT_EQ(Do({"SET", "bar", "1"}), Moved(kBar));
  EXPECT_EQ(Do({"GET", "bar"}), Moved(kBar));
  EXPECT_EQ(Do({"GET", "{bar}.suffix"}), Moved(kBar));  // the hash tag's slot
  EXPECT_EQ(Do({"GET", "somekey"}), "-CLUSTERDOWN Hash slot not served");
  // ebb's own commands route by their keys too.
  EXPECT_EQ(Do({"TLOG", "INS", "bar", "v", "1"}), Moved(kBar));
  EXPECT_EQ(Do({"TREG", "SET", "bar", "v", "1"}), Moved(kBar));
  EXPECT_EQ(Do({"PUT", "bar", "v"}), Moved(kBar));
  EXPECT_EQ(Do({"GETMETA", "bar"}), Moved(kBar));
  EXPECT_EQ(Do({"DELETE", "bar"}), Moved(kBar));
  EXPECT_EQ(Do({"TLOG", "INS", "foo:log{foo}", "v", "1"}), "+OK");
  // Nothing ran for a redirected request; it counts as a rejected call and by its code.
  const std::string stats = Cmd({"INFO", "commandstats"}).str();
  const size_t set_row = stats.find("cmdstat_set:calls=1,");
  ASSERT_NE(set_row, std::string::npos) << stats;
  EXPECT_NE(stats.substr(set_row, stats.find('\n', set_row) - set_row).find("rejected_calls=1,"),
            std::string::npos)
      << stats;
  const std::string errors = Cmd({"INFO", "errorstats"}).str();
  EXPECT_NE(errors.find("errorstat_MOVED:count=8"), std::string::npos) << errors;
  EXPECT_NE(errors.find("errorstat_CLUSTERDOWN:count=1"), std::string::npos) << errors;
  cluster_.mine.insert(kBar);
  EXPECT_EQ(Do({"EXISTS", "bar"}), ":0");
}

TEST_F(ClusterRoutingTest, MultiKeyCommandsNeedOneSlot) {
  cluster_.mine = {kFoo, kBar};
  EXPECT_EQ(Do({"MSET", "foo", "1", "bar", "2"}),
            "-CROSSSLOT Keys in request don't hash to the same slot");
  EXPECT_EQ(Do({"MSET", "{foo}a", "1", "{foo}b", "2"}), "+OK");
  EXPECT_EQ(Do({"MGET", "{foo}a", "{foo}b", "foo"}), "[$1,$2,nil]");
  EXPECT_EQ(Do({"DEL", "foo", "foo"}), ":0");  // one key twice is one key
  EXPECT_EQ(Do({"RENAME", "{foo}a", "bar"}),
            "-CROSSSLOT Keys in request don't hash to the same slot");
  // CROSSSLOT before the owner of the first key is asked again.
  cluster_.mine = {kFoo};
  cluster_.others[kBar] = kOther;
  EXPECT_EQ(Do({"MGET", "foo", "bar"}), "-CROSSSLOT Keys in request don't hash to the same slot");
  EXPECT_EQ(Do({"MGET", "bar", "{bar}x"}), Moved(kBar));
}

TEST_F(ClusterRoutingTest, KeylessAndPubSubCommandsAreNeverRedirected) {
  cluster_.ok = false;
  EXPECT_EQ(Do({"PING"}), "+PONG");
  EXPECT_EQ(Do({"DBSIZE"}), ":0");
  EXPECT_EQ(Do({"PUBLISH", "bar", "m"}), ":0");
  EXPECT_EQ(Do({"EVAL", "return 1", "0"}), ":1");
}

TEST_F(ClusterRoutingTest, ClusterDown) {
  cluster_.mine.insert(kFoo);
  cluster_.ok = false;
  EXPECT_EQ(Do({"GET", "foo"}), "-CLUSTERDOWN The cluster is down");
  EXPECT_EQ(Do({"SET", "foo", "1"}), "-CLUSTERDOWN The cluster is down");
  // An unserved slot is reported first.
  EXPECT_EQ(Do({"GET", "somekey"}), "-CLUSTERDOWN Hash slot not served");
  EXPECT_EQ(Do({"CONFIG", "SET", "cluster-allow-reads-when-down", "yes"}), "+OK");
  EXPECT_EQ(Do({"GET", "foo"}), "nil");
  EXPECT_EQ(Do({"SET", "foo", "1"}),
            "-CLUSTERDOWN The cluster is down and only accepts read commands");
  // A read of a slot another node serves is still sent there.
  cluster_.others[kBar] = kOther;
  EXPECT_EQ(Do({"GET", "bar"}), Moved(kBar));
}

TEST_F(ClusterRoutingTest, MigratingSlotAsksForKeysThatLeft) {
  cluster_.mine = {kFoo};
  EXPECT_EQ(Do({"SET", "{foo}here", "1"}), "+OK");
  EXPECT_EQ(Do({"SET", "{foo}also", "1"}), "+OK");
  cluster_.migrating[kFoo] = kOther;
  EXPECT_EQ(Do({"GET", "{foo}here"}), "$1");
  EXPECT_EQ(Do({"GET", "{foo}gone"}), Ask(kFoo));
  EXPECT_EQ(Do({"SET", "{foo}gone", "1"}), Ask(kFoo));  // a new key is created at the target
  EXPECT_EQ(Do({"MGET", "{foo}gone", "{foo}left"}), Ask(kFoo));
  EXPECT_EQ(Do({"MGET", "{foo}here", "{foo}also"}), "[$1,$1]");
  EXPECT_EQ(Do({"MGET", "{foo}here", "{foo}gone"}),
            "-TRYAGAIN Multiple keys request during rehashing of slot");
  // An expired key has left too.
  EXPECT_EQ(Do({"PEXPIRE", "{foo}also", "1"}), ":1");
  Advance(10);
  EXPECT_EQ(Do({"GET", "{foo}also"}), Ask(kFoo));
}

TEST_F(ClusterRoutingTest, ImportingSlotServesAskingForOneCommand) {
  cluster_.others[kBar] = kOther;
  cluster_.importing.insert(kBar);
  EXPECT_EQ(Do({"GET", "bar"}), Moved(kBar));
  EXPECT_EQ(Do({"ASKING"}), "+OK");
  EXPECT_EQ(Do({"SET", "bar", "1"}), "+OK");
  EXPECT_EQ(Do({"GET", "bar"}), Moved(kBar));  // ASKING lasted one command
  EXPECT_EQ(Do({"ASKING"}), "+OK");
  EXPECT_EQ(Do({"ASKING"}), "+OK");  // ASKING itself keeps it
  EXPECT_EQ(Do({"GET", "bar"}), "$1");
  // A refused command uses it up too.
  EXPECT_EQ(Do({"ASKING"}), "+OK");
  EXPECT_EQ(Do({"GET"}), "-ERR wrong number of arguments for 'get' command");
  EXPECT_EQ(Do({"GET", "bar"}), Moved(kBar));
  // Several keys, some not imported yet: TRYAGAIN; all here: served.
  EXPECT_EQ(Do({"ASKING"}), "+OK");
  EXPECT_EQ(Do({"MGET", "bar", "{bar}later"}),
            "-TRYAGAIN Multiple keys request during rehashing of slot");
  EXPECT_EQ(Do({"ASKING"}), "+OK");
  EXPECT_EQ(Do({"MGET", "bar", "bar"}), "[$1,$1]");
  // RESTORE-ASKING needs no ASKING.
  EXPECT_EQ(Do({"CLUSTER", "KEYSLOT", "bar"}), ":" + std::to_string(kBar));
  cluster_.mine.insert(kFoo);
  EXPECT_EQ(Do({"SET", "foo", "x"}), "+OK");
  const std::string payload = Cmd({"DUMP", "foo"}).str();
  EXPECT_EQ(Do({"RESTORE", "{bar}r", "0", payload}), Moved(kBar));
  EXPECT_EQ(Do({"RESTORE-ASKING", "{bar}r", "0", payload}), "+OK");
  EXPECT_EQ(Do({"ASKING"}), "+OK");
  EXPECT_EQ(Do({"RESTORE", "{bar}r2", "0", payload}), "+OK");
  EXPECT_EQ(Do({"ASKING"}), "+OK");
  EXPECT_EQ(Do({"GET", "{bar}r"}), "$x");
}

TEST_F(ClusterRoutingTest, ReadOnlyClientReadsFromAReplica) {
  cluster_.others[kFoo] = kOther;
  cluster_.replicated.insert(kFoo);
  EXPECT_EQ(Do({"GET", "foo"}), Moved(kFoo));
  EXPECT_EQ(Do({"READONLY"}), "+OK");
  EXPECT_EQ(Do({"GET", "foo"}), "nil");
  EXPECT_EQ(Do({"SET", "foo", "1"}), Moved(kFoo));
  EXPECT_NE(Do({"CLIENT", "INFO"}).find("flags=r "), std::string::npos);
  // Only slots of this replica's master.
  cluster_.others[kBar] = kThird;
  EXPECT_EQ(Do({"GET", "bar"}), Moved(kBar, kThird));
  EXPECT_EQ(Do({"READWRITE"}), "+OK");
  EXPECT_EQ(Do({"GET", "foo"}), Moved(kFoo));
  EXPECT_EQ(Do({"READONLY"}), "+OK");
  EXPECT_EQ(Do({"RESET"}), "+RESET");
  EXPECT_EQ(Do({"GET", "foo"}), Moved(kFoo));
}

TEST_F(ClusterRoutingTest, TransactionsRouteAtQueueAndAtExec) {
  cluster_.mine = {kFoo, kBar};
  // Each queued command alone is fine; together they span two slots.
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"SET", "foo", "1"}), "+QUEUED");
  EXPECT_EQ(Do({"SET", "bar", "1"}), "+QUEUED");
  EXPECT_EQ(Do({"EXEC"}), "-CROSSSLOT Keys in request don't hash to the same slot");
  EXPECT_EQ(Do({"EXEC"}), "-ERR EXEC without MULTI");  // discarded
  EXPECT_EQ(Do({"EXISTS", "foo"}), ":0");
  // A queued command for another node: the redirection now, EXECABORT at EXEC.
  cluster_.mine = {kFoo};
  cluster_.others[kBar] = kOther;
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"SET", "bar", "1"}), Moved(kBar));
  EXPECT_EQ(Do({"EXEC"}), "-EXECABORT Transaction discarded because of previous errors.");
  // The slot moves between queueing and EXEC: EXEC is redirected and nothing runs.
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"SET", "foo", "1"}), "+QUEUED");
  EXPECT_EQ(Do({"INCR", "{foo}n"}), "+QUEUED");
  cluster_.mine.clear();
  cluster_.others[kFoo] = kOther;
  EXPECT_EQ(Do({"EXEC"}), Moved(kFoo));
  cluster_.mine = {kFoo};
  EXPECT_EQ(Do({"EXISTS", "foo"}), ":0");
  // One slot: runs.
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"SET", "foo", "1"}), "+QUEUED");
  EXPECT_EQ(Do({"PING"}), "+QUEUED");
  EXPECT_EQ(Do({"INCR", "{foo}n"}), "+QUEUED");
  EXPECT_EQ(Do({"EXEC"}), "[+OK,+PONG,:1]");
}

TEST_F(ClusterRoutingTest, AskingCoversATransaction) {
  cluster_.others[kBar] = kOther;
  cluster_.importing.insert(kBar);
  EXPECT_EQ(Do({"ASKING"}), "+OK");
  EXPECT_EQ(Do({"MULTI"}), "+OK");
  EXPECT_EQ(Do({"SET", "bar", "1"}), "+QUEUED");
  EXPECT_EQ(Do({"GET", "bar"}), "+QUEUED");
  EXPECT_EQ(Do({"EXEC"}), "[+OK,$1]");
  EXPECT_EQ(Do({"GET", "bar"}), Moved(kBar));
}

TEST_F(ClusterRoutingTest, ScriptsRouteDeclaredKeysAndCheckTheirCalls) {
  cluster_.mine = {kFoo, kBar};
  cluster_.others[KeySlot("somekey")] = kOther;
  EXPECT_EQ(Do({"EVAL", "return redis.call('SET', KEYS[1], 'v')", "1", "somekey"}),
            Moved(KeySlot("somekey")));
  EXPECT_EQ(Do({"EVAL", "return 1", "2", "foo", "bar"}),
            "-CROSSSLOT Keys in request don't hash to the same slot");
  EXPECT_EQ(Do({"EVAL", "return redis.call('SET', KEYS[1], 'v')", "1", "foo"}), "+OK");
  // A call to a key another node serves.
  EXPECT_EQ(Do({"EVAL", "return redis.call('GET', 'somekey')", "0"}),
            "-ERR Script attempted to access a non local key in a cluster node script: "
            "9c7813a2637ff3417f3bfb4e1764234aa3111076, on @user_script:1.");
}

TEST_F(ClusterRoutingTest, ScriptsWithFlagsStayInOneSlot) {
  cluster_.mine = {kFoo, kBar};
  const std::string one_slot = "#!lua\nreturn redis.call('GET', 'bar')";
  EXPECT_EQ(Do({"EVAL", one_slot, "1", "foo"})
                .rfind("-ERR Script attempted to access keys that do not hash to the same slot", 0),
            0u);
  EXPECT_EQ(Do({"EVAL", one_slot, "0"}), "nil");  // no declared key: the first call's slot
  EXPECT_EQ(Do({"EVAL", "#!lua flags=allow-cross-slot-keys\nreturn redis.call('GET', 'bar')", "1",
                "foo"}),
            "nil");
  // Without a shebang (Redis's compatibility mode) any local slot.
  EXPECT_EQ(Do({"EVAL", "redis.call('SET', 'foo', 1) return redis.call('GET', 'bar')", "0"}),
            "nil");
  cluster_.ok = false;
  EXPECT_EQ(Do({"EVAL", "return redis.call('GET', 'foo')", "0"})
                .rfind("-ERR Script attempted to execute a command while the cluster is down", 0),
            0u);
}

TEST_F(ClusterRoutingTest, OneDatabase) {
  EXPECT_EQ(Do({"SELECT", "0"}), "+OK");
  EXPECT_EQ(Do({"SELECT", "1"}), "-ERR SELECT is not allowed in cluster mode");
  cluster_.mine.insert(kFoo);
  EXPECT_EQ(Do({"SET", "foo", "1"}), "+OK");
  EXPECT_EQ(Do({"MOVE", "foo", "1"}), "-ERR MOVE is not allowed in cluster mode");
  EXPECT_EQ(Do({"COPY", "foo", "{foo}2", "DB", "1"}),
            "-ERR Copying to another database is not allowed in cluster mode");
  EXPECT_EQ(Do({"COPY", "foo", "{foo}2", "DB", "0"}), ":1");
}

// A key the default grace hides still has a version some read returns: COUNTKEYSINSLOT and
// GETKEYSINSLOT (what a reshard moves) count it; a key of tombstones and expired values only, or
// one DEL removed, they do not.
TEST_F(ClusterRoutingTest, KeysOfSlotsCountKeysTheDefaultGraceHides) {
  cluster_.mine = {kFoo};
  ASSERT_EQ(Do({"PUT", "{foo}hidden", "v1", "TS", "2000"}), "+OK");
  ASSERT_EQ(Do({"DELETE", "{foo}hidden", "TS", "1000"}), "+OK");
  ASSERT_EQ(Do({"GET", "{foo}hidden"}), "nil");
  ASSERT_EQ(Do({"GET", "{foo}hidden", "GRACE", "5000"}), "$v1");
  ASSERT_EQ(Do({"PUT", "{foo}dead", "v", "TS", "1000"}), "+OK");
  ASSERT_EQ(Do({"DELETE", "{foo}dead", "TS", "2000"}), "+OK");
  ASSERT_EQ(Do({"PUT", "{foo}gone", "v"}), "+OK");
  ASSERT_EQ(Do({"DEL", "{foo}gone"}), ":1");
  EXPECT_EQ(Do({"CLUSTER", "COUNTKEYSINSLOT", "12182"}), ":1");
  EXPECT_EQ(Do({"CLUSTER", "GETKEYSINSLOT", "12182", "10"}), "[${foo}hidden]");
  EXPECT_EQ(Do({"DEL", "{foo}hidden"}), ":0");  // absent at the default grace, yet wiped
  EXPECT_EQ(Do({"CLUSTER", "COUNTKEYSINSLOT", "12182"}), ":0");
  EXPECT_EQ(Do({"CLUSTER", "GETKEYSINSLOT", "12182", "10"}), "[]");
}

TEST_F(ClusterRoutingTest, KeysOfSlots) {
  cluster_.mine = {kFoo, kBar};
  EXPECT_EQ(Do({"CLUSTER", "KEYSLOT", "foo"}), ":12182");
  EXPECT_EQ(Do({"CLUSTER", "KEYSLOT", "{foo}bar"}), ":12182");
  EXPECT_EQ(Do({"MSET", "{foo}c", "1", "{foo}a", "1", "{foo}b", "1"}), "+OK");
  EXPECT_EQ(Do({"SET", "bar", "1"}), "+OK");
  EXPECT_EQ(Do({"CLUSTER", "COUNTKEYSINSLOT", "12182"}), ":3");
  EXPECT_EQ(Do({"CLUSTER", "COUNTKEYSINSLOT", "5061"}), ":1");
  EXPECT_EQ(Do({"CLUSTER", "COUNTKEYSINSLOT", "0"}), ":0");
  EXPECT_EQ(Do({"CLUSTER", "GETKEYSINSLOT", "12182", "2"}), "[${foo}a,${foo}b]");
  EXPECT_EQ(Do({"CLUSTER", "GETKEYSINSLOT", "12182", "10"}), "[${foo}a,${foo}b,${foo}c]");
  EXPECT_EQ(Do({"CLUSTER", "GETKEYSINSLOT", "12182", "0"}), "[]");
  EXPECT_EQ(Do({"CLUSTER", "COUNTKEYSINSLOT", "16384"}), "-ERR Invalid slot");
  EXPECT_EQ(Do({"CLUSTER", "COUNTKEYSINSLOT", "-1"}), "-ERR Invalid slot");
  EXPECT_EQ(Do({"CLUSTER", "COUNTKEYSINSLOT", "x"}),
            "-ERR value is not an integer or out of range");
  EXPECT_EQ(Do({"CLUSTER", "GETKEYSINSLOT", "16384", "1"}), "-ERR Invalid slot or number of keys");
  EXPECT_EQ(Do({"CLUSTER", "GETKEYSINSLOT", "1", "-1"}), "-ERR Invalid slot or number of keys");
  EXPECT_EQ(Do({"CLUSTER", "GETKEYSINSLOT", "1", "x"}),
            "-ERR value is not an integer or out of range");
  EXPECT_EQ(Do({"CLUSTER", "KEYSLOT"}),
            "-ERR wrong number of arguments for 'cluster|keyslot' command");
}

// Without cluster-enabled the cluster commands say so, and nothing is routed.
class NoClusterTest : public CommandTest {};

TEST_F(NoClusterTest, ClusterCommandsRefuse) {
  EXPECT_EQ(Do({"ASKING"}), "-ERR This instance has cluster support disabled");
  EXPECT_EQ(Do({"READONLY"}), "-ERR This instance has cluster support disabled");
  EXPECT_EQ(Do({"READWRITE"}), "-ERR This instance has cluster support disabled");
  EXPECT_EQ(Do({"CLUSTER", "KEYSLOT", "foo"}), "-ERR This instance has cluster support disabled");
  EXPECT_EQ(Do({"CLUSTER", "COUNTKEYSINSLOT", "1"}),
            "-ERR This instance has cluster support disabled");
  EXPECT_EQ(Do({"SELECT", "1"}), "+OK");
  EXPECT_EQ(Do({"MSET", "foo", "1", "bar", "2"}), "+OK");
}

}  // namespace
}  // namespace ebb::test
