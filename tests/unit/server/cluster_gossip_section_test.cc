// The gossip section (server/cluster/gossip_section.h) on node tables built by hand, with the
// random picks a test chooses: who is picked, who never is, and the PFAIL nodes always told of.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "server/cluster/gossip_section.h"

namespace ebb::server::cluster {
namespace {

std::string Name(char c) { return std::string(40, c); }

// Picks 0, 1, 2, ... in turn (wrapping at n): every candidate is tried in table order.
class InTurn {
 public:
  size_t operator()(size_t n) { return next_++ % n; }

 private:
  size_t next_ = 0;
};

bool Has(const std::vector<const Node*>& nodes, const Node* n) {
  return std::find(nodes.begin(), nodes.end(), n) != nodes.end();
}

TEST(ClusterGossipSection, PicksReachableNodesWithSlotsOnceNeverMyself) {
  ClusterState state(Name('a'));
  Node* b = state.AddNode(Name('b'), kFlagMaster, 0);
  Node* c = state.AddNode(Name('c'), kFlagMaster, 0);
  Node* d = state.AddNode(Name('d'), kFlagMaster, 0);
  Node* e = state.AddNode(Name('e'), kFlagMaster | kFlagHandshake, 0);
  Node* f = state.AddNode(Name('f'), kFlagMaster, 0);
  ASSERT_TRUE(state.AddSlot(b, 1));
  ASSERT_TRUE(state.AddSlot(c, 2));
  ASSERT_TRUE(state.AddSlot(d, 3));
  // f has neither slots nor a link: not worth telling of.
  InTurn random;
  const std::vector<const Node*> picked = GossipNodes(state, std::ref(random));
  EXPECT_EQ(picked.size(), 3u);  // at least 3 of the 6 nodes' 4 others
  EXPECT_TRUE(Has(picked, b));
  EXPECT_TRUE(Has(picked, c));
  EXPECT_TRUE(Has(picked, d));
  EXPECT_FALSE(Has(picked, state.myself()));
  EXPECT_FALSE(Has(picked, e));
  EXPECT_FALSE(Has(picked, f));
}

TEST(ClusterGossipSection, EveryTimedOutNodeWithAnAddressIsToldOf) {
  ClusterState state(Name('a'));
  Node* b = state.AddNode(Name('b'), kFlagMaster | kFlagPfail, 0);
  Node* c = state.AddNode(Name('c'), kFlagMaster | kFlagPfail | kFlagNoAddr, 0);
  Node* d = state.AddNode(Name('d'), kFlagMaster | kFlagPfail | kFlagHandshake, 0);
  // The random picks find nothing (every pick is myself): only the PFAIL rule adds nodes.
  const std::vector<const Node*> picked = GossipNodes(state, [](size_t) { return size_t{0}; });
  EXPECT_EQ(picked, std::vector<const Node*>{b});
  EXPECT_FALSE(Has(picked, c));
  EXPECT_FALSE(Has(picked, d));
}

TEST(ClusterGossipSection, AnEntrySaysTheNodesAddressFlagsAndTimesInSeconds) {
  ClusterState state(Name('a'));
  Node* b = state.AddNode(Name('b'), kFlagSlave, 0);
  b->ip = "10.0.0.2";
  b->port = 7001;
  b->pport = 6001;
  b->cport = 17001;
  b->ping_sent_ms = 5999;
  b->pong_received_ms = 12000;
  const GossipEntry g = GossipEntryOf(*b);
  EXPECT_EQ(g.name, Name('b'));
  EXPECT_EQ(g.ip, "10.0.0.2");
  EXPECT_EQ(g.port, 7001);
  EXPECT_EQ(g.pport, 6001);
  EXPECT_EQ(g.cport, 17001);
  EXPECT_EQ(g.flags, kFlagSlave);
  EXPECT_EQ(g.ping_sent, 5u);
  EXPECT_EQ(g.pong_received, 12u);
}

TEST(ClusterGossipSection, AFresherPongIsLearntOnlyFromAHealthyReportAndNeverAheadOfNow) {
  ClusterState state(Name('a'));
  Node* b = state.AddNode(Name('b'), kFlagMaster, 0);
  Node* c = state.AddNode(Name('c'), kFlagMaster, 0);
  b->pong_received_ms = 1000;
  GossipEntry g = GossipEntryOf(*b);
  g.pong_received = 50;  // seconds
  LearnFromGossip(b, g, /*now_ms=*/20000);
  EXPECT_EQ(b->pong_received_ms, 20000);  // capped at now
  g.pong_received = 5;
  LearnFromGossip(b, g, 60000);
  EXPECT_EQ(b->pong_received_ms, 20000);  // an older pong teaches nothing

  g.pong_received = 40;
  g.flags |= kFlagPfail;
  EXPECT_TRUE(GossipReportsFailure(g));
  LearnFromGossip(b, g, 60000);
  EXPECT_EQ(b->pong_received_ms, 20000);  // the sender thinks it failing

  g.flags = kFlagMaster;
  b->ping_sent_ms = 1;  // a ping of this node's own is outstanding
  LearnFromGossip(b, g, 60000);
  EXPECT_EQ(b->pong_received_ms, 20000);
  b->ping_sent_ms = 0;
  state.AddFailureReport(b, c, 0);
  LearnFromGossip(b, g, 60000);
  EXPECT_EQ(b->pong_received_ms, 20000);
}

TEST(ClusterGossipSection, AFailingNodeSeenElsewhereIsTriedAtThatAddress) {
  ClusterState state(Name('a'));
  Node* b = state.AddNode(Name('b'), kFlagMaster | kFlagPfail | kFlagNoAddr, 0);
  b->ip = "10.0.0.2";
  b->port = 7001;
  b->cport = 17001;
  GossipEntry g = GossipEntryOf(*b);
  g.flags = kFlagMaster;
  g.ip = "10.0.0.9";
  g.port = 7009;
  g.pport = 6009;
  g.cport = 17009;
  GossipEntry failing = g;
  failing.flags |= kFlagFail;
  LearnFromGossip(b, failing, 0);
  EXPECT_EQ(b->ip, "10.0.0.2");  // the sender cannot reach it either
  LearnFromGossip(b, g, 0);
  EXPECT_EQ(b->ip, "10.0.0.9");
  EXPECT_EQ(b->port, 7009);
  EXPECT_EQ(b->pport, 6009);
  EXPECT_EQ(b->cport, 17009);
  EXPECT_TRUE(b->has_address());

  Node* c = state.AddNode(Name('c'), kFlagMaster, 0);  // healthy: its address stays
  c->ip = "10.0.0.3";
  g.name = c->name;
  LearnFromGossip(c, g, 0);
  EXPECT_EQ(c->ip, "10.0.0.3");
}

}  // namespace
}  // namespace ebb::server::cluster
