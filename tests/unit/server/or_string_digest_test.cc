// What DEBUG DIGEST-LOGICAL hashes of a string key under the observed-remove rule
// (server/active_active/logical_digest.h, AppendOrStringDigestText): two states the rule holds
// equal give the same text however they were built — deltas in another order, slots listed in
// another order, a tombstone's digest — each field of every slot changes it, and R does not
// (collection drops it on each node at its own time).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "server/active_active/logical_digest.h"
#include "tests/support/or_test_values.h"
#include "types/or_context.h"
#include "types/or_string.h"
#include "types/string_rank.h"

namespace ebb::server {
namespace {

using types::Dot;
using types::MakeOrSlot;
using types::OrContext;
using types::OrStringDelta;
using types::OrStringState;
using types::StringVersion;

const types::OriginId kA(std::string(types::kOriginIdSize, '\x11'));
const types::OriginId kB(std::string(types::kOriginIdSize, '\x55'));
const types::OriginId kC(std::string(types::kOriginIdSize, '\x99'));
const types::OriginId kD(std::string(types::kOriginIdSize, '\xdd'));  // removed, holds no slot

std::string Text(const OrStringState& state) {
  std::string row;
  AppendOrStringDigestText(state, &row);
  return row;
}

// The deltas of three origins: writes, deletes that saw A's first write and D's, concurrent
// writes.
std::vector<OrStringDelta> Deltas() {
  StringVersion reduced{.ts = 7, .expire_at = 40};
  reduced.digest = types::StringDigest("old");
  return {
      {.write = MakeOrSlot({kA, 1}, StringVersion{.ts = 5, .value = "a"})},
      {.context = test::ContextOf({{kA, 1}})},  // a DEL on C that had seen it
      {.context = test::ContextOf({{kA, 1}}),
       .write = MakeOrSlot({kA, 3}, StringVersion{.ts = 9, .value = "a2", .expire_at = 100})},
      {.write = MakeOrSlot({kB, 2}, reduced)},
      {.context = test::ContextOf({{kC, 4}, {kD, 2}})},
      {.write = MakeOrSlot({kC, 6}, StringVersion{.ts = 8, .tombstone = true})},
  };
}

TEST(OrStringDigestTest, StatesTheRuleHoldsEqualHashEqual) {
  std::vector<OrStringDelta> deltas = Deltas();
  OrStringState first;
  for (const OrStringDelta& d : deltas) types::ApplyOrDelta(&first, d);
  ASSERT_EQ(first.slots.size(), 3u);
  std::reverse(deltas.begin(), deltas.end());
  OrStringState second;
  for (const OrStringDelta& d : deltas) types::ApplyOrDelta(&second, d);
  ASSERT_TRUE(types::SameOrState(first, second));
  EXPECT_EQ(Text(first), Text(second));
  // A snapshot's join reaches the same state, and the same text.
  OrStringState joined;
  types::JoinOrState(&joined, first);
  EXPECT_EQ(Text(joined), Text(first));
  // Slots listed in another order: the same text.
  OrStringState reversed = first;
  std::reverse(reversed.slots.begin(), reversed.slots.end());
  EXPECT_EQ(Text(reversed), Text(first));
  // A tombstone's digest is no part of it (SameOrSlot leaves it out).
  OrStringState tombstone = first;
  tombstone.slots.back().version.digest = types::StringDigest("x");
  ASSERT_TRUE(types::SameOrState(tombstone, first));
  EXPECT_EQ(Text(tombstone), Text(first));
  EXPECT_EQ(Text(OrStringState()), "or:;");
}

TEST(OrStringDigestTest, EachFieldMatters) {
  OrStringState base;
  for (const OrStringDelta& d : Deltas()) types::ApplyOrDelta(&base, d);
  ASSERT_EQ(base.slots[0].dot.origin, kA);
  ASSERT_FALSE(base.removed.empty());
  std::vector<OrStringState> changed;
  auto change = [&](auto edit) {
    OrStringState s = base;
    edit(&s);
    changed.push_back(s);
  };
  change([](OrStringState* s) { s->slots[0].dot.offset = 4; });  // a dot's offset
  change([](OrStringState* s) {                                  // a dot's origin
    std::string id(s->slots[0].dot.origin);
    id.back() = '\x12';
    s->slots[0].dot.origin = types::OriginId(id);
  });
  change([](OrStringState* s) { s->slots[0].version.ts = 10; });           // ts
  change([](OrStringState* s) { s->slots[0].version.tombstone = true; });  // tombstone
  change([](OrStringState* s) { s->slots[0].version.digest = types::StringDigest("b"); });
  change([](OrStringState* s) { s->slots[0].version.expire_at = 101; });  // expire_at
  change([](OrStringState* s) { s->slots[1].version.expire_at = 41; });   // a reduced one's
  change([](OrStringState* s) { s->slots[2].version.ts = 1; });           // a tombstone's ts
  change([](OrStringState* s) { s->slots.pop_back(); });                  // a slot fewer
  std::set<std::string> texts = {Text(base)};
  for (const OrStringState& s : changed) {
    EXPECT_FALSE(types::SameOrState(s, base));
    EXPECT_TRUE(texts.insert(Text(s)).second) << Text(s);
  }
}

TEST(OrStringDigestTest, RemovedContextIsNotHashed) {
  OrStringState base;
  for (const OrStringDelta& d : Deltas()) types::ApplyOrDelta(&base, d);
  ASSERT_FALSE(base.removed.empty());
  for (auto edit : {+[](OrStringState* s) { s->removed.Raise(kD, 5); },
                    +[](OrStringState* s) { s->removed.Raise(kB, 1); },
                    +[](OrStringState* s) { s->removed = OrContext(); }}) {
    OrStringState s = base;
    edit(&s);
    EXPECT_FALSE(types::SameOrState(s, base));
    EXPECT_EQ(Text(s), Text(base));
  }
}

}  // namespace
}  // namespace ebb::server
