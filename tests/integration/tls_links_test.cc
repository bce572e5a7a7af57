// TLS on the links between servers (docs/security.md, "Links between servers"), against spawned
// ebb-servers with certificates from a test CA: a replica following its master's tls-port with
// tls-replication and masterauth (a full resynchronisation, then the stream), a replica trusting
// another CA that refuses the master and says so instead of falling back to clear text, the
// options refused at start without the certificates they need, two active-active peers linked
// over TLS converging, and three cluster nodes whose bus speaks TLS reaching cluster_state:ok,
// checked by redis-cli --cluster check --tls, with cluster replicas following their master's TLS or
// plain port, and redis-sentinel failing over TLS-linked replicas. Every wait is a bounded poll.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/active_active_support.h"
#include "tests/support/child_process.h"
#include "tests/support/eventually.h"
#include "tests/support/test_server.h"
#include "tests/support/tls_certificates.h"

namespace ebb::test {
namespace {

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<std::string> Join(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// A redis-sentinel 7 process (Debian's) on a free port, from a configuration file in `dir`.
class SentinelProcess {
 public:
  ~SentinelProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  // Writes `dir`/sentinel.conf (`port`, then `lines`) and starts redis-sentinel on it; true once
  // it answers PING.
  bool Start(const std::string& dir, const std::vector<std::string>& lines) {
    port_ = TestServer::FreePort();
    const std::string conf = dir + "/sentinel.conf";
    {
      std::ofstream out(conf);
      out << "port " << port_ << "\nlogfile " << dir << "/sentinel.log\n";
      for (const std::string& line : lines) out << line << "\n";
    }
    pid_ = SpawnProcess({"redis-sentinel", conf}, {.search_path = true});
    return Eventually(
        [&] {
          RedisConnection c(redisConnect("127.0.0.1", port_));
          return c != nullptr && !c->err && Cmd(c.get(), {"PING"}).str() == "PONG";
        },
        10);
  }
  RedisConnection Connect() const { return RedisConnection(redisConnect("127.0.0.1", port_)); }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

class TlsLinksTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(MakeTestCertificates(certs_.dir()), ""); }
  void TearDown() override {
    for (TestServer* server : servers_) {
      if (server->Running()) {
        EXPECT_EQ(server->Stop(), 0) << server->ReadLog();
      }
    }
  }
  // A server (stopped at the end of the test) with TLS on `tls_port` and `extra` options.
  TestServer* StartWithTls(int tls_port, const std::vector<std::string>& extra) {
    owned_.push_back(std::make_unique<TestServer>());
    TestServer* server = owned_.back().get();
    servers_.push_back(server);
    EXPECT_TRUE(server->Start(Join(TlsServerArgs(d(), tls_port), extra))) << server->error();
    return server;
  }
  std::string d() const { return certs_.dir(); }
  // A cluster node whose bus speaks TLS: its TLS port in *tls_port, its bus port in *bus_port.
  TestServer* StartTlsClusterNode(int* tls_port, int* bus_port,
                                  const std::vector<std::string>& extra = {}) {
    *tls_port = TestServer::FreePort();
    *bus_port = TestServer::FreePort();
    return StartWithTls(*tls_port,
                        Join({"--cluster-enabled", "yes", "--tls-cluster", "yes", "--cluster-port",
                              std::to_string(*bus_port), "--cluster-node-timeout", "1500"},
                             extra));
  }

  TestServer certs_;  // never started: its directory holds the certificates
  std::vector<std::unique_ptr<TestServer>> owned_;
  std::vector<TestServer*> servers_;
};

TEST_F(TlsLinksTest, ReplicaFollowsItsMasterOverTlsWithMasterauth) {
  const int master_tls = TestServer::FreePort();
  TestServer* master = StartWithTls(master_tls, {"--requirepass", "s3cret"});
  ASSERT_TRUE(master->Running());
  auto m = master->Connect();
  ASSERT_EQ(Cmd(m.get(), {"AUTH", "s3cret"}).str(), "OK");
  for (int i = 0; i < 200; i++) {
    ASSERT_EQ(Cmd(m.get(), {"SET", "before:" + std::to_string(i), std::string(1000, 'v')}).str(),
              "OK");
  }
  const int replica_tls = TestServer::FreePort();
  TestServer* replica =
      StartWithTls(replica_tls, {"--tls-replication", "yes", "--masterauth", "s3cret",
                                 "--replicaof", "127.0.0.1", std::to_string(master_tls)});
  ASSERT_TRUE(replica->Running());
  auto r = replica->Connect();
  EXPECT_EQ(WaitCaughtUp(r.get(), m.get()), "");
  EXPECT_EQ(Cmd(r.get(), {"GET", "before:199"}).str(), std::string(1000, 'v'));  // full sync
  ASSERT_EQ(Cmd(m.get(), {"SET", "after", "streamed"}).str(), "OK");
  EXPECT_EQ(WaitCaughtUp(r.get(), m.get()), "");
  EXPECT_EQ(Cmd(r.get(), {"GET", "after"}).str(), "streamed");
  EXPECT_EQ(InfoText(r.get(), "replication", "master_link_status"), "up");
  EXPECT_NE(replica->ReadLog().find("MASTER <-> REPLICA sync started (TLS)"), std::string::npos);
  // As Redis: the replica announces its TLS port (what Sentinel and FAILOVER connect to).
  EXPECT_NE(InfoText(m.get(), "replication", "slave0").find("port=" + std::to_string(replica_tls)),
            std::string::npos)
      << InfoText(m.get(), "replication", "slave0");
  EXPECT_EQ(Cmd(r.get(), {"CONFIG", "GET", "tls-replication"}).ToString(),
            "1) \"tls-replication\"\n2) \"yes\"");
}

TEST_F(TlsLinksTest, AReplicaTrustingAnotherCaRefusesTheMasterAndSaysSo) {
  const int master_tls = TestServer::FreePort();
  TestServer* master = StartWithTls(master_tls, {});
  ASSERT_TRUE(master->Running());
  const int replica_tls = TestServer::FreePort();
  TestServer* replica = StartWithTls(
      replica_tls, {"--tls-replication", "yes", "--tls-ca-cert-file", d() + "/other-ca.crt",
                    "--replicaof", "127.0.0.1", std::to_string(master_tls)});
  ASSERT_TRUE(replica->Running());
  const bool said = Eventually([&] {
    return replica->ReadLog().find("TLS handshake with the master failed") != std::string::npos;
  });
  EXPECT_TRUE(said) << replica->ReadLog();
  EXPECT_NE(replica->ReadLog().find("certificate verify failed"), std::string::npos)
      << replica->ReadLog();
  auto r = replica->Connect();
  EXPECT_EQ(InfoText(r.get(), "replication", "master_link_status"), "down");
  auto m = master->Connect();
  EXPECT_EQ(InfoField(m.get(), "replication", "connected_slaves"), 0);
  EXPECT_EQ(replica->ReadLog().find("MASTER <-> REPLICA sync started"), std::string::npos);
}

TEST_F(TlsLinksTest, LinkOptionsWithoutTheirCertificatesRefuseToStart) {
  struct Case {
    std::vector<std::string> args;
    std::string error;
  };
  const std::string tls_port = std::to_string(TestServer::FreePort());
  const std::vector<Case> cases = {
      {{"--tls-replication", "yes"},
       "tls-cert-file and tls-key-file are required with "
       "tls-replication"},
      {{"--tls-peers", "yes", "--tls-cert-file", d() + "/server.crt", "--tls-key-file",
        d() + "/server.key"},
       "Either tls-ca-cert-file or tls-ca-cert-dir must be specified with tls-peers"},
      {{"--tls-cluster", "yes", "--cluster-enabled", "yes", "--tls-cert-file", d() + "/server.crt",
        "--tls-key-file", d() + "/server.key", "--tls-ca-cert-file", d() + "/ca.crt"},
       "tls-cluster requires tls-port"},
      {Join(TlsServerArgs(d(), std::stoi(tls_port)),
            {"--tls-replication", "yes", "--tls-client-cert-file", d() + "/client.crt"}),
       "tls-client-cert-file and tls-client-key-file must be given together"},
      {Join(TlsServerArgs(d(), std::stoi(tls_port)),
            {"--tls-peers", "yes", "--tls-client-cert-file", d() + "/missing.crt",
             "--tls-client-key-file", d() + "/client.key"}),
       "Failed to load certificate: " + d() + "/missing.crt"},
  };
  for (const Case& c : cases) {
    TestServer server;
    EXPECT_FALSE(server.Start(c.args)) << c.error;
    EXPECT_NE(server.ReadLog().find(c.error), std::string::npos) << server.ReadLog();
  }
}

TEST_F(TlsLinksTest, PeersLinkedOverTlsConverge) {
  const int tls0 = TestServer::FreePort(), tls1 = TestServer::FreePort();
  TestServer* n0 =
      StartWithTls(tls0, {"--tls-peers", "yes", "--peer", "127.0.0.1", std::to_string(tls1),
                          "--tls-client-cert-file", d() + "/client.crt", "--tls-client-key-file",
                          d() + "/client.key"});
  TestServer* n1 =
      StartWithTls(tls1, {"--tls-peers", "yes", "--peer", "127.0.0.1", std::to_string(tls0)});
  ASSERT_TRUE(n0->Running() && n1->Running());
  auto c0 = n0->Connect();
  auto c1 = n1->Connect();
  const std::string ts = "1700000000000";
  for (int i = 0; i < 50; i++) {
    ASSERT_EQ(Cmd(c0.get(), {"TREG", "SET", "a:" + std::to_string(i), "x", ts}).str(), "OK");
    ASSERT_EQ(Cmd(c1.get(), {"TLOG", "INS", "log", "y" + std::to_string(i), ts}).str(), "OK");
  }
  EXPECT_EQ(WaitConverged({c0.get(), c1.get()}), "");
  EXPECT_EQ(Cmd(c1.get(), {"TREG", "GET", "a:49"})[0].str(), "x");
  EXPECT_EQ(Cmd(c0.get(), {"TLOG", "SIZE", "log"}).integer(), 50);
  EXPECT_NE(InfoText(c0.get(), "peers", "peer0").find("state=connected"), std::string::npos);
  EXPECT_NE(InfoText(c1.get(), "peers", "peer0").find("state=connected"), std::string::npos);
  // A node trusting another CA refuses n0's certificate: no link, and its log says why.
  TestServer* stranger = StartWithTls(
      TestServer::FreePort(), {"--tls-peers", "yes", "--tls-ca-cert-file", d() + "/other-ca.crt",
                               "--peer", "127.0.0.1", std::to_string(tls0)});
  ASSERT_TRUE(stranger->Running());
  const bool said = Eventually([&] {
    return stranger->ReadLog().find(
               "cannot link: TLS handshake failed: certificate verify "
               "failed") != std::string::npos;
  });
  EXPECT_TRUE(said) << stranger->ReadLog();
  auto cs = stranger->Connect();
  EXPECT_EQ(InfoText(cs.get(), "peers", "peer0").find("state=connected"), std::string::npos);
  EXPECT_EQ(Cmd(cs.get(), {"TLOG", "SIZE", "log"}).integer(), 0);
}

TEST_F(TlsLinksTest, ThreeNodesWithATlsBusReachClusterStateOk) {
  std::vector<TestServer*> nodes;
  std::vector<int> tls_ports, bus_ports;
  for (int i = 0; i < 3; i++) {
    int tls_port = 0, bus_port = 0;
    nodes.push_back(StartTlsClusterNode(&tls_port, &bus_port));
    ASSERT_TRUE(nodes.back()->Running());
    tls_ports.push_back(tls_port);
    bus_ports.push_back(bus_port);
  }
  auto a = nodes[0]->Connect();
  for (int i : {1, 2}) {
    ASSERT_EQ(Cmd(a.get(), {"CLUSTER", "MEET", "127.0.0.1", std::to_string(tls_ports[i]),
                            std::to_string(bus_ports[i])})
                  .str(),
              "OK");
  }
  const std::vector<std::pair<std::string, std::string>> ranges = {
      {"0", "5460"}, {"5461", "10922"}, {"10923", "16383"}};
  for (int i = 0; i < 3; i++) {
    auto c = nodes[i]->Connect();
    ASSERT_EQ(Cmd(c.get(), {"CLUSTER", "ADDSLOTSRANGE", ranges[i].first, ranges[i].second}).str(),
              "OK");
  }
  const bool ok = Eventually([&] {
    for (TestServer* node : nodes) {
      auto c = node->Connect();
      if (Cmd(c.get(), {"CLUSTER", "INFO"}).str().find("cluster_state:ok") == std::string::npos) {
        return false;
      }
    }
    return true;
  });
  for (TestServer* node : nodes) {
    auto c = node->Connect();
    EXPECT_TRUE(ok) << Cmd(c.get(), {"CLUSTER", "NODES"}).str() << node->ReadLog();
  }
  // As Redis 7.0: a TLS client is told the TLS ports, a clear-text client the plain ones.
  int status = 0;
  const std::string tls_cli = "timeout 10 redis-cli --tls --cacert " + d() + "/ca.crt --cert " +
                              d() + "/client.crt --key " + d() + "/client.key -p " +
                              std::to_string(tls_ports[0]) + " ";
  const std::string tls_nodes = Shell(tls_cli + "CLUSTER NODES", &status);
  const std::string plain_nodes = Cmd(a.get(), {"CLUSTER", "NODES"}).str();
  for (int i = 0; i < 3; i++) {
    const std::string bus = "@" + std::to_string(bus_ports[i]);
    EXPECT_NE(tls_nodes.find(":" + std::to_string(tls_ports[i]) + bus), std::string::npos)
        << tls_nodes;
    EXPECT_NE(plain_nodes.find(":" + std::to_string(nodes[i]->port()) + bus), std::string::npos)
        << plain_nodes;
  }
  // "a" hashes to slot 15495, served by the third node.
  EXPECT_EQ(Shell(tls_cli + "GET a", &status),
            "MOVED 15495 127.0.0.1:" + std::to_string(tls_ports[2]) + "\n\n");
  EXPECT_EQ(Cmd(a.get(), {"GET", "a"}).ToString(),
            "(error) MOVED 15495 127.0.0.1:" + std::to_string(nodes[2]->port()));
  const std::string shards = Cmd(a.get(), {"CLUSTER", "SHARDS"}).ToString();
  for (const std::string& part : {std::string("\"tls-port\""), std::to_string(tls_ports[0]),
                                  std::to_string(nodes[0]->port())}) {
    EXPECT_NE(shards.find(part), std::string::npos) << part << "\n" << shards;
  }
  // redis-cli --cluster --tls reaches every node through what the cluster announces.
  const std::string check =
      Shell("timeout 30 redis-cli --tls --cacert " + d() + "/ca.crt --cert " + d() +
                "/client.crt --key " + d() +
                "/client.key --cluster check 127.0.0.1:" + std::to_string(tls_ports[0]),
            &status);
  EXPECT_EQ(status, 0) << check;
  EXPECT_NE(check.find("[OK] All 16384 slots covered."), std::string::npos) << check;
  // The bus port speaks TLS: a handshake with a certificate of the CA is accepted.
  const std::string handshake =
      Shell("timeout 10 openssl s_client -connect 127.0.0.1:" + std::to_string(bus_ports[1]) +
                " -CAfile " + d() + "/ca.crt -cert " + d() + "/client.crt -key " + d() +
                "/client.key </dev/null",
            &status);
  EXPECT_NE(handshake.find("Verify return code: 0 (ok)"), std::string::npos) << handshake;
}

// Under tls-cluster a master announces its TLS port and its plain port beside it: a replica with
// tls-replication follows the TLS one, a replica without it the plain one.
TEST_F(TlsLinksTest, ClusterReplicasFollowTheMastersTlsOrPlainPort) {
  int master_tls = 0, master_bus = 0, tls_replica_tls = 0, tls_replica_bus = 0, plain_tls = 0,
      plain_bus = 0;
  TestServer* master = StartTlsClusterNode(&master_tls, &master_bus);
  TestServer* tls_replica =
      StartTlsClusterNode(&tls_replica_tls, &tls_replica_bus, {"--tls-replication", "yes"});
  TestServer* plain_replica = StartTlsClusterNode(&plain_tls, &plain_bus);
  ASSERT_TRUE(master->Running() && tls_replica->Running() && plain_replica->Running());
  auto m = master->Connect();
  ASSERT_EQ(Cmd(m.get(), {"CLUSTER", "ADDSLOTSRANGE", "0", "16383"}).str(), "OK");
  ASSERT_EQ(Cmd(m.get(), {"SET", "greeting", "hello"}).str(), "OK");
  const std::string master_id = Cmd(m.get(), {"CLUSTER", "MYID"}).str();
  for (const auto& [tls, bus] :
       {std::pair{tls_replica_tls, tls_replica_bus}, {plain_tls, plain_bus}}) {
    ASSERT_EQ(
        Cmd(m.get(), {"CLUSTER", "MEET", "127.0.0.1", std::to_string(tls), std::to_string(bus)})
            .str(),
        "OK");
  }
  struct Expect {
    TestServer* replica;
    int master_port;
  };
  for (const Expect& e : {Expect{tls_replica, master_tls}, Expect{plain_replica, master->port()}}) {
    auto r = e.replica->Connect();
    const bool known = Eventually([&] {
      return Cmd(r.get(), {"CLUSTER", "NODES"}).str().find(master_id) != std::string::npos;
    });
    ASSERT_TRUE(known) << Cmd(r.get(), {"CLUSTER", "NODES"}).str();
    const bool replicated = Eventually([&] {
      // Once the master's PONG has told its plain port.
      if (Cmd(r.get(), {"CLUSTER", "REPLICATE", master_id}).str() != "OK") return false;
      return InfoText(r.get(), "replication", "master_link_status") == "up" &&
             InfoField(r.get(), "replication", "master_port") == e.master_port;
    });
    EXPECT_TRUE(replicated) << InfoText(r.get(), "replication", "master_port") << "\n"
                            << e.replica->ReadLog();
    EXPECT_EQ(WaitCaughtUp(r.get(), m.get()), "");
    ASSERT_EQ(Cmd(r.get(), {"READONLY"}).str(), "OK");
    EXPECT_EQ(Cmd(r.get(), {"GET", "greeting"}).str(), "hello");
  }
}

// Redis Sentinel over TLS (its tls-replication yes): it monitors the master's TLS port, finds the
// replicas at the TLS ports they announce, and after the master is killed promotes one and
// points the other at the new master's TLS port.
TEST_F(TlsLinksTest, SentinelFailsOverReplicasLinkedOverTls) {
  const int master_tls = TestServer::FreePort();
  TestServer* master = StartWithTls(master_tls, {});
  ASSERT_TRUE(master->Running());
  const std::vector<std::string> follow = {"--tls-replication", "yes", "--replicaof", "127.0.0.1",
                                           std::to_string(master_tls)};
  const int r1_tls = TestServer::FreePort(), r2_tls = TestServer::FreePort();
  TestServer* r1 = StartWithTls(r1_tls, follow);
  TestServer* r2 = StartWithTls(r2_tls, Join(follow, {"--replica-priority", "0"}));
  ASSERT_TRUE(r1->Running() && r2->Running());
  auto m = master->Connect();
  ASSERT_EQ(WaitInfoField(m.get(), "replication", "connected_slaves", 2), 2);
  SentinelProcess sentinel;
  ASSERT_TRUE(sentinel.Start(
      d(), {"tls-cert-file " + d() + "/server.crt", "tls-key-file " + d() + "/server.key",
            "tls-ca-cert-file " + d() + "/ca.crt", "tls-replication yes",
            "sentinel monitor group 127.0.0.1 " + std::to_string(master_tls) + " 1",
            "sentinel down-after-milliseconds group 1000", "sentinel failover-timeout group 5000"}))
      << ReadText(d() + "/sentinel.log");
  auto s = sentinel.Connect();
  // The master's INFO, read over TLS every 10 s, names both replicas at their TLS ports.
  const bool found = Eventually(
      [&] {
        const std::string replicas = Cmd(s.get(), {"SENTINEL", "REPLICAS", "group"}).ToString();
        return replicas.find("127.0.0.1:" + std::to_string(r1_tls)) != std::string::npos &&
               replicas.find("127.0.0.1:" + std::to_string(r2_tls)) != std::string::npos;
      },
      30);
  ASSERT_TRUE(found) << Cmd(s.get(), {"SENTINEL", "REPLICAS", "group"}).ToString();
  master->Kill();
  const bool switched = Eventually(
      [&] {
        const Reply addr = Cmd(s.get(), {"SENTINEL", "GET-MASTER-ADDR-BY-NAME", "group"});
        return addr.size() == 2 && addr[1].str() == std::to_string(r1_tls);
      },
      30);
  EXPECT_TRUE(switched) << ReadText(d() + "/sentinel.log");
  // The sentinel's reconfiguration kills the replicas' clients (CLIENT KILL TYPE normal): each
  // poll connects anew.
  const bool follows = Eventually([&] {
    auto c2 = r2->Connect();
    return InfoField(c2.get(), "replication", "master_port") == r1_tls &&
           InfoText(c2.get(), "replication", "master_link_status") == "up";
  });
  EXPECT_TRUE(follows) << r2->ReadLog();
  const bool written = Eventually([&] {
    auto c1 = r1->Connect();
    return Cmd(c1.get(), {"SET", "after-failover", "yes"}).str() == "OK";
  });
  ASSERT_TRUE(written) << r1->ReadLog();
  auto c1 = r1->Connect();
  auto c2 = r2->Connect();
  EXPECT_EQ(WaitCaughtUp(c2.get(), c1.get()), "");
  EXPECT_EQ(Cmd(c2.get(), {"GET", "after-failover"}).str(), "yes");
}

}  // namespace
}  // namespace ebb::test
