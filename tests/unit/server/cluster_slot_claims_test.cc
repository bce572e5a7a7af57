// SlotClaims (server/cluster/slot_claims.h): a master's slot claims settled by configEpoch on a
// node table built by hand — newer claims take slots, older ones name the owner to UPDATE about,
// imported slots stay, a master that loses its last slot follows the sender, and the
// epoch-collision rule.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server/cluster/slot_claims.h"

namespace ebb::server::cluster {
namespace {

const std::string kA(40, 'a');  // myself
const std::string kB(40, 'b');
const std::string kC(40, 'c');

SlotBitmap Slots(std::initializer_list<int> slots) {
  SlotBitmap bitmap;
  for (int j : slots) bitmap.set(j);
  return bitmap;
}

auto NoKeys() {
  return [](int) { return false; };
}

TEST(ClusterSlotClaims, ANewerEpochTakesSlotsAnOlderOneDoesNot) {
  ClusterState state(kA);
  Node* me = state.myself();
  Node* b = state.AddNode(kB, kFlagMaster, 0);
  Node* c = state.AddNode(kC, kFlagMaster, 0);
  me->config_epoch = 5;
  c->config_epoch = 9;
  ASSERT_TRUE(state.AddSlot(me, 1));
  ASSERT_TRUE(state.AddSlot(me, 2));
  ASSERT_TRUE(state.AddSlot(c, 3));

  // b claims 1 (mine, older), 3 (c's, newer) and 4 (nobody's) under epoch 7.
  const SlotClaimOutcome out =
      SettleSlotClaim(state, b, 7, Slots({1, 3, 4}), false, [](int slot) { return slot == 1; });
  EXPECT_TRUE(out.changed);
  EXPECT_EQ(state.slot_owner(1), b);
  EXPECT_EQ(state.slot_owner(3), c);  // c's epoch is newer
  EXPECT_EQ(state.slot_owner(4), b);
  EXPECT_EQ(out.dirty, std::vector<int>{1});  // lost, and it held keys
  EXPECT_EQ(out.follow, nullptr);             // slot 2 is still mine
  EXPECT_EQ(StaleClaimOwner(state, b, 7, Slots({1, 3, 4})), c);
  EXPECT_EQ(StaleClaimOwner(state, b, 9, Slots({1, 3, 4})), nullptr);

  const SlotClaimOutcome again = SettleSlotClaim(state, b, 7, Slots({1, 4}), false, NoKeys());
  EXPECT_FALSE(again.changed);  // b holds them already
}

TEST(ClusterSlotClaims, ImportedSlotsStayAndMyselfClaimsNothing) {
  ClusterState state(kA);
  Node* b = state.AddNode(kB, kFlagMaster, 0);
  Node* c = state.AddNode(kC, kFlagMaster, 0);
  ASSERT_TRUE(state.AddSlot(c, 5));
  state.set_importing(5, c);
  const SlotClaimOutcome out = SettleSlotClaim(state, b, 10, Slots({5}), true, NoKeys());
  EXPECT_FALSE(out.changed);
  EXPECT_EQ(state.slot_owner(5), c);

  const SlotClaimOutcome own =
      SettleSlotClaim(state, state.myself(), 10, Slots({6}), true, NoKeys());
  EXPECT_FALSE(own.changed);
  EXPECT_EQ(state.slot_owner(6), nullptr);
}

TEST(ClusterSlotClaims, AMasterThatLosesItsLastSlotFollowsTheSender) {
  ClusterState state(kA);
  Node* me = state.myself();
  Node* b = state.AddNode(kB, kFlagMaster, 0);
  ASSERT_TRUE(state.AddSlot(me, 1));
  ASSERT_TRUE(state.AddSlot(b, 2));
  // b takes my only slot; it also serves slot 2, so only replica migration allows the move.
  {
    const SlotClaimOutcome out = SettleSlotClaim(state, b, 3, Slots({1}), false, NoKeys());
    EXPECT_TRUE(out.changed);
    EXPECT_EQ(out.follow, nullptr);
  }
  ClusterState other(kA);
  Node* me2 = other.myself();
  Node* b2 = other.AddNode(kB, kFlagMaster, 0);
  ASSERT_TRUE(other.AddSlot(me2, 1));
  ASSERT_TRUE(other.AddSlot(b2, 2));
  const SlotClaimOutcome allowed = SettleSlotClaim(other, b2, 3, Slots({1}), true, NoKeys());
  EXPECT_EQ(allowed.follow, b2);

  // Every slot b2 holds came from me: it follows whatever replica migration says.
  ClusterState whole(kA);
  Node* me3 = whole.myself();
  Node* b3 = whole.AddNode(kB, kFlagMaster, 0);
  ASSERT_TRUE(whole.AddSlot(me3, 1));
  const SlotClaimOutcome moved = SettleSlotClaim(whole, b3, 3, Slots({1}), false, NoKeys());
  EXPECT_EQ(moved.follow, b3);
}

TEST(ClusterSlotClaims, OnlyTheSmallerNameMovesOnAnEpochCollision) {
  ClusterState state(kB);
  Node* me = state.myself();
  Node* a = state.AddNode(kA, kFlagMaster, 0);
  Node* c = state.AddNode(kC, kFlagMaster, 0);
  state.set_current_epoch(4);
  me->config_epoch = a->config_epoch = c->config_epoch = 4;
  EXPECT_FALSE(ResolveConfigEpochCollision(state, *a));  // a's name is smaller: a moves
  EXPECT_EQ(me->config_epoch, 4u);
  EXPECT_TRUE(ResolveConfigEpochCollision(state, *c));
  EXPECT_EQ(state.current_epoch(), 5u);
  EXPECT_EQ(me->config_epoch, 5u);
  EXPECT_FALSE(ResolveConfigEpochCollision(state, *c));  // the epochs differ now
}

}  // namespace
}  // namespace ebb::server::cluster
