// The deletes a key marker and a database's horizon keep in active-active mode, each with the dot
// of the delta that made it (server/active_active/marker_entries.h; docs/key-encoding.md,
// "Active-active markers"), through spawned ebb-servers fed by DEBUG PEER-APPLY: every order of
// arrival leaves the same rows, a snapshot's pieces carry the deletes with their dots, and a
// client's DEL on the origin records the offset its delta is logged at. The rows are read from
// each stopped node's data directory.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server/active_active/marker_entries.h"
#include "server/active_active/whole_key.h"
#include "tests/support/active_active_support.h"
#include "tests/support/test_constants.h"
#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

struct Delta {
  std::string from;
  uint64_t offset;
  std::vector<std::string> args;
};

// The value of system row `name` of the stopped node whose data directory is `dir`; empty when
// absent.
std::string SystemRow(const std::string& dir, const std::string& name) {
  const auto rows = StoppedNodeSystemRows(dir, name);
  const auto found = rows.find(name);
  return found == rows.end() ? "" : found->second;
}

types::OriginId Origin(const std::string& hex) { return *types::OriginId::FromHex(hex); }

class ActiveActiveMarkerDotsTest : public ::testing::Test {
 protected:
  void TearDown() override {
    for (TestServer* server : {&n0_, &n1_, &n2_}) {
      if (server->Running()) {
        EXPECT_EQ(server->Stop(), 0) << server->ReadLog();
      }
    }
  }
  static void Apply(redisContext* c, const Delta& delta) {
    std::vector<std::string> args = {"DEBUG", "PEER-APPLY", delta.from,
                                     "0",     "OFFSET",     std::to_string(delta.offset)};
    args.insert(args.end(), delta.args.begin(), delta.args.end());
    ASSERT_EQ(Cmd(c, args).str(), "OK") << testing::PrintToString(delta.args);
  }

  const RefusingPort no_peer_;
  TestServer n0_, n1_, n2_;
};

// Deletes of one key and flushes of one database from two origins, in two orders, and the same
// state as a snapshot's pieces: the three nodes hold the same rows, each delete that no later one
// of its origin dominates kept with its dot.
TEST_F(ActiveActiveMarkerDotsTest, EveryOrderAndASnapshotLeaveTheSameDeletes) {
  ASSERT_NE(no_peer_.port(), 0);
  for (TestServer* server : {&n0_, &n1_, &n2_}) {
    ASSERT_TRUE(server->Start(no_peer_.PeerArgs())) << server->error();
  }
  const std::vector<Delta> deltas = {
      {kNodeIdA, 1, {"tlog", "ins", "log", "x", "5"}},
      {kNodeIdA, 2, {"del-at", "5", "log"}},
      {kNodeIdB, 7, {"del-at", "3", "log"}},
      {kNodeIdA, 3, {"del-at", "4", "log"}},  // below A's first: both kept
      {kNodeIdA, 4, {"del-at", "6", "log"}},  // dominates A's two before it
      {kNodeIdB, 8, {"flushdb-at", "2"}},
      {kNodeIdA, 5, {"flushdb-at", "1"}},
      {kNodeIdB, 9, {"expiry-at", "7", "log", "persist"}},
      {kNodeIdA, 6, {"expiry-at", "7", "log", "4000000000000"}},  // the same T from a lesser origin
  };
  {
    RedisConnection c0 = n0_.Connect();
    for (const Delta& delta : deltas) Apply(c0.get(), delta);
    RedisConnection c1 = n1_.Connect();
    for (auto it = deltas.rbegin(); it != deltas.rend(); ++it) Apply(c1.get(), *it);
    RedisConnection c2 = n2_.Connect();
    Apply(c2.get(), {kNodeIdC,
                     1,
                     {"marker-at", "6", "log", "2", "7", "persist", kNodeIdB, "9", "deletes",
                      kNodeIdA, "4", "6", kNodeIdB, "7", "3"}});
    Apply(c2.get(),
          {kNodeIdC, 2, {"flushdb-at", "2", "deletes", kNodeIdA, "5", "1", kNodeIdB, "8", "2"}});
    for (redisContext* c : {c0.get(), c1.get(), c2.get()}) {
      EXPECT_EQ(Cmd(c, {"TLOG", "INS", "log", "y", "6"}).str(), "OK");  // covered: dropped
      EXPECT_EQ(Cmd(c, {"TLOG", "SIZE", "log"}).integer(), 0);
    }
  }
  std::vector<std::string> markers, horizons;
  for (TestServer* server : {&n0_, &n1_, &n2_}) {
    ASSERT_EQ(server->Stop(), 0) << server->ReadLog();
    markers.push_back(SystemRow(server->data_dir(), "aa-key:0:log"));
    horizons.push_back(SystemRow(server->data_dir(), "aa-horizon:0"));
  }
  EXPECT_EQ(markers[1], markers[0]);
  EXPECT_EQ(markers[2], markers[0]);
  EXPECT_EQ(horizons[1], horizons[0]);
  EXPECT_EQ(horizons[2], horizons[0]);

  server::KeyMarker marker;
  ASSERT_TRUE(server::DecodeKeyMarker(markers[0], &marker));
  const std::vector<server::MarkerEntry> kept = {{{Origin(kNodeIdA), 4}, 6},
                                                 {{Origin(kNodeIdB), 7}, 3}};
  EXPECT_EQ(marker.deletes.entries(), kept);
  EXPECT_EQ(marker.deleted_up_to, 6);
  EXPECT_EQ(marker.floor, 2);  // the log it removed
  // The register (7, B) wins over (7, A), with the offset of the delta that made it.
  ASSERT_TRUE(marker.expiry.has_value());
  EXPECT_EQ(marker.expiry->origin, kNodeIdB);
  EXPECT_EQ(marker.expiry->offset, 9u);
  EXPECT_FALSE(marker.expiry->expire_at.has_value());
  server::MarkerEntries horizon;
  ASSERT_TRUE(server::DecodeHorizon(horizons[0], &horizon));
  const std::vector<server::MarkerEntry> flushes = {{{Origin(kNodeIdA), 5}, 1},
                                                    {{Origin(kNodeIdB), 8}, 2}};
  EXPECT_EQ(horizon.entries(), flushes);
}

// A snapshot sends the key markers and the horizons before any key (docs/active-active.md,
// "Snapshots"), so that each delete removes what a receiver held before the sender's content
// arrives: here a horizon of database 0, a key's marker and two keys on either side of it.
TEST_F(ActiveActiveMarkerDotsTest, ASnapshotSendsTheMarkersBeforeTheKeys) {
  ASSERT_NE(no_peer_.port(), 0);
  ASSERT_TRUE(n0_.Start(no_peer_.PeerArgs())) << n0_.error();
  {
    RedisConnection c = n0_.Connect();
    Apply(c.get(), {kNodeIdB, 1, {"flushdb-at", "1"}});
    for (const char* key : {"a", "m", "z"}) {
      ASSERT_EQ(Cmd(c.get(), {"TREG", "SET", key, "v", "10"}).str(), "OK");
    }
    ASSERT_EQ(Cmd(c.get(), {"DEL", "m"}).integer(), 1);
  }
  const std::vector<std::vector<std::string>> pieces = ReadSnapshotPieces(n0_);
  std::vector<std::string> kinds;
  for (const auto& piece : pieces) {
    if (piece[1] != "collect-of") kinds.push_back(piece[1]);  // sent once the node logged one
  }
  // The vector, then the markers, then the keys.
  const std::vector<std::string> expected = {"vector", "marker-at", "flushdb-at", "treg", "treg"};
  EXPECT_EQ(kinds, expected) << testing::PrintToString(pieces);
}

// A client's DEL and FLUSHDB on the origin record the offsets their deltas are logged at, under
// the node's own id; its EXPIRE keeps the offset its register is logged at.
TEST_F(ActiveActiveMarkerDotsTest, TheOriginRecordsTheOffsetItLogsAt) {
  ASSERT_NE(no_peer_.port(), 0);
  ASSERT_TRUE(n0_.Start(no_peer_.PeerArgs())) << n0_.error();
  std::string id;
  {
    RedisConnection c = n0_.Connect();
    id = Cmd(c.get(), {"PEER", "ID"}).str();
    ASSERT_EQ(id.size(), 40u);
    ASSERT_EQ(Cmd(c.get(), {"TREG", "SET", "r", "v", "10"}).str(), "OK");  // offset 1
    ASSERT_EQ(Cmd(c.get(), {"TREG", "SET", "q", "v", "12"}).str(), "OK");  // offset 2
    ASSERT_EQ(Cmd(c.get(), {"DEL", "r"}).integer(), 1);                    // offset 3, T 10
    ASSERT_EQ(Cmd(c.get(), {"FLUSHDB"}).str(), "OK");                      // offset 4, T 12
    ASSERT_EQ(Cmd(c.get(), {"TREG", "SET", "e", "v", "20"}).str(), "OK");  // offset 5
    ASSERT_EQ(Cmd(c.get(), {"PEXPIRE", "e", "100000"}).integer(), 1);      // offset 6
  }
  ASSERT_EQ(n0_.Stop(), 0) << n0_.ReadLog();
  server::KeyMarker marker;
  ASSERT_TRUE(server::DecodeKeyMarker(SystemRow(n0_.data_dir(), "aa-key:0:r"), &marker));
  const std::vector<server::MarkerEntry> del = {{{Origin(id), 3}, 10}};
  EXPECT_EQ(marker.deletes.entries(), del);
  server::MarkerEntries horizon;
  ASSERT_TRUE(server::DecodeHorizon(SystemRow(n0_.data_dir(), "aa-horizon:0"), &horizon));
  const std::vector<server::MarkerEntry> flush = {{{Origin(id), 4}, 12}};
  EXPECT_EQ(horizon.entries(), flush);
  ASSERT_TRUE(server::DecodeKeyMarker(SystemRow(n0_.data_dir(), "aa-key:0:e"), &marker));
  ASSERT_TRUE(marker.expiry.has_value());
  EXPECT_EQ(marker.expiry->origin, id);
  EXPECT_EQ(marker.expiry->offset, 6u);
}

}  // namespace
}  // namespace ebb::test
