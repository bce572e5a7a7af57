// A seeded nemesis against active-active, Jepsen-style: three linked nodes take random writes of
// every kind the mode merges (RandomWrite, and time series: SeriesWrite), each node pulling from
// each peer through a FaultProxy, while a schedule drawn from the seed breaks things: links cut one
// way (a node stops pulling from one peer) or healed, a link delayed (both ways or one), a node
// killed with SIGKILL and restarted, a node's clock jumped forward, a node's data directory copied
// aside (stopped, copied, started) and later restored from that copy, a node's power cut (DEBUG
// POWER-CUT) — the last two once every node has everything, so each lost delta is still on the
// peers that applied it —, a restored node killed again at once after its start, while it may be
// taking a new id or receiving its peers' snapshots, a snapshot provoked and its receiver or
// its sender killed with SIGKILL while the receiver is taking it (INFO peers state=snapshot): a
// node stops pulling from a peer, the peer writes a few large values and its log shrinks to two
// deltas (CONFIG SET peer-backlog-size 2), so the node, pulling again, gets a snapshot — and a
// node's full compaction (DEBUG COMPACT), which collects the observed-remove deletes it may.
//
// The checker, at the end, with every link healed and one clock for all: every node answers the
// same DEBUG DIGEST-LOGICAL, every node holds the same key markers and horizons (their deletes
// with the dots that made them and the expiry registers, read from the stopped nodes' data
// directories: what collecting them will go by; the type floor left out), and so does a node given
// every delta the mesh logged (DEBUG PEER-APPLY) for the digest, in a seeded random
// interleaving of the origins' logs that keeps each origin's order, as links give them — each
// node's log is read after every step and before each loss, so the deltas a restored or power-cut
// node lost are there too. Such a node, behind what it streamed, takes a new node id before
// anything more is written to it (docs/active-active.md, "A node behind what it streamed") — unless
// no peer can tell, when it was restored on an id every peer has since forgotten the position of:
// it then gives offsets it had streamed again, to new deltas, and the reference gets both
// (DeltaCollector::Rewound).
//
// The test runs once under each string rule (`active-active-string-rule`, docs/active-active.md,
// "The string rule"): `timestamp`, and `observed-remove`, where the INCR family is refused and
// the writes to counter keys are SETs (RandomWrite, Counters::kNone).
//
// Bounds: EBB_NEMESIS_STEPS steps (default 8; `make soak` runs more), each a fault then 20
// writes at every node; every wait is a bounded poll. EBB_TEST_SEED picks the schedule; a
// failure prints the seed and the schedule that reproduces it.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "server/active_active/whole_key.h"
#include "tests/support/active_active_support.h"
#include "tests/support/eventually.h"
#include "tests/support/fault_proxy.h"
#include "tests/support/test_seed.h"
#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

namespace fs = std::filesystem;

constexpr int kNodes = 3;

// The key marker, horizon and collect rows (docs/key-encoding.md, "Active-active markers") of
// the stopped node whose data directory is `dir`: name -> value. A key marker's type floor is
// left out (a row that holds nothing else with it): a delete raises the floor to the type of
// content it meets even when that content outlives the delete, which a node that gets the
// content after the delete does not (docs/active-active.md, "The type floor").
std::map<std::string, std::string> MarkerRows(const std::string& dir) {
  std::map<std::string, std::string> rows;
  for (auto& [name, value] : StoppedNodeSystemRows(dir, "aa-key:")) {
    server::KeyMarker marker;
    if (!server::DecodeKeyMarker(value, &marker)) {
      ADD_FAILURE() << "a key marker does not decode: " << name;
      continue;
    }
    marker.floor = 0;
    if (!marker.deletes.empty() || marker.expiry) rows[name] = server::EncodeKeyMarker(marker);
  }
  rows.merge(StoppedNodeSystemRows(dir, "aa-horizon:"));
  rows.merge(StoppedNodeSystemRows(dir, "aa-collect:"));
  return rows;
}

// The names whose rows differ between `a` and `b` (one side may lack the row), at most 10.
std::string DifferingRows(const std::map<std::string, std::string>& a,
                          const std::map<std::string, std::string>& b) {
  std::string out;
  int listed = 0;
  for (const auto* side : {&a, &b}) {
    const auto& other = side == &a ? b : a;
    for (const auto& [name, value] : *side) {
      auto found = other.find(name);
      if ((found == other.end() || found->second != value) && listed++ < 10) {
        out += "  " + name + (found == other.end() ? " (on one side only)\n" : "\n");
      }
    }
  }
  return out;
}

class ActiveActiveNemesisTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    for (int i = 0; i < kNodes; i++) nodes_.push_back(std::make_unique<TestServer>());
    for (int a = 0; a < kNodes; a++) {
      for (int b = 0; b < kNodes; b++) {
        if (a == b) continue;
        links_[a][b] = std::make_unique<FaultProxy>(nodes_[b]->port());
        ASSERT_NE(links_[a][b]->port(), 0);
      }
    }
    for (int i = 0; i < kNodes; i++) {
      ASSERT_TRUE(nodes_[i]->Start(Args(i))) << nodes_[i]->error();
      conns_.push_back(nodes_[i]->Connect());
      clocks_.push_back(now_);
      ASSERT_EQ(Cmd(conns_[i].get(), PinClock(now_)).str(), "OK");
    }
  }
  void TearDown() override {
    for (auto& node : nodes_) {
      if (node->Running()) {
        EXPECT_EQ(node->Stop(), 0) << node->ReadLog();
      }
    }
    if (reference_.Running()) reference_.Stop();
  }

  // Node `node` pulls from each peer through its link's proxy.
  std::vector<std::string> Args(int node) const {
    std::vector<std::string> args;
    for (int j = 0; j < kNodes; j++) {
      if (j != node) args.insert(args.end(), {"--peer", "127.0.0.1", LinkPort(node, j)});
    }
    const std::vector<std::string> options = NodeOptions();
    args.insert(args.end(), options.begin(), options.end());
    return args;
  }
  // RandomWrite's options and the string rule under test, for the nodes and the reference.
  static std::vector<std::string> NodeOptions() {
    std::vector<std::string> options = kNodeOptions;
    options.insert(options.end(), {"--active-active-string-rule", GetParam()});
    return options;
  }
  static Counters CountersUnderTest() {
    return std::string_view(GetParam()) == "observed-remove" ? Counters::kNone
                                                             : Counters::kIncluded;
  }
  // The port node `a` knows peer `b` by: the proxy of a's link to b.
  std::string LinkPort(int a, int b) const { return std::to_string(links_[a][b]->port()); }
  // DEBUG PEER-LINK at node `a` for its link to `b`.
  void SetPeerLink(int a, int b, bool up) {
    ASSERT_EQ(Cmd(conns_[a].get(),
                  {"DEBUG", "PEER-LINK", "127.0.0.1", LinkPort(a, b), up ? "UP" : "DOWN"})
                  .str(),
              "OK");
  }
  static std::vector<std::string> PinClock(int64_t ms) {
    return {"DEBUG", "CLOCK", "SET", std::to_string(ms)};
  }
  void Note(const std::string& what) { schedule_ += "  " + what + "\n"; }
  std::string Failed() const {
    return "seed " + std::to_string(seed_) + ", string rule " + GetParam() + ", schedule:\n" +
           schedule_ + LogTails(nodes_);
  }

  // One write at `node`, its clock pinned first (a node's clock moves only with the test's).
  void WriteAt(int node) {
    now_++;
    clocks_[node] = std::max(clocks_[node] + 1, now_);
    redisContext* c = conns_[node].get();
    ASSERT_EQ(Cmd(c, PinClock(clocks_[node])).str(), "OK");
    bool expect_refused = false;
    const bool series = rng_() % 8 == 0;
    const std::vector<std::string> args =
        series ? SeriesWrite() : RandomWrite(rng_, now_, &expect_refused, CountersUnderTest());
    const Reply r = Cmd(c, args);
    if (expect_refused) {
      ASSERT_TRUE(r.is_error()) << args[0];
      return;
    }
    if (r.is_error() && !AcceptedSeriesError(r.str())) {  // a type collision, as on one node
      ASSERT_EQ(r.str().rfind("WRONGTYPE", 0), 0u) << args[0] << ": " << r.str();
    }
  }

  // A time-series write (docs/active-active.md, "Time series"): adds of a few timestamps under
  // every duplicate policy, INCRBY, CREATE, ALTER and range deletes (TS.DEL), on "v*" and now and
  // then "mix", where the other types collide with it.
  std::vector<std::string> SeriesWrite() {
    auto pick = [this](uint64_t n) { return rng_() % n; };
    static constexpr const char* kPolicies[] = {"BLOCK", "FIRST", "LAST", "MIN", "MAX", "SUM"};
    const std::string key = pick(8) == 0 ? "mix" : "v" + std::to_string(pick(3));
    const std::string policy = kPolicies[pick(6)];
    switch (pick(7)) {
      case 0:
        return {"TS.CREATE", key, "DUPLICATE_POLICY", policy};
      case 3: {
        const int64_t from = now_ - 200 + static_cast<int64_t>(pick(400));
        return {"TS.DEL", key, std::to_string(from), std::to_string(from + pick(150))};
      }
      case 1:
        return {"TS.ALTER", key, "DUPLICATE_POLICY",     policy,
                "LABELS",   "n", std::to_string(pick(3))};
      case 2:
        return {"TS.INCRBY", key, std::to_string(pick(5)), "TIMESTAMP", std::to_string(now_)};
      default: {
        std::vector<std::string> add = {"TS.ADD", key, std::to_string(now_ - 200 + pick(400)),
                                        std::to_string(pick(10))};
        if (pick(2) == 0) add.insert(add.end(), {"ON_DUPLICATE", policy});
        return add;
      }
    }
  }
  // The errors a series write may answer on its origin, as a single node would: RedisTimeSeries'
  // (the key exists or is missing, a BLOCK duplicate, an INCRBY below the newest sample, another
  // type), a sample a delete covers.
  static bool AcceptedSeriesError(const std::string& error) {
    for (const char* prefix :
         {"ERR TSDB: ", "ERR the sample's timestamp is at or before a delete"}) {
      if (error.rfind(prefix, 0) == 0) return true;
    }
    return false;
  }

  // Starts node `i` on its data again, its clock pinned where it was.
  void Restart(int i) {
    ASSERT_TRUE(nodes_[i]->Start(Args(i))) << nodes_[i]->error();
    conns_[i] = nodes_[i]->Connect();
    ASSERT_EQ(Cmd(conns_[i].get(), PinClock(clocks_[i])).str(), "OK");
  }

  void HealAll() {
    for (int a = 0; a < kNodes; a++) {
      for (int b = 0; b < kNodes; b++) {
        if (a == b) continue;
        links_[a][b]->SetMode(FaultProxy::Mode::kOpen);
        ASSERT_NO_FATAL_FAILURE(SetPeerLink(a, b, true));
      }
    }
  }

  std::vector<redisContext*> All() {
    std::vector<redisContext*> all;
    for (auto& c : conns_) all.push_back(c.get());
    return all;
  }

  // Moves every node's clock to the one furthest ahead: what reads show (expiry) can be compared.
  void OneClock() {
    const int64_t common = *std::max_element(clocks_.begin(), clocks_.end());
    for (int i = 0; i < kNodes; i++) {
      clocks_[i] = common;
      ASSERT_EQ(Cmd(conns_[i].get(), PinClock(common)).str(), "OK");
    }
  }

  // Adds to the reference's deltas what each node's log holds beyond what was read before.
  void Collect() {
    for (const auto& node : nodes_) collected_.Collect(*node);
  }

  // The last offset of origin `id` that `observer` applied (INFO peers), 0 if none.
  static int64_t AppliedOf(redisContext* observer, const std::string& id) {
    const std::string info = Cmd(observer, {"INFO", "peers"}).str();
    const size_t at = info.find("id=" + id + ",applied=");
    if (at == std::string::npos) return 0;
    return std::stoll(info.substr(at + id.size() + 12));
  }

  // Waits until no node has logged anything for 3 s and none is behind another: a node logs a
  // collect of its own once the stable vector covers a delete it holds (docs/active-active.md,
  // "Collects"), a second or so after the writes that made it, and none after that until a new
  // delete arrives.
  void WaitQuiet() {
    std::vector<long long> ends(kNodes, -1);
    auto quiet_since = std::chrono::steady_clock::now();
    EXPECT_TRUE(Eventually(
        [&] {
          bool same = true;
          for (int i = 0; i < kNodes; i++) {
            const long long end = InfoField(conns_[i].get(), "peers", "origin_offset");
            same = same && end == ends[i] &&
                   InfoField(conns_[i].get(), "peers", "max_peer_lag_deltas") == 0;
            ends[i] = end;
          }
          if (!same) quiet_since = std::chrono::steady_clock::now();
          return std::chrono::steady_clock::now() - quiet_since > std::chrono::seconds(3);
        },
        30))
        << Failed();
  }

  // Heals every link, gives every node one clock, lets the collects settle and waits until every
  // peer of node `i` has applied its every delta (equal reads alone do not say so: a delta that
  // loses changes nothing): what node `i` is about to lose is then on its peers.
  void Settle(int i) {
    HealAll();
    OneClock();
    EXPECT_EQ(WaitConverged(All()), "")
        << "where node 0 and node 1 differ:\n"
        << LogicalDifference(conns_[0].get(), conns_[1].get())
        << "where node 1 and node 2 differ:\n"
        << LogicalDifference(conns_[1].get(), conns_[2].get()) << Failed();
    WaitQuiet();
    const int64_t end = InfoField(conns_[i].get(), "peers", "origin_offset");
    const std::string id = Cmd(conns_[i].get(), {"PEER", "ID"}).str();
    for (int j = 0; j < kNodes; j++) {
      if (j == i) continue;
      for (int tries = 0; tries < 500 && AppliedOf(conns_[j].get(), id) < end; tries++) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      EXPECT_EQ(AppliedOf(conns_[j].get(), id), end)
          << "node " << j << " within 10 s: " << Cmd(conns_[j].get(), {"INFO", "peers"}).str()
          << Failed();
    }
    Collect();
  }

  // Node `i`, started again after losing deltas: waits until each peer streams from it as it now
  // is (its link to it connected, under the id it now has, and the node streaming to every peer:
  // a link may still say connected over a connection to the process that died). A node behind
  // what it streamed takes a new id when a peer first asks it for more than it holds, so nothing
  // is written to it before that is settled.
  void AwaitPeersFollow(int i, const std::string& old_id) {
    const auto port = [&](int j) { return "port=" + LinkPort(j, i) + ",state=connected,id="; };
    std::string id;
    for (int tries = 0; tries < 500; tries++) {
      id = Cmd(conns_[i].get(), {"PEER", "ID"}).str();
      bool all = InfoField(conns_[i].get(), "peers", "subscribed_peers") >= kNodes - 1;
      for (int j = 0; j < kNodes && all; j++) {
        if (j == i) continue;
        all = Cmd(conns_[j].get(), {"INFO", "peers"}).str().find(port(j) + id + ",") !=
              std::string::npos;
      }
      if (all) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (id != old_id) Note("  (now node " + id.substr(0, 8) + ")");
    ASSERT_GE(InfoField(conns_[i].get(), "peers", "subscribed_peers"), kNodes - 1)
        << "node " << i << " does not stream to every peer within 10 s";
    for (int j = 0; j < kNodes; j++) {
      if (j == i) continue;
      ASSERT_NE(Cmd(conns_[j].get(), {"INFO", "peers"}).str().find(port(j) + id + ","),
                std::string::npos)
          << "node " << j << " does not stream from node " << i << " within 10 s";
    }
  }

  void Step();
  void KillDuringSnapshot(int receiver, int sender, bool kill_sender);

  std::vector<std::unique_ptr<TestServer>> nodes_;
  std::unique_ptr<FaultProxy> links_[kNodes][kNodes];  // [puller][source]; null on the diagonal
  std::vector<RedisConnection> conns_;
  std::vector<int64_t> clocks_;
  int64_t now_ = kClockBase;
  uint64_t seed_ = TestSeed(3);
  std::mt19937_64 rng_{seed_};
  std::string schedule_;
  std::vector<std::string> copies_ = std::vector<std::string>(kNodes);  // "" until one is taken
  DeltaCollector collected_;  // every delta logged, once (Collect)
  TestServer reference_;
};

void ActiveActiveNemesisTest::Step() {
  const int node = static_cast<int>(rng_() % kNodes);
  const std::string name = "node " + std::to_string(node);
  const int peer = (node + 1 + static_cast<int>(rng_() % (kNodes - 1))) % kNodes;
  switch (rng_() % 10) {
    case 0: {
      Note(name + " stops pulling from node " + std::to_string(peer));
      ASSERT_NO_FATAL_FAILURE(SetPeerLink(node, peer, false));
      break;
    }
    case 7: {
      static constexpr FaultProxy::Mode kModes[] = {FaultProxy::Mode::kDelay,
                                                    FaultProxy::Mode::kDelayToTarget,
                                                    FaultProxy::Mode::kDelayFromTarget};
      static constexpr const char* kWhat[] = {"both ways", "its requests", "the stream"};
      const size_t how = rng_() % 3;
      const std::chrono::milliseconds delay(10 + static_cast<int64_t>(rng_() % 1000));
      Note("delay " + name + "'s link to node " + std::to_string(peer) + ", " + kWhat[how] +
           ", by " + std::to_string(delay.count()) + " ms");
      links_[node][peer]->set_delay(delay);
      links_[node][peer]->SetMode(kModes[how]);
      break;
    }
    case 8:
      ASSERT_NO_FATAL_FAILURE(KillDuringSnapshot(node, peer, rng_() % 2 == 0));
      break;
    case 9:
      // A full compaction: under the observed-remove rule it collects every delete the node
      // has observed all of (docs/active-active.md, "Collection of observed-remove deletes").
      Note("compaction of " + name);
      ASSERT_EQ(Cmd(conns_[node].get(), {"DEBUG", "COMPACT"}).str(), "OK");
      break;
    case 1:
      Note("heal every link");
      ASSERT_NO_FATAL_FAILURE(HealAll());
      break;
    case 2:
      Note("kill -9 of " + name + ", restart");
      nodes_[node]->Kill();
      ASSERT_NO_FATAL_FAILURE(Restart(node));
      break;
    case 3: {
      const int64_t ms = 1000 + static_cast<int64_t>(rng_() % 60000);
      Note("clock of " + name + " forward " + std::to_string(ms) + " ms");
      clocks_[node] += ms;
      ASSERT_EQ(Cmd(conns_[node].get(), PinClock(clocks_[node])).str(), "OK");
      break;
    }
    case 4:
      Note("copy of " + name + "'s data directory");
      ASSERT_EQ(nodes_[node]->Stop(), 0) << nodes_[node]->ReadLog();
      copies_[node] = nodes_[node]->dir() + "/copy";
      fs::remove_all(copies_[node]);
      fs::copy(nodes_[node]->data_dir(), copies_[node], fs::copy_options::recursive);
      ASSERT_NO_FATAL_FAILURE(Restart(node));
      break;
    case 5: {
      if (copies_[node].empty()) return Note(name + " has no copy to restore");
      const bool kill_during_snapshots = rng_() % 2 == 0;
      Note(name + " restored from its copy" +
           (kill_during_snapshots ? ", killed at once and restarted" : ""));
      const std::string id = Cmd(conns_[node].get(), {"PEER", "ID"}).str();
      ASSERT_NO_FATAL_FAILURE(Settle(node));
      ASSERT_EQ(nodes_[node]->Stop(), 0) << nodes_[node]->ReadLog();
      fs::remove_all(nodes_[node]->data_dir());
      fs::copy(copies_[node], nodes_[node]->data_dir(), fs::copy_options::recursive);
      ASSERT_NO_FATAL_FAILURE(Restart(node));
      if (kill_during_snapshots) {
        nodes_[node]->Kill();
        ASSERT_NO_FATAL_FAILURE(Restart(node));
      }
      ASSERT_NO_FATAL_FAILURE(AwaitPeersFollow(node, id));
      ASSERT_NO_FATAL_FAILURE(collected_.Rewound(*nodes_[node]));
      break;
    }
    default: {
      Note("power cut of " + name + ", restart");
      const std::string id = Cmd(conns_[node].get(), {"PEER", "ID"}).str();
      ASSERT_NO_FATAL_FAILURE(Settle(node));
      Cmd(conns_[node].get(), {"DEBUG", "POWER-CUT"});
      nodes_[node]->WaitExit(5000);
      nodes_[node]->Kill();
      ASSERT_NO_FATAL_FAILURE(Restart(node));
      ASSERT_NO_FATAL_FAILURE(AwaitPeersFollow(node, id));
      ASSERT_NO_FATAL_FAILURE(collected_.Rewound(*nodes_[node]));
      break;
    }
  }
}

// Provokes a snapshot from `sender` to `receiver` and kills one of them with SIGKILL while the
// receiver takes it: the receiver stops pulling from the sender, the sender writes kBulkKeys
// values of kBulkBytes (a snapshot of several pieces, each chunk held 50-300 ms by the link) and
// its log shrinks to two deltas (read first: the reference needs them), then the receiver pulls
// again and gets a snapshot. The kill comes once its INFO peers says state=snapshot — or, when
// the transfer ended first, at once, which the schedule notes. The sender's peer-backlog-size
// is put back after (a restarted sender has its default).
void ActiveActiveNemesisTest::KillDuringSnapshot(int receiver, int sender, bool kill_sender) {
  constexpr int kBulkKeys = 16;
  constexpr size_t kBulkBytes = 256 * 1024;
  const std::string r = "node " + std::to_string(receiver);
  const std::string s = "node " + std::to_string(sender);
  const std::chrono::milliseconds delay(50 + static_cast<int64_t>(rng_() % 250));
  Note(r + " takes a snapshot from " + s + " through a link delayed " +
       std::to_string(delay.count()) + " ms; kill -9 of the " +
       (kill_sender ? "sender" : "receiver") + " during it, restart");
  ASSERT_NO_FATAL_FAILURE(SetPeerLink(receiver, sender, false));
  redisContext* c = conns_[sender].get();
  const Reply backlog = Cmd(c, {"CONFIG", "GET", "peer-backlog-size"});
  ASSERT_EQ(backlog.size(), 2u);
  // Writes at the sender, its clock pinned past every timestamp a write has had (RandomWrite's
  // lie within 200 ms of now_; a delete's may be at its node's clock, which a jump moved
  // ahead), so no version or delete held there makes a write lose (and log nothing).
  const auto write = [&](const std::string& key, const std::string& value) {
    now_++;
    const int64_t newest = std::max(now_, *std::max_element(clocks_.begin(), clocks_.end()));
    clocks_[sender] = std::max(clocks_[sender] + 1, newest + 1000);
    ASSERT_EQ(Cmd(c, PinClock(clocks_[sender])).str(), "OK");
    ASSERT_EQ(Cmd(c, {"SET", key, value}).str(), "OK");
  };
  for (int k = 0; k < kBulkKeys; k++) {
    ASSERT_NO_FATAL_FAILURE(write("bulk:" + std::to_string(k),
                                  std::string(kBulkBytes, static_cast<char>('a' + rng_() % 26))));
  }
  ASSERT_NO_FATAL_FAILURE(Collect());
  // Two deltas, not one: the sender may log a collect of its own (docs/active-active.md,
  // "Collects") between bulk:last and the read that gives it to the reference.
  ASSERT_EQ(Cmd(c, {"CONFIG", "SET", "peer-backlog-size", "2"}).str(), "OK");
  ASSERT_NO_FATAL_FAILURE(write("bulk:last", std::to_string(now_)));  // the log drops the rest
  ASSERT_NO_FATAL_FAILURE(Collect());
  const std::string log = Cmd(c, {"INFO", "peers"}).str();  // both fields from one reading
  ASSERT_LE(InfoField(log, "origin_offset") - InfoField(log, "origin_log_first"), 1) << log;

  const long long sent_before = InfoField(c, "peers", "snapshots_sent");
  links_[receiver][sender]->set_delay(delay);
  links_[receiver][sender]->SetMode(FaultProxy::Mode::kDelayFromTarget);
  ASSERT_NO_FATAL_FAILURE(SetPeerLink(receiver, sender, true));
  const std::string line = "port=" + LinkPort(receiver, sender) + ",state=";
  bool caught = false;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!caught && std::chrono::steady_clock::now() < give_up) {
    const std::string info = Cmd(conns_[receiver].get(), {"INFO", "peers"}).str();
    caught = info.find(line + "snapshot,") != std::string::npos;
    if (!caught && info.find(line + "connected,") != std::string::npos &&
        InfoField(c, "peers", "snapshots_sent") > sent_before) {
      break;  // taken already
    }
    if (!caught) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (!caught) Note("  (the snapshot was over before the kill)");
  const int victim = kill_sender ? sender : receiver;
  nodes_[victim]->Kill();
  ASSERT_NO_FATAL_FAILURE(Restart(victim));
  if (!kill_sender) {
    ASSERT_EQ(
        Cmd(conns_[sender].get(), {"CONFIG", "SET", "peer-backlog-size", backlog[1].str()}).str(),
        "OK");
  }
  links_[receiver][sender]->SetMode(FaultProxy::Mode::kOpen);
}

TEST_P(ActiveActiveNemesisTest, RandomFaultsWhileEveryNodeWrites) {
  const int steps = NemesisSteps();
  for (int step = 0; step < steps; step++) {
    ASSERT_NO_FATAL_FAILURE(Step()) << Failed();
    for (int round = 0; round < 20; round++) {
      for (int i = 0; i < kNodes; i++) ASSERT_NO_FATAL_FAILURE(WriteAt(i)) << Failed();
    }
    ASSERT_NO_FATAL_FAILURE(Collect()) << Failed();
  }
  Note("heal every link, one clock for all");
  ASSERT_NO_FATAL_FAILURE(HealAll()) << Failed();
  ASSERT_NO_FATAL_FAILURE(OneClock()) << Failed();
  const int64_t common = clocks_[0];
  ASSERT_EQ(WaitConverged(All()), "") << Failed();

  // The reference: every delta the mesh ever logged, the origins' logs in one seeded random
  // interleaving, each origin's in its order as links give them (a collect judges the deltas
  // its origin logs after it).
  ASSERT_NO_FATAL_FAILURE(Collect()) << Failed();
  const std::vector<LoggedDelta> all = InterleaveOrigins(collected_.deltas(), rng_);
  const RefusingPort no_peer;
  ASSERT_NE(no_peer.port(), 0);
  std::vector<std::string> args = no_peer.PeerArgs();
  const std::vector<std::string> options = NodeOptions();
  args.insert(args.end(), options.begin(), options.end());
  ASSERT_TRUE(reference_.Start(args)) << reference_.error();
  auto ref = reference_.Connect();
  ASSERT_EQ(Cmd(ref.get(), PinClock(common)).str(), "OK");
  ApplyInOrder(ref.get(), all);
  EXPECT_EQ(LogicalDigest(ref.get()), LogicalDigest(conns_[0].get()))
      << all.size() << " deltas; where the reference and node 0 differ:\n"
      << LogicalDifference(ref.get(), conns_[0].get()) << Failed();
  const auto count = [&](std::string_view what) { return CountOccurrences(schedule_, what); };
  long long collected = 0;  // by each node since its last start
  long long barriers = 0;   // the same
  for (const RedisConnection& c : conns_) {
    collected += InfoField(c.get(), "peers", "dead_versions_collected");
    barriers += InfoField(c.get(), "peers", "collect_barriers");
  }
  std::printf(
      "nemesis: %zu deltas; %zu kills during a snapshot (%zu after it ended), %zu delays, %zu "
      "restores, %zu power cuts, %zu cuts, %zu compactions (%lld dead versions collected), %lld "
      "streams stopped at a collect\n",
      all.size(), count("takes a snapshot"), count("over before the kill"), count("delay node"),
      count("restored from its copy"), count("power cut of"), count("stops pulling"),
      count("compaction of"), collected, barriers);

  // Every node holds the same markers: the same deletes with the same dots, floors, registers,
  // and each node's last collect — once the collects have settled. A collect of an id a node
  // retired reaches only the nodes that streamed it from that id (a snapshot carries only its
  // sender's own: docs/active-active.md, "Collects"), so those rows are left out.
  WaitQuiet();
  std::set<std::string> live_collects;
  for (auto& c : conns_) live_collects.insert("aa-collect:" + Cmd(c.get(), {"PEER", "ID"}).str());
  std::vector<std::map<std::string, std::string>> markers;
  for (auto& node : nodes_) {
    ASSERT_EQ(node->Stop(), 0) << node->ReadLog();
    markers.push_back(MarkerRows(node->data_dir()));
    std::erase_if(markers.back(), [&](const auto& row) {
      return row.first.starts_with("aa-collect:") && !live_collects.contains(row.first);
    });
  }
  std::printf("nemesis: %zu marker and collect rows, %zu of them collects\n", markers[0].size(),
              static_cast<size_t>(std::ranges::count_if(markers[0], [](const auto& row) {
                return row.first.starts_with("aa-collect:");
              })));
  for (int i = 1; i < kNodes; i++) {
    EXPECT_TRUE(markers[i] == markers[0]) << "marker rows of node " << i << " and node 0 differ:\n"
                                          << DifferingRows(markers[i], markers[0]) << Failed();
  }
}

INSTANTIATE_TEST_SUITE_P(StringRules, ActiveActiveNemesisTest,
                         ::testing::Values("timestamp", "observed-remove"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string_view(info.param) == "timestamp" ? "Timestamp"
                                                                              : "ObservedRemove";
                         });

}  // namespace
}  // namespace ebb::test
