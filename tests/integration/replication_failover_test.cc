// Keeping replication links honest and handing the master's role over, against spawned
// ebb-servers: repl-timeout on both sides (a replica or a master stopped with SIGSTOP), the
// master's pings keeping an idle link alive, and FAILOVER — to the one replica under a write
// load with no acknowledged write lost, to a chosen one of two, ABORT, and TIMEOUT with and
// without FORCE. Every wait is a bounded poll; nothing asserts how long anything took.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/eventually.h"
#include "tests/support/test_server.h"
#include "tests/support/write_mix.h"

namespace ebb::test {
namespace {

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) n++;
  return n;
}

class ReplicationFailoverTest : public ::testing::Test {
 protected:
  void Start(TestServer* server, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"--memtable-size", "65536"};
    args.insert(args.end(), extra.begin(), extra.end());
    ASSERT_TRUE(server->Start(args)) << server->error();
  }
  std::vector<std::string> ReplicaOf(const TestServer& master) {
    return {"--replicaof", "127.0.0.1 " + std::to_string(master.port())};
  }
  static void Pause(TestServer* server) { ASSERT_EQ(::kill(server->pid(), SIGSTOP), 0); }
  static void Resume(TestServer* server) { ASSERT_EQ(::kill(server->pid(), SIGCONT), 0); }
  static std::string Role(redisContext* c) { return InfoText(c, "replication", "role"); }
  static std::string FailoverState(redisContext* c) {
    return InfoText(c, "replication", "master_failover_state");
  }
  static bool LogHas(const TestServer& server, const std::string& line) {
    return server.ReadLog().find(line) != std::string::npos;
  }

  void TearDown() override {
    for (TestServer* server : {&m_, &r1_, &r2_}) {
      if (server->Running()) {
        ::kill(server->pid(), SIGCONT);
        EXPECT_EQ(server->Stop(), 0) << server->ReadLog();
      }
    }
  }

  TestServer m_;
  TestServer r1_;
  TestServer r2_;
};

TEST_F(ReplicationFailoverTest, ReplTimeoutDropsAStoppedReplicaAndAStoppedMasterLink) {
  Start(&m_, {"--repl-ping-replica-period", "1", "--repl-timeout", "2"});
  Start(&r1_, ReplicaOf(m_));
  auto m = m_.Connect();
  auto r1 = r1_.Connect();
  ASSERT_EQ(Cmd(r1.get(), {"CONFIG", "SET", "repl-timeout", "2"}).str(), "OK");
  EXPECT_EQ(Cmd(r1.get(), {"CONFIG", "GET", "repl-timeout"}).elements().at(1).str(), "2");
  EXPECT_EQ(Cmd(m.get(), {"CONFIG", "GET", "repl-ping-slave-period"}).elements().at(1).str(), "1");
  ASSERT_EQ(Cmd(m.get(), {"SET", "k", "v"}).str(), "OK");
  ASSERT_EQ(WaitCaughtUp(r1.get(), m.get()), "");

  // Idle, the link lives on the master's pings: its offset moves with no write, the replica
  // follows it and never times out.
  const long long idle_from = InfoField(m.get(), "replication", "master_repl_offset");
  EXPECT_TRUE(Eventually([&] {
    return InfoField(m.get(), "replication", "master_repl_offset") >= idle_from + 3 * 14;
  }));
  ASSERT_EQ(WaitCaughtUp(r1.get(), m.get()), "");
  EXPECT_LE(InfoField(r1.get(), "replication", "master_last_io_seconds_ago"), 2);
  EXPECT_FALSE(LogHas(r1_, "MASTER timeout"));
  EXPECT_EQ(InfoField(m.get(), "stats", "sync_full"), 1);

  // A stopped replica stops acknowledging: the master drops it.
  Pause(&r1_);
  EXPECT_TRUE(
      Eventually([&] { return InfoField(m.get(), "replication", "connected_slaves") == 0; }));
  EXPECT_TRUE(LogHas(m_, "Disconnecting timedout replica (streaming sync): 127.0.0.1:" +
                             std::to_string(r1_.port())));
  EXPECT_EQ(Cmd(m.get(), {"ROLE"}).elements().at(2).elements().size(), 0u);
  ASSERT_EQ(Cmd(m.get(), {"SET", "while-away", "1"}).str(), "OK");
  Resume(&r1_);
  ASSERT_EQ(WaitCaughtUp(r1.get(), m.get()), "");  // back with a partial resynchronisation
  EXPECT_EQ(InfoField(m.get(), "stats", "sync_full"), 1);
  EXPECT_EQ(Cmd(r1.get(), {"GET", "while-away"}).str(), "1");

  // A stopped master sends nothing, not even pings: the replica drops the link, then
  // reconnects once the master is back.
  const size_t timeouts_before =
      Count(r1_.ReadLog(), "MASTER timeout: no data nor PING received...");
  Pause(&m_);
  EXPECT_TRUE(Eventually(
      [&] { return InfoText(r1.get(), "replication", "master_link_status") == "down"; }));
  EXPECT_TRUE(Eventually([&] {
    return Count(r1_.ReadLog(), "MASTER timeout: no data nor PING received...") > timeouts_before;
  }));
  Resume(&m_);
  ASSERT_EQ(Cmd(m.get(), {"SET", "after", "1"}).str(), "OK");
  ASSERT_EQ(WaitCaughtUp(r1.get(), m.get()), "");
  EXPECT_EQ(Cmd(r1.get(), {"GET", "after"}).str(), "1");
  EXPECT_EQ(Digest(r1.get()), Digest(m.get()));
}

// FAILOVER while clients write: the writes that arrive meanwhile wait, the replica catches up,
// the roles swap, and the writes that waited are answered by a replica (-READONLY). Every write
// acknowledged with OK is on the new master.
TEST_F(ReplicationFailoverTest, FailoverToTheOnlyReplicaSwapsRolesAndLosesNoWrite) {
  Start(&m_);
  Start(&r1_, ReplicaOf(m_));
  auto m = m_.Connect();
  auto r1 = r1_.Connect();
  WriteMix(m.get(), 0, 500);
  ASSERT_EQ(WaitCaughtUp(r1.get(), m.get()), "");

  std::atomic<bool> stop{false};
  std::vector<std::string> acknowledged;
  std::string refusal;
  std::thread writer([&] {
    auto w = m_.Connect();
    for (int i = 0; i < 1'000'000 && !stop; i++) {
      const std::string key = "w" + std::to_string(i);
      Reply reply = Cmd(w.get(), {"SET", key, std::to_string(i)});
      if (reply.str() != "OK") {
        refusal = reply.str();
        return;
      }
      acknowledged.push_back(key);
    }
  });
  EXPECT_TRUE(
      Eventually([&] { return InfoField(m.get(), "stats", "total_commands_processed") > 1000; }));
  EXPECT_EQ(Cmd(m.get(), {"FAILOVER"}).str(), "OK");
  EXPECT_TRUE(Eventually([&] { return Role(r1.get()) == "master"; }));
  EXPECT_TRUE(Eventually([&] { return Role(m.get()) == "slave"; }));
  stop = true;
  writer.join();
  EXPECT_EQ(refusal, "READONLY You can't write against a read only replica.");
  EXPECT_FALSE(acknowledged.empty());

  EXPECT_EQ(FailoverState(m.get()), "no-failover");
  EXPECT_EQ(InfoText(m.get(), "replication", "master_port"), std::to_string(r1_.port()));
  EXPECT_TRUE(LogHas(
      m_, "Failover target 127.0.0.1:" + std::to_string(r1_.port()) + " is synced, failing over."));
  EXPECT_TRUE(LogHas(r1_, "MASTER MODE enabled (failover request from"));
  // The old master continued partially from its old replica: no full resynchronisation.
  EXPECT_EQ(InfoField(r1.get(), "stats", "sync_partial_ok"), 1);
  EXPECT_EQ(InfoField(r1.get(), "stats", "sync_full"), 0);
  for (const std::string& key : acknowledged) {
    ASSERT_FALSE(Cmd(r1.get(), {"GET", key}).is_nil()) << key << " was acknowledged and lost";
  }
  ASSERT_EQ(Cmd(r1.get(), {"SET", "new-master", "1"}).str(), "OK");
  EXPECT_EQ(Cmd(r1.get(), {"WAIT", "1", "5000"}).integer(), 1);
  EXPECT_EQ(Cmd(m.get(), {"GET", "new-master"}).str(), "1");
  EXPECT_EQ(Digest(m.get()), Digest(r1.get()));
}

TEST_F(ReplicationFailoverTest, FailoverToAChosenReplicaOfTwoAndTheErrors) {
  Start(&m_);
  auto m = m_.Connect();
  EXPECT_EQ(Cmd(m.get(), {"FAILOVER"}).str(), "ERR FAILOVER requires connected replicas.");
  Start(&r1_, ReplicaOf(m_));
  Start(&r2_, ReplicaOf(m_));
  auto r1 = r1_.Connect();
  auto r2 = r2_.Connect();
  WriteMix(m.get(), 0, 300);
  ASSERT_EQ(WaitCaughtUp(r1.get(), m.get()), "");
  ASSERT_EQ(WaitCaughtUp(r2.get(), m.get()), "");

  const std::string r2_port = std::to_string(r2_.port());
  EXPECT_EQ(Cmd(m.get(), {"FAILOVER", "TO", "127.0.0.1", "1"}).str(),
            "ERR FAILOVER target HOST and PORT is not a replica.");
  EXPECT_EQ(Cmd(m.get(), {"FAILOVER", "TO", "localhost", r2_port}).str(),
            "ERR FAILOVER target HOST and PORT is not a replica.");
  EXPECT_EQ(Cmd(m.get(), {"FAILOVER", "TO", "127.0.0.1", "x"}).str(),
            "ERR value is not an integer or out of range");
  EXPECT_EQ(Cmd(m.get(), {"FAILOVER", "TO", "127.0.0.1"}).str(), "ERR syntax error");
  EXPECT_EQ(Cmd(m.get(), {"FAILOVER", "FORCE"}).str(),
            "ERR FAILOVER with force option requires both a timeout and target HOST and IP.");
  EXPECT_EQ(Cmd(m.get(), {"FAILOVER", "TO", "127.0.0.1", r2_port, "FORCE"}).str(),
            "ERR FAILOVER with force option requires both a timeout and target HOST and IP.");
  EXPECT_EQ(Cmd(m.get(), {"FAILOVER", "TIMEOUT", "0"}).str(),
            "ERR FAILOVER timeout must be greater than 0");
  EXPECT_EQ(Cmd(m.get(), {"FAILOVER", "TIMEOUT", "10", "TIMEOUT", "10"}).str(), "ERR syntax error");
  EXPECT_EQ(Cmd(m.get(), {"FAILOVER", "ABORT"}).str(), "ERR No failover in progress.");
  EXPECT_EQ(Cmd(m.get(), {"FAILOVER", "ABORT", "TIMEOUT", "5"}).str(), "ERR syntax error");
  EXPECT_EQ(Cmd(r1.get(), {"FAILOVER"}).str(),
            "ERR FAILOVER is not valid when server is a replica.");
  EXPECT_EQ(
      Cmd(r1.get(), {"PSYNC", "0123456789012345678901234567890123456789", "1", "FAILOVER"}).str(),
      "ERR PSYNC FAILOVER replid must match my replid.");
  EXPECT_EQ(Cmd(m.get(), {"PSYNC", "?", "-1", "FAILOVER"}).str(),
            "ERR PSYNC FAILOVER can't be sent to a master.");
  EXPECT_EQ(FailoverState(m.get()), "no-failover");

  // To r2: r2 becomes the master, the old master its replica; r1, dropped by the old master,
  // comes back to it and follows the new master through it.
  EXPECT_EQ(Cmd(m.get(), {"FAILOVER", "TO", "127.0.0.1", r2_port, "TIMEOUT", "60000"}).str(), "OK");
  EXPECT_TRUE(Eventually([&] { return Role(r2.get()) == "master"; }));
  EXPECT_TRUE(Eventually([&] {
    return Role(m.get()) == "slave" && InfoText(m.get(), "replication", "master_port") == r2_port;
  }));
  EXPECT_EQ(Role(r1.get()), "slave");
  EXPECT_EQ(InfoText(r1.get(), "replication", "master_port"), std::to_string(m_.port()));
  EXPECT_TRUE(LogHas(m_, "FAILOVER requested to 127.0.0.1:" + r2_port + "."));
  WriteMix(r2.get(), 300, 400);
  ASSERT_EQ(WaitCaughtUp(m.get(), r2.get()), "");
  ASSERT_EQ(WaitCaughtUp(r1.get(), m.get()), "");
  const std::string digest = Digest(r2.get());
  EXPECT_EQ(Digest(m.get()), digest);
  EXPECT_EQ(Digest(r1.get()), digest);
  EXPECT_EQ(Cmd(m.get(), {"SET", "k", "v"}).str(),
            "READONLY You can't write against a read only replica.");
}

// A replica that cannot catch up (stopped): FAILOVER waits, holding writes back, until ABORT;
// TIMEOUT without FORCE gives up; with FORCE the failover goes on once the time is out.
TEST_F(ReplicationFailoverTest, AbortAndTimeoutWithAndWithoutForce) {
  Start(&m_);
  Start(&r1_, ReplicaOf(m_));
  auto m = m_.Connect();
  auto r1 = r1_.Connect();
  ASSERT_EQ(Cmd(m.get(), {"SET", "k", "1"}).str(), "OK");
  ASSERT_EQ(WaitCaughtUp(r1.get(), m.get()), "");
  const std::string r1_port = std::to_string(r1_.port());
  Pause(&r1_);
  ASSERT_EQ(Cmd(m.get(), {"SET", "k", "2"}).str(), "OK");  // r1 never sees it while stopped

  EXPECT_EQ(Cmd(m.get(), {"FAILOVER"}).str(), "OK");
  EXPECT_EQ(FailoverState(m.get()), "waiting-for-sync");
  EXPECT_EQ(Cmd(m.get(), {"FAILOVER"}).str(), "ERR FAILOVER already in progress.");
  EXPECT_EQ(Cmd(m.get(), {"REPLICAOF", "127.0.0.1", r1_port}).str(),
            "ERR REPLICAOF not allowed while failing over.");
  // A write waits (its reply comes after the ABORT); reads are served meanwhile.
  auto writer = m_.Connect();
  Append(writer.get(), {"SET", "held", "1"});
  redisBufferWrite(writer.get(), nullptr);
  EXPECT_EQ(Cmd(m.get(), {"GET", "k"}).str(), "2");
  EXPECT_EQ(Cmd(m.get(), {"FAILOVER", "ABORT"}).str(), "OK");
  EXPECT_EQ(Canon(ReadReply(writer.get())), "+OK");
  EXPECT_EQ(FailoverState(m.get()), "no-failover");
  EXPECT_TRUE(LogHas(m_, "FAILOVER to any replica aborted: Failover manually aborted"));

  // TIMEOUT without FORCE: aborted when it passes; the server is still the master.
  EXPECT_EQ(Cmd(m.get(), {"FAILOVER", "TO", "127.0.0.1", r1_port, "TIMEOUT", "300"}).str(), "OK");
  EXPECT_TRUE(Eventually([&] { return FailoverState(m.get()) == "no-failover"; }));
  EXPECT_TRUE(LogHas(
      m_, "FAILOVER to 127.0.0.1:" + r1_port + " aborted: Replica never caught up before timeout"));
  EXPECT_EQ(Role(m.get()), "master");
  EXPECT_EQ(Cmd(m.get(), {"SET", "k", "3"}).str(), "OK");

  // With FORCE: once the time is out it fails over to the replica that is behind.
  EXPECT_EQ(Cmd(m.get(), {"FAILOVER", "TO", "127.0.0.1", r1_port, "FORCE", "TIMEOUT", "300"}).str(),
            "OK");
  EXPECT_TRUE(Eventually([&] { return FailoverState(m.get()) == "failover-in-progress"; }));
  EXPECT_TRUE(LogHas(m_, "FAILOVER to 127.0.0.1:" + r1_port + " time out exceeded, failing over."));
  Resume(&r1_);
  EXPECT_TRUE(Eventually([&] { return Role(r1.get()) == "master"; }));
  EXPECT_TRUE(Eventually([&] {
    return FailoverState(m.get()) == "no-failover" &&
           InfoText(m.get(), "replication", "master_link_status") == "up";
  }));
  EXPECT_EQ(Role(m.get()), "slave");
  ASSERT_EQ(Cmd(r1.get(), {"SET", "from-new-master", "1"}).str(), "OK");
  ASSERT_EQ(WaitCaughtUp(m.get(), r1.get()), "");
  EXPECT_EQ(Digest(m.get()), Digest(r1.get()));
}

}  // namespace
}  // namespace ebb::test
