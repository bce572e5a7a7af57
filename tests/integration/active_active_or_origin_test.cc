// The origin side of observed-remove string keys (docs/active-active.md, "Status",
// "observed-remove deletes of string keys"), through spawned servers: a DEL removes what its node
// had observed, so a later write survives it whatever its timestamp and a write made elsewhere
// concurrently survives it on every node; a losing write answers +OK and logs nothing; FLUSHDB
// covers a key that reads as absent but still holds a live sibling; a key held from before the
// mode is one version every node names alike; a peer joining by snapshot holds the same state.
// Every wait is a bounded poll.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/active_active_support.h"
#include "tests/support/eventually.h"
#include "tests/support/test_constants.h"
#include "tests/support/test_server.h"

namespace ebb::test {
namespace {

// `args` with the observed-remove string rule, which every node of these tests runs.
std::vector<std::string> OrRule(std::vector<std::string> args) {
  args.insert(args.end(), {"--active-active-string-rule", "observed-remove"});
  return args;
}

class ActiveActiveOrOriginTest : public ::testing::Test {
 protected:
  void TearDown() override {
    for (TestServer* server : {&n0_, &n1_, &n2_}) {
      if (server->Running()) {
        EXPECT_EQ(server->Stop(), 0) << server->ReadLog();
      }
    }
  }
  // n0 and n1 linked, both clocks pinned at kPinnedNowMs.
  void StartPair() {
    ASSERT_TRUE(n0_.Start(OrRule(PeerArgs({&n1_})))) << n0_.error();
    ASSERT_TRUE(n1_.Start(OrRule(PeerArgs({&n0_})))) << n1_.error();
    c0_ = n0_.Connect();
    c1_ = n1_.Connect();
    for (redisContext* c : {c0_.get(), c1_.get()}) SetClock(c, kPinnedNowMs);
  }
  static void SetClock(redisContext* c, int64_t ms) {
    ASSERT_EQ(Cmd(c, {"DEBUG", "CLOCK", "SET", std::to_string(ms)}).str(), "OK");
  }
  static void Ok(redisContext* c, const std::vector<std::string>& args) {
    ASSERT_EQ(Cmd(c, args).str(), "OK") << args[0];
  }
  // The delta `args` from `from` at `offset` into database 0 (DEBUG PEER-APPLY).
  static void Apply(redisContext* c, const std::string& from, uint64_t offset,
                    std::vector<std::string> args) {
    args.insert(args.begin(), {"DEBUG", "PEER-APPLY", from, "0", "OFFSET", std::to_string(offset)});
    ASSERT_EQ(Cmd(c, args).str(), "OK");
  }
  void Converge() {
    const std::vector<redisContext*> both = {c0_.get(), c1_.get()};
    ASSERT_EQ(WaitConverged(both), "") << LogicalDifference(c0_.get(), c1_.get());
  }

  const RefusingPort no_peer_;
  TestServer n0_, n1_, n2_;
  RedisConnection c0_, c1_, c2_;
};

// A write after a DEL on the same node survives it on every node, whatever its timestamp: the
// DEL removed what the node had observed, not what is older.
TEST_F(ActiveActiveOrOriginTest, AWriteAfterADelSurvivesItWhateverItsTimestamp) {
  StartPair();
  Ok(c0_.get(), {"PUT", "k", "a", "TS", "5"});
  EXPECT_EQ(Cmd(c0_.get(), {"DEL", "k"}).integer(), 1);
  EXPECT_EQ(Cmd(c0_.get(), {"EXISTS", "k"}).integer(), 0);
  Ok(c0_.get(), {"PUT", "k", "b", "TS", "3"});
  Converge();
  for (redisContext* c : {c0_.get(), c1_.get()}) EXPECT_EQ(Cmd(c, {"GET", "k"}).str(), "b");
}

// A write made on n1 while n0, cut off, deletes the key survives the DEL on both after the heal,
// though its timestamp is the one the DEL removed (its value ranks above: a greater digest); the
// other key the DEL named goes.
TEST_F(ActiveActiveOrOriginTest, AWriteConcurrentWithADelSurvivesIt) {
  StartPair();
  Ok(c0_.get(), {"PUT", "k", "before", "TS", "100"});
  Ok(c0_.get(), {"SET", "gone", "before"});
  Converge();
  SetLink(c0_.get(), n0_, c1_.get(), n1_, false);
  EXPECT_EQ(Cmd(c0_.get(), {"DEL", "k", "gone"}).integer(), 2);
  Ok(c1_.get(), {"PUT", "k", "concurrent", "TS", "100"});
  SetLink(c0_.get(), n0_, c1_.get(), n1_, true);
  Converge();
  for (redisContext* c : {c0_.get(), c1_.get()}) {
    EXPECT_EQ(Cmd(c, {"GET", "k"}).str(), "concurrent");
    EXPECT_EQ(Cmd(c, {"EXISTS", "gone"}).integer(), 0);
  }
  // n1's DEL observed the write it holds: the key goes everywhere.
  EXPECT_EQ(Cmd(c1_.get(), {"DEL", "k"}).integer(), 1);
  Converge();
  for (redisContext* c : {c0_.get(), c1_.get()}) EXPECT_EQ(Cmd(c, {"EXISTS", "k"}).integer(), 0);
}

// A version not above the one held answers +OK, writes nothing and logs nothing.
TEST_F(ActiveActiveOrOriginTest, ALosingWriteAnswersOkAndIsNotLogged) {
  StartPair();
  Ok(c0_.get(), {"PUT", "k", "a", "TS", "10"});
  const int64_t offset = InfoField(c0_.get(), "peers", "origin_offset");
  Ok(c0_.get(), {"PUT", "k", "older", "TS", "9"});
  Ok(c0_.get(), {"DELETE", "k", "TS", "8"});
  EXPECT_EQ(InfoField(c0_.get(), "peers", "origin_offset"), offset);
  EXPECT_EQ(Cmd(c0_.get(), {"GET", "k"}).str(), "a");
  Ok(c0_.get(), {"PUT", "k", "newer", "TS", "11"});
  EXPECT_EQ(InfoField(c0_.get(), "peers", "origin_offset"), offset + 1);
  Converge();
  for (redisContext* c : {c0_.get(), c1_.get()}) EXPECT_EQ(Cmd(c, {"GET", "k"}).str(), "newer");
}

// FLUSHDB covers a key whose winner has expired (it reads as absent) but which holds a live
// sibling: a later expiry register that would bring the winner back finds nothing.
TEST_F(ActiveActiveOrOriginTest, FlushDbCoversAKeyWhoseWinnerExpiredBesideALiveSibling) {
  ASSERT_NE(no_peer_.port(), 0);
  ASSERT_TRUE(n0_.Start(OrRule(no_peer_.PeerArgs()))) << n0_.error();
  c0_ = n0_.Connect();
  SetClock(c0_.get(), kPinnedNowMs);
  Ok(c0_.get(), {"PUT", "k", "winner", "TS", "10", "PXAT", std::to_string(kPinnedNowMs + 50)});
  Apply(c0_.get(), kNodeIdB, 1,
        {"put", "k", "sibling", "TS", "5", "NOTTL", "CTX", kEmptyOrContext});
  EXPECT_EQ(Cmd(c0_.get(), {"GET", "k"}).str(), "winner");
  SetClock(c0_.get(), kPinnedNowMs + 100);
  EXPECT_TRUE(Cmd(c0_.get(), {"GET", "k"}).is_nil());
  Ok(c0_.get(), {"FLUSHDB"});
  Apply(c0_.get(), kNodeIdC, 1, {"expiry-at", "20", "k", "persist"});
  EXPECT_TRUE(Cmd(c0_.get(), {"GET", "k"}).is_nil());
  EXPECT_EQ(Cmd(c0_.get(), {"EXISTS", "k"}).integer(), 0);
}

// A key written before the mode is one version every node names by the same dot: a DEL made on
// the node that received it by snapshot removes it on the node that wrote it.
TEST_F(ActiveActiveOrOriginTest, AKeyHeldFromBeforeTheModeIsDeletedEverywhere) {
  ASSERT_TRUE(n0_.Start(OrRule({}))) << n0_.error();
  c0_ = n0_.Connect();
  Ok(c0_.get(), {"SET", "old", "v"});
  Ok(c0_.get(), {"SET", "kept", "v"});
  ASSERT_TRUE(n1_.Start(OrRule(PeerArgs({&n0_})))) << n1_.error();
  c1_ = n1_.Connect();
  Ok(c0_.get(), {"PEER", "ADD", "127.0.0.1", std::to_string(n1_.port())});
  Converge();
  EXPECT_EQ(Cmd(c1_.get(), {"GET", "old"}).str(), "v");
  EXPECT_EQ(Cmd(c1_.get(), {"DEL", "old"}).integer(), 1);
  Converge();
  for (redisContext* c : {c0_.get(), c1_.get()}) {
    EXPECT_EQ(Cmd(c, {"EXISTS", "old"}).integer(), 0);
    EXPECT_EQ(Cmd(c, {"GET", "kept"}).str(), "v");
  }
}

// A peer that joins by snapshot gets each string key's slots and removed context: the same DEBUG
// DIGEST-LOGICAL, and a DEL it makes then removes the siblings it received.
TEST_F(ActiveActiveOrOriginTest, APeerJoiningBySnapshotHoldsTheSameState) {
  ASSERT_NE(no_peer_.port(), 0);
  std::vector<std::string> args = no_peer_.PeerArgs();
  args.insert(args.end(), {"--peer-backlog-size", "1"});
  ASSERT_TRUE(n0_.Start(OrRule(args))) << n0_.error();
  c0_ = n0_.Connect();
  SetClock(c0_.get(), kPinnedNowMs);
  Ok(c0_.get(), {"PUT", "siblings", "mine", "TS", "10"});
  Apply(c0_.get(), kNodeIdB, 1,
        {"put", "siblings", "theirs", "TS", "9", "NOTTL", "CTX", kEmptyOrContext});
  Ok(c0_.get(), {"SET", "deleted", "v"});
  EXPECT_EQ(Cmd(c0_.get(), {"DEL", "deleted"}).integer(), 1);
  Ok(c0_.get(), {"SET", "plain", "v"});
  Ok(c0_.get(), {"SET", "pad", "1"});  // the log's front moves past offset 1
  ASSERT_GT(InfoField(c0_.get(), "peers", "origin_log_first"), 1);

  ASSERT_TRUE(n2_.Start(OrRule(PeerArgs({&n0_})))) << n2_.error();
  c2_ = n2_.Connect();
  SetClock(c2_.get(), kPinnedNowMs);
  Ok(c0_.get(), {"PEER", "ADD", "127.0.0.1", std::to_string(n2_.port())});
  ASSERT_EQ(WaitConverged({c0_.get(), c2_.get()}), "") << LogicalDifference(c0_.get(), c2_.get());
  EXPECT_GE(InfoField(c0_.get(), "peers", "snapshots_sent"), 1);
  EXPECT_EQ(Cmd(c2_.get(), {"GET", "siblings"}).str(), "mine");
  EXPECT_EQ(Cmd(c2_.get(), {"EXISTS", "deleted"}).integer(), 0);
  // n2's DEL observed both slots: the key goes on both.
  EXPECT_EQ(Cmd(c2_.get(), {"DEL", "siblings"}).integer(), 1);
  ASSERT_EQ(WaitConverged({c0_.get(), c2_.get()}), "");
  for (redisContext* c : {c0_.get(), c2_.get()}) {
    EXPECT_EQ(Cmd(c, {"EXISTS", "siblings"}).integer(), 0);
  }
}

// The rule is shown by CONFIG GET and fixed at start; under it INCR and its family are refused
// (a counter has no merge with it) and write nothing.
TEST_F(ActiveActiveOrOriginTest, TheIncrFamilyIsRefusedUnderTheRule) {
  StartPair();
  const Reply rule = Cmd(c0_.get(), {"CONFIG", "GET", "active-active-string-rule"});
  ASSERT_EQ(rule.size(), 2u) << rule.ToString();
  EXPECT_EQ(rule[1].str(), "observed-remove");
  const Reply set = Cmd(c0_.get(), {"CONFIG", "SET", "active-active-string-rule", "timestamp"});
  EXPECT_TRUE(set.is_error()) << set.ToString();
  EXPECT_NE(set.str().find("immutable"), std::string::npos) << set.str();
  const std::vector<std::vector<std::string>> incrs = {{"INCR", "n"},
                                                       {"INCRBY", "n", "2"},
                                                       {"DECR", "n"},
                                                       {"DECRBY", "n", "2"},
                                                       {"INCRBYFLOAT", "n", "1.5"}};
  for (const std::vector<std::string>& incr : incrs) {
    const Reply r = Cmd(c0_.get(), incr);
    EXPECT_TRUE(r.is_error()) << incr[0] << ": " << r.ToString();
    EXPECT_NE(r.str().find("active-active-string-rule observed-remove"), std::string::npos)
        << r.str();
  }
  EXPECT_EQ(Cmd(c0_.get(), {"EXISTS", "n"}).integer(), 0);
  Ok(c0_.get(), {"SET", "n", "1"});
  Converge();
  EXPECT_EQ(Cmd(c1_.get(), {"GET", "n"}).str(), "1");
}

// Nodes whose string rules differ would diverge: each refuses the other's PEER SYNC naming the
// option, INFO peers says settings-differ, and no write crosses.
TEST_F(ActiveActiveOrOriginTest, PeersWithDifferentRulesRefuseToLink) {
  ASSERT_TRUE(n0_.Start(OrRule(PeerArgs({&n1_})))) << n0_.error();
  ASSERT_TRUE(n1_.Start(PeerArgs({&n0_}))) << n1_.error();
  c0_ = n0_.Connect();
  c1_ = n1_.Connect();
  auto state_of = [](redisContext* c) {
    const std::string peers = InfoText(c, "peers", "peer0");
    const size_t at = peers.find("state=");
    return at == std::string::npos ? peers : peers.substr(at + 6, peers.find(',', at) - at - 6);
  };
  EXPECT_TRUE(Eventually([&] {
    return state_of(c0_.get()) == "settings-differ" && state_of(c1_.get()) == "settings-differ";
  })) << state_of(c0_.get())
      << " " << state_of(c1_.get());
  EXPECT_NE(n1_.ReadLog().find("its active-active-string-rule is 'observed-remove', this node's "
                               "'timestamp'"),
            std::string::npos)
      << n1_.ReadLog();
  Ok(c0_.get(), {"SET", "k", "v"});
  Ok(c1_.get(), {"SET", "j", "v"});
  EXPECT_EQ(Cmd(c1_.get(), {"EXISTS", "k"}).integer(), 0);
  EXPECT_EQ(Cmd(c0_.get(), {"EXISTS", "j"}).integer(), 0);
}

// A node that holds counter state refuses to start under the rule, with its reason in the log and
// a non-zero exit; with the timestamp rule it starts again and keeps its counter.
TEST_F(ActiveActiveOrOriginTest, ANodeHoldingCountersRefusesToStartUnderTheRule) {
  ASSERT_NE(no_peer_.port(), 0);
  ASSERT_TRUE(n0_.Start(no_peer_.PeerArgs())) << n0_.error();
  c0_ = n0_.Connect();
  ASSERT_EQ(Cmd(c0_.get(), {"INCR", "n"}).integer(), 1);
  c0_ = {};
  ASSERT_EQ(n0_.Stop(), 0) << n0_.ReadLog();
  EXPECT_FALSE(n0_.Start(OrRule(no_peer_.PeerArgs())));
  EXPECT_EQ(n0_.exit_code(), 1);
  EXPECT_NE(n0_.ReadLog().find("active-active-string-rule observed-remove is not allowed on a "
                               "node that holds counters"),
            std::string::npos)
      << n0_.ReadLog();
  ASSERT_TRUE(n0_.Start(no_peer_.PeerArgs())) << n0_.error();
  c0_ = n0_.Connect();
  EXPECT_EQ(Cmd(c0_.get(), {"GET", "n"}).str(), "1");
}

}  // namespace
}  // namespace ebb::test
