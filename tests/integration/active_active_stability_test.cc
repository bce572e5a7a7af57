// Causal stability between active-active peers (docs/active-active.md, "Links", "INFO peers";
// server/active_active/stable_vector.h), against three spawned ebb-servers: each node's applied
// vector travels in its ticks, and the stable vector S in INFO peers advances for an origin only
// once every node has applied its write, stalls while a node is cut off, advances again after
// the heal, and is un-stalled by a PEER REMOVE of the node cut off. markers_pending counts the
// key markers and horizons held, also across a restart. A peer the test plays sends malformed
// and oversized vectors: each is refused and logged, and the link goes on. Every wait is a
// bounded poll.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tests/support/active_active_mesh.h"
#include "tests/support/eventually.h"
#include "tests/support/played_peer.h"
#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

class ActiveActiveStabilityTest : public ActiveActiveMeshTest {
 protected:
  void SetUp() override { StartNodes({}); }
  // The three linked nodes started with `extra` options, their ids in id_.
  void StartNodes(const std::vector<std::string>& extra) {
    StartMesh(3, extra);
    for (int i = 0; i < 3; i++) id_[i] = Cmd(c_[i].get(), {"PEER", "ID"}).str();
  }
  // S[origin] on node i (0 when it names no such origin).
  uint64_t StableOf(int i, int origin) {
    const auto stable = Stable(i);
    auto it = stable.find(id_[origin]);
    return it == stable.end() ? 0 : it->second;
  }
  // Origin's offset applied on node i (its own log's end on itself).
  uint64_t Applied(int i, int origin) {
    if (i == origin) return InfoField(c_[i].get(), "peers", "origin_offset");
    return PeerField(i, origin, "applied");
  }
  // A field of node i's INFO peers line for the node `peer`.
  uint64_t PeerField(int i, int peer, const std::string& field) {
    for (int p = 0; p < 2; p++) {
      const std::string line = InfoText(c_[i].get(), "peers", "peer" + std::to_string(p));
      if (line.find("id=" + id_[peer]) == std::string::npos) continue;
      const size_t at = line.find("," + field + "=");
      if (at == std::string::npos) break;
      return std::stoull(line.substr(at + field.size() + 2));
    }
    return 0;
  }
  // Waits until S[origin] on each of `nodes` is at least `offset` and at the end of origin's
  // log (a node holding deletes logs a `collect` of its own once S covers them, after the
  // writes the test counted), checking at every poll that S never runs ahead of what any of the
  // three nodes has applied (read after it).
  bool WaitStable(const std::vector<int>& nodes, int origin, uint64_t offset) {
    return Eventually([&] {
      bool reached = true;
      for (int i : nodes) {
        const uint64_t s = StableOf(i, origin);
        for (int j = 0; j < 3; j++) {
          if (n_[j].Running() && counted_[j]) {
            EXPECT_LE(s, Applied(j, origin)) << "node " << i << " S ahead of node " << j;
          }
        }
        reached = reached && s >= offset && s == Applied(origin, origin);
      }
      return reached;
    });
  }
  // Node 0 deletes two string keys it wrote (offsets 1-3); node 1 flushes database 3 after a
  // write to it (offsets 1-2).
  void DeleteTwoKeysAndFlushADatabase() {
    ASSERT_EQ(Cmd(c_[0].get(), {"SET", "a", "1"}).str(), "OK");
    ASSERT_EQ(Cmd(c_[0].get(), {"SET", "b", "1"}).str(), "OK");
    ASSERT_EQ(Cmd(c_[0].get(), {"DEL", "a", "b"}).integer(), 2);
    ASSERT_EQ(Cmd(c_[1].get(), {"SELECT", "3"}).str(), "OK");
    ASSERT_EQ(Cmd(c_[1].get(), {"SET", "x", "1"}).str(), "OK");
    ASSERT_EQ(Cmd(c_[1].get(), {"FLUSHDB"}).str(), "OK");
    ASSERT_EQ(Cmd(c_[1].get(), {"SELECT", "0"}).str(), "OK");
  }
  // Every node holds `pending` markers and has collected none.
  void ExpectMarkers(long long pending) {
    for (int i = 0; i < 3; i++) {
      EXPECT_EQ(InfoField(c_[i].get(), "peers", "markers_pending"), pending) << i;
      EXPECT_EQ(InfoField(c_[i].get(), "peers", "dead_versions_collected"), 0) << i;
    }
  }
  // Node 1, restarted, counts `pending` markers again from its rows.
  void ExpectMarkersAfterRestart(long long pending) {
    ASSERT_TRUE(n_[1].Restart()) << n_[1].error();
    c_[1] = n_[1].Connect();
    EXPECT_EQ(InfoField(c_[1].get(), "peers", "markers_pending"), pending);
  }
  // Cuts (or heals) node 2 from nodes 0 and 1.
  void CutNode2(bool cut) {
    for (int i = 0; i < 2; i++) SetLink(c_[i].get(), n_[i], c_[2].get(), n_[2], !cut);
  }

  std::string id_[3];
  // The nodes S must never run ahead of (one a PEER REMOVE dropped no longer counts).
  bool counted_[3] = {true, true, true};
};

TEST_F(ActiveActiveStabilityTest, StableVectorAdvancesOnceEveryNodeAppliedAWrite) {
  ASSERT_EQ(Cmd(c_[0].get(), {"SET", "a", "1"}).str(), "OK");
  ASSERT_TRUE(WaitStable({0, 1, 2}, 0, 1)) << stable_text_;
  for (int i = 0; i < 3; i++) {
    EXPECT_EQ(StableOf(i, 1), 0u);
    EXPECT_EQ(StableOf(i, 2), 0u);
    EXPECT_EQ(Stable(i).size(), 3u) << stable_text_;  // every node's id, itself included
  }

  // Node 2 cut off: node 1 applies the next write, S stays where node 2 left it.
  CutNode2(true);
  ASSERT_EQ(Cmd(c_[0].get(), {"SET", "b", "2"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[1].get(), {"SET", "c", "3"}).str(), "OK");
  ASSERT_TRUE(Eventually([&] { return PeerField(0, 1, "acked") == 2; }));
  ASSERT_TRUE(Eventually([&] { return PeerField(1, 0, "acked") == 1; }));
  EXPECT_EQ(PeerField(0, 2, "acked"), 1u);
  // PEER LIST says the same (a flat array of maps in RESP2: `acked` last).
  const Reply list = Cmd(c_[0].get(), {"PEER", "LIST"});
  ASSERT_EQ(list.size(), 2u);
  for (size_t p = 0; p < 2; p++) {
    ASSERT_EQ(list[p].size(), 20u);
    EXPECT_EQ(list[p][18].str(), "acked");
    EXPECT_EQ(list[p][19].integer(), list[p][7].str() == id_[1] ? 2 : 1);
  }
  EXPECT_EQ(InfoField(c_[0].get(), "peers", "max_peer_lag_deltas"), 1);
  for (int i : {0, 1}) {
    EXPECT_EQ(StableOf(i, 0), 1u) << i;
    EXPECT_EQ(StableOf(i, 1), 0u) << i;
  }
  EXPECT_EQ(StableOf(2, 0), 1u);

  // The heal: every node applies both writes, and S follows on every node.
  CutNode2(false);
  ASSERT_TRUE(WaitStable({0, 1, 2}, 0, 2)) << stable_text_;
  ASSERT_TRUE(WaitStable({0, 1, 2}, 1, 1)) << stable_text_;
  ASSERT_TRUE(
      Eventually([&] { return InfoField(c_[0].get(), "peers", "max_peer_lag_deltas") == 0; }));
}

TEST_F(ActiveActiveStabilityTest, PeerRemoveOfANodeCutOffUnstallsIt) {
  ASSERT_EQ(Cmd(c_[0].get(), {"SET", "a", "1"}).str(), "OK");
  ASSERT_TRUE(WaitStable({0, 1, 2}, 0, 1)) << stable_text_;
  CutNode2(true);
  counted_[2] = false;
  ASSERT_EQ(Cmd(c_[0].get(), {"SET", "b", "2"}).str(), "OK");
  ASSERT_TRUE(Eventually([&] { return PeerField(0, 1, "acked") == 2; }));
  EXPECT_EQ(StableOf(0, 0), 1u);
  // Node 0 drops node 2: S over node 0 and node 1 alone.
  ASSERT_EQ(Cmd(c_[0].get(), {"PEER", "REMOVE", "127.0.0.1", std::to_string(n_[2].port())}).str(),
            "OK");
  ASSERT_TRUE(WaitStable({0}, 0, 2)) << stable_text_;
  // Node 1 still counts node 2, which has not applied it.
  EXPECT_EQ(StableOf(1, 0), 1u);
  ASSERT_EQ(Cmd(c_[1].get(), {"PEER", "REMOVE", "127.0.0.1", std::to_string(n_[2].port())}).str(),
            "OK");
  ASSERT_TRUE(WaitStable({0, 1}, 0, 2)) << stable_text_;
}

TEST_F(ActiveActiveStabilityTest, MarkersPendingCountsKeyMarkersAndHorizons) {
  ExpectMarkers(0);
  ASSERT_NO_FATAL_FAILURE(DeleteTwoKeysAndFlushADatabase());
  // Two key markers, one horizon, everywhere; a key deleted again adds none.
  for (int i = 0; i < 3; i++) {
    ASSERT_TRUE(Eventually([&] { return InfoField(c_[i].get(), "peers", "markers_pending") == 3; }))
        << i;
  }
  // A write after the delete's T (the clocks are pinned: a SET would be covered).
  ASSERT_EQ(Cmd(c_[2].get(), {"PUT", "a", "2", "TS", std::to_string(kMeshClockMs + 10)}).str(),
            "OK");
  ASSERT_EQ(Cmd(c_[2].get(), {"DEL", "a"}).integer(), 1);
  ASSERT_TRUE(WaitStable({0, 1, 2}, 2, 2)) << stable_text_;
  ExpectMarkers(3);
  ExpectMarkersAfterRestart(3);
}

// The same mesh under `active-active-string-rule observed-remove` (docs/active-active.md, "The
// string rule"): a DEL of string keys removes the slots it observed and leaves no key marker, so
// only FLUSHDB's horizon is pending.
class ActiveActiveStabilityOrTest : public ActiveActiveStabilityTest {
 protected:
  void SetUp() override { StartNodes({"--active-active-string-rule", "observed-remove"}); }
};

TEST_F(ActiveActiveStabilityOrTest, MarkersPendingCountsOnlyTheHorizonsOfFlushes) {
  ASSERT_NO_FATAL_FAILURE(DeleteTwoKeysAndFlushADatabase());
  // Every node has applied all five writes: the DEL's two keys left no marker.
  ASSERT_TRUE(WaitStable({0, 1, 2}, 0, 3)) << stable_text_;
  ASSERT_TRUE(WaitStable({0, 1, 2}, 1, 2)) << stable_text_;
  ExpectMarkers(1);
  for (int i = 0; i < 3; i++) EXPECT_EQ(Cmd(c_[i].get(), {"EXISTS", "a", "b"}).integer(), 0) << i;
  // A write with a timestamp below the DEL's, then its own DEL: read, then removed, no marker.
  ASSERT_EQ(Cmd(c_[2].get(), {"PUT", "a", "2", "TS", "5"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[2].get(), {"GET", "a"}).str(), "2");
  ASSERT_EQ(Cmd(c_[2].get(), {"DEL", "a"}).integer(), 1);
  ASSERT_TRUE(WaitStable({0, 1, 2}, 2, 2)) << stable_text_;
  ExpectMarkers(1);
  ExpectMarkersAfterRestart(1);
}

TEST(ActiveActiveVectorInputTest, MalformedAndOversizedVectorsAreRefusedAndTheLinkGoesOn) {
  PlayedPeer peer;
  ASSERT_TRUE(peer.listening());
  TestServer node;
  ASSERT_TRUE(node.Start({"--peer", "127.0.0.1", std::to_string(peer.port())})) << node.error();
  RedisConnection c = node.Connect();
  const std::string self = Cmd(c.get(), {"PEER", "ID"}).str();
  const std::string played(PlayedPeer::kId);
  ASSERT_TRUE(peer.Handshake());
  auto delta = [&](int offset, const std::string& key) {
    return peer.SendDelta(offset, 0, {"put", key, "v", "TS", "1", "NOTTL"});
  };
  // INFO peers' stable_vector: the origins in id order, and the node's id is random.
  auto stable = [&](int played_at, int self_at) {
    const std::string p = played + "=" + std::to_string(played_at);
    const std::string s = self + "=" + std::to_string(self_at);
    return played < self ? p + "," + s : s + "," + p;
  };
  auto tick = [&](std::vector<std::string> vector) {
    std::vector<std::string> message = {"tick", "1", "2", "0", "vector"};
    message.insert(message.end(), vector.begin(), vector.end());
    return peer.Send(message);
  };
  // A bad origin id, then a delta: refused, logged, and the delta after it is applied.
  ASSERT_TRUE(tick({"not-an-id", "1"}));
  ASSERT_TRUE(delta(1, "a"));
  ASSERT_TRUE(Eventually([&] { return Cmd(c.get(), {"GET", "a"}).str() == "v"; }));
  EXPECT_NE(node.ReadLog().find("applied vector refused (an origin id that is not 40 hex digits)"),
            std::string::npos);
  // Never heard a vector from its only peer: S holds every origin at 0 (the played peer's once
  // the node's own vector names it: when its engine has synced the delta).
  EXPECT_TRUE(Eventually([&] {
    return InfoText(c.get(), "peers", "stable_vector") == stable(0, 0);
  })) << InfoText(c.get(), "peers", "stable_vector");
  // A well-formed one counts.
  ASSERT_TRUE(tick({played, "1", self, "0"}));
  ASSERT_TRUE(
      Eventually([&] { return InfoText(c.get(), "peers", "stable_vector") == stable(1, 0); }));
  // Too many origins, an offset past 64 bits, an id twice: each refused, the last vector stays.
  std::vector<std::string> oversized;
  for (int i = 0; i <= 1024; i++) {
    const std::string n = std::to_string(i);
    oversized.push_back(std::string(40 - n.size(), '0') + n);
    oversized.push_back("9");
  }
  ASSERT_TRUE(tick(oversized));
  ASSERT_TRUE(tick({played, "18446744073709551616"}));
  ASSERT_TRUE(tick({played, "2", played, "2"}));
  ASSERT_TRUE(delta(2, "b"));
  ASSERT_TRUE(Eventually([&] { return Cmd(c.get(), {"GET", "b"}).str() == "v"; }));
  EXPECT_EQ(InfoText(c.get(), "peers", "stable_vector"), stable(1, 0));
  const std::string log = node.ReadLog();
  EXPECT_NE(log.find("applied vector refused (more origins than a vector may name)"),
            std::string::npos);
  EXPECT_NE(log.find("applied vector refused (an offset that is not an unsigned 64-bit integer)"),
            std::string::npos);
  EXPECT_NE(log.find("applied vector refused (an origin named twice)"), std::string::npos);
  EXPECT_NE(InfoText(c.get(), "peers", "peer0").find("state=connected"), std::string::npos);
  EXPECT_EQ(InfoField(c.get(), "peers", "malformed_deltas"), 0);
  EXPECT_EQ(node.Stop(), 0) << node.ReadLog();
}

}  // namespace
}  // namespace ebb::test
