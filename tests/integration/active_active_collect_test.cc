// The `collect` delta between active-active peers (server/active_active/collect.h;
// docs/active-active.md, "Collects"), against spawned ebb-servers: a node holding deletes logs
// one once the stable vector covers them, every node keeps each origin's last collect in the same
// row, each node's snapshot carries its own to a node that joins late, and collects in any order,
// as deltas or as a snapshot's pieces, leave the same row. Rows are read from stopped nodes' data
// directories; every wait is a bounded poll.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "server/active_active/collect.h"
#include "tests/support/active_active_mesh.h"
#include "tests/support/eventually.h"
#include "tests/support/played_peer.h"
#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

types::OriginId Origin(const std::string& hex) { return *types::OriginId::FromHex(hex); }

// The collect rows of a stopped node: origin id -> C.
std::map<std::string, types::OrContext> CollectRows(const TestServer& node) {
  std::map<std::string, types::OrContext> out;
  for (const auto& [name, value] :
       StoppedNodeSystemRows(node.data_dir(), std::string(server::kCollectRowPrefix))) {
    types::OriginId origin;
    EXPECT_TRUE(server::ParseCollectRowName(name, &origin)) << name;
    types::OrContext collect;
    EXPECT_TRUE(server::DecodeCollectRow(value, origin, &collect)) << name;
    out[name.substr(server::kCollectRowPrefix.size())] = collect;
  }
  return out;
}

class ActiveActiveCollectTest : public ActiveActiveMeshTest {
 protected:
  // Node i's own last collect, from INFO peers' `last_collect:<id>=<offset>,...`.
  std::map<std::string, uint64_t> LastCollect(int i) {
    std::map<std::string, uint64_t> out;
    const std::string text = InfoText(c_[i].get(), "peers", "last_collect");
    for (size_t at = 0; at < text.size();) {
      const size_t comma = std::min(text.find(',', at), text.size());
      const std::string entry = text.substr(at, comma - at);
      const size_t eq = entry.find('=');
      if (eq == std::string::npos) break;
      out[entry.substr(0, eq)] = std::stoull(entry.substr(eq + 1));
      at = comma + 1;
    }
    return out;
  }
  // Waits until node i's last collect covers offset `offset` of each of `origins`.
  bool WaitCollected(int i, const std::vector<std::string>& origins, uint64_t offset) {
    return Eventually([&] {
      const auto collect = LastCollect(i);
      for (const std::string& origin : origins) {
        auto it = collect.find(origin);
        if (it == collect.end() || it->second < offset) return false;
      }
      return true;
    });
  }
  // Waits until no node is behind another (every delta logged has been applied everywhere).
  bool WaitNoLag(const std::vector<redisContext*>& nodes) {
    return Eventually([&] {
      for (redisContext* c : nodes) {
        if (InfoField(c, "peers", "max_peer_lag_deltas") != 0) return false;
      }
      return true;
    });
  }
};

// Nodes 0 and 1 each delete a key they wrote (their offsets 1 and 2): every node holds both
// deletes, logs a collect once the stable vector covers them, and ends with the same row per
// origin, each covering both deletes. A node that holds no delete logs none.
TEST_F(ActiveActiveCollectTest, EveryNodeKeepsEachOriginsLastCollect) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(3));
  std::string id[3];
  for (int i = 0; i < 3; i++) id[i] = Cmd(c_[i].get(), {"PEER", "ID"}).str();
  const std::string ts = std::to_string(kMeshClockMs - 5);
  for (int i : {0, 1}) {
    ASSERT_EQ(Cmd(c_[i].get(), {"TREG", "SET", "k" + std::to_string(i), "v", ts}).str(), "OK");
    ASSERT_EQ(Cmd(c_[i].get(), {"DEL", "k" + std::to_string(i)}).integer(), 1);
  }
  for (int i = 0; i < 3; i++) {
    ASSERT_TRUE(WaitCollected(i, {id[0], id[1]}, 2))
        << i << ": " << InfoText(c_[i].get(), "peers", "last_collect");
  }
  ASSERT_TRUE(WaitNoLag(Conns()));
  for (TestServer& node : n_) ASSERT_EQ(node.Stop(), 0) << node.ReadLog();
  const auto rows = CollectRows(n_[0]);
  ASSERT_EQ(rows.size(), 3u);
  for (int i = 0; i < 3; i++) {
    ASSERT_TRUE(rows.contains(id[i])) << i;
    EXPECT_GE(rows.at(id[i]).At(Origin(id[0])), 2u) << i;
    EXPECT_GE(rows.at(id[i]).At(Origin(id[1])), 2u) << i;
  }
  EXPECT_EQ(CollectRows(n_[1]), rows);
  EXPECT_EQ(CollectRows(n_[2]), rows);
}

// A node that joins after the others' logs dropped their first deltas (peer-backlog-size 1)
// receives their content as a snapshot from each, and with each its sender's last collect.
TEST_F(ActiveActiveCollectTest, ASnapshotCarriesTheCollects) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(2, {"--peer-backlog-size", "1"}));
  std::string id[2];
  for (int i = 0; i < 2; i++) id[i] = Cmd(c_[i].get(), {"PEER", "ID"}).str();
  const std::string ts = std::to_string(kMeshClockMs - 5);
  ASSERT_EQ(Cmd(c_[0].get(), {"TREG", "SET", "k", "v", ts}).str(), "OK");
  ASSERT_EQ(Cmd(c_[0].get(), {"DEL", "k"}).integer(), 1);
  for (int i = 0; i < 2; i++) ASSERT_TRUE(WaitCollected(i, {id[0]}, 2)) << i;
  ASSERT_TRUE(WaitNoLag(Conns()));
  ASSERT_TRUE(late_.Start(PeerArgs({&n_[0], &n_[1]}))) << late_.error();
  for (int i = 0; i < 2; i++) {  // the mesh links to it too
    ASSERT_EQ(Cmd(c_[i].get(), {"PEER", "ADD", "127.0.0.1", std::to_string(late_.port())}).str(),
              "OK");
  }
  {
    RedisConnection late = late_.Connect();
    ASSERT_TRUE(Eventually([&] { return SnapshotsSent() >= 1; }));
    // Its own collect covers the delete it received (its applied vector counted in S).
    ASSERT_TRUE(Eventually([&] {
      return InfoText(late.get(), "peers", "last_collect").find(id[0]) != std::string::npos;
    }));
    std::vector<redisContext*> all = Conns();
    all.push_back(late.get());
    ASSERT_TRUE(WaitNoLag(all));
  }
  for (TestServer* node : {&n_[0], &n_[1], &late_}) ASSERT_EQ(node->Stop(), 0) << node->ReadLog();
  const auto rows = CollectRows(n_[0]);
  EXPECT_EQ(CollectRows(n_[1]), rows);
  EXPECT_EQ(CollectRows(late_), rows);
  ASSERT_TRUE(rows.contains(id[0]));
  EXPECT_GE(rows.at(id[0]).At(Origin(id[0])), 2u);
}

// A collect comes from the node's timer, not from a client's write, so no turn's WAL commit
// hands it to the OS: the node flushes it itself. Killed with SIGKILL within a few milliseconds
// of logging it, node 0 comes back with it and with its id (no peer applied a delta it lost);
// unflushed, the collect waited in the WAL's buffer for up to a second and the node came back one
// delta short.
TEST_F(ActiveActiveCollectTest, ACollectSurvivesAKillRightAfterIt) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(2));
  const std::string id0 = Cmd(c_[0].get(), {"PEER", "ID"}).str();
  const std::string ts = std::to_string(kMeshClockMs - 5);
  ASSERT_EQ(Cmd(c_[0].get(), {"TREG", "SET", "k", "v", ts}).str(), "OK");
  ASSERT_EQ(Cmd(c_[0].get(), {"DEL", "k"}).integer(), 1);  // offset 2; its collect is 3
  long long end = 0;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (int tries = 0; tries < 100000 && end < 3 && std::chrono::steady_clock::now() < give_up;
       tries++) {
    end = InfoField(c_[0].get(), "peers", "origin_offset");  // as fast as INFO answers
  }
  ASSERT_EQ(end, 3) << Cmd(c_[0].get(), {"INFO", "peers"}).str();
  n_[0].Kill();
  ASSERT_TRUE(n_[0].Start(args_[0])) << n_[0].error();
  c_[0] = n_[0].Connect();
  SetClock(0, kMeshClockMs);
  EXPECT_EQ(InfoField(c_[0].get(), "peers", "origin_offset"), 3);
  const std::string link = "id=" + id0 + ",applied=3,";
  EXPECT_TRUE(Eventually([&] {
    return Cmd(c_[1].get(), {"INFO", "peers"}).str().find(link) != std::string::npos;
  })) << Cmd(c_[1].get(), {"INFO", "peers"}).str();
  EXPECT_EQ(Cmd(c_[0].get(), {"PEER", "ID"}).str(), id0);
}

// A collect is a barrier (docs/active-active.md, "Collects"). Node 2 is restored from a copy
// taken before it applied node 0's second write, and comes back while node 0 is down: node 1's
// stream brings it node 1's collect, whose C names that write. Node 2 has not observed it, so it
// stops node 1's stream there and takes node 1's snapshot, which holds the write, instead of
// going on past the collect without it. The snapshot's vector joins node 2's observed vector
// (under the timestamp rule too), so node 1's next collect with the same C passes.
TEST_F(ActiveActiveCollectTest, ANodeThatWentBackTakesASnapshotAtACollect) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(3));
  std::string id[3];
  for (int i = 0; i < 3; i++) id[i] = Cmd(c_[i].get(), {"PEER", "ID"}).str();
  const std::string ts = std::to_string(kMeshClockMs - 5);
  ASSERT_EQ(Cmd(c_[0].get(), {"TREG", "SET", "a", "1", ts}).str(), "OK");
  ASSERT_TRUE(WaitNoLag(Conns()));
  const std::string backup = n_[2].dir() + "/backup";
  ASSERT_EQ(n_[2].Stop(), 0) << n_[2].ReadLog();
  std::filesystem::copy(n_[2].data_dir(), backup, std::filesystem::copy_options::recursive);
  ASSERT_TRUE(n_[2].Start(args_[2])) << n_[2].error();
  c_[2] = n_[2].Connect();
  SetClock(2, kMeshClockMs);
  ASSERT_EQ(Cmd(c_[0].get(), {"TREG", "SET", "b", "2", ts}).str(), "OK");  // node 0's offset 2
  ASSERT_TRUE(WaitNoLag(Conns()));
  ASSERT_EQ(Cmd(c_[1].get(), {"DEBUG", "PEER-COLLECT", id[0], "2"}).str(), "OK");
  ASSERT_EQ(n_[0].Stop(), 0) << n_[0].ReadLog();
  ASSERT_EQ(n_[2].Stop(), 0) << n_[2].ReadLog();
  std::filesystem::remove_all(n_[2].data_dir());
  std::filesystem::copy(backup, n_[2].data_dir(), std::filesystem::copy_options::recursive);
  ASSERT_TRUE(n_[2].Start(args_[2])) << n_[2].error();
  c_[2] = n_[2].Connect();
  SetClock(2, kMeshClockMs);
  redisContext* restored = c_[2].get();
  EXPECT_TRUE(Eventually([&] {
    const Reply b = Cmd(restored, {"TREG", "GET", "b"});
    return b.is_array() && b.size() == 2 && b.elements()[0].str() == "2";
  })) << Cmd(restored, {"TREG", "GET", "b"}).ToString();
  EXPECT_EQ(InfoField(restored, "peers", "collect_barriers"), 1);
  EXPECT_EQ(InfoField(c_[1].get(), "peers", "snapshots_sent"), 1);
  EXPECT_NE(InfoText(restored, "peers", "observed_vector").find(id[0] + "=2"), std::string::npos)
      << InfoText(restored, "peers", "observed_vector");
  // The next collect names nothing node 2 has not observed now: applied without a snapshot.
  ASSERT_EQ(Cmd(c_[1].get(), {"DEBUG", "PEER-COLLECT"}).str(), "OK");
  const std::string applied =
      "id=" + id[1] +
      ",applied=" + std::to_string(InfoField(c_[1].get(), "peers", "origin_offset")) + ",";
  EXPECT_TRUE(Eventually([&] {
    return Cmd(restored, {"INFO", "peers"}).str().find(applied) != std::string::npos;
  })) << Cmd(restored, {"INFO", "peers"}).str();
  EXPECT_EQ(InfoField(restored, "peers", "collect_barriers"), 1);
  EXPECT_EQ(InfoField(c_[1].get(), "peers", "snapshots_sent"), 1);
}

// Whether `c` answers `TREG GET reg` with [value, ts].
bool TregIs(redisContext* c, const std::string& value, long long ts) {
  const Reply reg = Cmd(c, {"TREG", "GET", "reg"});
  return reg.is_array() && reg.size() == 2 && reg.elements()[0].str() == value &&
         reg.elements()[1].integer() == ts;
}
// Whether `c` answers `TS.RANGE s - +` with the one sample [ts, value].
bool SeriesIs(redisContext* c, long long ts, const std::string& value) {
  const Reply range = Cmd(c, {"TS.RANGE", "s", "-", "+"});
  return range.is_array() && range.size() == 1 && range.elements()[0].size() == 2 &&
         range.elements()[0].elements()[0].integer() == ts &&
         range.elements()[0].elements()[1].str() == value;
}
// Whether `c` answers `TLOG GET log` with the one entry [value, ts].
bool LogIs(redisContext* c, const std::string& value, long long ts) {
  const Reply log = Cmd(c, {"TLOG", "GET", "log"});
  return log.is_array() && log.size() == 1 && log.elements()[0].size() == 2 &&
         log.elements()[0].elements()[0].str() == value &&
         log.elements()[0].elements()[1].integer() == ts;
}

// Step 3 of marker collection (docs/active-active.md, "Status"): a write is judged by the deletes
// its origin's last collect does not cover. Node 0 deletes a register, a log and a string written
// at 100 and a series (whose delete covers the clock, its register's stamp); once node 1's collect
// covers that delete, node 1's writes at 50 are later than the delete — node 1 had applied it —
// and live on every node, as on a lone node. Judged by the delete's T alone they were dropped
// everywhere for good, and the TS.ADD refused. Node 1's INCR then counts from the string it wrote
// (it counted from 0), and node 1's TS.DEL of the sample removes it everywhere (it answered 0 and
// left it, its range below the delete).
TEST_F(ActiveActiveCollectTest, AWriteBelowADeleteItsOriginCollectedLives) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(3));
  std::string id[3];
  for (int i = 0; i < 3; i++) id[i] = Cmd(c_[i].get(), {"PEER", "ID"}).str();
  ASSERT_EQ(Cmd(c_[0].get(), {"TREG", "SET", "reg", "old", "100"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[0].get(), {"TLOG", "INS", "log", "old", "100"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.ADD", "s", "100", "1"}).integer(), 100);
  ASSERT_EQ(Cmd(c_[0].get(), {"PUT", "str", "old", "TS", "100"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[0].get(), {"PUT", "cnt", "old", "TS", "100"}).str(), "OK");
  // Node 0's offset 6.
  ASSERT_EQ(Cmd(c_[0].get(), {"DEL", "reg", "log", "s", "str", "cnt"}).integer(), 5);
  ASSERT_TRUE(WaitCollected(1, {id[0]}, 6)) << InfoText(c_[1].get(), "peers", "last_collect");
  ASSERT_EQ(Cmd(c_[1].get(), {"TREG", "SET", "reg", "new", "50"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[1].get(), {"TLOG", "INS", "log", "new", "50"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[1].get(), {"TS.ADD", "s", "50", "2"}).ToString(), "(integer) 50");
  ASSERT_EQ(Cmd(c_[1].get(), {"PUT", "str", "new", "TS", "50"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[1].get(), {"PUT", "cnt", "40", "TS", "50"}).str(), "OK");
  EXPECT_EQ(Cmd(c_[1].get(), {"INCR", "cnt"}).ToString(), "(integer) 41");
  for (int i = 0; i < 3; i++) {
    redisContext* c = c_[i].get();
    EXPECT_TRUE(Eventually([&] {
      return TregIs(c, "new", 50) && LogIs(c, "new", 50) && SeriesIs(c, 50, "2") &&
             Cmd(c, {"GET", "str"}).str() == "new" && Cmd(c, {"GET", "cnt"}).str() == "41";
    })) << i
        << ": " << Cmd(c, {"TREG", "GET", "reg"}).ToString() << " "
        << Cmd(c, {"TLOG", "GET", "log"}).ToString() << " "
        << Cmd(c, {"TS.RANGE", "s", "-", "+"}).ToString() << " "
        << Cmd(c, {"GET", "str"}).ToString() << " " << Cmd(c, {"GET", "cnt"}).ToString();
  }
  // A range delete by node 1, whose collect covers the delete, removes the sample below it.
  EXPECT_EQ(Cmd(c_[1].get(), {"TS.DEL", "s", "0", "60"}).ToString(), "(integer) 1");
  for (int i = 0; i < 3; i++) {
    redisContext* c = c_[i].get();
    EXPECT_TRUE(Eventually([&] {
      return Cmd(c, {"TS.RANGE", "s", "-", "+"}).size() == 0;
    })) << i
        << ": " << Cmd(c, {"TS.RANGE", "s", "-", "+"}).ToString();
  }
}

// A node that joins late takes such writes from snapshots: their pieces are judged by the
// collects the sender knew (`collects-known`), so the joiner holds what the senders hold.
TEST_F(ActiveActiveCollectTest, ASnapshotCarriesAWriteBelowACollectedDelete) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(2, {"--peer-backlog-size", "1"}));
  std::string id[2];
  for (int i = 0; i < 2; i++) id[i] = Cmd(c_[i].get(), {"PEER", "ID"}).str();
  ASSERT_EQ(Cmd(c_[0].get(), {"TREG", "SET", "reg", "old", "100"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[0].get(), {"TLOG", "INS", "log", "old", "100"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[0].get(), {"TS.ADD", "s", "100", "1"}).integer(), 100);
  ASSERT_EQ(Cmd(c_[0].get(), {"PUT", "str", "old", "TS", "100"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[0].get(), {"PUT", "cnt", "old", "TS", "100"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[0].get(), {"DEL", "reg", "log", "s", "str", "cnt"}).integer(), 5);
  ASSERT_TRUE(WaitCollected(1, {id[0]}, 6)) << InfoText(c_[1].get(), "peers", "last_collect");
  ASSERT_EQ(Cmd(c_[1].get(), {"TREG", "SET", "reg", "new", "50"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[1].get(), {"TLOG", "INS", "log", "new", "50"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[1].get(), {"TS.ADD", "s", "50", "2"}).ToString(), "(integer) 50");
  ASSERT_EQ(Cmd(c_[1].get(), {"PUT", "str", "new", "TS", "50"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[1].get(), {"PUT", "cnt", "40", "TS", "50"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[1].get(), {"INCR", "cnt"}).ToString(), "(integer) 41");
  for (int i = 0; i < 2; i++) {
    redisContext* c = c_[i].get();
    ASSERT_TRUE(Eventually([&] {
      return TregIs(c, "new", 50) && LogIs(c, "new", 50) && SeriesIs(c, 50, "2") &&
             Cmd(c, {"GET", "str"}).str() == "new" && Cmd(c, {"GET", "cnt"}).str() == "41";
    })) << i;
  }
  ASSERT_TRUE(late_.Start(PeerArgs({&n_[0], &n_[1]}))) << late_.error();
  RedisConnection late = late_.Connect();
  ASSERT_TRUE(Eventually([&] { return SnapshotsSent() >= 2; })) << SnapshotsSent();
  EXPECT_TRUE(Eventually([&] { return TregIs(late.get(), "new", 50); }))
      << Cmd(late.get(), {"TREG", "GET", "reg"}).ToString();
  EXPECT_TRUE(LogIs(late.get(), "new", 50)) << Cmd(late.get(), {"TLOG", "GET", "log"}).ToString();
  EXPECT_TRUE(SeriesIs(late.get(), 50, "2"))
      << Cmd(late.get(), {"TS.RANGE", "s", "-", "+"}).ToString();
  EXPECT_EQ(Cmd(late.get(), {"GET", "str"}).ToString(), "\"new\"");
  EXPECT_EQ(Cmd(late.get(), {"GET", "cnt"}).ToString(), "\"41\"");
}

// Under the observed-remove string rule a string's slot is judged by a flush's horizon the same
// way: once node 1's collect covers node 0's FLUSHDB, node 1's write below the flush's T lives on
// both nodes (it was dropped everywhere), and a node that joins late takes it from the slot a
// snapshot's `or-string` piece carries, judged by the collects its sender knew.
TEST_F(ActiveActiveCollectTest, AStringSlotBelowACollectedFlushLives) {
  const std::vector<std::string> rule = {"--active-active-string-rule", "observed-remove"};
  std::vector<std::string> extra = {"--peer-backlog-size", "1"};
  extra.insert(extra.end(), rule.begin(), rule.end());
  ASSERT_NO_FATAL_FAILURE(StartMesh(2, extra));
  std::string id[2];
  for (int i = 0; i < 2; i++) id[i] = Cmd(c_[i].get(), {"PEER", "ID"}).str();
  ASSERT_EQ(Cmd(c_[0].get(), {"PUT", "str", "old", "TS", "100"}).str(), "OK");
  ASSERT_EQ(Cmd(c_[0].get(), {"FLUSHDB"}).str(), "OK");  // node 0's offset 2, at 100
  ASSERT_TRUE(WaitCollected(1, {id[0]}, 2)) << InfoText(c_[1].get(), "peers", "last_collect");
  ASSERT_EQ(Cmd(c_[1].get(), {"PUT", "str", "new", "TS", "50"}).str(), "OK");
  for (int i = 0; i < 2; i++) {
    redisContext* c = c_[i].get();
    EXPECT_TRUE(Eventually([&] {
      return Cmd(c, {"GET", "str"}).str() == "new";
    })) << i
        << ": " << Cmd(c, {"GET", "str"}).ToString();
  }
  std::vector<std::string> late_args = PeerArgs({&n_[0], &n_[1]});
  late_args.insert(late_args.end(), rule.begin(), rule.end());
  ASSERT_TRUE(late_.Start(late_args)) << late_.error();
  RedisConnection late = late_.Connect();
  ASSERT_TRUE(Eventually([&] { return SnapshotsSent() >= 2; })) << SnapshotsSent();
  EXPECT_TRUE(Eventually([&] {
    return Cmd(late.get(), {"GET", "str"}).str() == "new";
  })) << Cmd(late.get(), {"GET", "str"}).ToString();
}

// A node whose own collect does not cover a delete yet may hold entries below it that another
// origin wrote after its collect covered it. Its TLOG CLR or TRIM of them would travel as a TRIMAT
// that every peer judges by this node's collect, covered, and drops: so it changes nothing here
// either, is not logged and publishes no event. Its own insert below the delete is dropped alike.
TEST_F(ActiveActiveCollectTest, ATrimBelowADeleteItsOriginHasNotCollectedChangesNothing) {
  ASSERT_TRUE(n_[0].Start(no_peer_.PeerArgs())) << n_[0].error();
  RedisConnection c = n_[0].Connect();
  const std::string a(40, 'a');
  types::OrContext collect;
  collect.Raise(Origin(a), 2);
  const std::vector<std::vector<std::string>> deltas = {
      {"tlog", "ins", "log", "old", "100"},
      {"del-at", "100", "log", "two"},
      server::CollectDeltaArgs(collect, Origin(a)),
      {"tlog", "ins", "log", "new", "50"},
      {"tlog", "ins", "two", "x", "50"},
      {"tlog", "ins", "two", "y", "60"},
  };
  for (size_t i = 0; i < deltas.size(); i++) {
    std::vector<std::string> cmd = {"DEBUG", "PEER-APPLY", a, "0", "OFFSET", std::to_string(i + 1)};
    cmd.insert(cmd.end(), deltas[i].begin(), deltas[i].end());
    ASSERT_EQ(Cmd(c.get(), cmd).str(), "OK") << i;
  }
  ASSERT_TRUE(LogIs(c.get(), "new", 50)) << Cmd(c.get(), {"TLOG", "GET", "log"}).ToString();
  const long long end = InfoField(c.get(), "peers", "origin_offset");
  ASSERT_EQ(Cmd(c.get(), {"CONFIG", "SET", "notify-keyspace-events", "KEA"}).str(), "OK");
  RawConnection listener(n_[0].port());
  ASSERT_TRUE(listener.Send("PSUBSCRIBE __keyevent@0__:*\r\n"));
  listener.ReadUntil(":1\r\n");
  EXPECT_EQ(Cmd(c.get(), {"TLOG", "CLR", "log"}).str(), "OK");
  EXPECT_EQ(Cmd(c.get(), {"TLOG", "TRIM", "two", "1"}).str(), "OK");
  EXPECT_EQ(Cmd(c.get(), {"TLOG", "INS", "log", "mine", "40"}).str(), "OK");
  EXPECT_TRUE(LogIs(c.get(), "new", 50)) << Cmd(c.get(), {"TLOG", "GET", "log"}).ToString();
  EXPECT_EQ(Cmd(c.get(), {"TLOG", "SIZE", "two"}).integer(), 2);
  EXPECT_EQ(InfoField(c.get(), "peers", "origin_offset"), end);
  // The first event the listener gets is this insert's, which changes the log.
  EXPECT_EQ(Cmd(c.get(), {"TLOG", "INS", "log", "later", "200"}).str(), "OK");
  const std::string event =
      "*4\r\n$8\r\npmessage\r\n$16\r\n__keyevent@0__:*\r\n$23\r\n"
      "__keyevent@0__:tlog_ins\r\n$3\r\nlog\r\n";
  EXPECT_EQ(listener.ReadExactly(event.size(), 10000), event);
}

// A snapshot's `collect-of` piece joins the receiver's row for its sender when the snapshot ends,
// as the receiver's place in the sender's stream moves then: a snapshot cut short (its sender
// killed after the piece and some data) leaves no row, and one that ends leaves the sender's C.
TEST_F(ActiveActiveCollectTest, ASnapshotsCollectJoinsTheRowWhenTheSnapshotEnds) {
  const std::string id(PlayedPeer::kId);
  types::OrContext collect;
  collect.Raise(Origin(id), 2);
  const std::vector<std::string> piece = server::CollectPieceArgs(collect, Origin(id));
  for (const bool ends : {false, true}) {
    PlayedPeer peer;
    ASSERT_TRUE(peer.listening());
    TestServer& node = n_[ends ? 1 : 0];
    ASSERT_TRUE(node.Start({"--peer", "127.0.0.1", std::to_string(peer.port())})) << node.error();
    ASSERT_TRUE(peer.Handshake("+SNAPSHOT 3 0")) << ends;
    ASSERT_TRUE(peer.Send({"snap", "0", "vector", id, "3"}));
    std::vector<std::string> collect_of = {"snap", "0"};
    collect_of.insert(collect_of.end(), piece.begin(), piece.end());
    ASSERT_TRUE(peer.Send(collect_of));
    ASSERT_TRUE(peer.Send({"snap", "0", "treg", "set", "k", "v", "1"}));
    if (ends) ASSERT_TRUE(peer.Send({"snapend", "3", "0"}));
    RedisConnection c = node.Connect();
    ASSERT_TRUE(Eventually([&] { return Cmd(c.get(), {"EXISTS", "k"}).integer() == 1; })) << ends;
    if (ends) {
      ASSERT_TRUE(Eventually([&] {
        return InfoText(c.get(), "peers", "peer0").find("state=connected") != std::string::npos;
      })) << InfoText(c.get(), "peers", "peer0");
    } else {
      peer.Close();
    }
    ASSERT_EQ(node.Stop(), 0) << node.ReadLog();
    const auto rows = CollectRows(node);
    if (ends) {
      ASSERT_TRUE(rows.contains(id));
      EXPECT_EQ(rows.at(id), collect);
    } else {
      EXPECT_FALSE(rows.contains(id));
    }
  }
}

// Collects of two origins applied as deltas and as a snapshot's pieces, in two orders, an older
// one after a newer: each row is the join of what was applied. A snapshot's piece naming another
// origin than its sender is passed over: a's row never takes b's copy of a collect of a. Malformed
// forms are refused and change nothing.
TEST_F(ActiveActiveCollectTest, CollectsJoinInEveryOrder) {
  const std::string a(40, 'a'), b(40, 'b');
  auto context = [&](std::vector<std::pair<std::string, uint64_t>> entries) {
    types::OrContext c;
    for (const auto& [origin, offset] : entries) c.Raise(Origin(origin), offset);
    return c;
  };
  const types::OrContext a_old = context({{a, 3}, {b, 1}});
  const types::OrContext a_new = context({{a, 5}});
  const types::OrContext b_only = context({{a, 2}, {b, 4}});
  TestServer* nodes[2] = {&n_[0], &n_[1]};
  for (int order = 0; order < 2; order++) {
    ASSERT_TRUE(nodes[order]->Start(no_peer_.PeerArgs())) << nodes[order]->error();
    RedisConnection c = nodes[order]->Connect();
    auto apply = [&](const std::string& from, uint64_t offset,
                     const std::vector<std::string>& args) {
      std::vector<std::string> cmd = {"DEBUG", "PEER-APPLY", from,
                                      "0",     "OFFSET",     std::to_string(offset)};
      cmd.insert(cmd.end(), args.begin(), args.end());
      return Cmd(c.get(), cmd);
    };
    const auto delta_a_old = server::CollectDeltaArgs(a_old, Origin(a));
    const auto delta_a_new = server::CollectDeltaArgs(a_new, Origin(a));
    const auto piece_b = server::CollectPieceArgs(b_only, Origin(b));
    const auto piece_of_a_from_b = server::CollectPieceArgs(context({{a, 9}}), Origin(a));
    if (order == 0) {
      EXPECT_EQ(apply(a, 1, delta_a_old).str(), "OK");
      EXPECT_EQ(apply(a, 2, delta_a_new).str(), "OK");
      EXPECT_EQ(apply(b, 1, piece_b).str(), "OK");
    } else {
      EXPECT_EQ(apply(b, 1, piece_b).str(), "OK");
      EXPECT_EQ(apply(a, 2, delta_a_new).str(), "OK");
      EXPECT_EQ(apply(a, 1, delta_a_old).str(), "OK");
    }
    EXPECT_EQ(apply(b, 2, piece_of_a_from_b).str(), "OK");
    // Malformed: no C, a C that does not decode, a piece naming no node id.
    EXPECT_TRUE(apply(a, 3, {"collect"}).is_error());
    EXPECT_TRUE(apply(a, 4, {"collect", "\x02"}).is_error());
    EXPECT_TRUE(apply(a, 5, {"collect-of", "nobody", delta_a_new[1]}).is_error());
  }
  for (TestServer* node : nodes) ASSERT_EQ(node->Stop(), 0) << node->ReadLog();
  const auto rows = CollectRows(n_[0]);
  EXPECT_EQ(CollectRows(n_[1]), rows);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows.at(a), context({{a, 5}, {b, 1}}));
  EXPECT_EQ(rows.at(b), b_only);
}

}  // namespace
}  // namespace ebb::test
