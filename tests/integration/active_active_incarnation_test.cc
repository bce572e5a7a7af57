// A node whose origin log ends before what it once streamed (docs/active-active.md, "A node
// behind what it streamed"): its data directory is restored from a copy taken earlier, so its
// peer has applied deltas the node no longer has, under offsets the node will give again. The
// node must notice at the peer's PEER SYNC — an offset past its log's end, or another delta at
// the offset the peer applied last — take a new node id, and get back what it lost from its
// peers' snapshots; then both nodes hold every write made before and after the restore. Without
// that, the peer either refuses the node's stream for good or skips the node's new deltas under
// the reused offsets. And the case no peer can catch: the node restored on an id whose position
// every peer has forgotten (each took a new incarnation of its own since) keeps that id and
// gives offsets it had streamed again, to new deltas; the mesh holds both histories, and so must
// a reference given every delta logged. And the case that must not look like a restore: a delta the
// peer rewrote as it applied it (an expiry register) still named by the digest it was sent with.
// Every wait is a bounded poll.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/active_active_support.h"
#include "tests/support/eventually.h"
#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

namespace fs = std::filesystem;

class ActiveActiveIncarnationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(n0_.Start(PeerArgs({&n1_}))) << n0_.error();
    ASSERT_TRUE(n1_.Start(PeerArgs({&n0_}))) << n1_.error();
    c0_ = n0_.Connect();
    c1_ = n1_.Connect();
    backup_ = n0_.dir() + "/backup";
  }
  void TearDown() override {
    for (TestServer* server : {&n0_, &n1_}) {
      if (server->Running()) {
        EXPECT_EQ(server->Stop(), 0) << server->ReadLog();
      }
    }
  }

  // Writes `count` string keys and one log entry on n0, each named with `prefix`: count + 1 deltas.
  void WriteOnN0(const std::string& prefix, int count) {
    for (int i = 0; i < count; i++) {
      ASSERT_EQ(Cmd(c0_.get(), {"SET", prefix + std::to_string(i), prefix}).str(), "OK");
    }
    ASSERT_EQ(Cmd(c0_.get(), {"TLOG", "INS", "log", prefix, std::to_string(count)}).str(), "OK");
  }

  void ExpectBothHold(const std::string& prefix, int count) {
    for (redisContext* c : {c0_.get(), c1_.get()}) {
      for (int i = 0; i < count; i++) {
        EXPECT_EQ(Cmd(c, {"GET", prefix + std::to_string(i)}).str(), prefix) << prefix << i;
      }
    }
  }

  // Stops n0 and copies its data directory aside.
  void BackUpN0() {
    ASSERT_EQ(n0_.Stop(), 0) << n0_.ReadLog();
    fs::copy(n0_.data_dir(), backup_, fs::copy_options::recursive);
  }

  // Stops n0, puts the copy back in place of its data directory and starts it on it.
  void RestoreN0() {
    ASSERT_EQ(n0_.Stop(), 0) << n0_.ReadLog();
    fs::remove_all(n0_.data_dir());
    fs::copy(backup_, n0_.data_dir(), fs::copy_options::recursive);
    ASSERT_TRUE(n0_.Start(PeerArgs({&n1_}))) << n0_.error();
    c0_ = n0_.Connect();
  }

  // Stops n1 and copies its data directory aside; RestoreN1 puts it back and starts n1 on it.
  void BackUpN1() {
    ASSERT_EQ(n1_.Stop(), 0) << n1_.ReadLog();
    fs::copy(n1_.data_dir(), n1_.dir() + "/backup", fs::copy_options::recursive);
    ASSERT_TRUE(n1_.Start(PeerArgs({&n0_}))) << n1_.error();
    c1_ = n1_.Connect();
  }
  void RestoreN1() {
    ASSERT_EQ(n1_.Stop(), 0) << n1_.ReadLog();
    fs::remove_all(n1_.data_dir());
    fs::copy(n1_.dir() + "/backup", n1_.data_dir(), fs::copy_options::recursive);
    ASSERT_TRUE(n1_.Start(PeerArgs({&n0_}))) << n1_.error();
    c1_ = n1_.Connect();
  }

  std::string Converged() { return WaitConverged({c0_.get(), c1_.get()}); }
  std::string NodeId(redisContext* c) { return Cmd(c, {"PEER", "ID"}).str(); }
  // The node's id once it differs from `old` (a peer's PEER SYNC makes it change), polled for up
  // to 10 s; `old` if it never does.
  std::string NewId(redisContext* c, const std::string& old) {
    std::string id = NodeId(c);
    for (int tries = 0; tries < 500 && id == old; tries++) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      id = NodeId(c);
    }
    return id;
  }

  TestServer n0_, n1_;
  RedisConnection c0_, c1_;
  std::string backup_;
};

TEST_F(ActiveActiveIncarnationTest, ANodeRestoredBehindWhatItStreamedTakesANewIdAndRecovers) {
  ASSERT_NO_FATAL_FAILURE(WriteOnN0("a", 3));  // offsets 1..4
  ASSERT_EQ(Converged(), "");
  ASSERT_NO_FATAL_FAILURE(BackUpN0());
  ASSERT_TRUE(n0_.Start(PeerArgs({&n1_}))) << n0_.error();
  c0_ = n0_.Connect();
  ASSERT_NO_FATAL_FAILURE(WriteOnN0("b", 4));  // offsets 5..9, which n1 applies
  ASSERT_EQ(Converged(), "");
  const std::string old_id = NodeId(c0_.get());

  // n0 comes back holding offsets 1..4; n1 asks for 10.
  ASSERT_NO_FATAL_FAILURE(RestoreN0());
  EXPECT_EQ(Converged(), "") << n0_.ReadLog();
  EXPECT_NE(NodeId(c0_.get()), old_id);
  ExpectBothHold("a", 3);
  ExpectBothHold("b", 4);  // back on n0 from n1's snapshot

  // Its writes from now on reach n1.
  ASSERT_NO_FATAL_FAILURE(WriteOnN0("c", 2));
  EXPECT_EQ(Converged(), "");
  ExpectBothHold("c", 2);
  for (redisContext* c : {c0_.get(), c1_.get()}) {
    EXPECT_EQ(Cmd(c, {"TLOG", "SIZE", "log"}).integer(), 3);
  }
  EXPECT_NE(n0_.ReadLog().find("lost deltas it had streamed"), std::string::npos);
}

TEST_F(ActiveActiveIncarnationTest, ANodeThatGaveAnAppliedOffsetAgainTakesANewId) {
  ASSERT_NO_FATAL_FAILURE(WriteOnN0("a", 3));  // offsets 1..4
  ASSERT_EQ(Converged(), "");
  ASSERT_NO_FATAL_FAILURE(BackUpN0());
  ASSERT_TRUE(n0_.Start(PeerArgs({&n1_}))) << n0_.error();
  c0_ = n0_.Connect();
  ASSERT_NO_FATAL_FAILURE(WriteOnN0("b", 4));  // offsets 5..9
  ASSERT_EQ(Converged(), "");
  const std::string old_id = NodeId(c0_.get());

  // n1 stops pulling from n0; the restored n0 writes past offset 9 again (5..11) before n1 asks:
  // only the digest of offset 9 tells the two deltas 9 apart.
  ASSERT_TRUE(SetPull(c1_.get(), n0_, false));
  ASSERT_NO_FATAL_FAILURE(RestoreN0());
  ASSERT_NO_FATAL_FAILURE(WriteOnN0("d", 6));
  EXPECT_EQ(InfoField(c0_.get(), "peers", "origin_offset"), 11);  // past n1's vector (9)
  ASSERT_TRUE(SetPull(c1_.get(), n0_, true));
  EXPECT_EQ(Converged(), "");
  EXPECT_NE(NodeId(c0_.get()), old_id);
  ExpectBothHold("a", 3);
  ExpectBothHold("b", 4);
  ExpectBothHold("d", 6);
  for (redisContext* c : {c0_.get(), c1_.get()}) {
    EXPECT_EQ(Cmd(c, {"TLOG", "SIZE", "log"}).integer(), 3);
  }
}

// n1 comes back on a copy whose log is empty, behind the one delta it streamed: under its new id
// its content (what it gets back from n0, n1's lost write included) still stands at offset 1, so
// a node joining later, which asks n1 from 1, receives it as a snapshot — n1's old id is served
// by no one, so that is the only way its lost write reaches it.
TEST_F(ActiveActiveIncarnationTest, ANodeThatLostItsOnlyDeltasServesItsContentUnderItsNewId) {
  ASSERT_NO_FATAL_FAILURE(BackUpN1());                       // n1's log is empty
  ASSERT_EQ(Cmd(c1_.get(), {"SET", "n", "1"}).str(), "OK");  // n1's offset 1, which n0 applies
  ASSERT_NO_FATAL_FAILURE(WriteOnN0("a", 2));
  ASSERT_EQ(Converged(), "");
  const std::string n1_id = NodeId(c1_.get());
  ASSERT_NO_FATAL_FAILURE(RestoreN1());
  ASSERT_NE(NewId(c1_.get(), n1_id), n1_id) << n1_.ReadLog();
  ASSERT_EQ(Converged(), "") << n1_.ReadLog();
  ASSERT_EQ(Cmd(c1_.get(), {"GET", "n"}).str(), "1");  // back from n0's snapshot

  TestServer joiner;
  ASSERT_TRUE(joiner.Start(PeerArgs({&n0_, &n1_}))) << joiner.error();
  RedisConnection cj = joiner.Connect();
  EXPECT_EQ(WaitConverged({c0_.get(), c1_.get(), cj.get()}), "") << joiner.ReadLog();
  EXPECT_EQ(Cmd(cj.get(), {"GET", "n"}).str(), "1");
  EXPECT_EQ(Cmd(cj.get(), {"GET", "a1"}).str(), "a");
  EXPECT_EQ(joiner.Stop(), 0);
}

// A peer names the last delta it applied by the digest of the delta as its origin sent it, also
// when applying it rewrote it: here n1 holds an expiry register n0 had not seen when it logged its
// PUT, so n1 gives the PUT the register's expiry where the delta stands (a peer consumes the
// deltas it applies). Were the digest taken after that, n0 would find another delta at the offset
// n1 resumes from and take a new id it does not need.
TEST_F(ActiveActiveIncarnationTest, ADeltaAPeerRewroteIsStillNamedByTheDigestItWasSentWith) {
  ASSERT_TRUE(SetPull(c0_.get(), n1_, false));
  ASSERT_TRUE(SetPull(c1_.get(), n0_, false));
  ASSERT_EQ(Cmd(c1_.get(), {"SET", "k", "held"}).str(), "OK");
  ASSERT_EQ(Cmd(c1_.get(), {"EXPIRE", "k", "1000"}).integer(), 1);          // n1's register on k
  ASSERT_EQ(Cmd(c0_.get(), {"PUT", "k", "older", "TS", "1"}).str(), "OK");  // NOTTL in n0's log
  const std::string n0_id = NodeId(c0_.get());

  ASSERT_TRUE(SetPull(c1_.get(), n0_, true));  // n1 applies the PUT, rewritten by its register
  ASSERT_TRUE(Eventually([&] {
    return Cmd(c1_.get(), {"INFO", "peers"}).str().find("id=" + n0_id + ",applied=1,") !=
           std::string::npos;
  }));
  ASSERT_TRUE(SetPull(c1_.get(), n0_, false));
  ASSERT_TRUE(SetPull(c1_.get(), n0_, true));  // resumes after the PUT, named by its digest
  ASSERT_TRUE(Eventually([&] {
    return n1_.ReadLog().find("): streaming from origin offset 2") != std::string::npos;
  })) << n1_.ReadLog();
  ASSERT_TRUE(SetPull(c0_.get(), n1_, true));
  EXPECT_EQ(Converged(), "") << n0_.ReadLog();
  EXPECT_EQ(NodeId(c0_.get()), n0_id) << n0_.ReadLog();
  EXPECT_EQ(n0_.ReadLog().find("lost deltas it had streamed"), std::string::npos);
  for (redisContext* c : {c0_.get(), c1_.get()}) {
    EXPECT_EQ(Cmd(c, {"GET", "k"}).str(), "held");
    EXPECT_GT(Cmd(c, {"TTL", "k"}).integer(), 0);
  }
}

TEST_F(ActiveActiveIncarnationTest, ARestoreNoPeerCanCatchKeepsBothHistoriesOfItsOffsets) {
  DeltaCollector logged;
  const auto collect = [&] {
    logged.Collect(n0_);
    logged.Collect(n1_);
  };
  ASSERT_NO_FATAL_FAILURE(WriteOnN0("a", 3));  // offsets 1..4 of n0's first id
  ASSERT_EQ(Converged(), "");
  ASSERT_NO_FATAL_FAILURE(BackUpN0());
  ASSERT_TRUE(n0_.Start(PeerArgs({&n1_}))) << n0_.error();
  c0_ = n0_.Connect();
  const std::string first_id = NodeId(c0_.get());
  ASSERT_EQ(Cmd(c1_.get(), {"SET", "m", "1"}).str(), "OK");  // n1's offset 1
  ASSERT_EQ(Converged(), "");
  ASSERT_NO_FATAL_FAILURE(BackUpN1());
  ASSERT_EQ(Cmd(c1_.get(), {"SET", "n", "1"}).str(), "OK");  // n1's offset 2, which n0 applies
  ASSERT_NO_FATAL_FAILURE(WriteOnN0("b", 4));                // offsets 5..9, which n1 applies
  ASSERT_EQ(Converged(), "");
  collect();

  // n0 restored: n1 asks for 10 and n0 takes a new id.
  ASSERT_NO_FATAL_FAILURE(RestoreN0());
  ASSERT_NE(NewId(c0_.get(), first_id), first_id) << n0_.ReadLog();
  ASSERT_EQ(Converged(), "") << n0_.ReadLog();
  const std::string n1_id = NodeId(c1_.get());
  collect();
  // n1 restored: n0 asks for 3 and n1 takes a new id, forgetting how far n0's first id streamed.
  ASSERT_NO_FATAL_FAILURE(RestoreN1());
  ASSERT_NE(NewId(c1_.get(), n1_id), n1_id) << n1_.ReadLog();
  ASSERT_EQ(Converged(), "") << n1_.ReadLog();
  collect();

  // n0 restored again from the same copy: no peer knows its first id's position any more, so it
  // keeps that id (the case of this test), and its next deltas take offsets 5..9 again.
  ASSERT_NO_FATAL_FAILURE(RestoreN0());
  ASSERT_EQ(Converged(), "") << n0_.ReadLog();
  ASSERT_EQ(NodeId(c0_.get()), first_id);
  ASSERT_NO_FATAL_FAILURE(logged.Rewound(n0_));
  ASSERT_NO_FATAL_FAILURE(WriteOnN0("d", 4));
  ASSERT_EQ(Converged(), "");
  ExpectBothHold("b", 4);
  ExpectBothHold("d", 4);
  collect();

  // A node given every delta logged, both histories, holds what the mesh holds.
  const RefusingPort no_peer;
  ASSERT_NE(no_peer.port(), 0);
  TestServer reference;
  ASSERT_TRUE(reference.Start(no_peer.PeerArgs())) << reference.error();
  RedisConnection ref = reference.Connect();
  ASSERT_NO_FATAL_FAILURE(ApplyInOrder(ref.get(), logged.deltas()));
  EXPECT_EQ(LogicalDigest(ref.get()), LogicalDigest(c0_.get()))
      << LogicalDifference(ref.get(), c0_.get());
  EXPECT_EQ(reference.Stop(), 0);
}

}  // namespace
}  // namespace ebb::test
