// A node holding data joins active-active peers (docs/active-active.md, "The mode"): it takes
// writes of every type alone — strings with and without a TTL, PUT versions out of timestamp
// order, DELETE tombstones, TLOG, TREG with and without an expiry, an expired string and an
// expired TREG, INCR and APPEND values, two databases — then enters the mode, by PEER ADD into a
// running pair or by `peer` options at start. Origin offset 1 stands for that data, so every peer
// receives it as a snapshot, also after the joiner restarted before they linked it; every node
// then reaches the same DEBUG DIGEST-LOGICAL, holds the joiner's data as the joiner reads it, and
// converges again after concurrent writes at every node. Every wait is a bounded poll.
#include <gtest/gtest.h>
#include <hiredis/read.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/active_active_support.h"
#include "tests/support/eventually.h"
#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

using std::chrono::milliseconds;

// A grace wider than any two timestamps here: the read takes the greatest version.
constexpr const char* kFullGrace = "1000000000000";

// Writes outside the mode, every key named with `prefix`, in databases 0 and 3. Leaves the
// connection in database 0.
void WriteAlone(redisContext* c, const std::string& prefix) {
  auto ok = [&](const std::vector<std::string>& args) {
    const Reply r = Cmd(c, args);
    ASSERT_FALSE(r.is_error()) << args[0] << ": " << r.str();
  };
  ok({"SET", prefix + "ttl", "hello", "EX", "3600"});
  ok({"SET", prefix + "plain", "x"});
  // Out of timestamp order: a read at grace 0 takes b@50, one at full grace a@100.
  ok({"PUT", prefix + "late", "a", "TS", "100"});
  ok({"PUT", prefix + "late", "b", "TS", "50"});
  ok({"PUT", prefix + "until2100", "v", "TS", "200", "PXAT", "4102444800000"});
  ok({"PUT", prefix + "deleted", "v", "TS", "250"});
  ok({"DELETE", prefix + "deleted", "TS", "300"});
  // An older tombstone written last: live at full grace only.
  ok({"PUT", prefix + "revived", "live", "TS", "500"});
  ok({"DELETE", prefix + "revived", "TS", "400"});
  ok({"TLOG", "INS", prefix + "log", "e1", "10"});
  ok({"TLOG", "INS", prefix + "log", "e2", "20"});
  ok({"TLOG", "INS", prefix + "log", "e3", "30"});
  ok({"TLOG", "TRIMAT", prefix + "log", "15"});
  ok({"TREG", "SET", prefix + "reg", "r", "42"});
  ok({"TREG", "SET", prefix + "regttl", "r", "43"});
  ok({"EXPIRE", prefix + "regttl", "3600"});
  ok({"TREG", "SET", prefix + "regexpired", "r", "44"});
  ok({"PEXPIRE", prefix + "regexpired", "100"});
  ok({"SET", prefix + "strexpired", "v", "PX", "100"});
  for (int i = 0; i < 3; i++) ok({"INCR", prefix + "counter"});
  ok({"APPEND", prefix + "appended", "foo"});
  ok({"APPEND", prefix + "appended", "bar"});
  ok({"SELECT", "3"});
  ok({"SET", prefix + "db3", "three"});
  ok({"TLOG", "INS", prefix + "db3log", "e", "7"});
  ok({"SELECT", "0"});
  std::this_thread::sleep_for(milliseconds(250));  // the PX/PEXPIRE 100 keys expire
}

// What every node must answer for WriteAlone's keys.
void ExpectJoinerData(redisContext* c, const std::string& prefix, const std::string& node) {
  SCOPED_TRACE(node + " reading " + prefix);
  EXPECT_EQ(Cmd(c, {"GET", prefix + "ttl"}).str(), "hello");
  EXPECT_GT(Cmd(c, {"TTL", prefix + "ttl"}).integer(), 3000);
  EXPECT_EQ(Cmd(c, {"GET", prefix + "plain"}).str(), "x");
  EXPECT_EQ(Cmd(c, {"GET", prefix + "late"}).str(), "a");
  EXPECT_EQ(Cmd(c, {"GET", prefix + "late", "GRACE", kFullGrace}).str(), "a");
  EXPECT_EQ(Cmd(c, {"PEXPIRETIME", prefix + "until2100"}).integer(), 4102444800000);
  EXPECT_TRUE(Cmd(c, {"GET", prefix + "deleted"}).is_nil());
  EXPECT_EQ(Cmd(c, {"GET", prefix + "revived"}).str(), "live");
  const Reply log = Cmd(c, {"TLOG", "GET", prefix + "log"});
  ASSERT_EQ(log.size(), 2u) << log.ToString();
  EXPECT_EQ(Cmd(c, {"TREG", "GET", prefix + "reg"})[0].str(), "r");
  EXPECT_EQ(Cmd(c, {"TREG", "GET", prefix + "regttl"})[0].str(), "r");
  EXPECT_GT(Cmd(c, {"TTL", prefix + "regttl"}).integer(), 3000);
  EXPECT_EQ(Cmd(c, {"EXISTS", prefix + "regexpired", prefix + "strexpired"}).integer(), 0);
  EXPECT_EQ(Cmd(c, {"GET", prefix + "counter"}).str(), "3");
  EXPECT_EQ(Cmd(c, {"GET", prefix + "appended"}).str(), "foobar");
  EXPECT_EQ(Cmd(c, {"SELECT", "3"}).str(), "OK");
  EXPECT_EQ(Cmd(c, {"GET", prefix + "db3"}).str(), "three");
  EXPECT_EQ(Cmd(c, {"TLOG", "SIZE", prefix + "db3log"}).integer(), 1);
  EXPECT_EQ(Cmd(c, {"SELECT", "0"}).str(), "OK");
}

// A few concurrent writes at a node, on the joiner's keys and new ones.
void WriteInMode(redisContext* c, const std::string& prefix, const std::string& node) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"PUT", prefix + "late", node, "TS", "150"},
           {"SET", "from-" + node, node},
           {"TLOG", "INS", prefix + "log", node, "25"},
           {"TREG", "SET", prefix + "regttl", node, "60"},
           {"DEL", prefix + "plain"},
           {"INCRBY", prefix + "counter", "10"},  // a counter from the value it held
           {"EXPIRE", prefix + "counter", "7200"},
       }) {
    const Reply r = Cmd(c, args);
    EXPECT_FALSE(r.is_error()) << node << " " << args[0] << ": " << r.str();
  }
}

class ActiveActiveJoinTest : public ::testing::Test {
 protected:
  void TearDown() override {
    for (TestServer* server : {&n0_, &n1_, &n2_}) {
      if (server->Running()) {
        EXPECT_EQ(server->Stop(), 0) << server->ReadLog();
      }
    }
  }
  TestServer n0_, n1_, n2_;
};

TEST_F(ActiveActiveJoinTest, ANodeWithDataJoinsARunningPairByPeerAdd) {
  // The pair, empty when it entered the mode: its first delta is offset 1.
  ASSERT_TRUE(n0_.Start(PeerArgs({&n1_}))) << n0_.error();
  ASSERT_TRUE(n1_.Start(PeerArgs({&n0_}))) << n1_.error();
  auto c0 = n0_.Connect();
  auto c1 = n1_.Connect();
  EXPECT_EQ(InfoField(c0.get(), "peers", "origin_log_first"), 1);
  ASSERT_EQ(Cmd(c0.get(), {"SET", "pair0", "a"}).str(), "OK");
  ASSERT_EQ(Cmd(c1.get(), {"TLOG", "INS", "pairlog", "x", "5"}).str(), "OK");
  EXPECT_EQ(InfoField(c0.get(), "peers", "origin_offset"), 1);

  // The joiner, alone.
  ASSERT_TRUE(n2_.Start()) << n2_.error();
  auto c2 = n2_.Connect();
  ASSERT_NO_FATAL_FAILURE(WriteAlone(c2.get(), "j:"));
  ASSERT_EQ(InfoText(c2.get(), "peers", "active_active"), "no");

  // A log with an expiry set by EXPIRE joins with that expiry (an expiry register covering its
  // entries), which its peers take from the snapshot.
  ASSERT_EQ(Cmd(c2.get(), {"TLOG", "INS", "j:logttl", "e", "10"}).str(), "OK");
  ASSERT_EQ(Cmd(c2.get(), {"EXPIRE", "j:logttl", "3600"}).integer(), 1);
  const std::string peer0 = std::to_string(n0_.port());
  // Not inside a transaction: entering is an engine write of its own.
  ASSERT_EQ(Cmd(c2.get(), {"MULTI"}).str(), "OK");
  EXPECT_EQ(Cmd(c2.get(), {"PEER", "ADD", "127.0.0.1", peer0}).str(),
            "ERR Command not allowed inside a transaction");
  EXPECT_TRUE(Cmd(c2.get(), {"EXEC"}).is_error());
  EXPECT_EQ(InfoText(c2.get(), "peers", "active_active"), "no");

  // It enters the mode: offset 1 is its data, its own first delta is offset 2.
  for (const TestServer* peer : {&n0_, &n1_}) {
    ASSERT_EQ(Cmd(c2.get(), {"PEER", "ADD", "127.0.0.1", std::to_string(peer->port())}).str(),
              "OK");
  }
  EXPECT_EQ(InfoText(c2.get(), "peers", "active_active"), "yes");
  EXPECT_EQ(InfoField(c2.get(), "peers", "origin_offset"), 1);
  EXPECT_EQ(InfoField(c2.get(), "peers", "origin_log_first"), 2);
  // Its own reads already answer as its peers will (the full-grace version of "late").
  EXPECT_EQ(Cmd(c2.get(), {"GET", "j:late"}).str(), "a");

  // Restarted before its peers link it, with no delta written yet: offset 1 still stands for its
  // data (it has no log row), and its own first delta is offset 2.
  EXPECT_EQ(n2_.Stop(), 0) << n2_.ReadLog();
  ASSERT_TRUE(n2_.Start(PeerArgs({&n0_, &n1_}))) << n2_.error();
  c2 = n2_.Connect();
  EXPECT_EQ(InfoField(c2.get(), "peers", "origin_offset"), 1);
  EXPECT_EQ(InfoField(c2.get(), "peers", "origin_log_first"), 2);
  // Refused in the mode.
  EXPECT_TRUE(Cmd(c2.get(), {"APPEND", "j:counter", "1"}).is_error());
  ASSERT_EQ(Cmd(c2.get(), {"SET", "j:after-entry", "1"}).str(), "OK");
  EXPECT_EQ(InfoField(c2.get(), "peers", "origin_offset"), 2);
  EXPECT_EQ(InfoField(c2.get(), "peers", "origin_log_first"), 2);

  for (redisContext* c : {c0.get(), c1.get()}) {
    ASSERT_EQ(Cmd(c, {"PEER", "ADD", "127.0.0.1", std::to_string(n2_.port())}).str(), "OK");
  }
  std::vector<redisContext*> all = {c0.get(), c1.get(), c2.get()};
  EXPECT_EQ(WaitConverged(all), "");
  // Both peers took the joiner's data through a snapshot.
  EXPECT_EQ(InfoField(c2.get(), "peers", "snapshots_sent"), 2);
  for (int i = 0; i < 3; i++) {
    ExpectJoinerData(all[i], "j:", "n" + std::to_string(i));
    EXPECT_EQ(Cmd(all[i], {"GET", "j:after-entry"}).str(), "1");
    EXPECT_EQ(Cmd(all[i], {"GET", "pair0"}).str(), "a");
    EXPECT_EQ(Cmd(all[i], {"TLOG", "SIZE", "pairlog"}).integer(), 1);
    EXPECT_EQ(Cmd(all[i], {"TLOG", "SIZE", "j:logttl"}).integer(), 1);
    EXPECT_GT(Cmd(all[i], {"TTL", "j:logttl"}).integer(), 3000);
  }

  // Concurrent writes at all three converge.
  for (int i = 0; i < 3; i++) WriteInMode(all[i], "j:", "n" + std::to_string(i));
  EXPECT_EQ(WaitConverged(all), "");
  for (int i = 0; i < 3; i++) {
    SCOPED_TRACE("n" + std::to_string(i));
    // Equal TS: the greatest value digest (SHA-256 orders "n0" > "n1" > "n2").
    EXPECT_EQ(Cmd(all[i], {"GET", "j:late"}).str(), "n0");
    EXPECT_EQ(Cmd(all[i], {"TLOG", "SIZE", "j:log"}).integer(), 5);  // e2, e3, one per node
    EXPECT_EQ(Cmd(all[i], {"TTL", "j:regttl"}).integer(), -1);  // a newer pair drops the expiry
    EXPECT_EQ(Cmd(all[i], {"EXISTS", "j:plain"}).integer(), 0);
    EXPECT_GT(Cmd(all[i], {"TTL", "j:counter"}).integer(), 3600);
    EXPECT_EQ(Cmd(all[i], {"GET", "j:counter"}).str(), "33");  // 3 before the mode, 10 a node
    EXPECT_EQ(Cmd(all[i], {"GET", "from-n0"}).str(), "n0");
  }
}

TEST_F(ActiveActiveJoinTest, NodesWithDataStartWithPeerOptions) {
  // Two nodes take writes alone, one key on both with the same timestamp; then each restarts
  // with the other as its peer.
  ASSERT_TRUE(n0_.Start()) << n0_.error();
  ASSERT_TRUE(n1_.Start()) << n1_.error();
  {
    auto c0 = n0_.Connect();
    auto c1 = n1_.Connect();
    ASSERT_NO_FATAL_FAILURE(WriteAlone(c0.get(), "a:"));
    ASSERT_NO_FATAL_FAILURE(WriteAlone(c1.get(), "b:"));
    ASSERT_EQ(Cmd(c0.get(), {"PUT", "both", "x", "TS", "100"}).str(), "OK");
    ASSERT_EQ(Cmd(c1.get(), {"PUT", "both", "y", "TS", "100"}).str(), "OK");
  }
  EXPECT_EQ(n0_.Stop(), 0) << n0_.ReadLog();
  EXPECT_EQ(n1_.Stop(), 0) << n1_.ReadLog();
  ASSERT_TRUE(n0_.Start(PeerArgs({&n1_}))) << n0_.error();
  ASSERT_TRUE(n1_.Start(PeerArgs({&n0_}))) << n1_.error();
  auto c0 = n0_.Connect();
  auto c1 = n1_.Connect();
  std::vector<redisContext*> all = {c0.get(), c1.get()};
  EXPECT_EQ(WaitConverged(all), "");
  for (int i = 0; i < 2; i++) {
    EXPECT_EQ(InfoField(all[i], "peers", "origin_log_first"), 2);
    EXPECT_EQ(InfoField(all[i], "peers", "snapshots_sent"), 1);
    ExpectJoinerData(all[i], "a:", "n" + std::to_string(i));
    ExpectJoinerData(all[i], "b:", "n" + std::to_string(i));
    EXPECT_EQ(Cmd(all[i], {"GET", "both"}).str(), "y");  // equal TS: the greater digest
  }
  WriteInMode(c0.get(), "b:", "n0");
  WriteInMode(c1.get(), "a:", "n1");
  EXPECT_EQ(WaitConverged(all), "");
}

// A node in the mode has no replicas (a promoted replica would write outside the origin log under
// its old master's id and offsets): a replica's PSYNC is refused and it stays unlinked; a node with
// a replica cannot get peers, and stays out of the mode.
TEST_F(ActiveActiveJoinTest, ReplicasAndPeersExcludeEachOther) {
  RefusingPort nowhere;
  ASSERT_GT(nowhere.port(), 0);
  ASSERT_TRUE(n0_.Start(nowhere.PeerArgs())) << n0_.error();
  ASSERT_TRUE(n1_.Start({"--replicaof", "127.0.0.1 " + std::to_string(n0_.port())})) << n1_.error();
  auto c0 = n0_.Connect();
  EXPECT_EQ(Cmd(c0.get(), {"PSYNC", "?", "-1"}).str(),
            "ERR replicas are not allowed in active-active mode");
  EXPECT_TRUE(Eventually([&] {
    return n0_.ReadLog().find("refused in active-active mode") != std::string::npos;
  })) << n0_.ReadLog();
  EXPECT_EQ(InfoText(c0.get(), "replication", "connected_slaves"), "0");
  auto c1 = n1_.Connect();
  EXPECT_EQ(InfoText(c1.get(), "replication", "master_link_status"), "down");

  // The other way round: n2 has n1 as its replica, then is asked to link a peer.
  ASSERT_EQ(Cmd(c1.get(), {"REPLICAOF", "127.0.0.1", std::to_string(n2_.port())}).str(), "OK");
  ASSERT_TRUE(n2_.Start()) << n2_.error();
  auto c2 = n2_.Connect();
  ASSERT_TRUE(
      Eventually([&] { return InfoText(c2.get(), "replication", "connected_slaves") == "1"; }));
  EXPECT_EQ(Cmd(c2.get(), {"PEER", "ADD", "127.0.0.1", std::to_string(n0_.port())}).str(),
            "ERR a node with replicas cannot have active-active peers");
  EXPECT_EQ(Cmd(c2.get(), {"PEER", "LIST"}).size(), 0u);
  EXPECT_EQ(Cmd(c2.get(), {"SET", "k", "v"}).str(), "OK");  // no origin log row needed
}

// Peers whose settings differ would diverge: each refuses the other's PEER SYNC with the
// setting named, both say "settings-differ" in INFO peers and in the log, no write crosses; once
// CONFIG SET makes them equal the links come up and the nodes converge.
TEST_F(ActiveActiveJoinTest, PeersWithDifferentSettingsRefuseToLink) {
  ASSERT_TRUE(n0_.Start(
      {"--peer", "127.0.0.1", std::to_string(n1_.port()), "--ttl-rule", "session:*", "30m"}))
      << n0_.error();
  ASSERT_TRUE(n1_.Start(PeerArgs({&n0_}))) << n1_.error();
  auto c0 = n0_.Connect();
  auto c1 = n1_.Connect();
  auto state_of = [](redisContext* c) {
    const std::string peers = InfoText(c, "peers", "peer0");
    const size_t at = peers.find("state=");
    return at == std::string::npos ? peers : peers.substr(at + 6, peers.find(',', at) - at - 6);
  };
  EXPECT_TRUE(Eventually([&] {
    return state_of(c0.get()) == "settings-differ" && state_of(c1.get()) == "settings-differ";
  })) << state_of(c0.get())
      << " " << state_of(c1.get());
  const std::string sync = Cmd(c1.get(), {"PEER", "SYNC", std::string(40, 'f'), "1", "SETTINGS",
                                          "ttl-rule", "session:* 30m"})
                               .str();
  EXPECT_EQ(sync,
            "ERR active-active settings differ: 'ttl-rule' is 'session:* 30m' on the peer and "
            "'' here");
  EXPECT_NE(n1_.ReadLog().find("its ttl-rule is 'session:* 30m'"), std::string::npos)
      << n1_.ReadLog();
  ASSERT_EQ(Cmd(c0.get(), {"SET", "k", "from-0"}).str(), "OK");

  ASSERT_EQ(Cmd(c0.get(), {"CONFIG", "SET", "ttl-rule", ""}).str(), "OK");
  EXPECT_EQ(WaitConverged({c0.get(), c1.get()}), "");
  EXPECT_EQ(Cmd(c1.get(), {"GET", "k"}).str(), "from-0");
  EXPECT_TRUE(Eventually([&] {
    return state_of(c0.get()) == "connected" && state_of(c1.get()) == "connected";
  })) << state_of(c0.get())
      << " " << state_of(c1.get());
}

// A link of a node that reads the stream another way (an earlier version: no
// peer-stream-version among its settings) is refused by name, and so is one of another version.
TEST_F(ActiveActiveJoinTest, APeerOfAnotherStreamVersionIsRefusedByName) {
  RefusingPort nowhere;
  ASSERT_GT(nowhere.port(), 0);
  ASSERT_TRUE(n0_.Start(nowhere.PeerArgs())) << n0_.error();
  auto c = n0_.Connect();
  std::vector<std::string> sync = {"PEER", "SYNC", std::string(40, 'f'), "1", "SETTINGS"};
  for (const char* name : {"databases", "default-ttl", "ttl-rule", "expiration",
                           "expiry-purge-deadline", "active-active-string-rule"}) {
    const Reply value = Cmd(c.get(), {"CONFIG", "GET", name});
    ASSERT_EQ(value.size(), 2u) << name;
    sync.push_back(name);
    sync.push_back(value[1].str());
  }
  EXPECT_EQ(Cmd(c.get(), sync).str(),
            "ERR active-active settings differ: 'peer-stream-version' is '(none)' on the peer and "
            "'2' here");
  EXPECT_NE(n0_.ReadLog().find("it names no peer-stream-version, this node's is '2'"),
            std::string::npos)
      << n0_.ReadLog();
  sync.push_back("peer-stream-version");
  sync.push_back("3");
  EXPECT_EQ(Cmd(c.get(), sync).str(),
            "ERR active-active settings differ: 'peer-stream-version' is '3' on the peer and '2' "
            "here");
  sync.back() = "2";
  EXPECT_EQ(Cmd(c.get(), sync).str().rfind("CONTINUE ", 0), 0u);
}

// An origin that is not ebb: on one connection it answers PEER ID with `id` and PEER SYNC with
// +CONTINUE, then sends `stream` (RESP deltas) — the first piece with the +CONTINUE, each other
// piece in a send of its own 50 ms after the one before — and holds the connection until
// destroyed.
class FakeOrigin {
 public:
  FakeOrigin(std::string id, std::string stream)
      : FakeOrigin(std::move(id), std::vector<std::string>{std::move(stream)}) {}
  FakeOrigin(std::string id, std::vector<std::string> stream)
      : id_(std::move(id)), stream_(std::move(stream)) {
    fd_ = BindFreeLoopbackPort(&port_);
    if (fd_ >= 0 && ::listen(fd_, 1) == 0) thread_ = std::thread([this] { Serve(); });
  }
  ~FakeOrigin() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    if (conn_ >= 0) ::shutdown(conn_, SHUT_RDWR);
    if (thread_.joinable()) thread_.join();
    ::close(fd_);
    if (conn_ >= 0) ::close(conn_);
  }
  int port() const { return port_; }

 private:
  void Serve() {
    conn_ = ::accept(fd_, nullptr, nullptr);
    if (conn_ < 0) return;
    redisReader* reader = redisReaderCreate();
    char buf[4096];
    for (int requests = 0; requests < 2 && !stop_;) {
      const ssize_t n = ::recv(conn_, buf, sizeof(buf), 0);
      if (n <= 0) break;
      redisReaderFeed(reader, buf, static_cast<size_t>(n));
      void* raw = nullptr;
      while (redisReaderGetReply(reader, &raw) == REDIS_OK && raw != nullptr) {
        const std::string answer =
            requests++ == 0 ? "$40\r\n" + id_ + "\r\n" : "+CONTINUE 2 0\r\n" + stream_[0];
        freeReplyObject(raw);
        ::send(conn_, answer.data(), answer.size(), MSG_NOSIGNAL);
      }
    }
    redisReaderFree(reader);
    for (size_t i = 1; i < stream_.size() && !stop_; i++) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      ::send(conn_, stream_[i].data(), stream_[i].size(), MSG_NOSIGNAL);
    }
  }

  std::string id_;
  std::vector<std::string> stream_;
  int fd_ = -1, port_ = 0, conn_ = -1;
  std::atomic<bool> stop_ = false;
  std::thread thread_;
};

// A delta this node cannot apply (a database it does not have) is skipped and counted: the link
// goes on with the next one instead of reconnecting for it forever.
TEST_F(ActiveActiveJoinTest, AMalformedDeltaIsSkippedNotRetriedForever) {
  RefusingPort nowhere;
  ASSERT_GT(nowhere.port(), 0);
  ASSERT_TRUE(n2_.Start(nowhere.PeerArgs())) << n2_.error();
  {
    auto c2 = n2_.Connect();
    ASSERT_EQ(Cmd(c2.get(), {"SET", "good", "v"}).str(), "OK");
  }
  const std::vector<LoggedDelta> real = ReadOriginLog(n2_);
  ASSERT_FALSE(real.empty());
  FakeOrigin origin(std::string(40, 'a'),
                    DeltaFrame(1, 99, real.back().args) + DeltaFrame(2, 0, real.back().args));
  ASSERT_GT(origin.port(), 0);
  ASSERT_TRUE(n0_.Start({"--peer", "127.0.0.1", std::to_string(origin.port())})) << n0_.error();
  auto c0 = n0_.Connect();
  EXPECT_TRUE(Eventually([&] { return Cmd(c0.get(), {"GET", "good"}).str() == "v"; }));
  EXPECT_EQ(InfoText(c0.get(), "peers", "malformed_deltas"), "1");
  EXPECT_NE(InfoText(c0.get(), "peers", "peer0").find(",applied=2,"), std::string::npos)
      << InfoText(c0.get(), "peers", "peer0");
  EXPECT_NE(n0_.ReadLog().find("delta 1 is malformed: skipped"), std::string::npos);
}

// The stream may arrive in any pieces (a delta split across reads is applied whole); bytes that
// are not an array of bulk strings end the session as unreadable, whatever they would say.
TEST_F(ActiveActiveJoinTest, AStreamSplitAnywhereIsAppliedAndANonArrayEndsTheSession) {
  RefusingPort nowhere;
  ASSERT_GT(nowhere.port(), 0);
  ASSERT_TRUE(n2_.Start(nowhere.PeerArgs())) << n2_.error();
  {
    auto c2 = n2_.Connect();
    ASSERT_EQ(Cmd(c2.get(), {"SET", "first", "1"}).str(), "OK");
    ASSERT_EQ(Cmd(c2.get(), {"SET", "second", "2"}).str(), "OK");
  }
  const std::vector<LoggedDelta> real = ReadOriginLog(n2_);
  ASSERT_GE(real.size(), 2u);
  const std::string one = DeltaFrame(1, 0, real[real.size() - 2].args);
  const std::string two = DeltaFrame(2, 0, real.back().args);
  // The first delta cut inside its header, the second inside its last argument, then an inline
  // line that would read as a delta if anything but arrays were taken.
  FakeOrigin origin(std::string(40, 'b'),
                    std::vector<std::string>{one.substr(0, 3), one.substr(3) + two.substr(0, 40),
                                             two.substr(40), "delta 3 1 0 put x y TS 1 NOTTL\r\n"});
  ASSERT_GT(origin.port(), 0);
  ASSERT_TRUE(n0_.Start({"--peer", "127.0.0.1", std::to_string(origin.port())})) << n0_.error();
  auto c0 = n0_.Connect();
  EXPECT_TRUE(Eventually([&] { return Cmd(c0.get(), {"GET", "second"}).str() == "2"; }));
  EXPECT_EQ(Cmd(c0.get(), {"GET", "first"}).str(), "1");
  EXPECT_TRUE(Eventually([&] {
    return n0_.ReadLog().find("stream lost (unreadable bytes)") != std::string::npos;
  })) << n0_.ReadLog();
  EXPECT_EQ(Cmd(c0.get(), {"EXISTS", "x"}).integer(), 0);
  EXPECT_EQ(InfoText(c0.get(), "peers", "malformed_deltas"), "0");
  EXPECT_NE(InfoText(c0.get(), "peers", "peer0").find(",applied=2,"), std::string::npos)
      << InfoText(c0.get(), "peers", "peer0");
}

}  // namespace
}  // namespace ebb::test
