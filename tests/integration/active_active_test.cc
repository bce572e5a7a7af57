// Active-active peers against spawned ebb-servers (docs/active-active.md): three nodes linked in
// a mesh take random TLOG / TREG / PUT / DELETE / SET writes at every node while a node is cut
// off (DEBUG PEER-LINK) and another is killed and restarted; after the heal every node has the
// same DEBUG DIGEST-LOGICAL, and so do a fourth node that joins empty and applies everyone's
// log, and nodes given every write of the three logs in another order. Then expiry at the same
// clock time on every node, the commands refused in the mode, authenticated links, max-clock-skew
// and INFO peers. Every wait is a bounded poll.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/active_active_support.h"
#include "tests/support/test_seed.h"
#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

using std::chrono::milliseconds;

class ActiveActiveTest : public ::testing::Test {
 protected:
  void TearDown() override {
    for (TestServer* server : {&n0_, &n1_, &n2_, &n3_, &ref_[0], &ref_[1]}) {
      if (server->Running()) {
        EXPECT_EQ(server->Stop(), 0) << server->ReadLog();
      }
    }
  }
  // Starts n0..n2, each with the other two as `peer` options.
  void StartMesh(const std::vector<std::string>& extra = {}) {
    TestServer* nodes[] = {&n0_, &n1_, &n2_};
    for (int i = 0; i < 3; i++) {
      std::vector<const TestServer*> others;
      for (int j = 0; j < 3; j++) {
        if (j != i) others.push_back(nodes[j]);
      }
      std::vector<std::string> args = PeerArgs(others);
      args.insert(args.end(), extra.begin(), extra.end());
      ASSERT_TRUE(nodes[i]->Start(args)) << nodes[i]->error();
    }
  }

  TestServer n0_, n1_, n2_, n3_;
  TestServer ref_[2];  // nodes given every write in one order each (DEBUG PEER-APPLY)
};

// Random writes at every node through a partition, a kill -9 and restart, then a heal: every
// node converges, and a node joining empty afterwards reaches the same digest from the logs.
TEST_F(ActiveActiveTest, RandomWritesConvergeThroughPartitionAndRestart) {
  ASSERT_NO_FATAL_FAILURE(StartMesh(kNodeOptions));
  std::vector<RedisConnection> c;
  for (TestServer* s : {&n0_, &n1_, &n2_}) c.push_back(s->Connect());
  int64_t now = kClockBase;
  auto pin_clock = [&] {
    return std::vector<std::string>{"DEBUG", "CLOCK", "SET", std::to_string(now)};
  };
  for (auto& node : c) ASSERT_EQ(Cmd(node.get(), pin_clock()).str(), "OK");
  const uint64_t seed = TestSeed(20);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  int refused = 0;
  auto write_at = [&](redisContext* node, int count) {
    for (int i = 0; i < count; i++) {
      bool expect_refused = false;
      now++;
      const std::vector<std::string> args = RandomWrite(rng, now, &expect_refused);
      if (args[0] == "DEL" || args[0] == "UNLINK" || args[0] == "FLUSHDB") {
        ASSERT_EQ(Cmd(node, pin_clock()).str(), "OK");
      }
      const Reply r = Cmd(node, args);
      if (expect_refused) {
        ASSERT_TRUE(r.is_error()) << args[0];
        ASSERT_NE(r.str().find("active-active"), std::string::npos) << r.str();
        refused++;
      } else if (r.is_error()) {
        // Only a type collision on "mix" or a windowed log may fail, as it would on a single
        // node (a log that passed its window stays the key's type: its floor).
        const std::string& key = args[args[0] == "TLOG" || args[0] == "TREG" ? 2 : 1];
        ASSERT_TRUE(key == "mix" || key[0] == 'w') << key << ": " << r.str();
        ASSERT_EQ(r.str().rfind("WRONGTYPE", 0), 0u) << r.str();
      }
    }
  };
  auto round_robin = [&](const std::vector<redisContext*>& nodes, int rounds) {
    for (int i = 0; i < rounds; i++) {
      for (redisContext* node : nodes) write_at(node, 1);
    }
  };

  round_robin({c[0].get(), c[1].get(), c[2].get()}, 60);
  // Every link up and caught up before the faults: the restart below must find n1's deltas in
  // n2's vector (on a loaded machine the first 180 writes can outrun the links' start). One
  // clock for all first, so an expiry that has passed has passed everywhere.
  for (auto& node : c) ASSERT_EQ(Cmd(node.get(), pin_clock()).str(), "OK");
  ASSERT_EQ(WaitConverged({c[0].get(), c[1].get(), c[2].get()}), "");

  // n0 cut off from both others; everyone keeps writing.
  SetLink(c[0].get(), n0_, c[1].get(), n1_, false);
  SetLink(c[0].get(), n0_, c[2].get(), n2_, false);
  round_robin({c[0].get(), c[1].get(), c[2].get()}, 60);
  ASSERT_EQ(Cmd(c[0].get(), {"PUT", "cut-off", "x", "TS", std::to_string(now + 500)}).str(), "OK");
  EXPECT_NE(LogicalDigest(c[0].get()), LogicalDigest(c[1].get()));  // the partition shows

  // n2 killed while n0 and n1 write, then restarted on its data: it resumes from its vector.
  const std::string n2_id = Cmd(c[2].get(), {"PEER", "ID"}).str();
  n2_.Kill();
  round_robin({c[0].get(), c[1].get()}, 40);
  std::vector<std::string> n2_args = PeerArgs({&n0_, &n1_});
  n2_args.insert(n2_args.end(), kNodeOptions.begin(), kNodeOptions.end());
  ASSERT_TRUE(n2_.Start(n2_args)) << n2_.error();
  c[2] = n2_.Connect();
  ASSERT_EQ(Cmd(c[2].get(), pin_clock()).str(), "OK");
  EXPECT_EQ(Cmd(c[2].get(), {"PEER", "ID"}).str(), n2_id);  // the id is kept in the data
  round_robin({c[0].get(), c[1].get(), c[2].get()}, 40);

  SetLink(c[0].get(), n0_, c[1].get(), n1_, true);
  SetLink(c[0].get(), n0_, c[2].get(), n2_, true);
  // One clock for all, so an expiry that has passed has passed everywhere.
  for (auto& node : c) ASSERT_EQ(Cmd(node.get(), pin_clock()).str(), "OK");
  EXPECT_EQ(WaitConverged({c[0].get(), c[1].get(), c[2].get()}), "");
  EXPECT_GT(refused, 0);

  // After the restart, n2's link to n1 resumed past the start of n1's log: the line n1 logs
  // for it names an offset above 1.
  const std::string log = n1_.ReadLog();
  const std::string marker = "(" + n2_id + ") streams this node's deltas from offset ";
  const size_t at = log.rfind(marker);
  ASSERT_NE(at, std::string::npos) << log;
  EXPECT_GT(std::stoll(log.substr(at + marker.size())), 1) << log.substr(at, 200);

  // A fourth node joining empty replays the three logs and reaches the same state.
  std::vector<std::string> n3_args = PeerArgs({&n0_, &n1_, &n2_});
  n3_args.insert(n3_args.end(), kNodeOptions.begin(), kNodeOptions.end());
  ASSERT_TRUE(n3_.Start(n3_args)) << n3_.error();
  auto c3 = n3_.Connect();
  ASSERT_EQ(Cmd(c3.get(), pin_clock()).str(), "OK");
  EXPECT_EQ(WaitConverged({c[0].get(), c3.get()}), "");

  // The digest sees what reads see: a key written once more on one node moves it until the
  // others have it too.
  const std::string before = LogicalDigest(c[1].get());
  ASSERT_EQ(Cmd(c[0].get(), {"PUT", "fresh", "x", "TS", std::to_string(now + 1000)}).str(), "OK");
  EXPECT_EQ(WaitConverged({c[0].get(), c[1].get(), c[2].get(), c3.get()}), "");
  EXPECT_NE(LogicalDigest(c[1].get()), before);
  EXPECT_EQ(Cmd(c3.get(), {"GET", "fresh"}).str(), "x");

  // The merge laws end to end: a node that applies every write of the mesh in any order holds
  // what the mesh holds. Two orders: every log backwards (each delete before the writes it
  // covers, each write before the writes it follows), and one random order across origins and
  // within each log.
  std::vector<LoggedDelta> all;
  for (const TestServer* node : {&n0_, &n1_, &n2_}) {
    std::vector<LoggedDelta> log = ReadOriginLog(*node);
    ASSERT_FALSE(log.empty());
    all.insert(all.end(), log.begin(), log.end());
  }
  const std::string mesh = LogicalDigest(c[0].get());
  const RefusingPort no_peer;
  ASSERT_NE(no_peer.port(), 0);
  for (TestServer& ref : ref_) {
    if (&ref == &ref_[0]) {
      std::reverse(all.begin(), all.end());
    } else {
      std::shuffle(all.begin(), all.end(), rng);
    }
    std::vector<std::string> args = no_peer.PeerArgs();
    args.insert(args.end(), kNodeOptions.begin(), kNodeOptions.end());
    ASSERT_TRUE(ref.Start(args)) << ref.error();
    auto conn = ref.Connect();
    ASSERT_EQ(Cmd(conn.get(), pin_clock()).str(), "OK");
    ApplyInOrder(conn.get(), all);
    EXPECT_EQ(LogicalDigest(conn.get()), mesh) << all.size() << " deltas";
  }
}

// DEBUG PEER-APPLY, the test hook the random test replays logs with: one delta through the merge
// gate, as if from the origin named; refused outside the mode and for a delta no node could have
// sent (malformed ones counted).
TEST_F(ActiveActiveTest, PeerApplyRunsOneDeltaThroughTheMergeGate) {
  ASSERT_TRUE(n1_.Start()) << n1_.error();
  auto alone = n1_.Connect();
  EXPECT_EQ(
      Cmd(alone.get(), {"DEBUG", "PEER-APPLY", "x", "0", "put", "k", "v", "TS", "100", "NOTTL"})
          .str(),
      "ERR this node is not in active-active mode");

  const RefusingPort no_peer;
  ASSERT_NE(no_peer.port(), 0);
  ASSERT_TRUE(n0_.Start(no_peer.PeerArgs())) << n0_.error();
  auto c0 = n0_.Connect();
  const std::string origin(40, 'a');
  auto apply = [&](std::vector<std::string> delta, const std::string& db = "0") {
    delta.insert(delta.begin(), {"DEBUG", "PEER-APPLY", origin, db});
    return Cmd(c0.get(), delta).str();
  };
  EXPECT_EQ(apply({"put", "k", "new", "TS", "100", "NOTTL"}), "OK");
  EXPECT_EQ(apply({"put", "k", "old", "TS", "50", "NOTTL"}), "OK");  // loses, as from a peer
  EXPECT_EQ(Cmd(c0.get(), {"GET", "k"}).str(), "new");
  EXPECT_EQ(apply({"del-at", "100", "k"}), "OK");
  EXPECT_EQ(Cmd(c0.get(), {"EXISTS", "k"}).integer(), 0);
  EXPECT_EQ(apply({"put", "k", "older", "TS", "99", "NOTTL"}), "OK");  // covered by the delete
  EXPECT_EQ(Cmd(c0.get(), {"EXISTS", "k"}).integer(), 0);
  EXPECT_EQ(apply({"tlog", "ins", "l", "e", "7"}, "3"), "OK");
  ASSERT_EQ(Cmd(c0.get(), {"SELECT", "3"}).str(), "OK");
  EXPECT_EQ(Cmd(c0.get(), {"TLOG", "SIZE", "l"}).integer(), 1);

  const std::string refused = "ERR the delta was not applied (the server log says why)";
  EXPECT_EQ(apply({"incrby", "n", "1"}), refused);
  EXPECT_EQ(apply({"put", "k", "v", "TS", "100", "NOTTL"}, "16"), "ERR DB index is out of range");

  // An expiry at or before the epoch has no form (no origin makes one): the delta is malformed
  // under either string rule — skipped and counted, so a link goes on past it — and writes
  // nothing.
  EXPECT_EQ(InfoText(c0.get(), "peers", "malformed_deltas"), "1");  // the INCRBY
  EXPECT_EQ(apply({"put", "z", "v", "TS", "100", "PXAT", "0"}), refused);
  EXPECT_EQ(Cmd(c0.get(), {"DEBUG", "PEER-APPLY", origin, "0", "OFFSET", "1", "put", "z", "v", "TS",
                           "100", "PXAT", "-5", "CTX", std::string("\x01\x00", 2)})
                .str(),
            refused);
  EXPECT_EQ(InfoText(c0.get(), "peers", "malformed_deltas"), "3");
  ASSERT_EQ(Cmd(c0.get(), {"SELECT", "0"}).str(), "OK");
  EXPECT_EQ(Cmd(c0.get(), {"EXISTS", "z"}).integer(), 0);

  // An expired version without its bytes ranks as the whole version does: it hides an older
  // write and loses to a newer one. A digest that is not 64 hex digits is malformed.
  const std::string digest(64, 'a');
  EXPECT_EQ(apply({"put", "e", "v", "TS", "100", "NOTTL"}), "OK");
  EXPECT_EQ(apply({"put-expired", "e", "DIGEST", digest, "TS", "200", "PXAT", "150"}), "OK");
  EXPECT_EQ(Cmd(c0.get(), {"EXISTS", "e"}).integer(), 0);
  EXPECT_EQ(apply({"put", "e", "older", "TS", "150", "NOTTL"}), "OK");  // loses
  EXPECT_EQ(Cmd(c0.get(), {"EXISTS", "e"}).integer(), 0);
  EXPECT_EQ(apply({"put", "e", "newer", "TS", "250", "NOTTL"}), "OK");
  EXPECT_EQ(Cmd(c0.get(), {"GET", "e"}).str(), "newer");
  EXPECT_EQ(apply({"put-expired", "e", "DIGEST", "abc", "TS", "300", "NOTTL"}), refused);
  EXPECT_EQ(InfoText(c0.get(), "peers", "malformed_deltas"), "4");
  EXPECT_EQ(Cmd(c0.get(), {"GET", "e"}).str(), "newer");
  EXPECT_EQ(Cmd(c0.get(), {"DEBUG", "PEER-APPLY", origin}).str(),
            "ERR unknown subcommand or wrong number of arguments for 'PEER-APPLY'. Try DEBUG "
            "HELP.");

  // A string key may bear the name of a TLOG or TREG form (`tlog ins-expired`, `treg
  // set-expired`): its versions are still string versions, whatever their kind.
  for (const std::string key : {"ins-expired", "set-expired"}) {
    EXPECT_EQ(apply({"put", key, "v", "TS", "100", "NOTTL"}), "OK") << key;
    EXPECT_EQ(Cmd(c0.get(), {"GET", key}).str(), "v") << key;
    EXPECT_EQ(apply({"put-expired", key, "DIGEST", digest, "TS", "200", "PXAT", "150"}), "OK")
        << key;
    EXPECT_EQ(Cmd(c0.get(), {"EXISTS", key}).integer(), 0) << key;
    EXPECT_EQ(apply({"put", key, "w", "TS", "300", "NOTTL"}), "OK") << key;
    EXPECT_EQ(apply({"delete", key, "TS", "400"}), "OK") << key;
    EXPECT_EQ(Cmd(c0.get(), {"EXISTS", key}).integer(), 0) << key;
  }
  EXPECT_EQ(InfoText(c0.get(), "peers", "malformed_deltas"), "4");
}

// A client's write in the mode is counted and shown as the client's own command, whatever form
// runs in its place (a canonical `put`, a whole-key delete under T, a counter's record), as Redis
// 7's call() counts it: INFO commandstats, SLOWLOG and MONITOR name SET, PUT (one that loses and
// writes nothing too), DEL, INCR and TLOG INS, once each.
TEST_F(ActiveActiveTest, WritesAreCountedAsTheClientsCommands) {
  const RefusingPort no_peer;
  ASSERT_NE(no_peer.port(), 0);
  ASSERT_TRUE(n0_.Start(no_peer.PeerArgs())) << n0_.error();
  auto c = n0_.Connect();
  auto monitor = n0_.Connect();
  ASSERT_EQ(Cmd(c.get(), {"CONFIG", "SET", "slowlog-log-slower-than", "0"}).str(), "OK");
  ASSERT_EQ(Cmd(c.get(), {"CONFIG", "RESETSTAT"}).str(), "OK");
  ASSERT_EQ(Cmd(monitor.get(), {"MONITOR"}).str(), "OK");
  const std::vector<std::vector<std::string>> writes = {{"SET", "a", "1"},
                                                        {"PUT", "a", "old", "TS", "1"},
                                                        {"DEL", "a"},
                                                        {"INCR", "n"},
                                                        {"TLOG", "INS", "l", "x", "5"}};
  for (const std::vector<std::string>& write : writes) {
    ASSERT_FALSE(Cmd(c.get(), write).is_error()) << write[0];
  }
  for (const std::vector<std::string>& write : writes) {
    std::string expected;
    for (const std::string& arg : write) expected += " \"" + arg + "\"";
    const std::string line = ReadReply(monitor.get()).str();
    EXPECT_TRUE(line.ends_with(expected)) << line << " is not" << expected;
  }
  for (const char* row :
       {"cmdstat_set", "cmdstat_put", "cmdstat_del", "cmdstat_incr", "cmdstat_tlog|ins"}) {
    EXPECT_TRUE(InfoText(c.get(), "commandstats", row).starts_with("calls=1,")) << row;
  }
  std::vector<std::string> logged;
  for (const Reply& entry : Cmd(c.get(), {"SLOWLOG", "GET", "10"}).elements()) {
    logged.push_back(entry[3][0].str());
  }
  for (const char* name : {"SET", "PUT", "DEL", "INCR", "TLOG"}) {
    EXPECT_EQ(std::count(logged.begin(), logged.end(), name), 1) << name;
  }
}

// A string delta that ends with `CTX <context>` is applied by the observed-remove rule, its write
// the slot (origin, the delta's offset): a delete removes what its origin had observed, so a later
// write of that origin survives it whatever its timestamp (the docs' `PUT k a TS 5`, `DEL k`,
// `PUT k b TS 3`), a write it did not see survives it, and a sibling is promoted when the
// winner goes. A context that does not decode against the delta's origin, or a CTX without an
// offset, makes the delta malformed: skipped, counted, nothing written.
TEST_F(ActiveActiveTest, AStringDeltaWithAContextGoesByTheObservedRemoveRule) {
  const RefusingPort no_peer;
  ASSERT_NE(no_peer.port(), 0);
  ASSERT_TRUE(n0_.Start(no_peer.PeerArgs())) << n0_.error();
  auto c = n0_.Connect();
  const std::string a(40, 'a');
  const std::string b(40, 'b');
  auto apply = [&](const std::string& from, uint64_t offset, std::vector<std::string> delta) {
    delta.insert(delta.begin(), {"DEBUG", "PEER-APPLY", from, "0"});
    if (offset > 0) delta.insert(delta.begin() + 4, {"OFFSET", std::to_string(offset)});
    return Cmd(c.get(), delta).str();
  };
  const std::string none("\x01\x00", 2);
  auto own = [](char offset) { return std::string("\x01\x01\x00", 3) + offset; };

  // The docs' example: the delete saw `a` (a:1), so `b` (a:3) is a later write and is read.
  EXPECT_EQ(apply(a, 1, {"put", "k", "a", "TS", "5", "NOTTL", "CTX", none}), "OK");
  EXPECT_EQ(apply(a, 2, {"del-or", "0", "0", "k", own(1)}), "OK");
  EXPECT_EQ(Cmd(c.get(), {"EXISTS", "k"}).integer(), 0);
  EXPECT_EQ(apply(a, 3, {"put", "k", "b", "TS", "3", "NOTTL", "CTX", none}), "OK");
  EXPECT_EQ(Cmd(c.get(), {"GET", "k"}).str(), "b");
  // A delta already applied (the same dot) changes nothing; a's next write, which saw `b`,
  // replaces it whatever its timestamp.
  EXPECT_EQ(apply(a, 1, {"put", "k", "a", "TS", "5", "NOTTL", "CTX", none}), "OK");
  EXPECT_EQ(Cmd(c.get(), {"GET", "k"}).str(), "b");
  EXPECT_EQ(apply(a, 8, {"put", "k", "c", "TS", "1", "NOTTL", "CTX", own(3)}), "OK");
  EXPECT_EQ(Cmd(c.get(), {"GET", "k"}).str(), "c");

  // Siblings: b's write did not see a's; a's wins the read, its delete promotes b's, and the
  // delete (which named only a's) leaves b's.
  EXPECT_EQ(apply(b, 1, {"put", "s", "x", "TS", "10", "PXAT", "4000000000000", "CTX", none}), "OK");
  EXPECT_EQ(apply(a, 4, {"put", "s", "y", "TS", "20", "NOTTL", "CTX", none}), "OK");
  EXPECT_EQ(Cmd(c.get(), {"GET", "s"}).str(), "y");
  EXPECT_EQ(apply(a, 5, {"del-or", "0", "0", "s", own(4)}), "OK");
  EXPECT_EQ(Cmd(c.get(), {"GET", "s"}).str(), "x");
  EXPECT_EQ(Cmd(c.get(), {"PEXPIRETIME", "s"}).integer(), 4000000000000);
  // A delete from b that saw its own write removes it; a write of a's it did not see stays.
  EXPECT_EQ(apply(b, 2, {"delete", "s", "TS", "40", "CTX", own(1)}), "OK");
  EXPECT_EQ(Cmd(c.get(), {"EXISTS", "s"}).integer(), 0);
  EXPECT_EQ(apply(a, 6, {"put", "s", "z", "TS", "35", "NOTTL", "CTX", own(5)}), "OK");
  EXPECT_EQ(Cmd(c.get(), {"EXISTS", "s"}).integer(), 0);  // b's tombstone at 40 wins the read

  // A key of another type keeps it; a del-or deletes it under T as del-at does.
  ASSERT_EQ(apply(a, 0, {"tlog", "ins", "log", "e", "7"}), "OK");
  EXPECT_EQ(apply(b, 3, {"put", "log", "v", "TS", "100", "NOTTL", "CTX", none}), "OK");
  EXPECT_EQ(Cmd(c.get(), {"TYPE", "log"}).str(), "tlog");
  EXPECT_EQ(apply(a, 7, {"del-or", "7", "1", "log"}), "OK");
  EXPECT_EQ(Cmd(c.get(), {"EXISTS", "log"}).integer(), 0);
  EXPECT_EQ(InfoText(c.get(), "peers", "malformed_deltas"), "0");

  const std::string refused = "ERR the delta was not applied (the server log says why)";
  const std::string both =
      std::string("\x01\x02\x00\x04\x01", 5) + std::string(20, '\x11') + "\x09";
  for (const std::string& ctx :
       {std::string(), std::string("\x01\x01\x00\x00", 4), std::string("\x01\x01\x00\x84\x00", 5),
        own(4) + "x", std::string("\x01\x01\x01", 3) + std::string(20, '\xaa') + "\x01"}) {
    EXPECT_EQ(apply(a, 9, {"put", "m", "v", "TS", "300", "NOTTL", "CTX", ctx}), refused);
  }
  EXPECT_EQ(apply(a, 9, {"delete", "k", "TS", "300", "CTX"}), refused);
  EXPECT_EQ(apply(a, 9, {"delete", "k", "TS", "300", "CTX", both, "CTX", both}), refused);
  // An origin that is no node id cannot name its own entry; a write without an offset has no dot.
  EXPECT_EQ(apply("x", 9, {"put", "m", "v", "TS", "300", "NOTTL", "CTX", own(4)}), refused);
  EXPECT_EQ(apply(a, 0, {"put", "m", "v", "TS", "300", "NOTTL", "CTX", both}), refused);
  EXPECT_EQ(apply(a, 9, {"del-or", "0", "0", "m", own(0)}), refused);
  EXPECT_EQ(InfoText(c.get(), "peers", "malformed_deltas"), "10");
  EXPECT_EQ(Cmd(c.get(), {"EXISTS", "m"}).integer(), 0);
  EXPECT_EQ(Cmd(c.get(), {"GET", "k"}).str(), "c");
  EXPECT_EQ(apply("x", 0, {"put", "m", "v", "TS", "300", "NOTTL"}), "OK");
  EXPECT_EQ(Cmd(c.get(),
                {"DEBUG", "PEER-APPLY", a, "0", "OFFSET", "0", "put", "m", "v", "TS", "1", "NOTTL"})
                .str(),
            "ERR offset is out of range");
}

// A string delta with a context passes the key's markers first, as one without does: a FLUSHDB's
// horizon covers it, a type floor above strings makes it lose, and an expiry register gives a put
// at or before its T the register's expiry.
TEST_F(ActiveActiveTest, ObservedRemoveDeltasPassTheKeysMarkers) {
  const RefusingPort no_peer;
  ASSERT_NE(no_peer.port(), 0);
  ASSERT_TRUE(n0_.Start(no_peer.PeerArgs())) << n0_.error();
  auto c = n0_.Connect();
  const std::string a(40, 'a');
  uint64_t offset = 0;
  auto apply = [&](std::vector<std::string> delta) {
    delta.insert(delta.begin(),
                 {"DEBUG", "PEER-APPLY", a, "0", "OFFSET", std::to_string(++offset)});
    return Cmd(c.get(), delta).str();
  };
  const std::string none("\x01\x00", 2);
  ASSERT_EQ(apply({"flushdb-at", "50"}), "OK");
  EXPECT_EQ(apply({"put", "k", "old", "TS", "50", "NOTTL", "CTX", none}), "OK");
  EXPECT_EQ(Cmd(c.get(), {"EXISTS", "k"}).integer(), 0);
  EXPECT_EQ(apply({"put", "k", "new", "TS", "51", "NOTTL", "CTX", none}), "OK");
  EXPECT_EQ(Cmd(c.get(), {"GET", "k"}).str(), "new");

  ASSERT_EQ(apply({"treg", "set", "f", "v", "60"}), "OK");
  ASSERT_EQ(apply({"del-at", "60", "f"}), "OK");
  EXPECT_EQ(apply({"put", "f", "s", "TS", "70", "NOTTL", "CTX", none}), "OK");
  EXPECT_EQ(Cmd(c.get(), {"EXISTS", "f"}).integer(), 0);

  ASSERT_EQ(apply({"expiry-at", "100", "r", "5000000000000"}), "OK");
  EXPECT_EQ(apply({"put", "r", "v", "TS", "90", "NOTTL", "CTX", none}), "OK");
  EXPECT_EQ(Cmd(c.get(), {"PEXPIRETIME", "r"}).integer(), 5000000000000);
  EXPECT_EQ(apply({"put", "r", "w", "TS", "110", "NOTTL", "CTX", none}), "OK");
  EXPECT_EQ(Cmd(c.get(), {"GET", "r"}).str(), "w");
  EXPECT_EQ(Cmd(c.get(), {"PEXPIRETIME", "r"}).integer(), -1);
  EXPECT_EQ(InfoText(c.get(), "peers", "malformed_deltas"), "0");
}

// A snapshot's `or-string` piece joins the sender's state of a key (its R and every slot, siblings
// included) into the receiver's: a node given the piece holds what the node given the deltas
// holds, a piece joined twice or into the state it came from changes nothing, and a sibling it
// carried is promoted when the winner goes.
TEST_F(ActiveActiveTest, AnOrStringPieceJoinsTheSendersState) {
  const RefusingPort no_peer;
  ASSERT_NE(no_peer.port(), 0);
  ASSERT_TRUE(n0_.Start(no_peer.PeerArgs())) << n0_.error();
  ASSERT_TRUE(n1_.Start(no_peer.PeerArgs())) << n1_.error();
  auto deltas = n0_.Connect();
  auto joined = n1_.Connect();
  const std::string a(40, 'a');
  const std::string b(40, 'b');
  const std::string c(40, 'c');
  auto apply = [&](redisContext* node, const std::string& from, uint64_t offset,
                   std::vector<std::string> delta) {
    delta.insert(delta.begin(), {"DEBUG", "PEER-APPLY", from, "0"});
    if (offset > 0) delta.insert(delta.begin() + 4, {"OFFSET", std::to_string(offset)});
    return Cmd(node, delta).str();
  };
  const std::string none("\x01\x00", 2);
  const std::string own1("\x01\x01\x00\x01", 4);
  ASSERT_EQ(apply(deltas.get(), a, 1,
                  {"put", "k", "x", "TS", "10", "PXAT", "4000000000000", "CTX", none}),
            "OK");
  ASSERT_EQ(apply(deltas.get(), b, 1, {"put", "k", "y", "TS", "20", "NOTTL", "CTX", none}), "OK");
  ASSERT_EQ(apply(deltas.get(), c, 1, {"put", "k", "z", "TS", "5", "NOTTL", "CTX", none}), "OK");
  ASSERT_EQ(apply(deltas.get(), c, 2, {"del-or", "0", "0", "k", own1}), "OK");
  EXPECT_EQ(Cmd(deltas.get(), {"GET", "k"}).str(), "y");

  // What c holds of k after its delete: R {c:1}, the slots a:1 and b:1.
  const std::vector<std::string> piece = {
      "or-string",     "k", own1, "2", a,       "1",  "value", "10",
      "4000000000000", "x", b,    "1", "value", "20", "NOTTL", "y"};
  EXPECT_EQ(apply(joined.get(), c, 0, piece), "OK");
  EXPECT_EQ(Cmd(joined.get(), {"GET", "k"}).str(), "y");
  EXPECT_EQ(LogicalDigest(joined.get()), LogicalDigest(deltas.get()));
  const std::string digest = LogicalDigest(deltas.get());
  EXPECT_EQ(apply(joined.get(), c, 0, piece), "OK");
  EXPECT_EQ(apply(deltas.get(), c, 0, piece), "OK");
  EXPECT_EQ(LogicalDigest(joined.get()), digest);
  EXPECT_EQ(LogicalDigest(deltas.get()), digest);
  // c's write the piece's R removed arrives late: it stays removed on both.
  EXPECT_EQ(apply(joined.get(), c, 1, {"put", "k", "z", "TS", "5", "NOTTL", "CTX", none}), "OK");
  EXPECT_EQ(LogicalDigest(joined.get()), digest);

  // b deletes what it wrote: a's slot, carried as a sibling, is read on both.
  for (redisContext* node : {deltas.get(), joined.get()}) {
    ASSERT_EQ(apply(node, b, 2, {"del-or", "0", "0", "k", own1}), "OK");
    EXPECT_EQ(Cmd(node, {"GET", "k"}).str(), "x");
    EXPECT_EQ(Cmd(node, {"PEXPIRETIME", "k"}).integer(), 4000000000000);
  }
  EXPECT_EQ(LogicalDigest(joined.get()), LogicalDigest(deltas.get()));

  // A piece out of shape is refused and counted, nothing joined.
  std::vector<std::string> bad = piece;
  bad[3] = "3";
  EXPECT_EQ(apply(joined.get(), c, 0, bad),
            "ERR the delta was not applied (the server log says why)");
  EXPECT_EQ(InfoText(joined.get(), "peers", "malformed_deltas"), "1");
}

// The rule is a join: two nodes that apply the same observed-remove deltas in any order hold the
// same state, R and slots included (DEBUG DIGEST-LOGICAL hashes them). Each order of five deltas
// of two origins goes to its own key, forwards on one node and in that order on the other.
TEST_F(ActiveActiveTest, ObservedRemoveDeltasConvergeInEveryOrder) {
  const RefusingPort no_peer;
  ASSERT_NE(no_peer.port(), 0);
  ASSERT_TRUE(n0_.Start(no_peer.PeerArgs())) << n0_.error();
  ASSERT_TRUE(n1_.Start(no_peer.PeerArgs())) << n1_.error();
  auto forwards = n0_.Connect();
  auto ordered = n1_.Connect();
  const std::string a(40, 'a');
  const std::string b(40, 'b');
  const std::string none("\x01\x00", 2);
  const std::string a1("\x01\x01\x00\x01", 4);
  // b's own offset 1 and a's offset 1.
  const std::string b1_a1 =
      std::string("\x01\x02\x00\x01\x01", 5) + std::string(20, '\xaa') + "\x01";
  const std::vector<DottedDelta> deltas = {
      {&a, 1, {"put", "K", "a", "TS", "5", "NOTTL", "CTX", none}},
      {&a, 2, {"del-or", "0", "0", "K", a1}},
      {&a, 3, {"put", "K", "b", "TS", "3", "NOTTL", "CTX", none}},
      {&b, 1, {"put", "K", "x", "TS", "4", "PXAT", "4000000000000", "CTX", none}},
      {&b, 2, {"delete", "K", "TS", "2", "CTX", b1_a1}},
  };
  // a:3's `b` is the greatest slot left: a:1 went with the delete, b:1 with b's own delete.
  EXPECT_EQ(ApplyInEveryOrder(forwards.get(), ordered.get(), deltas, "b"), 120);
  EXPECT_EQ(LogicalDigest(forwards.get()), LogicalDigest(ordered.get()));
}

// With the same DEBUG CLOCK on every node, a row expires everywhere at the same clock time,
// including one written on a node cut off from the others.
TEST_F(ActiveActiveTest, ExpiryAtTheSameClockTimeOnEveryNode) {
  ASSERT_NO_FATAL_FAILURE(StartMesh());
  std::vector<RedisConnection> c;
  for (TestServer* s : {&n0_, &n1_, &n2_}) c.push_back(s->Connect());
  const int64_t t = 1'900'000'000'000;
  for (auto& node : c) {
    ASSERT_EQ(Cmd(node.get(), {"DEBUG", "CLOCK", "SET", std::to_string(t)}).str(), "OK");
  }
  ASSERT_EQ(Cmd(c[0].get(), {"SET", "e1", "v", "PX", "1000"}).str(), "OK");
  // TTL unlimited: a version that never expires, on every node.
  ASSERT_EQ(
      Cmd(c[0].get(), {"PUT", "e3", "kept", "TS", std::to_string(t), "TTL", "unlimited"}).str(),
      "OK");
  SetLink(c[1].get(), n1_, c[0].get(), n0_, false);
  SetLink(c[1].get(), n1_, c[2].get(), n2_, false);
  ASSERT_EQ(Cmd(c[1].get(), {"PUT", "e2", "w", "PXAT", std::to_string(t + 2000)}).str(), "OK");
  ASSERT_EQ(Cmd(c[1].get(), {"TLOG", "INS", "log", "entry", "7"}).str(), "OK");
  SetLink(c[1].get(), n1_, c[0].get(), n0_, true);
  SetLink(c[1].get(), n1_, c[2].get(), n2_, true);
  ASSERT_EQ(WaitConverged({c[0].get(), c[1].get(), c[2].get()}), "");
  for (auto& node : c) {
    EXPECT_EQ(Cmd(node.get(), {"PEXPIRETIME", "e1"}).integer(), t + 1000);
    EXPECT_EQ(Cmd(node.get(), {"PEXPIRETIME", "e2"}).integer(), t + 2000);
    EXPECT_EQ(Cmd(node.get(), {"PEXPIRETIME", "e3"}).integer(), -1);
  }
  for (auto& node : c) {
    ASSERT_EQ(Cmd(node.get(), {"DEBUG", "CLOCK", "SET", std::to_string(t + 999)}).str(), "OK");
    EXPECT_EQ(Cmd(node.get(), {"EXISTS", "e1", "e2"}).integer(), 2);
  }
  for (auto& node : c) {
    ASSERT_EQ(Cmd(node.get(), {"DEBUG", "CLOCK", "SET", std::to_string(t + 1000)}).str(), "OK");
    EXPECT_EQ(Cmd(node.get(), {"EXISTS", "e1"}).integer(), 0);
    EXPECT_EQ(Cmd(node.get(), {"EXISTS", "e2"}).integer(), 1);
  }
  for (auto& node : c) {
    ASSERT_EQ(Cmd(node.get(), {"DEBUG", "CLOCK", "SET", std::to_string(t + 2000)}).str(), "OK");
    EXPECT_EQ(Cmd(node.get(), {"EXISTS", "e2"}).integer(), 0);
    EXPECT_EQ(Cmd(node.get(), {"TLOG", "SIZE", "log"}).integer(), 1);
    EXPECT_EQ(Cmd(node.get(), {"GET", "e3"}).str(), "kept");
  }
  EXPECT_EQ(WaitConverged({c[0].get(), c[1].get(), c[2].get()}), "");
  // A write older than the expired version does not bring the key back on any node.
  ASSERT_EQ(Cmd(c[2].get(), {"PUT", "e2", "old", "TS", std::to_string(t - 5)}).str(), "OK");
  ASSERT_EQ(WaitConverged({c[0].get(), c[1].get(), c[2].get()}), "");
  for (auto& node : c) EXPECT_TRUE(Cmd(node.get(), {"GET", "e2"}).is_nil());
}

// Authenticated links, the commands the mode refuses, max-clock-skew, INFO peers and PEER.
TEST_F(ActiveActiveTest, RefusalsAuthSkewAndInfo) {
  const std::vector<std::string> auth = {"--requirepass", "s3cret", "--masterauth", "s3cret"};
  std::vector<std::string> a0 = PeerArgs({&n1_});
  a0.insert(a0.end(), auth.begin(), auth.end());
  std::vector<std::string> a1 = PeerArgs({&n0_});
  a1.insert(a1.end(), auth.begin(), auth.end());
  ASSERT_TRUE(n0_.Start(a0)) << n0_.error();
  ASSERT_TRUE(n1_.Start(a1)) << n1_.error();
  auto c0 = n0_.Connect();
  auto c1 = n1_.Connect();
  ASSERT_EQ(Cmd(c0.get(), {"AUTH", "s3cret"}).str(), "OK");
  ASSERT_EQ(Cmd(c1.get(), {"AUTH", "s3cret"}).str(), "OK");

  ASSERT_EQ(Cmd(c0.get(), {"SET", "k", "v"}).str(), "OK");
  for (int i = 0; i < 500 && Cmd(c1.get(), {"GET", "k"}).str() != "v"; i++) {
    std::this_thread::sleep_for(milliseconds(20));
  }
  EXPECT_EQ(Cmd(c1.get(), {"GET", "k"}).str(), "v");
  EXPECT_EQ(InfoText(c0.get(), "peers", "active_active"), "yes");
  EXPECT_NE(InfoText(c1.get(), "peers", "peer0").find("state=connected"), std::string::npos);
  const Reply list = Cmd(c0.get(), {"PEER", "LIST"});
  ASSERT_EQ(list.size(), 1u);

  const std::vector<std::vector<std::string>> refused = {{"SETBIT", "n", "0", "1"},
                                                         {"APPEND", "k", "x"},
                                                         {"SETRANGE", "k", "0", "x"},
                                                         {"GETDEL", "k"},
                                                         {"RENAME", "k", "k2"},
                                                         {"MULTI"},
                                                         {"WATCH", "k"},
                                                         {"EVAL", "return 1", "0"},
                                                         {"SET", "k", "v", "NX"},
                                                         {"SET", "k", "v", "GET"},
                                                         {"MSET", "a", "1"},
                                                         {"RESTORE", "k", "0", "x"}};
  for (const auto& args : refused) {
    const Reply r = Cmd(c0.get(), args);
    EXPECT_TRUE(r.is_error()) << args[0];
    EXPECT_NE(r.str().find("active-active"), std::string::npos) << args[0] << ": " << r.str();
  }
  EXPECT_EQ(Cmd(c0.get(), {"GET", "k"}).str(), "v");  // nothing was changed
  Reply r;
  // A replica's engine is its master's: no origin log or vector would survive.
  r = Cmd(c0.get(), {"REPLICAOF", "127.0.0.1", std::to_string(n1_.port())});
  EXPECT_EQ(r.str(), "ERR REPLICAOF is not allowed in active-active mode");

  // A timestamp an hour ahead: refused, then (flag) written and counted.
  const int64_t now = Cmd(c0.get(), {"DEBUG", "CLOCK", "GET"}).integer();
  const std::string ahead = std::to_string(now + 3'600'000);
  ASSERT_EQ(Cmd(c0.get(), {"CONFIG", "SET", "max-clock-skew", "60000"}).str(), "OK");
  r = Cmd(c0.get(), {"PUT", "skew", "v", "TS", ahead});
  EXPECT_NE(r.str().find("max-clock-skew"), std::string::npos) << r.str();
  EXPECT_TRUE(Cmd(c0.get(), {"GET", "skew"}).is_nil());
  ASSERT_EQ(Cmd(c0.get(), {"CONFIG", "SET", "max-clock-skew-action", "flag"}).str(), "OK");
  EXPECT_EQ(Cmd(c0.get(), {"PUT", "skew", "v", "TS", ahead}).str(), "OK");
  EXPECT_EQ(InfoField(c0.get(), "peers", "skewed_writes"), 1);

  EXPECT_EQ(Cmd(c0.get(), {"PEER", "REMOVE", "127.0.0.1", std::to_string(n1_.port())}).str(), "OK");
  EXPECT_EQ(Cmd(c0.get(), {"PEER", "LIST"}).size(), 0u);
  // Still in the mode: writes are still logged and refusals still apply.
  EXPECT_EQ(InfoText(c0.get(), "peers", "active_active"), "yes");
  EXPECT_TRUE(Cmd(c0.get(), {"APPEND", "n", "x"}).is_error());
}

// The refusals' exact texts (ActiveActive::ErrorText): a second PEER ADD of a linked peer, a
// write too far ahead of the clock, and the `peer` option on a replica at start.
TEST_F(ActiveActiveTest, RefusalTextsAreExact) {
  ASSERT_TRUE(n0_.Start()) << n0_.error();
  auto c0 = n0_.Connect();
  const std::string port = std::to_string(n1_.port());  // n1 never starts: the link retries
  ASSERT_EQ(Cmd(c0.get(), {"PEER", "ADD", "127.0.0.1", port}).str(), "OK");
  EXPECT_EQ(Cmd(c0.get(), {"PEER", "ADD", "127.0.0.1", port}).str(),
            "ERR peer 127.0.0.1:" + port + " is already linked");
  // A peer this node has no link to: PEER REMOVE and DEBUG PEER-LINK name it, and nothing changes.
  EXPECT_EQ(Cmd(c0.get(), {"PEER", "REMOVE", "127.0.0.1", "1"}).str(), "ERR no peer 127.0.0.1:1");
  EXPECT_EQ(Cmd(c0.get(), {"DEBUG", "PEER-LINK", "127.0.0.1", "1", "DOWN"}).str(),
            "ERR no peer 127.0.0.1:1");
  EXPECT_EQ(Cmd(c0.get(), {"PEER", "ADD", "127.0.0.1", port}).str(),
            "ERR peer 127.0.0.1:" + port + " is already linked");

  const int64_t now = Cmd(c0.get(), {"DEBUG", "CLOCK", "GET"}).integer();
  const std::string ahead = std::to_string(now + 3'600'000);
  const std::string skew_error =
      "ERR timestamp " + ahead +
      " is more than max-clock-skew (60000 ms) ahead of this node's clock";
  ASSERT_EQ(Cmd(c0.get(), {"CONFIG", "SET", "max-clock-skew", "60000"}).str(), "OK");
  EXPECT_EQ(Cmd(c0.get(), {"PUT", "k", "v", "TS", ahead}).str(), skew_error);
  EXPECT_EQ(Cmd(c0.get(), {"TREG", "SET", "r", "v", ahead}).str(), skew_error);

  std::vector<std::string> args = PeerArgs({&n0_});
  args.insert(args.end(), {"--replicaof", "127.0.0.1", std::to_string(n0_.port())});
  EXPECT_FALSE(n2_.Start(args));
  EXPECT_NE(n2_.ReadLog().find("a replica cannot have active-active peers (replicaof and peer)"),
            std::string::npos)
      << n2_.ReadLog();
}

}  // namespace
}  // namespace ebb::test
