// The replica side against spawned ebb-servers: REPLICAOF (the command and the option), a full
// resynchronisation of data larger than the memtable with writes running during it, partial
// resynchronisations after a replica is killed and restarted and after CLIENT KILL TYPE master,
// expiry under DEBUG CLOCK, -READONLY, WAIT with real replicas, and a promotion that the other
// replica continues from with +CONTINUE. "Equal" is DEBUG DIGEST: every row a read can see, with
// its value, timestamp and expire_at.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/active_active_support.h"
#include "tests/support/test_server.h"
#include "tests/support/write_mix.h"

namespace ebb::test {
namespace {

class ReplicationReplicaTest : public ::testing::Test {
 protected:
  // A master with a small memtable, so the data set spans table files.
  void StartMaster(TestServer* server) {
    ASSERT_TRUE(server->Start({"--memtable-size", "65536"})) << server->error();
  }
  void StartReplica(TestServer* server, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"--memtable-size", "65536"};
    args.insert(args.end(), extra.begin(), extra.end());
    ASSERT_TRUE(server->Start(args)) << server->error();
  }
  std::string ReplicaOfArg(const TestServer& master) {
    return "127.0.0.1 " + std::to_string(master.port());
  }

  // Waits (bounded) until `replica` has applied every stream byte `master` produced.
  void WaitCaughtUp(redisContext* replica, redisContext* master) {
    EXPECT_EQ(ebb::test::WaitCaughtUp(replica, master), "");
  }

  // Every server still running stops cleanly (exit 0: under the sanitizers, no error on the
  // way out either).
  void TearDown() override {
    for (TestServer* server : {&master_, &r1_, &r2_}) {
      if (server->Running()) {
        EXPECT_EQ(server->Stop(), 0) << server->ReadLog();
      }
    }
  }

  TestServer master_;
  TestServer r1_;
  TestServer r2_;
};

TEST_F(ReplicationReplicaTest, FullSyncWithWritesThenPartialResyncsAndExpiry) {
  StartMaster(&master_);
  auto m = master_.Connect();
  WriteMix(m.get(), 0, 3'000);  // several memtables' worth: the snapshot holds table files

  // One replica by the command, one by the option; the master is written during both syncs.
  StartReplica(&r1_);
  auto c1 = r1_.Connect();
  StartReplica(&r2_, {"--replicaof", ReplicaOfArg(master_)});
  auto c2 = r2_.Connect();
  std::thread writer([&] {
    auto w = master_.Connect();
    WriteMix(w.get(), 3'000, 5'000);
    ASSERT_EQ(Cmd(w.get(), {"SELECT", "3"}).str(), "OK");
    ASSERT_EQ(Cmd(w.get(), {"FLUSHDB"}).str(), "OK");  // a range deletion on the stream
  });
  EXPECT_EQ(Cmd(c1.get(), {"REPLICAOF", "127.0.0.1", std::to_string(master_.port())}).str(), "OK");
  EXPECT_EQ(Cmd(c1.get(), {"REPLICAOF", "127.0.0.1", std::to_string(master_.port())}).str(),
            "OK Already connected to specified master");
  writer.join();
  WaitCaughtUp(c1.get(), m.get());
  WaitCaughtUp(c2.get(), m.get());
  const std::string digest = Digest(m.get());
  EXPECT_EQ(Digest(c1.get()), digest);
  EXPECT_EQ(Digest(c2.get()), digest);
  EXPECT_EQ(InfoField(m.get(), "stats", "sync_full"), 2);
  EXPECT_EQ(Cmd(c2.get(), {"GET", "tx-a"}).str(), "3000");

  // What a replica looks like: ROLE, INFO, CLIENT LIST, CONFIG GET; it refuses writes.
  EXPECT_EQ(Cmd(c1.get(), {"ROLE"}).ToString(),
            "1) \"slave\"\n2) \"127.0.0.1\"\n3) (integer) " + std::to_string(master_.port()) +
                "\n4) \"connected\"\n5) (integer) " +
                InfoText(m.get(), "replication", "master_repl_offset"));
  EXPECT_EQ(InfoText(c1.get(), "replication", "role"), "slave");
  EXPECT_EQ(InfoText(c1.get(), "replication", "master_replid"),
            InfoText(m.get(), "replication", "master_replid"));
  EXPECT_EQ(InfoText(c1.get(), "replication", "slave_read_only"), "1");
  EXPECT_NE(Cmd(c1.get(), {"CLIENT", "LIST", "TYPE", "master"}).str().find("flags=M "),
            std::string::npos);
  EXPECT_EQ(Cmd(c2.get(), {"CONFIG", "GET", "replicaof"}).elements().at(1).str(),
            ReplicaOfArg(master_));
  EXPECT_EQ(Cmd(c1.get(), {"SET", "x", "1"}).str(),
            "READONLY You can't write against a read only replica.");
  EXPECT_NE(Cmd(c1.get(), {"EVAL", "return redis.call('set', 'x', '1')", "0"})
                .str()
                .find("READONLY You can't write against a read only replica."),
            std::string::npos);
  ASSERT_EQ(Cmd(c1.get(), {"MULTI"}).str(), "OK");
  EXPECT_EQ(Cmd(c1.get(), {"SET", "x", "1"}).str(),
            "READONLY You can't write against a read only replica.");
  EXPECT_EQ(Cmd(c1.get(), {"EXEC"}).str(),
            "EXECABORT Transaction discarded because of previous errors.");

  // WAIT counts replicas that applied the write.
  ASSERT_EQ(Cmd(m.get(), {"SET", "waited", "1"}).str(), "OK");
  EXPECT_EQ(Cmd(m.get(), {"WAIT", "2", "5000"}).integer(), 2);
  EXPECT_EQ(Cmd(c2.get(), {"GET", "waited"}).str(), "1");

  // min-replicas-to-write counts the replicas that acknowledged within min-replicas-max-lag.
  ASSERT_EQ(Cmd(m.get(), {"CONFIG", "SET", "min-replicas-to-write", "3"}).str(), "OK");
  EXPECT_EQ(Cmd(m.get(), {"SET", "refused", "1"}).str(),
            "NOREPLICAS Not enough good replicas to write.");
  EXPECT_EQ(InfoText(m.get(), "replication", "min_slaves_good_slaves"), "2");
  ASSERT_EQ(Cmd(m.get(), {"CONFIG", "SET", "min-slaves-to-write", "2"}).str(), "OK");
  EXPECT_EQ(Cmd(m.get(), {"SET", "accepted", "1"}).str(), "OK");
  ASSERT_EQ(Cmd(m.get(), {"CONFIG", "SET", "min-replicas-to-write", "0"}).str(), "OK");
  ASSERT_EQ(Cmd(m.get(), {"CONFIG", "SET", "repl-backlog-size", "2mb"}).str(), "OK");
  EXPECT_EQ(InfoText(m.get(), "replication", "repl_backlog_size"), "2097152");

  // A replica killed and started again resumes from its saved position; one whose link is
  // killed resumes from the backlog. Neither needs a full resynchronisation.
  r2_.Kill();
  WriteMix(m.get(), 5'000, 5'300);
  ASSERT_TRUE(r2_.Restart()) << r2_.error();
  c2 = r2_.Connect();
  EXPECT_EQ(Cmd(c1.get(), {"CLIENT", "KILL", "TYPE", "master"}).integer(), 1);
  WriteMix(m.get(), 5'300, 5'400);
  WaitCaughtUp(c1.get(), m.get());
  WaitCaughtUp(c2.get(), m.get());
  EXPECT_EQ(InfoField(m.get(), "stats", "sync_full"), 2);
  EXPECT_EQ(InfoField(m.get(), "stats", "sync_partial_ok"), 2);
  const std::string resumed = Digest(m.get());
  EXPECT_NE(resumed, digest);
  EXPECT_EQ(Digest(c1.get()), resumed);
  EXPECT_EQ(Digest(c2.get()), resumed);

  // Expiry: the same clock everywhere hides the same rows, by their replicated expire_at.
  redisContext* all[] = {m.get(), c1.get(), c2.get()};
  const std::string now = std::to_string(Cmd(m.get(), {"DEBUG", "CLOCK", "GET"}).integer());
  for (redisContext* c : all) ASSERT_EQ(Cmd(c, {"DEBUG", "CLOCK", "SET", now}).str(), "OK");
  ASSERT_EQ(Cmd(m.get(), {"SET", "soon", "v", "PX", "5000"}).str(), "OK");
  ASSERT_EQ(Cmd(m.get(), {"TREG", "SET", "soon-reg", "v", "1"}).is_error(), false);
  ASSERT_EQ(Cmd(m.get(), {"PEXPIRE", "soon-reg", "5000"}).integer(), 1);
  WaitCaughtUp(c1.get(), m.get());
  WaitCaughtUp(c2.get(), m.get());
  EXPECT_EQ(Cmd(c1.get(), {"GET", "soon"}).str(), "v");
  for (redisContext* c : all) {
    ASSERT_EQ(Cmd(c, {"DEBUG", "CLOCK", "ADVANCE", "200000"}).str(), "OK");
  }
  EXPECT_TRUE(Cmd(c1.get(), {"GET", "soon"}).is_nil());
  EXPECT_EQ(Cmd(c2.get(), {"EXISTS", "soon-reg", "e5"}).integer(), 0);
  const std::string expired = Digest(m.get());
  EXPECT_EQ(Digest(c1.get()), expired);
  EXPECT_EQ(Digest(c2.get()), expired);
}

// A replica killed after acknowledging writes and started again without `replicaof` (as a
// Sentinel or an operator restarts it, then sends REPLICAOF) reports the offset it acknowledged
// once it follows a master again, even before its link is up — a failover that promotes the most
// advanced replica must see it — and resumes with a partial resynchronisation. A write of its own
// before the REPLICAOF makes its data its own: then a full one.
TEST_F(ReplicationReplicaTest, ARestartedReplicaKeepsItsOffsetUntilReplicaof) {
  StartMaster(&master_);
  StartReplica(&r1_, {"--replicaof", ReplicaOfArg(master_)});
  RedisConnection m = master_.Connect();
  RedisConnection c1 = r1_.Connect();
  WriteMix(m.get(), 0, 300);
  ASSERT_EQ(Cmd(m.get(), {"SET", "acked", "1"}).str(), "OK");
  ASSERT_EQ(Cmd(m.get(), {"WAIT", "1", "5000"}).integer(), 1);
  const long long acked = InfoField(c1.get(), "replication", "slave_repl_offset");
  ASSERT_GT(acked, 0);
  r1_.Kill();
  StartReplica(&r1_);  // no replicaof: a master until told otherwise
  c1 = r1_.Connect();
  RefusingPort nowhere;
  ASSERT_NE(nowhere.port(), 0);
  ASSERT_EQ(Cmd(c1.get(), {"REPLICAOF", "127.0.0.1", std::to_string(nowhere.port())}).str(), "OK");
  EXPECT_GE(InfoField(c1.get(), "replication", "slave_repl_offset"), acked);
  EXPECT_GE(InfoField(c1.get(), "replication", "master_repl_offset"), acked);
  ASSERT_EQ(Cmd(c1.get(), {"REPLICAOF", "127.0.0.1", std::to_string(master_.port())}).str(), "OK");
  WaitCaughtUp(c1.get(), m.get());
  EXPECT_EQ(InfoField(m.get(), "stats", "sync_full"), 1);
  EXPECT_EQ(InfoField(m.get(), "stats", "sync_partial_ok"), 1);
  EXPECT_EQ(Digest(c1.get()), Digest(m.get()));

  // Written to as a master after the restart: its data is no longer the master's history.
  r1_.Kill();
  StartReplica(&r1_);
  c1 = r1_.Connect();
  ASSERT_EQ(Cmd(c1.get(), {"SET", "own", "1"}).str(), "OK");
  ASSERT_EQ(Cmd(c1.get(), {"REPLICAOF", "127.0.0.1", std::to_string(master_.port())}).str(), "OK");
  WaitCaughtUp(c1.get(), m.get());
  EXPECT_EQ(InfoField(m.get(), "stats", "sync_full"), 2);
  EXPECT_TRUE(Cmd(c1.get(), {"GET", "own"}).is_nil());
  EXPECT_EQ(Digest(c1.get()), Digest(m.get()));
}

TEST_F(ReplicationReplicaTest, PromotionAndTheOtherReplicaContinuesPartially) {
  StartMaster(&master_);
  auto m = master_.Connect();
  WriteMix(m.get(), 0, 500);
  StartReplica(&r1_, {"--replicaof", ReplicaOfArg(master_)});
  StartReplica(&r2_, {"--replicaof", ReplicaOfArg(master_)});
  auto c1 = r1_.Connect();
  auto c2 = r2_.Connect();
  WriteMix(m.get(), 500, 700);
  WaitCaughtUp(c1.get(), m.get());
  WaitCaughtUp(c2.get(), m.get());
  const std::string old_id = InfoText(m.get(), "replication", "master_replid");
  const std::string old_offset = InfoText(m.get(), "replication", "master_repl_offset");

  // The master goes; r1 is promoted with its data and a new ID, the old one second.
  master_.Kill();
  EXPECT_EQ(Cmd(c1.get(), {"REPLICAOF", "NO", "ONE"}).str(), "OK");
  EXPECT_EQ(InfoText(c1.get(), "replication", "role"), "master");
  EXPECT_EQ(InfoText(c1.get(), "replication", "master_replid2"), old_id);
  EXPECT_EQ(InfoText(c1.get(), "replication", "second_repl_offset"),
            std::to_string(std::stoull(old_offset) + 1));
  EXPECT_NE(InfoText(c1.get(), "replication", "master_replid"), old_id);
  EXPECT_EQ(Cmd(c1.get(), {"CONFIG", "GET", "replicaof"}).elements().at(1).str(), "");
  ASSERT_EQ(Cmd(c1.get(), {"SET", "after", "promotion"}).str(), "OK");
  ASSERT_EQ(Cmd(c1.get(), {"TLOG", "INS", "log1", "after", "999999"}).is_error(), false);

  // r2 follows r1 and continues from its offset: no full resynchronisation.
  EXPECT_EQ(Cmd(c2.get(), {"REPLICAOF", "127.0.0.1", std::to_string(r1_.port())}).str(), "OK");
  WaitCaughtUp(c2.get(), c1.get());
  EXPECT_EQ(InfoField(c1.get(), "stats", "sync_partial_ok"), 1);
  EXPECT_EQ(InfoField(c1.get(), "stats", "sync_full"), 0);
  EXPECT_EQ(InfoText(c2.get(), "replication", "master_replid"),
            InfoText(c1.get(), "replication", "master_replid"));
  EXPECT_EQ(Cmd(c2.get(), {"GET", "after"}).str(), "promotion");
  ASSERT_EQ(Cmd(c1.get(), {"SET", "waited", "1"}).str(), "OK");
  EXPECT_EQ(Cmd(c1.get(), {"WAIT", "1", "5000"}).integer(), 1);
  EXPECT_EQ(Digest(c2.get()), Digest(c1.get()));
  EXPECT_EQ(Cmd(c2.get(), {"DEL", "after"}).str(),
            "READONLY You can't write against a read only replica.");
  EXPECT_EQ(Cmd(c2.get(), {"WAIT", "1", "0"})
                .str()
                .rfind("ERR WAIT cannot be used with replica instances.", 0),
            0u);
}

TEST_F(ReplicationReplicaTest, StaleDataAndTheOptions) {
  // A master that is not there: the link stays down.
  const int nowhere = TestServer::FreePort();
  StartReplica(&r1_,
               {"--replicaof", "127.0.0.1 " + std::to_string(nowhere), "--slave-priority", "7"});
  auto c = r1_.Connect();
  // (Set after the start: the harness's PING is a data command too, as in Redis.)
  ASSERT_EQ(Cmd(c.get(), {"CONFIG", "SET", "replica-serve-stale-data", "no"}).str(), "OK");
  EXPECT_EQ(Cmd(c.get(), {"PING"}).str(),
            "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.");
  EXPECT_EQ(InfoText(c.get(), "replication", "master_link_status"), "down");
  EXPECT_EQ(InfoText(c.get(), "replication", "slave_priority"), "7");
  EXPECT_EQ(Cmd(c.get(), {"GET", "k"}).str(),
            "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.");
  EXPECT_EQ(Cmd(c.get(), {"INFO", "replication"}).is_error(), false);
  const std::string role = Cmd(c.get(), {"ROLE"}).ToString();
  EXPECT_EQ(role.rfind("1) \"slave\"", 0), 0u) << role;
  EXPECT_NE(role.find("(integer) -1"), std::string::npos) << role;
  ASSERT_EQ(Cmd(c.get(), {"CONFIG", "SET", "replica-serve-stale-data", "yes"}).str(), "OK");
  EXPECT_TRUE(Cmd(c.get(), {"GET", "k"}).is_nil());
  EXPECT_EQ(Cmd(c.get(), {"REPLICAOF", "127.0.0.1", "70000"}).str(), "ERR Invalid master port");
  EXPECT_EQ(Cmd(c.get(), {"CONFIG", "SET", "slave-read-only", "no"}).str(), "OK");
  EXPECT_EQ(Cmd(c.get(), {"CONFIG", "GET", "replica-read-only"}).elements().at(1).str(), "no");
  EXPECT_EQ(Cmd(c.get(), {"SLAVEOF", "NO", "ONE"}).str(), "OK");
  EXPECT_EQ(InfoText(c.get(), "replication", "role"), "master");
  EXPECT_EQ(Cmd(c.get(), {"SET", "k", "v"}).str(), "OK");
}

// Function libraries travel with the data: a full sync's snapshot brings the master's (the
// replica's own are replaced, as by Redis's RDB), the stream carries every FUNCTION LOAD, DELETE,
// FLUSH and RESTORE, a restarted replica keeps them, and a promoted replica runs them.
TEST_F(ReplicationReplicaTest, FunctionLibrariesReplicate) {
  const std::string lib_a =
      "#!lua name=a\nredis.register_function('fa', function(keys, args)\n"
      "  return redis.call('set', keys[1], args[1]) end)";
  const std::string lib_b =
      "#!lua name=b\nredis.register_function{function_name='fb', callback=function() return "
      "'b' end, flags={'no-writes'}}";
  StartMaster(&master_);
  auto m = master_.Connect();
  ASSERT_EQ(Cmd(m.get(), {"FUNCTION", "LOAD", lib_a}).str(), "a");
  StartReplica(&r1_);
  auto c1 = r1_.Connect();
  ASSERT_EQ(Cmd(c1.get(), {"FUNCTION", "LOAD", lib_b}).str(), "b");  // the replica's own
  ASSERT_EQ(Cmd(c1.get(), {"REPLICAOF", "127.0.0.1", std::to_string(master_.port())}).str(), "OK");
  StartReplica(&r2_, {"--replicaof", ReplicaOfArg(master_)});
  auto c2 = r2_.Connect();
  WaitCaughtUp(c1.get(), m.get());
  WaitCaughtUp(c2.get(), m.get());
  auto dump = [](redisContext* c) { return Cmd(c, {"FUNCTION", "DUMP"}).str(); };
  EXPECT_EQ(dump(c1.get()), dump(m.get()));
  EXPECT_EQ(dump(c2.get()), dump(m.get()));
  EXPECT_EQ(Cmd(c1.get(), {"FCALL_RO", "fb", "0"}).str(), "ERR Function not found");

  // The stream: each change reaches both replicas.
  ASSERT_EQ(Cmd(m.get(), {"FUNCTION", "LOAD", lib_b}).str(), "b");
  WaitCaughtUp(c1.get(), m.get());
  WaitCaughtUp(c2.get(), m.get());
  EXPECT_EQ(Cmd(c1.get(), {"FCALL_RO", "fb", "0"}).str(), "b");
  EXPECT_EQ(Cmd(c2.get(), {"FCALL_RO", "fb", "0"}).str(), "b");
  const std::string both = dump(m.get());
  ASSERT_EQ(Cmd(m.get(), {"FUNCTION", "DELETE", "b"}).str(), "OK");
  WaitCaughtUp(c2.get(), m.get());
  EXPECT_EQ(Cmd(c2.get(), {"FCALL_RO", "fb", "0"}).str(), "ERR Function not found");
  ASSERT_EQ(Cmd(m.get(), {"FUNCTION", "FLUSH"}).str(), "OK");
  WaitCaughtUp(c2.get(), m.get());
  EXPECT_EQ(Cmd(c2.get(), {"FUNCTION", "LIST"}).size(), 0u);
  ASSERT_EQ(Cmd(m.get(), {"FUNCTION", "RESTORE", both}).str(), "OK");
  WaitCaughtUp(c1.get(), m.get());
  WaitCaughtUp(c2.get(), m.get());
  EXPECT_EQ(dump(c1.get()), both);
  EXPECT_EQ(dump(c2.get()), both);
  // FUNCTION is a write on a replica: refused.
  EXPECT_NE(Cmd(c2.get(), {"FUNCTION", "FLUSH"}).str().find("READONLY"), std::string::npos);

  // A restarted replica has them before it hears from its master again.
  r2_.Kill();
  ASSERT_TRUE(r2_.Restart()) << r2_.error();
  c2 = r2_.Connect();
  EXPECT_EQ(dump(c2.get()), both);
  WaitCaughtUp(c2.get(), m.get());

  // A promoted replica runs them, writes included.
  EXPECT_EQ(Cmd(c2.get(), {"REPLICAOF", "NO", "ONE"}).str(), "OK");
  EXPECT_EQ(Cmd(c2.get(), {"FCALL", "fa", "1", "k", "v"}).str(), "OK");
  EXPECT_EQ(Cmd(c2.get(), {"GET", "k"}).str(), "v");
}

}  // namespace
}  // namespace ebb::test
