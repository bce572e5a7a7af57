// Redis Cluster nodes, against spawned ebb-servers with cluster-enabled yes (docs/cluster.md):
// one node's CLUSTER subcommands, errors and nodes.conf across a restart; three nodes that meet
// through one and learn each other by gossip; redis-cli --cluster create of 3 masters and 3
// replicas, checked clean, then a master killed with SIGKILL (its replica elected in its
// place, the old master back as a replica) and a manual CLUSTER FAILOVER; and an ebb node and a
// redis-server 7 cluster node that MEET and see each other's slots (the bus's wire format).
// Every wait is a bounded poll with cluster-node-timeout 1500 ms; nothing asserts how long
// anything took.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/key_slot.h"
#include "server/cluster/bus_message.h"
#include "tests/support/child_process.h"
#include "tests/support/cluster_views.h"
#include "tests/support/eventually.h"
#include "tests/support/fake_bus_peer.h"
#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

// A key whose hash slot is `slot`.
std::string KeyInSlot(int slot) {
  for (int i = 0;; i++) {
    std::string key = "key:" + std::to_string(i);
    if (KeySlot(key) == slot) return key;
  }
}

class ClusterTest : public ::testing::Test {
 protected:
  // Starts `n` cluster nodes; each gets a bus port of its own.
  void StartNodes(size_t n) {
    for (size_t i = 0; i < n; i++) {
      auto server = std::make_unique<TestServer>();
      const int bus_port = TestServer::FreePort();
      ASSERT_TRUE(server->Start({"--cluster-enabled", "yes", "--cluster-port",
                                 std::to_string(bus_port), "--cluster-node-timeout", "1500"}))
          << server->error();
      nodes_.push_back(std::move(server));
      bus_ports_.push_back(bus_port);
    }
  }
  static std::string Id(const TestServer& s) {
    return Cmd(s.Connect().get(), {"CLUSTER", "MYID"}).str();
  }
  // Starts two nodes, A holding slots 0-8191 under configEpoch 1 and B 8192-16383 under
  // configEpoch 2, and has A meet B.
  void StartTwoHalves() {
    ASSERT_NO_FATAL_FAILURE(StartNodes(2));
    auto a = nodes_[0]->Connect();
    auto b = nodes_[1]->Connect();
    ASSERT_EQ(Cmd(a.get(), {"CLUSTER", "ADDSLOTSRANGE", "0", "8191"}).str(), "OK");
    ASSERT_EQ(Cmd(b.get(), {"CLUSTER", "ADDSLOTSRANGE", "8192", "16383"}).str(), "OK");
    ASSERT_EQ(Cmd(a.get(), {"CLUSTER", "SET-CONFIG-EPOCH", "1"}).str(), "OK");
    ASSERT_EQ(Cmd(b.get(), {"CLUSTER", "SET-CONFIG-EPOCH", "2"}).str(), "OK");
    ASSERT_EQ(Cmd(a.get(), {"CLUSTER", "MEET", "127.0.0.1", std::to_string(nodes_[1]->port()),
                            std::to_string(bus_ports_[1])})
                  .str(),
              "OK");
  }

  void TearDown() override {
    for (auto& server : nodes_) {
      if (server->Running()) {
        EXPECT_EQ(server->Stop(), 0) << server->ReadLog();
      }
    }
  }

  std::vector<std::unique_ptr<TestServer>> nodes_;
  std::vector<int> bus_ports_;
};

TEST_F(ClusterTest, OneNodesSubcommandsErrorsAndConfigFile) {
  StartNodes(1);
  TestServer& node = *nodes_[0];
  auto c = node.Connect();
  EXPECT_EQ(InfoText(c.get(), "cluster", "cluster_enabled"), "1");
  const std::string id = Cmd(c.get(), {"CLUSTER", "MYID"}).str();
  ASSERT_EQ(id.size(), 40u);
  EXPECT_EQ(Cmd(c.get(), {"CLUSTER", "MYSHARDID"}).str(), id);
  EXPECT_NE(NodeLine(c.get(), id).find(" myself,master - 0 0 0 connected"), std::string::npos)
      << NodeLine(c.get(), id);

  auto error = [&](std::initializer_list<std::string_view> args) {
    Reply r = Cmd(c.get(), args);
    return r.is_error() ? r.str() : "not an error: " + r.ToString();
  };
  EXPECT_EQ(Cmd(c.get(), {"CLUSTER", "ADDSLOTS", "0", "1", "2"}).str(), "OK");
  EXPECT_EQ(error({"CLUSTER", "ADDSLOTS", "1"}), "ERR Slot 1 is already busy");
  EXPECT_EQ(error({"CLUSTER", "ADDSLOTS", "5", "5"}), "ERR Slot 5 specified multiple times");
  EXPECT_EQ(error({"CLUSTER", "ADDSLOTS", "16384"}), "ERR Invalid or out of range slot");
  EXPECT_EQ(Cmd(c.get(), {"CLUSTER", "ADDSLOTSRANGE", "10", "20"}).str(), "OK");
  EXPECT_EQ(error({"CLUSTER", "ADDSLOTSRANGE", "30", "25"}),
            "ERR start slot number 30 is greater than end slot number 25");
  EXPECT_EQ(error({"CLUSTER", "DELSLOTS", "100"}), "ERR Slot 100 is already unassigned");
  EXPECT_EQ(Cmd(c.get(), {"CLUSTER", "DELSLOTSRANGE", "15", "20"}).str(), "OK");
  EXPECT_EQ(ClusterInfo(c.get(), "cluster_slots_assigned"), "8");
  EXPECT_EQ(ClusterInfo(c.get(), "cluster_state"), "fail");  // not every slot is served

  EXPECT_EQ(Cmd(c.get(), {"CLUSTER", "SET-CONFIG-EPOCH", "5"}).str(), "OK");
  EXPECT_EQ(error({"CLUSTER", "SET-CONFIG-EPOCH", "6"}),
            "ERR Node config epoch is already non-zero");
  EXPECT_EQ(error({"CLUSTER", "SET-CONFIG-EPOCH", "-1"}), "ERR Invalid config epoch specified: -1");
  EXPECT_EQ(Cmd(c.get(), {"CLUSTER", "BUMPEPOCH"}).str(), "STILL 5");
  const std::string unknown(40, 'f');
  EXPECT_EQ(error({"CLUSTER", "SETSLOT", "0", "MIGRATING", unknown}),
            "ERR I don't know about node " + unknown);
  EXPECT_EQ(error({"CLUSTER", "SETSLOT", "500", "MIGRATING", id}),
            "ERR I'm not the owner of hash slot 500");
  EXPECT_EQ(error({"CLUSTER", "SETSLOT", "0", "IMPORTING", id}),
            "ERR I'm already the owner of hash slot 0");
  EXPECT_EQ(error({"CLUSTER", "SETSLOT", "0", "BOGUS"}),
            "ERR Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP");
  EXPECT_EQ(Cmd(c.get(), {"CLUSTER", "SETSLOT", "1", "MIGRATING", id}).str(), "OK");
  EXPECT_NE(NodeLine(c.get(), id).find(" [1->-" + id + "]"), std::string::npos);
  EXPECT_EQ(error({"CLUSTER", "REPLICATE", id}), "ERR Can't replicate myself");
  EXPECT_EQ(error({"CLUSTER", "FORGET", id}), "ERR I tried hard but I can't forget myself...");
  EXPECT_EQ(error({"CLUSTER", "FORGET", unknown}), "ERR Unknown node " + unknown);
  EXPECT_EQ(error({"CLUSTER", "COUNT-FAILURE-REPORTS", unknown}), "ERR Unknown node " + unknown);
  EXPECT_EQ(error({"CLUSTER", "FAILOVER"}), "ERR You should send CLUSTER FAILOVER to a replica");
  EXPECT_EQ(error({"CLUSTER", "MEET", "not-an-ip", "7000"}),
            "ERR Invalid node address specified: not-an-ip:7000");
  EXPECT_EQ(error({"REPLICAOF", "127.0.0.1", "6379"}),
            "ERR REPLICAOF not allowed in cluster mode.");

  // The file is Redis's nodes.conf, and a restart reads it back.
  const std::string path = node.data_dir() + "/nodes.conf";
  auto read_file = [&] {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  EXPECT_TRUE(Eventually([&] { return read_file().find(" [1->-") != std::string::npos; }, 5));
  EXPECT_NE(read_file().find(id + " :" + std::to_string(node.port()) + "@"), std::string::npos)
      << read_file();
  EXPECT_NE(read_file().find("myself,master - 0 0 5 connected 0-2 10-14 [1->-" + id + "]\n"),
            std::string::npos)
      << read_file();
  EXPECT_NE(read_file().find("vars currentEpoch 5 lastVoteEpoch 0\n"), std::string::npos);
  ASSERT_TRUE(node.Restart()) << node.error();
  c = node.Connect();
  EXPECT_EQ(Cmd(c.get(), {"CLUSTER", "MYID"}).str(), id);
  EXPECT_EQ(ClusterInfo(c.get(), "cluster_slots_assigned"), "8");
  EXPECT_EQ(ClusterInfo(c.get(), "cluster_my_epoch"), "5");
  EXPECT_EQ(ClusterInfo(c.get(), "cluster_current_epoch"), "5");

  // RESET: refused while the master holds keys; HARD gives a new name and epoch 0. With 8 of
  // the 16384 slots served the node is down unless it may serve partial coverage.
  EXPECT_EQ(Cmd(c.get(), {"SET", KeyInSlot(0), "v"}).str(), "CLUSTERDOWN The cluster is down");
  ASSERT_EQ(Cmd(c.get(), {"CONFIG", "SET", "cluster-require-full-coverage", "no"}).str(), "OK");
  EXPECT_TRUE(Eventually([&] { return ClusterInfo(c.get(), "cluster_state") == "ok"; }, 5));
  ASSERT_EQ(Cmd(c.get(), {"SET", KeyInSlot(0), "v"}).str(), "OK");
  EXPECT_EQ(error({"CLUSTER", "FLUSHSLOTS"}),
            "ERR DB must be empty to perform CLUSTER FLUSHSLOTS.");
  EXPECT_EQ(error({"CLUSTER", "RESET", "HARD"}),
            "ERR CLUSTER RESET can't be called with master nodes containing keys");
  EXPECT_EQ(error({"CLUSTER", "RESET", "SIDEWAYS"}), "ERR syntax error");
  ASSERT_EQ(Cmd(c.get(), {"FLUSHALL"}).str(), "OK");
  EXPECT_EQ(Cmd(c.get(), {"CLUSTER", "RESET", "HARD"}).str(), "OK");
  EXPECT_NE(Cmd(c.get(), {"CLUSTER", "MYID"}).str(), id);
  EXPECT_EQ(ClusterInfo(c.get(), "cluster_slots_assigned"), "0");
  EXPECT_EQ(ClusterInfo(c.get(), "cluster_current_epoch"), "0");
}

TEST_F(ClusterTest, CommandsNeedClusterMode) {
  TestServer plain;
  ASSERT_TRUE(plain.Start()) << plain.error();
  auto c = plain.Connect();
  EXPECT_EQ(Cmd(c.get(), {"CLUSTER", "INFO"}).str(),
            "ERR This instance has cluster support disabled");
  EXPECT_EQ(Cmd(c.get(), {"CLUSTER", "NODES"}).str(),
            "ERR This instance has cluster support disabled");
  EXPECT_EQ(InfoText(c.get(), "cluster", "cluster_enabled"), "0");
  EXPECT_EQ(plain.Stop(), 0);
}

TEST_F(ClusterTest, ThreeNodesMeetThroughOneAndLearnEachOtherByGossip) {
  StartNodes(3);
  std::vector<std::string> ids;
  for (auto& node : nodes_) ids.push_back(Id(*node));
  auto a = nodes_[0]->Connect();
  // B and C are only ever introduced to A.
  for (int i : {1, 2}) {
    ASSERT_EQ(Cmd(a.get(), {"CLUSTER", "MEET", "127.0.0.1", std::to_string(nodes_[i]->port()),
                            std::to_string(bus_ports_[i])})
                  .str(),
              "OK");
  }
  auto b = nodes_[1]->Connect();
  ASSERT_EQ(Cmd(b.get(), {"CLUSTER", "ADDSLOTSRANGE", "0", "100"}).str(), "OK");
  const bool all_known = Eventually([&] {
    for (auto& node : nodes_) {
      auto c = node->Connect();
      const std::string nodes = Cmd(c.get(), {"CLUSTER", "NODES"}).str();
      if (Lines(nodes).size() != 3 || nodes.find("handshake") != std::string::npos ||
          nodes.find("disconnected") != std::string::npos) {
        return false;
      }
      if (NodeLine(c.get(), ids[1]).find(" connected 0-100") == std::string::npos) return false;
    }
    return true;
  });
  for (auto& node : nodes_) {
    auto c = node->Connect();
    EXPECT_TRUE(all_known) << Cmd(c.get(), {"CLUSTER", "NODES"}).str();
    if (!all_known) continue;
    EXPECT_EQ(ClusterInfo(c.get(), "cluster_known_nodes"), "3");
    for (const std::string& id : ids) {
      EXPECT_NE(NodeLine(c.get(), id), "") << id;
    }
  }
  // Three masters met with configEpoch 0: the collision rule gives each its own epoch.
  const bool distinct = Eventually([&] {
    std::set<std::string> epochs;
    for (size_t i = 0; i < nodes_.size(); i++) {
      epochs.insert(Fields(NodeLine(a.get(), ids[i]))[6]);
    }
    return epochs.size() == 3;
  });
  EXPECT_TRUE(distinct) << Cmd(a.get(), {"CLUSTER", "NODES"}).str();

  // PUBLISH reaches the subscribers of every node; the reply counts this node's.
  auto subscriber = nodes_[2]->Connect();
  ASSERT_EQ(Cmd(subscriber.get(), {"SUBSCRIBE", "news"})[0].str(), "subscribe");
  EXPECT_EQ(Cmd(a.get(), {"PUBLISH", "news", "hello"}).integer(), 0);
  Reply message = ReadReply(subscriber.get());
  ASSERT_EQ(message.size(), 3u) << message.ToString();
  EXPECT_EQ(message[0].str(), "message");
  EXPECT_EQ(message[1].str(), "news");
  EXPECT_EQ(message[2].str(), "hello");

  // FORGET: gone from the table (and not brought back by gossip for a minute).
  ASSERT_EQ(Cmd(a.get(), {"CLUSTER", "FORGET", ids[2]}).str(), "OK");
  EXPECT_EQ(NodeLine(a.get(), ids[2]), "");
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_EQ(NodeLine(a.get(), ids[2]), "");
}

// A slot claimed under a newer configEpoch moves: the old owner gives it up and deletes the
// keys it held there, keeping its other slots and keys.
// The PONG that completes a handshake is the first message whose slot claims a node takes: it
// takes the configEpoch they come with too. Had it not, it would hold the slots under epoch 0,
// and a stale claim of a slot just moved to it by SETSLOT NODE (whose epoch bump counts the
// epochs it knows) could take the slot back for good. The peer here sends only that PONG.
TEST_F(ClusterTest, TheHandshakeThatBringsASlotClaimBringsItsEpoch) {
  ASSERT_NO_FATAL_FAILURE(StartNodes(1));
  auto a = nodes_[0]->Connect();
  ASSERT_EQ(Cmd(a.get(), {"CLUSTER", "ADDSLOTSRANGE", "0", "8191"}).str(), "OK");
  ASSERT_EQ(Cmd(a.get(), {"CLUSTER", "SET-CONFIG-EPOCH", "1"}).str(), "OK");
  OneMessageBusPeer peer;
  ASSERT_TRUE(peer.listening());
  const int peer_client_port = TestServer::FreePort();
  ASSERT_EQ(Cmd(a.get(), {"CLUSTER", "MEET", "127.0.0.1", std::to_string(peer_client_port),
                          std::to_string(peer.port())})
                .str(),
            "OK");

  server::cluster::BusMessage pong;
  pong.type = server::cluster::MessageType::kPong;
  pong.port = static_cast<uint16_t>(peer_client_port);
  pong.cport = static_cast<uint16_t>(peer.port());
  pong.current_epoch = 7;
  pong.config_epoch = 7;
  pong.sender = std::string(40, 'e');
  pong.flags = server::cluster::kFlagMaster;
  for (int slot = 8192; slot < 16384; slot++) pong.slots.set(slot);
  ASSERT_TRUE(peer.AnswerMeet(pong));

  ASSERT_TRUE(Eventually([&] {
    return NodeLine(a.get(), pong.sender).find(" connected 8192-16383") != std::string::npos;
  })) << Cmd(a.get(), {"CLUSTER", "NODES"}).str();
  const std::vector<std::string> line = Fields(NodeLine(a.get(), pong.sender));
  ASSERT_GE(line.size(), 7u);
  EXPECT_EQ(line[6], "7") << "the slots' configEpoch; CLUSTER NODES:\n"
                          << Cmd(a.get(), {"CLUSTER", "NODES"}).str();
  EXPECT_EQ(ClusterInfo(a.get(), "cluster_current_epoch"), "7");
}

TEST_F(ClusterTest, ANewerEpochsClaimTakesTheSlotAndTheOldOwnerDeletesItsKeys) {
  ASSERT_NO_FATAL_FAILURE(StartTwoHalves());
  auto a = nodes_[0]->Connect();
  auto b = nodes_[1]->Connect();
  const std::string a_id = Id(*nodes_[0]), b_id = Id(*nodes_[1]);
  ASSERT_TRUE(Eventually([&] { return ClusterInfo(a.get(), "cluster_state") == "ok"; }))
      << Cmd(a.get(), {"CLUSTER", "NODES"}).str();
  const std::string moved = KeyInSlot(100), kept = KeyInSlot(200);
  ASSERT_EQ(Cmd(a.get(), {"SET", moved, "1"}).str(), "OK");
  ASSERT_EQ(Cmd(a.get(), {"SET", kept, "2"}).str(), "OK");

  // B takes slot 100; its epoch (2) is greater than A's (1): its pings win the slot.
  ASSERT_EQ(Cmd(b.get(), {"CLUSTER", "SETSLOT", "100", "NODE", b_id}).str(), "OK");
  EXPECT_EQ(Cmd(b.get(), {"CLUSTER", "BUMPEPOCH"}).str(), "STILL 2");  // already the greatest
  EXPECT_TRUE(Eventually([&] {
    return NodeLine(a.get(), b_id).find(" connected 100 8192-16383") != std::string::npos &&
           Cmd(a.get(), {"EXISTS", moved}).integer() == 0;
  })) << Cmd(a.get(), {"CLUSTER", "NODES"}).str();
  EXPECT_NE(NodeLine(a.get(), a_id).find(" connected 0-99 101-8191"), std::string::npos);
  EXPECT_EQ(Cmd(a.get(), {"GET", kept}).str(), "2");
  EXPECT_EQ(ClusterInfo(a.get(), "cluster_state"), "ok");
}

// A key the default grace hides (v1 at TS 2000 under a tombstone at TS 1000 written after it) is
// one of its slot's keys: GETKEYSINSLOT lists it, SETSLOT NODE refuses to give the slot away
// while it is here, MIGRATE moves it, and the new owner answers v1 at full grace.
TEST_F(ClusterTest, AReshardMovesKeysTheDefaultGraceHides) {
  ASSERT_NO_FATAL_FAILURE(StartTwoHalves());
  auto a = nodes_[0]->Connect();
  auto b = nodes_[1]->Connect();
  const std::string a_id = Id(*nodes_[0]), b_id = Id(*nodes_[1]);
  ASSERT_TRUE(Eventually([&] {
    return ClusterInfo(a.get(), "cluster_state") == "ok" && !NodeLine(b.get(), a_id).empty();
  })) << Cmd(a.get(), {"CLUSTER", "NODES"}).str();
  const std::string key = KeyInSlot(100);
  const std::string full_grace = "9223372036854775807";
  ASSERT_EQ(Cmd(a.get(), {"PUT", key, "v1", "TS", "2000"}).str(), "OK");
  ASSERT_EQ(Cmd(a.get(), {"DELETE", key, "TS", "1000"}).str(), "OK");
  ASSERT_TRUE(Cmd(a.get(), {"GET", key}).is_nil());
  EXPECT_EQ(Cmd(a.get(), {"CLUSTER", "COUNTKEYSINSLOT", "100"}).integer(), 1);
  EXPECT_EQ(Cmd(a.get(), {"CLUSTER", "GETKEYSINSLOT", "100", "10"}).ToString(),
            "1) \"" + key + "\"");
  EXPECT_EQ(Cmd(a.get(), {"CLUSTER", "SETSLOT", "100", "NODE", b_id}).str(),
            "ERR Can't assign hashslot 100 to a different node while I still hold keys for this "
            "hash slot.");

  ASSERT_EQ(Cmd(b.get(), {"CLUSTER", "SETSLOT", "100", "IMPORTING", a_id}).str(), "OK");
  ASSERT_EQ(Cmd(a.get(), {"CLUSTER", "SETSLOT", "100", "MIGRATING", b_id}).str(), "OK");
  EXPECT_EQ(Cmd(a.get(), {"MIGRATE", "127.0.0.1", std::to_string(nodes_[1]->port()), "", "0",
                          "5000", "KEYS", key})
                .str(),
            "OK");
  EXPECT_EQ(Cmd(a.get(), {"CLUSTER", "COUNTKEYSINSLOT", "100"}).integer(), 0);
  EXPECT_EQ(Cmd(a.get(), {"CLUSTER", "SETSLOT", "100", "NODE", b_id}).str(), "OK");
  EXPECT_EQ(Cmd(b.get(), {"CLUSTER", "SETSLOT", "100", "NODE", b_id}).str(), "OK");
  EXPECT_TRUE(Cmd(b.get(), {"GET", key}).is_nil());
  EXPECT_EQ(Cmd(b.get(), {"GET", key, "GRACE", full_grace}).str(), "v1");
}

// A key the default grace hides is still answered by the migrating node, not created anew on
// the importing one: the -ASK decision counts keys as GETKEYSINSLOT and MIGRATE do (the
// cluster nemesis found MIGRATE meeting BUSYKEY when it did not).
TEST_F(ClusterTest, AMigratingNodeAnswersForAKeyOnlyOtherGracesRead) {
  ASSERT_NO_FATAL_FAILURE(StartTwoHalves());
  auto a = nodes_[0]->Connect();
  auto b = nodes_[1]->Connect();
  const std::string a_id = Id(*nodes_[0]), b_id = Id(*nodes_[1]);
  ASSERT_TRUE(Eventually([&] {
    return ClusterInfo(a.get(), "cluster_state") == "ok" && !NodeLine(b.get(), a_id).empty();
  })) << Cmd(a.get(), {"CLUSTER", "NODES"}).str();
  const std::string hidden = KeyInSlot(100);
  ASSERT_EQ(Cmd(a.get(), {"PUT", hidden, "h1", "TS", "2000"}).str(), "OK");
  ASSERT_EQ(Cmd(a.get(), {"DELETE", hidden, "TS", "1000"}).str(), "OK");
  ASSERT_TRUE(Cmd(a.get(), {"GET", hidden}).is_nil());
  ASSERT_EQ(Cmd(b.get(), {"CLUSTER", "SETSLOT", "100", "IMPORTING", a_id}).str(), "OK");
  ASSERT_EQ(Cmd(a.get(), {"CLUSTER", "SETSLOT", "100", "MIGRATING", b_id}).str(), "OK");
  EXPECT_EQ(Cmd(a.get(), {"PUT", hidden, "h2", "TS", "500"}).str(), "OK");
  EXPECT_EQ(Cmd(a.get(), {"MIGRATE", "127.0.0.1", std::to_string(nodes_[1]->port()), "", "0",
                          "5000", "KEYS", hidden})
                .str(),
            "OK");
  ASSERT_EQ(Cmd(b.get(), {"CLUSTER", "SETSLOT", "100", "NODE", b_id}).str(), "OK");
  ASSERT_EQ(Cmd(a.get(), {"CLUSTER", "SETSLOT", "100", "NODE", b_id}).str(), "OK");
  EXPECT_EQ(Cmd(b.get(), {"GET", hidden, "GRACE", "9223372036854775807"}).str(), "h1");
  EXPECT_EQ(Cmd(b.get(), {"GET", hidden}).str(), "h2");
}

// redis-cli's cluster manager, unchanged, against six ebb nodes; then a master killed with
// SIGKILL and a manual failover.
TEST_F(ClusterTest, RedisCliCreatesAClusterThatFailsOverAndTakesTheOldMasterBack) {
  StartNodes(6);
  std::string addresses;
  for (auto& node : nodes_) addresses += " 127.0.0.1:" + std::to_string(node->port());
  int status = 0;
  const std::string created = Shell(
      "timeout 60 redis-cli --cluster create" + addresses + " --cluster-replicas 1 --cluster-yes",
      &status);
  ASSERT_EQ(status, 0) << created;
  EXPECT_NE(created.find("[OK] All 16384 slots covered."), std::string::npos) << created;
  const std::string first = "127.0.0.1:" + std::to_string(nodes_[0]->port());
  auto check_clean = [&] {
    int check_status = 0;
    const std::string check = Shell("timeout 20 redis-cli --cluster check " + first, &check_status);
    return check_status == 0 &&
           check.find("[OK] All nodes agree about slots configuration.") != std::string::npos &&
           check.find("[OK] All 16384 slots covered.") != std::string::npos &&
           check.find("[ERR]") == std::string::npos && check.find("[WARNING]") == std::string::npos;
  };
  EXPECT_TRUE(Eventually(check_clean)) << Shell("redis-cli --cluster check " + first, &status);

  // The master of slot 0 and its replica, as CLUSTER SLOTS tells them.
  auto c0 = nodes_[0]->Connect();
  ASSERT_EQ(ClusterInfo(c0.get(), "cluster_state"), "ok");
  // The replicas' new role reaches every node with their next pings.
  EXPECT_TRUE(Eventually([&] {
    const std::string nodes = Cmd(c0.get(), {"CLUSTER", "NODES"}).str();
    size_t replicas = 0;
    for (const std::string& line : Lines(nodes))
      replicas += Fields(line)[2].find("slave") != std::string::npos;
    return replicas == 3;
  })) << Cmd(c0.get(), {"CLUSTER", "NODES"}).str();
  auto index_of_port = [&](long long port) {
    for (size_t i = 0; i < nodes_.size(); i++) {
      if (nodes_[i]->port() == port) return static_cast<int>(i);
    }
    return -1;
  };
  int master = -1;
  for (const Reply& range : Cmd(c0.get(), {"CLUSTER", "SLOTS"}).elements()) {
    if (range[0].integer() == 0) master = index_of_port(range[2][1].integer());
  }
  ASSERT_GE(master, 0);
  const std::string master_id = Id(*nodes_[master]);
  int replica = -1;
  for (size_t i = 0; i < nodes_.size(); i++) {
    if (NodeLine(c0.get(), Id(*nodes_[i])).find(" slave " + master_id) != std::string::npos) {
      replica = static_cast<int>(i);
    }
  }
  ASSERT_GE(replica, 0) << Cmd(c0.get(), {"CLUSTER", "NODES"}).str();
  auto m = nodes_[master]->Connect();
  auto r = nodes_[replica]->Connect();
  EXPECT_EQ(Cmd(r.get(), {"REPLICAOF", "NO", "ONE"}).str(),
            "ERR REPLICAOF not allowed in cluster mode.");
  const std::string key = KeyInSlot(0);
  ASSERT_EQ(Cmd(m.get(), {"SET", key, "before-failover"}).str(), "OK");
  EXPECT_EQ(Cmd(m.get(), {"WAIT", "1", "5000"}).integer(), 1);

  // SIGKILL the master: its replica is elected and serves its slots.
  nodes_[master]->Kill();
  const bool promoted = Eventually([&] {
    auto replica_conn = nodes_[replica]->Connect();
    return Cmd(replica_conn.get(), {"ROLE"})[0].str() == "master" &&
           ClusterInfo(replica_conn.get(), "cluster_state") == "ok";
  });
  ASSERT_TRUE(promoted) << nodes_[replica]->ReadLog();
  r = nodes_[replica]->Connect();
  EXPECT_EQ(Cmd(r.get(), {"GET", key}).str(), "before-failover");
  int other = 0;
  while (other == master || other == replica) other++;
  auto o = nodes_[other]->Connect();
  EXPECT_TRUE(Eventually([&] {
    return ClusterInfo(o.get(), "cluster_state") == "ok" &&
           NodeLine(o.get(), master_id).find("master,fail") != std::string::npos;
  })) << Cmd(o.get(), {"CLUSTER", "NODES"}).str();
  bool slot0_moved = false;
  for (const Reply& range : Cmd(o.get(), {"CLUSTER", "SLOTS"}).elements()) {
    if (range[0].integer() == 0) slot0_moved = range[2][1].integer() == nodes_[replica]->port();
  }
  EXPECT_TRUE(slot0_moved);
  ASSERT_EQ(Cmd(r.get(), {"SET", key, "after-failover"}).str(), "OK");

  // The old master comes back from its nodes.conf and becomes a replica of the new one.
  ASSERT_TRUE(nodes_[master]->Restart()) << nodes_[master]->error();
  const std::string replica_id = Id(*nodes_[replica]);
  EXPECT_TRUE(Eventually([&] {
    auto back = nodes_[master]->Connect();
    Cmd(back.get(), {"READONLY"});  // a replica serves its master's slots to READONLY clients
    Reply role = Cmd(back.get(), {"ROLE"});
    return role[0].str() == "slave" && role[2].integer() == nodes_[replica]->port() &&
           role[3].str() == "connected" && Cmd(back.get(), {"GET", key}).str() == "after-failover";
  })) << nodes_[master]->ReadLog();
  EXPECT_TRUE(Eventually(check_clean));

  // A manual failover gives the role back without losing a write (once the master knows its
  // new replica: MFSTART from a node it does not count as its replica is ignored, as in Redis).
  r = nodes_[replica]->Connect();
  EXPECT_TRUE(Eventually([&] {
    return NodeLine(r.get(), master_id).find(" slave " + replica_id) != std::string::npos;
  })) << Cmd(r.get(), {"CLUSTER", "NODES"}).str();
  m = nodes_[master]->Connect();
  ASSERT_EQ(Cmd(m.get(), {"CLUSTER", "FAILOVER"}).str(), "OK");
  EXPECT_TRUE(Eventually([&] {
    auto back = nodes_[master]->Connect();
    auto demoted = nodes_[replica]->Connect();
    return Cmd(back.get(), {"ROLE"})[0].str() == "master" &&
           Cmd(demoted.get(), {"ROLE"})[0].str() == "slave";
  })) << nodes_[master]->ReadLog();
  m = nodes_[master]->Connect();
  EXPECT_EQ(Cmd(m.get(), {"GET", key}).str(), "after-failover");
  EXPECT_TRUE(Eventually(check_clean));
}

// A redis-server 7 cluster node, spawned beside an ebb node.
class RedisNode {
 public:
  RedisNode()
      : dir_(std::filesystem::temp_directory_path() / ("ebb-redis-" + std::to_string(getpid()))) {}
  ~RedisNode() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  bool Start() {
    std::filesystem::create_directories(dir_);
    port_ = TestServer::FreePort();
    bus_port_ = TestServer::FreePort();
    const std::string log = (dir_ / "redis.log").string();
    pid_ =
        SpawnProcess({"redis-server", "--port", std::to_string(port_), "--cluster-enabled", "yes",
                      "--cluster-port", std::to_string(bus_port_), "--cluster-node-timeout", "1500",
                      "--dir", dir_.string(), "--save", "", "--appendonly", "no", "--logfile", log},
                     {.search_path = true});
    return Eventually(
        [&] {
          redisContext* c = redisConnect("127.0.0.1", port_);
          const bool up = c != nullptr && !c->err && Cmd(c, {"PING"}).str() == "PONG";
          if (c != nullptr) redisFree(c);
          return up;
        },
        10);
  }
  RedisConnection Connect() const { return RedisConnection(redisConnect("127.0.0.1", port_)); }
  int port() const { return port_; }
  int bus_port() const { return bus_port_; }

 private:
  std::filesystem::path dir_;
  pid_t pid_ = -1;
  int port_ = 0;
  int bus_port_ = 0;
};

TEST_F(ClusterTest, AnEbbNodeAndARedisServerNodeMeetAndShareSlots) {
  StartNodes(1);
  RedisNode redis;
  ASSERT_TRUE(redis.Start()) << "redis-server did not start";
  auto e = nodes_[0]->Connect();
  auto rc = redis.Connect();
  const std::string ebb_id = Id(*nodes_[0]);
  const std::string redis_id = Cmd(rc.get(), {"CLUSTER", "MYID"}).str();
  ASSERT_EQ(Cmd(e.get(), {"CLUSTER", "MEET", "127.0.0.1", std::to_string(redis.port()),
                          std::to_string(redis.bus_port())})
                .str(),
            "OK");
  ASSERT_EQ(Cmd(e.get(), {"CLUSTER", "ADDSLOTSRANGE", "0", "8191"}).str(), "OK");
  ASSERT_EQ(Cmd(rc.get(), {"CLUSTER", "ADDSLOTSRANGE", "8192", "16383"}).str(), "OK");
  const bool met = Eventually([&] {
    const std::string on_ebb = NodeLine(e.get(), redis_id);
    const std::string on_redis = NodeLine(rc.get(), ebb_id);
    return on_ebb.find(" master - ") != std::string::npos &&
           on_ebb.find(" connected 8192-16383") != std::string::npos &&
           on_redis.find(" master - ") != std::string::npos &&
           on_redis.find(" connected 0-8191") != std::string::npos &&
           ClusterInfo(e.get(), "cluster_state") == "ok" &&
           ClusterInfo(rc.get(), "cluster_state") == "ok";
  });
  EXPECT_TRUE(met) << "ebb:\n"
                   << Cmd(e.get(), {"CLUSTER", "NODES"}).str() << "redis-server:\n"
                   << Cmd(rc.get(), {"CLUSTER", "NODES"}).str();
  // Distinct epochs after the collision rule ran on both sides.
  EXPECT_TRUE(Eventually([&] {
    return Fields(NodeLine(e.get(), ebb_id))[6] != Fields(NodeLine(e.get(), redis_id))[6] &&
           Fields(NodeLine(rc.get(), ebb_id))[6] == Fields(NodeLine(e.get(), ebb_id))[6] &&
           Fields(NodeLine(rc.get(), redis_id))[6] == Fields(NodeLine(e.get(), redis_id))[6];
  })) << Cmd(e.get(), {"CLUSTER", "NODES"}).str()
      << Cmd(rc.get(), {"CLUSTER", "NODES"}).str();
}

}  // namespace
}  // namespace ebb::test
