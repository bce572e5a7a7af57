// Snapshots between active-active peers against spawned ebb-servers (docs/active-active.md,
// "Snapshots"): five nodes with a small origin log (peer-backlog-size) take random writes at every
// node while links are cut and healed in random patterns and nodes are killed (SIGKILL) and
// restarted; one node stays down while the others write more than their logs hold, so it can come
// back only through snapshots. After the final heal every node has the same DEBUG DIGEST-LOGICAL,
// equal to that of a sixth node joining empty (whose peers' logs no longer start at 1: snapshots
// again), and each node's vector names every peer's last origin offset. Then lag in bytes, INFO
// peers' snapshot fields, and CONFIG REWRITE's `peer` lines. Every wait is a bounded poll.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/active_active_support.h"
#include "tests/support/test_seed.h"
#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

using std::chrono::milliseconds;

constexpr int kMesh = 5;
constexpr const char* kBacklog = "40";

// A random convergent write: TLOG INS/TRIMAT, TREG SET, PUT with and without an expiry, DELETE,
// SET EX, over 8 keys per type and one key ("shared") every type writes, with few values and
// timestamps, so versions tie and types collide.
std::vector<std::string> MeshWrite(std::mt19937_64& rng) {
  auto pick = [&rng](uint64_t n) { return rng() % n; };
  const std::string value = "v" + std::to_string(pick(4));
  const std::string ts = std::to_string(1 + pick(300));
  const bool shared = pick(12) == 0;
  auto key = [&](const char* type) {
    return shared ? std::string("shared") : type + std::to_string(pick(8));
  };
  switch (pick(9)) {
    case 0:
    case 1:
      return {"TLOG", "INS", key("log"), value, ts};
    case 2:
      return {"TLOG", "TRIMAT", key("log"), std::to_string(1 + pick(120))};
    case 3:
      return {"TREG", "SET", key("reg"), value, ts};
    case 4:
      return {"PUT", key("str"), value, "TS", ts};
    case 5:
      return {"PUT", key("str"), value, "TS", ts, "PXAT", "4102444800000"};  // 2100
    case 6:
    case 7:
      return {"DELETE", key("str"), "TS", ts};
    default:
      return {"SET", key("str"), value, "EX", "86400"};
  }
}

// The INFO peers line of the link to `port` ("" if none).
std::string PeerLine(redisContext* c, int port) {
  const std::string info = Cmd(c, {"INFO", "peers"}).str();
  std::istringstream lines(info);
  std::string line;
  const std::string needle = ",port=" + std::to_string(port) + ",";
  while (std::getline(lines, line)) {
    if (line.starts_with("peer") && line.find(needle) != std::string::npos) return line;
  }
  return "";
}

// A field of an INFO peers line ("applied", "lag_bytes", ...) as a number; -1 if absent.
int64_t LineField(const std::string& line, const std::string& field) {
  const std::string needle = field + "=";
  size_t at = line.find("," + needle);
  if (at == std::string::npos) at = line.find(":" + needle);
  if (at == std::string::npos) return -1;
  return std::stoll(line.substr(at + 1 + needle.size()));
}

class ActiveActiveSnapshotTest : public ::testing::Test {
 protected:
  void TearDown() override {
    for (TestServer& server : nodes_) {
      if (server.Running()) {
        EXPECT_EQ(server.Stop(), 0) << server.ReadLog();
      }
    }
  }
  // The arguments of mesh node i: every other mesh node as a peer, a small log.
  std::vector<std::string> MeshArgs(int i) {
    std::vector<const TestServer*> others;
    for (int j = 0; j < kMesh; j++) {
      if (j != i) others.push_back(&nodes_[j]);
    }
    std::vector<std::string> args = PeerArgs(others);
    args.insert(args.end(), {"--peer-backlog-size", kBacklog});
    return args;
  }
  // Polls until the node at `c` has applied every origin offset of the nodes in `origins`
  // (INFO peers: its `applied` for each equals that node's own origin_offset); "" then.
  std::string WaitVector(redisContext* c, const std::vector<int>& origins,
                         std::vector<RedisConnection>& conns) {
    std::string last;
    for (int attempt = 0; attempt < 500; attempt++) {
      last.clear();
      for (int j : origins) {
        const int64_t end = InfoField(conns[j].get(), "peers", "origin_offset");
        const std::string line = PeerLine(c, nodes_[j].port());
        if (LineField(line, "applied") != end || LineField(line, "lag_bytes") != 0 ||
            line.find("state=connected") == std::string::npos) {
          last += "node " + std::to_string(j) + " at " + std::to_string(end) + ": " + line + "\n";
        }
      }
      if (last.empty()) return "";
      std::this_thread::sleep_for(milliseconds(20));
    }
    return last;
  }

  std::array<TestServer, kMesh + 1> nodes_;  // the mesh, then the late joiner
};

TEST_F(ActiveActiveSnapshotTest, FiveNodesConvergeThroughCutsKillsAndSnapshots) {
  for (int i = 0; i < kMesh; i++) ASSERT_TRUE(nodes_[i].Start(MeshArgs(i))) << nodes_[i].error();
  std::vector<RedisConnection> c;
  for (int i = 0; i < kMesh; i++) c.push_back(nodes_[i].Connect());
  const uint64_t seed = TestSeed(57);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  auto pick = [&rng](uint64_t n) { return static_cast<int>(rng() % n); };
  std::array<bool, kMesh> up{};
  up.fill(true);
  std::array<std::array<bool, kMesh>, kMesh> cut{};

  auto write_at = [&](int node, int count) {
    for (int i = 0; i < count; i++) {
      const std::vector<std::string> args = MeshWrite(rng);
      const Reply r = Cmd(c[node].get(), args);
      if (r.is_error()) {
        // Only a type collision on "shared" may fail, as it would on a single node.
        ASSERT_EQ(r.str().rfind("WRONGTYPE", 0), 0u) << r.str();
        ASSERT_NE(std::find(args.begin(), args.end(), "shared"), args.end()) << r.str();
      }
    }
  };
  auto write_round = [&](int count) {
    for (int i = 0; i < kMesh; i++) {
      if (up[i]) write_at(i, count);
    }
  };
  auto set_link = [&](int a, int b, bool link_up) {
    SetLink(c[a].get(), nodes_[a], c[b].get(), nodes_[b], link_up);
    cut[a][b] = cut[b][a] = !link_up;
  };
  auto kill = [&](int node) {
    nodes_[node].Kill();
    up[node] = false;
  };
  // A restarted node's links start up: what was cut before the kill is cut again.
  auto restart = [&](int node) {
    ASSERT_TRUE(nodes_[node].Start(MeshArgs(node))) << nodes_[node].error();
    c[node] = nodes_[node].Connect();
    up[node] = true;
    for (int j = 0; j < kMesh; j++) {
      if (j != node && up[j] && cut[node][j]) set_link(node, j, false);
    }
  };

  // Random cuts, heals and kills among nodes 0..3 while everyone writes.
  int killed = -1;
  for (int round = 0; round < 10; round++) {
    if (killed >= 0) {
      restart(killed);
      killed = -1;
    }
    const int a = pick(4);
    const int b = (a + 1 + pick(3)) % 4;
    switch (pick(4)) {
      case 0:
      case 1:
        set_link(a, b, false);
        break;
      case 2:
        set_link(a, b, true);
        break;
      default:
        kill(a);
        killed = a;
    }
    write_round(8);
  }
  if (killed >= 0) restart(killed);

  // Node 4 stays down while every other node writes more deltas than its log keeps: it can come
  // back only through a snapshot from each of them.
  std::array<int64_t, 4> applied_at_kill{};
  // Keys node 4 holds when it goes down, deleted and expired meanwhile: only the snapshot's
  // tombstone and expired version can hide them there.
  // The others are removed by whole-key operations, which leave nothing of the key on the
  // sender but its marker or its database's horizon: only those pieces can remove them there.
  ASSERT_EQ(Cmd(c[0].get(), {"PUT", "gone", "old", "TS", "1000"}).str(), "OK");
  ASSERT_EQ(Cmd(c[1].get(), {"PUT", "faded", "old", "TS", "1000"}).str(), "OK");
  ASSERT_EQ(Cmd(c[2].get(), {"TLOG", "INS", "dropped", "e", "1000"}).str(), "OK");
  ASSERT_EQ(Cmd(c[3].get(), {"PUT", "doomed", "v", "TS", "1000"}).str(), "OK");
  // Logs expired by an EXPIRE while node 4 is away: "lapsed" whole; "thinned" keeps an entry
  // written after the EXPIRE. Only the marker's register can expire them there, and the
  // entries it hides must travel too, for a later register brings them back.
  for (const char* log : {"lapsed", "thinned"}) {
    ASSERT_EQ(Cmd(c[0].get(), {"TLOG", "INS", log, "e", "1000"}).str(), "OK");
  }
  RedisConnection db2 = nodes_[1].Connect();
  ASSERT_EQ(Cmd(db2.get(), {"SELECT", "2"}).str(), "OK");
  ASSERT_EQ(Cmd(db2.get(), {"PUT", "flushed", "v", "TS", "1000"}).str(), "OK");
  RedisConnection db2_at_4 = nodes_[4].Connect();
  ASSERT_EQ(Cmd(db2_at_4.get(), {"SELECT", "2"}).str(), "OK");
  auto held_at_4 = [&] {
    return Cmd(c[4].get(), {"EXISTS", "gone", "faded", "dropped", "doomed", "lapsed"}).integer() +
           Cmd(db2_at_4.get(), {"EXISTS", "flushed"}).integer();
  };
  for (int attempt = 0; attempt < 500; attempt++) {
    if (held_at_4() == 6 && Cmd(c[4].get(), {"EXISTS", "thinned"}).integer() == 1) break;
    std::this_thread::sleep_for(milliseconds(10));
  }
  ASSERT_EQ(held_at_4(), 6);
  for (int j = 0; j < 4; j++) {
    applied_at_kill[j] = LineField(PeerLine(c[4].get(), nodes_[j].port()), "applied");
  }
  // A clean stop: what it applied is on disk (SIGKILL may lose the last second under wal-fsync
  // everysec, the vector with it, and then there is nothing for the snapshot to hide).
  ASSERT_EQ(nodes_[4].Stop(), 0);
  up[4] = false;
  ASSERT_EQ(Cmd(c[0].get(), {"DELETE", "gone", "TS", "2000"}).str(), "OK");
  ASSERT_EQ(Cmd(c[1].get(), {"PUT", "faded", "new", "TS", "2000", "PXAT", "3000"}).str(), "OK");
  ASSERT_EQ(Cmd(c[2].get(), {"DEL", "dropped"}).integer(), 1);
  ASSERT_EQ(Cmd(c[3].get(), {"PEXPIREAT", "doomed", "3000"}).integer(), 1);
  ASSERT_EQ(Cmd(c[0].get(), {"PEXPIREAT", "lapsed", "3000"}).integer(), 1);
  // "thinned" expires a second from now, and every node inserts "f" at once, after the EXPIRE
  // (so its T, this node's clock, does not cover it): no node ever holds the log expired whole.
  // Compaction may purge what a register expired whole at any time after the expiry, and a later
  // register could not bring that back where it is gone (docs/active-active.md, "Status"); the
  // entries a register hides in a log that stays live are kept.
  auto clock_ms = [&](redisContext* node) {
    const Reply time = Cmd(node, {"TIME"});
    return std::stoll(time[0].str()) * 1000 + std::stoll(time[1].str()) / 1000;
  };
  const int64_t thinned_expiry = clock_ms(c[0].get()) + 1000;
  ASSERT_EQ(Cmd(c[0].get(), {"PEXPIREAT", "thinned", std::to_string(thinned_expiry)}).integer(), 1);
  const std::string later = std::to_string(clock_ms(c[0].get()) + 60'000);
  for (int j = 0; j < 4; j++) {
    ASSERT_EQ(Cmd(c[j].get(), {"TLOG", "INS", "thinned", "f", later}).str(), "OK");
  }
  ASSERT_EQ(Cmd(db2.get(), {"FLUSHDB"}).str(), "OK");
  auto all_past = [&] {
    for (int j = 0; j < 4; j++) {
      if (InfoField(c[j].get(), "peers", "origin_log_first") <= applied_at_kill[j] + 1) {
        return false;
      }
    }
    return true;
  };
  for (int round = 0; round < 30 && !all_past(); round++) {
    write_round(20);
    const int a = pick(4);
    const int b = (a + 1 + pick(3)) % 4;
    set_link(a, b, pick(2) == 0);
  }
  ASSERT_TRUE(all_past());
  // The register has expired before node 4 takes its snapshots: the entry it hides travels.
  for (int i = 0; i < 200 && clock_ms(c[0].get()) <= thinned_expiry; i++) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  ASSERT_GT(clock_ms(c[0].get()), thinned_expiry);
  restart(4);
  write_round(6);

  for (int a = 0; a < kMesh; a++) {
    for (int b = a + 1; b < kMesh; b++) {
      if (cut[a][b]) set_link(a, b, true);
    }
  }
  std::vector<redisContext*> mesh;
  for (auto& conn : c) mesh.push_back(conn.get());
  ASSERT_EQ(WaitConverged(mesh, milliseconds(20000)), "");

  // Node 4 took a snapshot from each of the others and its vector says their last offsets.
  const std::string log4 = nodes_[4].ReadLog();
  int snapshots = 0;  // lines "Peer <id>: snapshot at origin offset N applied"
  std::istringstream lines(log4);
  for (std::string line; std::getline(lines, line);) {
    if (line.find(": snapshot at origin offset ") != std::string::npos &&
        line.ends_with(" applied")) {
      snapshots++;
    }
  }
  EXPECT_GE(snapshots, 4) << log4;
  EXPECT_EQ(WaitVector(c[4].get(), {0, 1, 2, 3}, c), "");
  db2_at_4 = nodes_[4].Connect();
  ASSERT_EQ(Cmd(db2_at_4.get(), {"SELECT", "2"}).str(), "OK");
  EXPECT_EQ(held_at_4(), 0);
  const Reply thinned = Cmd(c[4].get(), {"TLOG", "GET", "thinned"});
  ASSERT_EQ(thinned.size(), 1u);
  EXPECT_EQ(thinned[0][0].str(), "f");
  int64_t sent = 0;
  for (int j = 0; j < 4; j++) sent += InfoField(c[j].get(), "peers", "snapshots_sent");
  EXPECT_GE(sent, 4);

  // A sixth node joining empty: no peer's log starts at 1 any more, so it is built from
  // snapshots, then the streams; it reaches the digest of the mesh, which took every write.
  TestServer& joiner = nodes_[kMesh];
  std::vector<const TestServer*> all;
  for (int i = 0; i < kMesh; i++) all.push_back(&nodes_[i]);
  std::vector<std::string> joiner_args = PeerArgs(all);
  ASSERT_TRUE(joiner.Start(joiner_args)) << joiner.error();
  auto cj = joiner.Connect();
  mesh.push_back(cj.get());
  ASSERT_EQ(WaitConverged(mesh, milliseconds(20000)), "");
  EXPECT_EQ(WaitVector(cj.get(), {0, 1, 2, 3, 4}, c), "");
  // A later EXPIRE, from a node whose clock is behind the first register's expiry (it still
  // sees the hidden entry), replaces the register: the entry comes back on every node, the
  // joiner (built from snapshots) included.
  const int64_t real_ms = std::stoll(Cmd(c[0].get(), {"TIME"})[0].str()) * 1000;
  ASSERT_EQ(Cmd(c[3].get(), {"DEBUG", "CLOCK", "SET", std::to_string(thinned_expiry - 1000)}).str(),
            "OK");
  EXPECT_EQ(Cmd(c[3].get(), {"TLOG", "SIZE", "thinned"}).integer(), 2);
  const std::string in_a_day = std::to_string(real_ms + 86'400'000);
  EXPECT_EQ(Cmd(c[3].get(), {"PEXPIREAT", "thinned", in_a_day}).integer(), 1);
  ASSERT_EQ(Cmd(c[3].get(), {"DEBUG", "CLOCK", "SET", std::to_string(real_ms)}).str(), "OK");
  ASSERT_EQ(WaitConverged(mesh, milliseconds(20000)), "");
  EXPECT_EQ(Cmd(cj.get(), {"TLOG", "SIZE", "thinned"}).integer(), 2);

  // Writes after the snapshots reach the joiner through the streams.
  for (int i = 0; i < kMesh; i++) {
    ASSERT_EQ(Cmd(c[i].get(), {"TLOG", "INS", "after", "n" + std::to_string(i), "5"}).str(), "OK");
  }
  ASSERT_EQ(WaitConverged(mesh, milliseconds(20000)), "");
  EXPECT_EQ(Cmd(cj.get(), {"TLOG", "SIZE", "after"}).integer(), kMesh);
}

// Lag in bytes: the receiver counts its position in the peer's stream from the position the
// peer names when the stream (re)starts, so after a catch-up the lag is 0 bytes, not the bytes
// streamed before; PEER LIST says the same; a snapshot leaves it at 0 too.
TEST_F(ActiveActiveSnapshotTest, LagInBytesAfterCatchUpAndSnapshot) {
  TestServer& a = nodes_[0];
  TestServer& b = nodes_[1];
  ASSERT_TRUE(a.Start(PeerArgs({&b}))) << a.error();
  ASSERT_TRUE(b.Start(PeerArgs({&a}))) << b.error();
  auto ca = a.Connect();
  auto cb = b.Connect();
  ASSERT_EQ(Cmd(ca.get(), {"PUT", "k", "first", "TS", "1"}).str(), "OK");
  ASSERT_EQ(WaitConverged({ca.get(), cb.get()}), "");

  // b stops pulling a; a writes; b resumes from its vector.
  ASSERT_TRUE(SetPull(cb.get(), a, false));
  for (int i = 0; i < 30; i++) {
    ASSERT_EQ(Cmd(ca.get(), {"TLOG", "INS", "log", "e" + std::to_string(i), "10"}).str(), "OK");
  }
  EXPECT_NE(PeerLine(cb.get(), a.port()).find("state=paused"), std::string::npos);
  ASSERT_TRUE(SetPull(cb.get(), a, true));
  ASSERT_EQ(WaitConverged({ca.get(), cb.get()}), "");
  std::vector<RedisConnection> conns;
  conns.push_back(a.Connect());
  EXPECT_EQ(WaitVector(cb.get(), {0}, conns), "");
  const Reply list = Cmd(cb.get(), {"PEER", "LIST"});
  ASSERT_EQ(list.size(), 1u);
  const std::string fields = list[0].ToString();
  EXPECT_NE(fields.find("lag_bytes"), std::string::npos) << fields;
  EXPECT_NE(fields.find("lag_deltas"), std::string::npos) << fields;

  // The origin's INFO says where its log starts and how many snapshots it sent (none yet).
  EXPECT_EQ(InfoField(ca.get(), "peers", "snapshots_sent"), 0);
  EXPECT_EQ(InfoField(ca.get(), "peers", "origin_offset"), 31);
}

// Backpressure: a peer that stops reading while this node writes more than its log holds has
// its stream closed (the deltas it lacks have left the log); when it reads again it reconnects,
// gets a snapshot, and catches up.
TEST_F(ActiveActiveSnapshotTest, APeerPastTheBacklogIsMovedToASnapshot) {
  TestServer& a = nodes_[0];
  TestServer& b = nodes_[1];
  ASSERT_TRUE(
      a.Start({"--peer", "127.0.0.1", std::to_string(b.port()), "--peer-backlog-size", "100"}))
      << a.error();
  ASSERT_TRUE(b.Start(PeerArgs({&a}))) << b.error();
  auto ca = a.Connect();
  auto cb = b.Connect();
  ASSERT_EQ(Cmd(ca.get(), {"SET", "start", "1"}).str(), "OK");
  ASSERT_EQ(WaitConverged({ca.get(), cb.get()}), "");
  ASSERT_EQ(InfoField(ca.get(), "peers", "subscribed_peers"), 1);

  // b stops (SIGSTOP): its socket fills, then a's output for it grows past the log.
  ASSERT_EQ(kill(b.pid(), SIGSTOP), 0);
  const std::string value(16 * 1024, 'x');
  int64_t subscribed = 1;
  for (int i = 0; i < 4000 && subscribed != 0; i++) {
    ASSERT_EQ(Cmd(ca.get(), {"SET", "big" + std::to_string(i % 500), value}).str(), "OK");
    if (i % 100 == 99) subscribed = InfoField(ca.get(), "peers", "subscribed_peers");
  }
  for (int i = 0; i < 100 && subscribed != 0; i++) {
    std::this_thread::sleep_for(milliseconds(20));
    subscribed = InfoField(ca.get(), "peers", "subscribed_peers");
  }
  EXPECT_EQ(subscribed, 0);
  ASSERT_EQ(kill(b.pid(), SIGCONT), 0);
  // INFO first, digests once the snapshot is in: a digest reads the whole keyspace on the io
  // thread that sends the snapshot, and polled during the transfer under a sanitizer it can
  // hold that thread past the link's 3 s of silence, and b asks for a second snapshot.
  std::vector<RedisConnection> conns;
  conns.push_back(a.Connect());
  ASSERT_EQ(WaitVector(cb.get(), {0}, conns), "");
  EXPECT_EQ(WaitConverged({ca.get(), cb.get()}), "");
  EXPECT_EQ(InfoField(ca.get(), "peers", "snapshots_sent"), 1);
  EXPECT_NE(a.ReadLog().find("more than this node's log (peer-backlog-size) holds"),
            std::string::npos);
}

// What PEER SYNC from `from` answers: "SNAPSHOT ...", or the offset of the first delta streamed.
std::string FirstStreamed(const TestServer& node, uint64_t from) {
  RedisConnection c = node.Connect();
  const std::string start =
      Cmd(c.get(), {"PEER", "SYNC", std::string(40, 'f'), std::to_string(from)}).str();
  if (start.rfind("CONTINUE ", 0) != 0) return start;
  for (int i = 0; i < 100; i++) {
    void* raw = nullptr;
    const Reply r =
        ReplyFromHiredis(c.get(), redisGetReply(c.get(), &raw) == REDIS_OK ? raw : nullptr);
    if (const std::optional<server::PeerDelta> delta = StreamedDelta(r)) {
      return std::to_string(delta->offset);
    }
    if (!r.is_array() || r.size() == 0 || r[0].str() != "tick") return r.ToString();
  }
  return "no delta after 100 ticks";
}

// A smaller peer-backlog-size drops the deltas beyond it from the log with the next write; their
// rows wait on disk for TrimLogRows (60 s here), and a restart loads only the newest
// peer-backlog-size rows and deletes the older ones. So a restarted node's log is one gap-free
// run: a peer asking inside it streams from exactly there, one asking before it gets a snapshot,
// a restart with a larger backlog finds no older row, and a new peer's stream after its snapshot
// carries the writes that follow.
TEST_F(ActiveActiveSnapshotTest, AShrunkBacklogLeavesAGapFreeLogAcrossARestart) {
  TestServer& a = nodes_[0];
  TestServer& b = nodes_[1];
  RefusingPort nowhere;
  ASSERT_GT(nowhere.port(), 0);
  auto args_with_backlog = [&nowhere](const std::string& backlog) {
    std::vector<std::string> args = nowhere.PeerArgs();
    args.insert(args.end(), {"--peer-backlog-size", backlog});
    return args;
  };
  ASSERT_TRUE(a.Start(args_with_backlog("100"))) << a.error();
  {
    auto ca = a.Connect();
    for (int i = 0; i < 50; i++) {
      ASSERT_EQ(Cmd(ca.get(), {"SET", "k" + std::to_string(i), "v"}).str(), "OK");
    }
    ASSERT_EQ(Cmd(ca.get(), {"CONFIG", "SET", "peer-backlog-size", "10"}).str(), "OK");
    for (int i = 50; i < 55; i++) {
      ASSERT_EQ(Cmd(ca.get(), {"SET", "k" + std::to_string(i), "v"}).str(), "OK");
    }
    EXPECT_EQ(InfoField(ca.get(), "peers", "origin_log_first"),
              InfoField(ca.get(), "peers", "origin_offset") - 9);
  }
  a.Stop();
  ASSERT_TRUE(a.Start(args_with_backlog("10"))) << a.error();
  auto ca = a.Connect();
  const int64_t end = InfoField(ca.get(), "peers", "origin_offset");
  const int64_t first = InfoField(ca.get(), "peers", "origin_log_first");
  ASSERT_GE(end, 55);
  EXPECT_EQ(first, end - 9);
  for (int64_t from = first; from <= end; from++) {
    EXPECT_EQ(FirstStreamed(a, static_cast<uint64_t>(from)), std::to_string(from));
  }
  EXPECT_EQ(FirstStreamed(a, static_cast<uint64_t>(first - 1)).rfind("SNAPSHOT ", 0), 0u);
  a.Stop();
  ASSERT_TRUE(a.Start(args_with_backlog("100"))) << a.error();
  ca = a.Connect();
  EXPECT_EQ(InfoField(ca.get(), "peers", "origin_log_first"), first);

  // A new peer: a snapshot at the end, then the stream of what follows.
  ASSERT_TRUE(b.Start(PeerArgs({&a}))) << b.error();
  ASSERT_EQ(Cmd(ca.get(), {"PEER", "ADD", "127.0.0.1", std::to_string(b.port())}).str(), "OK");
  auto cb = b.Connect();
  ASSERT_EQ(WaitConverged({ca.get(), cb.get()}), "");
  ASSERT_EQ(Cmd(ca.get(), {"SET", "after", "restart"}).str(), "OK");
  ASSERT_EQ(WaitConverged({ca.get(), cb.get()}), "");
  EXPECT_EQ(Cmd(cb.get(), {"GET", "after"}).str(), "restart");
  EXPECT_EQ(Cmd(cb.get(), {"GET", "k0"}).str(), "v");
}

// The rows of the deltas that left the log leave the disk too, in bulk: with a purge deadline of
// 1 s, within about 125 ms of the first Cron that finds them. A value only those rows held (each
// key's later SET replaced it) is then in no file of the data directory after DEBUG COMPACT.
TEST_F(ActiveActiveSnapshotTest, RowsOfDeltasThatLeftTheLogLeaveTheDisk) {
  TestServer& a = nodes_[0];
  RefusingPort nowhere;
  ASSERT_GT(nowhere.port(), 0);
  std::vector<std::string> args = nowhere.PeerArgs();
  args.insert(args.end(), {"--peer-backlog-size", "10", "--expiry-purge-deadline", "1s"});
  ASSERT_TRUE(a.Start(args)) << a.error();
  auto ca = a.Connect();
  const std::string secret = "Wq3eR8tY1uI6oP0aS5dF9gH2jK7lZ4xC";
  for (int i = 0; i < 20; i++) {
    ASSERT_EQ(Cmd(ca.get(), {"PUT", "k" + std::to_string(i), secret, "TS", "1"}).str(), "OK");
  }
  for (int i = 0; i < 20; i++) {
    ASSERT_EQ(Cmd(ca.get(), {"SET", "k" + std::to_string(i), "x"}).str(), "OK");
  }
  EXPECT_EQ(InfoField(ca.get(), "peers", "origin_log_first"), 31);
  bool gone = false;
  for (int i = 0; i < 50 && !gone; i++) {
    ASSERT_EQ(Cmd(ca.get(), {"DEBUG", "COMPACT"}).ToString(), "OK");
    gone = !DirContains(a.data_dir(), secret);
    if (!gone) std::this_thread::sleep_for(milliseconds(100));
  }
  EXPECT_TRUE(gone) << a.ReadLog();
  ASSERT_TRUE(a.Restart()) << a.error();
  auto again = a.Connect();
  EXPECT_EQ(InfoField(again.get(), "peers", "origin_log_first"), 31);
  EXPECT_EQ(InfoField(again.get(), "peers", "origin_offset"), 40);
  EXPECT_EQ(FirstStreamed(a, 31), "31");
}

// CONFIG REWRITE writes the running peers as `peer host port` lines: PEER ADD and PEER REMOVE
// change them, and a restart from the rewritten file links the same peers.
TEST_F(ActiveActiveSnapshotTest, ConfigRewriteWritesThePeers) {
  TestServer& a = nodes_[0];
  TestServer& b = nodes_[1];
  TestServer& d = nodes_[2];
  const std::string conf = a.dir() + "/ebb.conf";
  std::ofstream(conf) << "# peers below\ntimeout 0\n";
  ASSERT_TRUE(b.Start(PeerArgs({&a}))) << b.error();
  ASSERT_TRUE(d.Start()) << d.error();
  ASSERT_TRUE(a.Start({conf})) << a.error();
  auto ca = a.Connect();
  const std::string b_port = std::to_string(b.port());
  const std::string d_port = std::to_string(d.port());
  ASSERT_EQ(Cmd(ca.get(), {"PEER", "ADD", "127.0.0.1", b_port}).str(), "OK");
  ASSERT_EQ(Cmd(ca.get(), {"PEER", "ADD", "127.0.0.1", d_port}).str(), "OK");
  EXPECT_EQ(Cmd(ca.get(), {"CONFIG", "GET", "peer"})[1].str(),
            "127.0.0.1 " + b_port + " 127.0.0.1 " + d_port);
  ASSERT_EQ(Cmd(ca.get(), {"CONFIG", "REWRITE"}).str(), "OK");
  auto read = [&] {
    std::ifstream in(conf);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  std::string text = read();
  EXPECT_NE(text.find("\npeer 127.0.0.1 " + b_port + "\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\npeer 127.0.0.1 " + d_port + "\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# peers below"), std::string::npos) << text;

  ASSERT_EQ(Cmd(ca.get(), {"PEER", "REMOVE", "127.0.0.1", d_port}).str(), "OK");
  ASSERT_EQ(Cmd(ca.get(), {"CONFIG", "REWRITE"}).str(), "OK");
  text = read();
  EXPECT_NE(text.find("\npeer 127.0.0.1 " + b_port + "\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("peer 127.0.0.1 " + d_port), std::string::npos) << text;

  // Restarted from the file, the node links b again.
  ASSERT_EQ(a.Stop(), 0);
  ASSERT_TRUE(a.Start({conf})) << a.error();
  ca = a.Connect();
  const Reply list = Cmd(ca.get(), {"PEER", "LIST"});
  ASSERT_EQ(list.size(), 1u);
  EXPECT_NE(list[0].ToString().find(b_port), std::string::npos) << list[0].ToString();
}

}  // namespace
}  // namespace ebb::test
