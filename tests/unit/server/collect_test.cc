// The `collect` delta's forms and when one is due (server/active_active/collect.h).
#include "server/active_active/collect.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "server/active_active/stable_vector.h"

namespace ebb::server {
namespace {

const std::string kA(40, 'a');
const std::string kB(40, 'b');

types::OriginId Origin(const std::string& hex) { return *types::OriginId::FromHex(hex); }

types::OrContext Context(std::vector<std::pair<std::string, uint64_t>> entries) {
  types::OrContext c;
  for (const auto& [origin, offset] : entries) c.Raise(Origin(origin), offset);
  return c;
}

TEST(CollectTest, DeltaAndPieceGiveBackTheirOriginAndC) {
  const types::OrContext c = Context({{kA, 7}, {kB, 3}});
  const std::optional<CollectOf> delta = ParseCollect(CollectDeltaArgs(c, Origin(kA)), Origin(kA));
  ASSERT_TRUE(delta.has_value());
  EXPECT_EQ(delta->origin, Origin(kA));
  EXPECT_EQ(delta->collect, c);
  // A piece names its origin, whoever sends it.
  const std::optional<CollectOf> piece = ParseCollect(CollectPieceArgs(c, Origin(kA)), Origin(kB));
  ASSERT_TRUE(piece.has_value());
  EXPECT_EQ(piece->origin, Origin(kA));
  EXPECT_EQ(piece->collect, c);
}

TEST(CollectTest, AnyOtherFormIsRefused) {
  const types::OrContext c = Context({{kA, 7}});
  const std::vector<std::string> delta = CollectDeltaArgs(c, Origin(kA));
  const std::vector<std::vector<std::string>> bad = {
      {"collect"},
      {"collect", delta[1], "extra"},
      {"collect", delta[1] + "x"},
      {"collect", ""},
      {"collect-of", kA},
      {"collect-of", std::string(40, 'A'), delta[1]},  // upper case: not the row's spelling
      {"collect-of", "a", delta[1]},
      {"collected", delta[1]},
  };
  for (const auto& args : bad) {
    EXPECT_FALSE(ParseCollect(args, Origin(kA)).has_value()) << testing::PrintToString(args);
  }
  // More origins than a stable vector may name.
  types::OrContext wide;
  for (size_t i = 0; i <= kMaxVectorOrigins; i++) {
    std::string id(types::kOriginIdSize, '\x01');
    id[0] = static_cast<char>(i >> 8);
    id[1] = static_cast<char>(i & 0xff);
    wide.Raise(types::OriginId(id), 1);
  }
  EXPECT_FALSE(ParseCollect(CollectDeltaArgs(wide, Origin(kA)), Origin(kA)).has_value());
  wide.Erase(wide.entries().back().origin);
  EXPECT_TRUE(ParseCollect(CollectDeltaArgs(wide, Origin(kA)), Origin(kA)).has_value());
}

TEST(CollectTest, KnownCollectsPieceGivesBackItsJoin) {
  const types::OrContext known = Context({{kA, 7}, {kB, 3}});
  const std::vector<std::string> piece = KnownCollectsPieceArgs(known, Origin(kB));
  EXPECT_EQ(piece[0], "collects-known");
  EXPECT_EQ(ParseKnownCollects(piece, Origin(kB)), known);
  const std::vector<std::vector<std::string>> bad = {
      {"collects-known"},
      {"collects-known", piece[1], "extra"},
      {"collects-known", piece[1] + "x"},
      {"collect", piece[1]},
  };
  for (const auto& args : bad) {
    EXPECT_FALSE(ParseKnownCollects(args, Origin(kB)).has_value()) << testing::PrintToString(args);
  }
}

TEST(CollectTest, RowNamesSpellTheOriginInLowerCaseHex) {
  EXPECT_EQ(CollectRowName(Origin(kA)), "aa-collect:" + kA);
  types::OriginId origin;
  ASSERT_TRUE(ParseCollectRowName("aa-collect:" + kB, &origin));
  EXPECT_EQ(origin, Origin(kB));
  EXPECT_FALSE(ParseCollectRowName("aa-collect:" + std::string(40, 'B'), &origin));
  EXPECT_FALSE(ParseCollectRowName("aa-key:0:" + kB, &origin));
}

TEST(CollectTest, DueWhenTheStableVectorCoversAnEntryTheLastCollectDoesNot) {
  const types::OrContext tops = Context({{kA, 7}});
  EXPECT_TRUE(CollectDue(tops, Context({{kA, 5}, {kB, 9}}), Context({{kA, 3}})));
  EXPECT_FALSE(CollectDue(tops, Context({{kA, 5}, {kB, 9}}), Context({{kA, 5}})));
  // S moving past the entries held makes none due: the last collect already covers them.
  EXPECT_FALSE(CollectDue(tops, Context({{kA, 9}}), Context({{kA, 7}})));
  // Nothing held, or nothing of it stable: none due.
  EXPECT_FALSE(CollectDue({}, Context({{kA, 9}}), {}));
  EXPECT_FALSE(CollectDue(tops, Context({{kB, 9}}), {}));
}

// A node's observed vector covers a collect when it reaches each origin the collect names; an
// origin it never observed counts as 0.
TEST(CollectTest, ObservedCoversEachOriginTheCollectNames) {
  const types::OrContext observed = Context({{kA, 5}, {kB, 2}});
  EXPECT_TRUE(ObservedCovers(observed, Context({{kA, 5}})));
  EXPECT_TRUE(ObservedCovers(observed, Context({{kA, 4}, {kB, 2}})));
  EXPECT_TRUE(ObservedCovers(observed, {}));
  EXPECT_FALSE(ObservedCovers(observed, Context({{kA, 5}, {kB, 3}})));
  EXPECT_FALSE(ObservedCovers(observed, Context({{kA, 6}})));
  EXPECT_FALSE(ObservedCovers(Context({{kA, 5}}), Context({{kB, 1}})));
}

}  // namespace
}  // namespace ebb::server
