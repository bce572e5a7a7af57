// The stable vector S as collection will need it (docs/active-active.md, "Links", "Causal
// stability"; server/active_active/stable_vector.h), against spawned ebb-servers:
//  - a node's reported vector counts only what its engine has synced: under wal-fsync everysec,
//    what a peer has heard of it (its entry for the peer, its own log's end as S shows it) never
//    passes what a power cut (DEBUG POWER-CUT: the unsynced tail lost, then SIGKILL) leaves;
//  - a node that takes a new incarnation retires its old id: once every node has heard so, no
//    node's S names the old id, and S advances again for every live origin.
// Every wait is a bounded poll.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tests/support/active_active_mesh.h"
#include "tests/support/eventually.h"
#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

namespace fs = std::filesystem;

class ActiveActiveDurableVectorTest : public ActiveActiveMeshTest {
 protected:
  uint64_t StableOf(int i, const std::string& origin) {
    const auto stable = Stable(i);
    auto it = stable.find(origin);
    return it == stable.end() ? 0 : it->second;
  }
  // A field of node i's INFO peers line for the node with id `peer` (0 when none names it).
  uint64_t PeerField(int i, const std::string& peer, const std::string& field) {
    for (int p = 0; p < 2; p++) {
      const std::string line = InfoText(c_[i].get(), "peers", "peer" + std::to_string(p));
      if (line.find("id=" + peer) == std::string::npos) continue;
      const size_t at = line.find("," + field + "=");
      if (at == std::string::npos) break;
      return std::stoull(line.substr(at + field.size() + 2));
    }
    return 0;
  }
  std::string Id(int i) { return Cmd(c_[i].get(), {"PEER", "ID"}).str(); }
  void Restart(int i, const std::vector<std::string>& args) {
    ASSERT_TRUE(n_[i].Start(args)) << n_[i].error();
    c_[i] = n_[i].Connect();
    SetClock(i, kMeshClockMs);
  }
};

TEST_F(ActiveActiveDurableVectorTest, APeersViewOfAVectorNeverPassesWhatAPowerCutLeaves) {
  const std::vector<std::string> everysec = {"--wal-fsync", "everysec"};
  ASSERT_NO_FATAL_FAILURE(StartMesh(2, everysec));
  const std::string id0 = Id(0), id1 = Id(1);
  // Both nodes write; node 1 keeps reading what it heard of node 0's vector: node 0's entry for
  // node 1 (`acked`) and node 0's own log end (S[node 0] on node 1, which node 0's vector bounds).
  // The writes go on for 100 rounds after node 1 first heard both above 0 (a sync came), so the
  // cut finds deltas node 0 applied, and wrote, since its last sync.
  uint64_t acked = 0, own_end = 0;
  int rounds_after = -1;
  for (int i = 0; i < 20000 && rounds_after < 100; i++) {
    const std::string key = "k" + std::to_string(i);
    ASSERT_EQ(Cmd(c_[0].get(), {"SET", key + "a", "v"}).str(), "OK");
    ASSERT_EQ(Cmd(c_[1].get(), {"SET", key + "b", "v"}).str(), "OK");
    if (rounds_after >= 0) rounds_after++;
    if (i % 10 != 0 && rounds_after != 100) continue;
    acked = std::max(acked, PeerField(1, id0, "acked"));
    own_end = std::max(own_end, StableOf(1, id0));
    if (rounds_after < 0 && acked > 0 && own_end > 0) rounds_after = 0;
  }
  ASSERT_GT(acked, 0u);
  ASSERT_GT(own_end, 0u);
  // Node 1 stops pulling from node 0 (no PEER SYNC makes node 0 take a new incarnation after the
  // cut), then node 0's power is cut and it starts with no peer: its S is its own vector.
  ASSERT_EQ(
      Cmd(c_[1].get(), {"DEBUG", "PEER-LINK", "127.0.0.1", std::to_string(n_[0].port()), "down"})
          .str(),
      "OK");
  Cmd(c_[0].get(), {"DEBUG", "POWER-CUT"});
  n_[0].WaitExit(5000);
  n_[0].Kill();
  ASSERT_NO_FATAL_FAILURE(Restart(0, everysec));
  ASSERT_EQ(Id(0), id0);
  ASSERT_TRUE(Eventually([&] { return Stable(0).contains(id0); })) << stable_text_;
  const uint64_t kept_end = InfoField(c_[0].get(), "peers", "origin_offset");
  std::printf(
      "node 1 heard acked=%llu, node 0's end=%llu; after the power cut node 0 holds %llu "
      "of node 1 and ends at %llu\n",
      static_cast<unsigned long long>(acked), static_cast<unsigned long long>(own_end),
      static_cast<unsigned long long>(StableOf(0, id1)), static_cast<unsigned long long>(kept_end));
  EXPECT_GE(StableOf(0, id1), acked) << stable_text_;
  EXPECT_GE(kept_end, own_end);
  EXPECT_EQ(StableOf(0, id0), kept_end) << stable_text_;
}

TEST_F(ActiveActiveDurableVectorTest, ARetiredIdLeavesTheStableVectorOfEveryNode) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(3));
  const std::string old_id = Id(0);
  ASSERT_EQ(Cmd(c_[0].get(), {"SET", "a", "1"}).str(), "OK");
  for (int i = 0; i < 3; i++) {
    ASSERT_TRUE(Eventually([&] { return StableOf(i, old_id) == 1; })) << i << stable_text_;
  }
  // Node 0 is copied aside, writes two more deltas that both peers apply, and is restored from
  // the copy: its peers ask past its log's end, and it takes a new incarnation.
  const std::string backup = n_[0].dir() + "/backup";
  ASSERT_EQ(n_[0].Stop(), 0) << n_[0].ReadLog();
  fs::copy(n_[0].data_dir(), backup, fs::copy_options::recursive);
  ASSERT_NO_FATAL_FAILURE(Restart(0, args_[0]));
  ASSERT_EQ(Cmd(c_[0].get(), {"SET", "b", "1"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[0].get(), {"SET", "c", "1"}).str(), "OK");
  for (int i : {1, 2}) {
    ASSERT_TRUE(Eventually([&] { return PeerField(i, old_id, "applied") == 3; })) << i;
  }
  ASSERT_EQ(n_[0].Stop(), 0) << n_[0].ReadLog();
  fs::remove_all(n_[0].data_dir());
  fs::copy(backup, n_[0].data_dir(), fs::copy_options::recursive);
  ASSERT_NO_FATAL_FAILURE(Restart(0, args_[0]));
  std::string new_id = old_id;
  ASSERT_TRUE(Eventually([&] {
    new_id = Id(0);
    return new_id != old_id;
  }));

  // Every origin writes once more; S advances for each on every node, and none names the old id.
  ASSERT_EQ(Cmd(c_[0].get(), {"SET", "d", "1"}).str(), "OK");
  const uint64_t end0 = InfoField(c_[0].get(), "peers", "origin_offset");
  ASSERT_EQ(Cmd(c_[1].get(), {"SET", "e", "1"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[2].get(), {"SET", "f", "1"}).str(), "OK");
  const std::string ids[3] = {new_id, Id(1), Id(2)};
  for (int i = 0; i < 3; i++) {
    ASSERT_TRUE(Eventually([&] {
      const auto stable = Stable(i);
      return !stable.contains(old_id) && stable.size() == 3 && StableOf(i, ids[0]) == end0 &&
             StableOf(i, ids[1]) == 1 && StableOf(i, ids[2]) == 1;
    })) << stable_text_
        << " on node " << i;
  }
  // The retirement outlives a restart of the node that retired the id, and of a peer.
  ASSERT_EQ(n_[0].Stop(), 0) << n_[0].ReadLog();
  ASSERT_NO_FATAL_FAILURE(Restart(0, args_[0]));
  ASSERT_EQ(n_[1].Stop(), 0) << n_[1].ReadLog();
  ASSERT_NO_FATAL_FAILURE(Restart(1, args_[1]));
  ASSERT_EQ(Cmd(c_[1].get(), {"SET", "g", "1"}).str(), "OK");
  for (int i = 0; i < 3; i++) {
    ASSERT_TRUE(Eventually([&] {
      const auto stable = Stable(i);
      return !stable.contains(old_id) && stable.size() == 3 && StableOf(i, ids[1]) == 2;
    })) << stable_text_
        << " on node " << i;
  }
}

}  // namespace
}  // namespace ebb::test
