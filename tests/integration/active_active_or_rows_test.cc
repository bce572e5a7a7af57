// Observed-remove string rows (docs/active-active.md, "Status", "observed-remove deletes of string
// keys") meeting the rest of the mode on a peer, fed through DEBUG PEER-APPLY: an expiry register
// rewrites every slot it covers and keeps the rows' extension, a whole-key delete takes the slots
// it covers (sibling rows included), a counter adopts a reduced version held in the extended form,
// a write that arrives dead is counted as the last-writer-wins path counts it, and a delete's
// horizon leaves the same state whatever the order of arrival. Every wait is a bounded poll.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/active_active_support.h"
#include "tests/support/test_constants.h"
#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

// Contexts: none, and the delta origin's own offset n.
std::string Own(char offset) { return std::string("\x01\x01\x00", 3) + offset; }

class ActiveActiveOrRowsTest : public ::testing::Test {
 protected:
  void TearDown() override {
    for (TestServer* server : {&n0_, &n1_}) {
      if (server->Running()) {
        EXPECT_EQ(server->Stop(), 0) << server->ReadLog();
      }
    }
  }
  // Starts n0 and n1, each with a peer that never answers: only DEBUG PEER-APPLY feeds them.
  void StartTwo() {
    ASSERT_NE(no_peer_.port(), 0);
    ASSERT_TRUE(n0_.Start(no_peer_.PeerArgs())) << n0_.error();
    ASSERT_TRUE(n1_.Start(no_peer_.PeerArgs())) << n1_.error();
    c0_ = n0_.Connect();
    c1_ = n1_.Connect();
  }
  // The delta `args` from `from` at `offset` (0: none) into database 0.
  static std::string Apply(redisContext* c, const std::string& from, uint64_t offset,
                           std::vector<std::string> args) {
    args.insert(args.begin(), {"DEBUG", "PEER-APPLY", from, "0"});
    if (offset > 0) args.insert(args.begin() + 4, {"OFFSET", std::to_string(offset)});
    return Cmd(c, args).str();
  }

  const RefusingPort no_peer_;
  TestServer n0_, n1_;
  RedisConnection c0_, c1_;
};

// An expiry register at T rewrites the expiry of every slot written at or before T, the winner's
// and its siblings', in their own rows: a sibling promoted later carries it, and the node holds
// what one given the register first holds (each write then took it on arrival).
TEST_F(ActiveActiveOrRowsTest, AnExpiryRegisterRewritesEverySlotItCovers) {
  StartTwo();
  const std::vector<std::string> register_at_30 = {"expiry-at", "30", "s", "4000000000000"};
  for (redisContext* c : {c0_.get(), c1_.get()}) {
    const bool register_first = c == c1_.get();
    if (register_first) {
      ASSERT_EQ(Apply(c, kNodeIdC, 1, register_at_30), "OK");
    }
    ASSERT_EQ(Apply(c, kNodeIdB, 1, {"put", "s", "x", "TS", "10", "NOTTL", "CTX", kEmptyOrContext}),
              "OK");
    ASSERT_EQ(Apply(c, kNodeIdA, 1, {"put", "s", "y", "TS", "20", "NOTTL", "CTX", kEmptyOrContext}),
              "OK");
    ASSERT_EQ(Apply(c, kNodeIdA, 2, {"put", "t", "z", "TS", "40", "NOTTL", "CTX", kEmptyOrContext}),
              "OK");
    if (!register_first) {
      ASSERT_EQ(Apply(c, kNodeIdC, 1, register_at_30), "OK");
    }
    EXPECT_EQ(Cmd(c, {"GET", "s"}).str(), "y");
    EXPECT_EQ(Cmd(c, {"PEXPIRETIME", "s"}).integer(), 4000000000000);
  }
  EXPECT_EQ(LogicalDigest(c0_.get()), LogicalDigest(c1_.get()));
  // a's delete of its own write promotes b's, which the register covered too.
  for (redisContext* c : {c0_.get(), c1_.get()}) {
    ASSERT_EQ(Apply(c, kNodeIdA, 3, {"del-or", "0", "0", "s", Own(1)}), "OK");
    EXPECT_EQ(Cmd(c, {"GET", "s"}).str(), "x");
    EXPECT_EQ(Cmd(c, {"PEXPIRETIME", "s"}).integer(), 4000000000000);
  }
  EXPECT_EQ(LogicalDigest(c0_.get()), LogicalDigest(c1_.get()));
  // A slot after T keeps its own expiry.
  ASSERT_EQ(Apply(c0_.get(), kNodeIdC, 2, {"expiry-at", "35", "t", "4000000000000"}), "OK");
  EXPECT_EQ(Cmd(c0_.get(), {"PEXPIRETIME", "t"}).integer(), -1);
}

// A whole-key delete at T (del-at, a flush's horizon) takes every slot written at or before T,
// siblings included: none is promoted when a later slot goes, and the key holds what a node that
// had the delete first holds (the writes it covers dropped on arrival).
TEST_F(ActiveActiveOrRowsTest, AWholeKeyDeleteTakesTheSiblingsItCovers) {
  StartTwo();
  struct Case {
    std::string key;
    std::vector<std::string> del;
  };
  const std::vector<Case> cases = {{"all", {"del-at", "30", "all"}},
                                   {"part", {"del-at", "15", "part"}},
                                   {"flushed", {"flushdb-at", "15"}}};
  uint64_t c_offset = 0;
  for (const Case& k : cases) {
    c_offset++;
    for (redisContext* c : {c0_.get(), c1_.get()}) {
      const bool delete_first = c == c1_.get();
      if (delete_first) {
        ASSERT_EQ(Apply(c, kNodeIdC, c_offset, k.del), "OK");
      }
      ASSERT_EQ(Apply(c, kNodeIdB, c_offset,
                      {"put", k.key, "x", "TS", "10", "NOTTL", "CTX", kEmptyOrContext}),
                "OK");
      ASSERT_EQ(Apply(c, kNodeIdA, c_offset,
                      {"put", k.key, "y", "TS", "20", "NOTTL", "CTX", kEmptyOrContext}),
                "OK");
      if (!delete_first) {
        ASSERT_EQ(Apply(c, kNodeIdC, c_offset, k.del), "OK");
      }
    }
  }
  for (redisContext* c : {c0_.get(), c1_.get()}) {
    EXPECT_EQ(Cmd(c, {"EXISTS", "all"}).integer(), 0);
    EXPECT_EQ(Cmd(c, {"GET", "part"}).str(), "y");
    EXPECT_EQ(Cmd(c, {"GET", "flushed"}).str(), "y");
  }
  EXPECT_EQ(LogicalDigest(c0_.get()), LogicalDigest(c1_.get()));
  // Deleting a's write leaves nothing: b's, at or before T, went with the delete.
  for (redisContext* c : {c0_.get(), c1_.get()}) {
    ASSERT_EQ(Apply(c, kNodeIdA, 10, {"del-or", "0", "0", "part", Own(3)}), "OK");
    ASSERT_EQ(Apply(c, kNodeIdA, 11, {"del-or", "0", "0", "flushed", Own(4)}), "OK");
    EXPECT_EQ(Cmd(c, {"EXISTS", "part"}).integer(), 0);
    EXPECT_EQ(Cmd(c, {"EXISTS", "flushed"}).integer(), 0);
  }
  // Two later writes that do not see each other make siblings again: the rows the delete
  // took do not come back with them.
  for (redisContext* c : {c0_.get(), c1_.get()}) {
    ASSERT_EQ(
        Apply(c, kNodeIdA, 12, {"put", "all", "p", "TS", "50", "NOTTL", "CTX", kEmptyOrContext}),
        "OK");
    ASSERT_EQ(
        Apply(c, kNodeIdC, 12, {"put", "all", "q", "TS", "40", "NOTTL", "CTX", kEmptyOrContext}),
        "OK");
    EXPECT_EQ(Cmd(c, {"GET", "all"}).str(), "p");
    ASSERT_EQ(Apply(c, kNodeIdA, 13, {"del-or", "0", "0", "all", Own(12)}), "OK");
    EXPECT_EQ(Cmd(c, {"GET", "all"}).str(), "q");
    ASSERT_EQ(Apply(c, kNodeIdC, 13, {"del-or", "0", "0", "all", Own(12)}), "OK");
    EXPECT_EQ(Cmd(c, {"EXISTS", "all"}).integer(), 0);
  }
  EXPECT_EQ(LogicalDigest(c0_.get()), LogicalDigest(c1_.get()));
}

// A snapshot's or-string piece whose slot a delete here covers: the slot is removed as it arrives,
// its dot joined into R, as on a node that held the slot when the delete came.
TEST_F(ActiveActiveOrRowsTest, ACoveredSlotOfASnapshotPieceJoinsR) {
  StartTwo();
  ASSERT_EQ(Apply(c0_.get(), kNodeIdC, 1, {"del-at", "15", "k"}), "OK");
  const std::vector<std::string> piece = {"or-string", "k",  kEmptyOrContext, "2", kNodeIdA, "1",
                                          "value",     "10", "NOTTL",         "x", kNodeIdB, "1",
                                          "value",     "20", "NOTTL",         "y"};
  ASSERT_EQ(Apply(c0_.get(), kNodeIdC, 0, piece), "OK");
  ASSERT_EQ(
      Apply(c1_.get(), kNodeIdA, 1, {"put", "k", "x", "TS", "10", "NOTTL", "CTX", kEmptyOrContext}),
      "OK");
  ASSERT_EQ(
      Apply(c1_.get(), kNodeIdB, 1, {"put", "k", "y", "TS", "20", "NOTTL", "CTX", kEmptyOrContext}),
      "OK");
  ASSERT_EQ(Apply(c1_.get(), kNodeIdC, 1, {"del-at", "15", "k"}), "OK");
  for (redisContext* c : {c0_.get(), c1_.get()}) EXPECT_EQ(Cmd(c, {"GET", "k"}).str(), "y");
  EXPECT_EQ(LogicalDigest(c0_.get()), LogicalDigest(c1_.get()));
}

// A counter delta reaching a key whose newest version is an expired one held as a reduced rank
// in the extended form adopts it as a reduced base (expired, so the counter reads as expired), as
// a node given the two the other way round merges it.
TEST_F(ActiveActiveOrRowsTest, ACounterAdoptsAReducedVersionInTheExtendedForm) {
  StartTwo();
  const std::vector<std::string> reduced = {
      "put-expired", "n",    "DIGEST", std::string(64, '7'), "TS", "10",
      "PXAT",        "1000", "CTX",    kEmptyOrContext};
  const std::vector<std::string> incr = {"counter", "n", "BY", kNodeIdB, "20", "1", "5", "0"};
  ASSERT_EQ(Apply(c0_.get(), kNodeIdA, 1, reduced), "OK");
  ASSERT_EQ(Apply(c0_.get(), kNodeIdB, 1, incr), "OK");
  ASSERT_EQ(Apply(c1_.get(), kNodeIdB, 1, incr), "OK");
  ASSERT_EQ(Apply(c1_.get(), kNodeIdA, 1, reduced), "OK");
  // The base has expired: so has the counter, on both.
  for (redisContext* c : {c0_.get(), c1_.get()}) EXPECT_EQ(Cmd(c, {"EXISTS", "n"}).integer(), 0);
  EXPECT_EQ(LogicalDigest(c0_.get()), LogicalDigest(c1_.get()));
}

// A put with a context whose expiry has already passed when it is written counts in INFO stats
// dead_on_arrival_own_expiry, as one without a context does; one that writes nothing (already
// applied) does not.
TEST_F(ActiveActiveOrRowsTest, AContextPutThatArrivesDeadIsCounted) {
  StartTwo();
  auto dead = [](redisContext* c) { return InfoText(c, "stats", "dead_on_arrival_own_expiry"); };
  ASSERT_EQ(Apply(c0_.get(), kNodeIdA, 0, {"put", "plain", "v", "TS", "5", "PXAT", "1000"}), "OK");
  EXPECT_EQ(dead(c0_.get()), "1");
  ASSERT_EQ(Apply(c0_.get(), kNodeIdA, 1,
                  {"put", "k", "v", "TS", "5", "PXAT", "1000", "CTX", kEmptyOrContext}),
            "OK");
  EXPECT_EQ(dead(c0_.get()), "2");
  ASSERT_EQ(Apply(c0_.get(), kNodeIdA, 1,
                  {"put", "k", "v", "TS", "5", "PXAT", "1000", "CTX", kEmptyOrContext}),
            "OK");
  ASSERT_EQ(Apply(c0_.get(), kNodeIdA, 2, {"put", "k", "w", "TS", "6", "NOTTL", "CTX", Own(1)}),
            "OK");
  EXPECT_EQ(dead(c0_.get()), "2");
  EXPECT_EQ(Cmd(c0_.get(), {"GET", "k"}).str(), "w");
}

// The same deltas of three origins, a del-at among them that covers some of the writes, leave
// two nodes with equal state (R and slots) in every order of arrival.
TEST_F(ActiveActiveOrRowsTest, ADeleteHorizonLeavesTheSameStateInEveryOrder) {
  StartTwo();
  // b's delete saw b:1 and a:1.
  const std::string b1_a1 =
      std::string("\x01\x02\x00\x01\x01", 5) + std::string(20, '\xaa') + "\x01";
  const std::vector<DottedDelta> deltas = {
      {&kNodeIdA, 1, {"put", "K", "a", "TS", "5", "NOTTL", "CTX", kEmptyOrContext}},
      {&kNodeIdB, 1, {"put", "K", "x", "TS", "4", "NOTTL", "CTX", kEmptyOrContext}},
      {&kNodeIdC, 1, {"del-at", "6", "K"}},
      {&kNodeIdB, 2, {"delete", "K", "TS", "3", "CTX", b1_a1}},
      {&kNodeIdA, 2, {"put", "K", "b", "TS", "9", "NOTTL", "CTX", Own(1)}},
  };
  EXPECT_EQ(ApplyInEveryOrder(c0_.get(), c1_.get(), deltas, "b"), 120);
  EXPECT_EQ(LogicalDigest(c0_.get()), LogicalDigest(c1_.get()));
}

}  // namespace
}  // namespace ebb::test
