// Causal stability between active-active peers (server/active_active/stable_vector.h): the
// stable vector as the pointwise minimum over this node and every configured peer, the largest
// lag, and a peer's vector in its tick — round trips through the stream's parser, and every
// malformed or oversized vector refused without losing the tick.
#include "server/active_active/stable_vector.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/request_parser.h"

namespace ebb::server {
namespace {

const std::string kA(40, 'a');
const std::string kB(40, 'b');
const std::string kC(40, 'c');

TEST(StableVectorTest, IsThePointwiseMinimumOverSelfAndEveryPeer) {
  const OriginVector self = {{kA, 5}, {kB, 3}};
  const OriginVector b = {{kA, 4}, {kB, 3}};
  const OriginVector c = {{kA, 5}, {kB, 2}, {kC, 7}};
  const std::vector<const OriginVector*> peers = {&b, &c};
  // c is named by c alone: every other vector counts it 0.
  EXPECT_EQ(StableVector(self, peers), (OriginVector{{kA, 4}, {kB, 2}, {kC, 0}}));
}

TEST(StableVectorTest, APeerNeverHeardFromHoldsEveryEntryAtZero) {
  const OriginVector self = {{kA, 5}, {kB, 3}};
  const OriginVector b = {{kA, 5}, {kB, 3}};
  const std::vector<const OriginVector*> peers = {&b, nullptr};
  EXPECT_EQ(StableVector(self, peers), (OriginVector{{kA, 0}, {kB, 0}}));
  // Without that peer (PEER REMOVE) the others decide.
  const std::vector<const OriginVector*> rest = {&b};
  EXPECT_EQ(StableVector(self, rest), (OriginVector{{kA, 5}, {kB, 3}}));
}

TEST(StableVectorTest, WithoutPeersItIsThisNodesOwnVector) {
  const OriginVector self = {{kA, 9}};
  EXPECT_EQ(StableVector(self, {}), self);
  EXPECT_EQ(StableVector(OriginVector{}, {}), OriginVector{});
}

TEST(StableVectorTest, LargestLagIsThePeerFurthestBehindThisNodesLog) {
  const OriginVector b = {{kA, 7}};
  const OriginVector c = {{kA, 10}};
  const OriginVector d = {{kB, 10}};  // names no entry for this node: nothing applied
  EXPECT_EQ(LargestLag(kA, 10, std::vector<const OriginVector*>{&b, &c}), 3u);
  EXPECT_EQ(LargestLag(kA, 10, std::vector<const OriginVector*>{&c}), 0u);
  EXPECT_EQ(LargestLag(kA, 10, std::vector<const OriginVector*>{&c, &d}), 10u);
  EXPECT_EQ(LargestLag(kA, 10, std::vector<const OriginVector*>{&c, nullptr}), 10u);
  EXPECT_EQ(LargestLag(kA, 10, {}), 0u);
  // A peer that reports more than this node's end (it knows an older log of this id) lags 0.
  const OriginVector ahead = {{kA, 12}};
  EXPECT_EQ(LargestLag(kA, 10, std::vector<const OriginVector*>{&ahead}), 0u);
}

TEST(StableVectorTest, FormatsInIdOrder) {
  EXPECT_EQ(FormatOriginVector({}), "");
  EXPECT_EQ(FormatOriginVector({{kB, 2}, {kA, 18446744073709551615ull}}),
            kA + "=18446744073709551615," + kB + "=2");
}

// The tick as the receiving link parses it: the request parser over the wire bytes.
std::vector<std::string> ParseWire(const std::string& wire) {
  protocol::RequestParser parser;
  size_t consumed = 0;
  EXPECT_EQ(parser.Parse(wire, protocol::ParserLimits(), &consumed),
            protocol::ParseStatus::kComplete);
  EXPECT_EQ(consumed, wire.size());
  return std::vector<std::string>(parser.args().begin(), parser.args().end());
}

VectorParse ParseTick(const std::vector<std::string>& tick, std::optional<OriginVector>* out) {
  const std::vector<std::string_view> views(tick.begin(), tick.end());
  return ParseTickVector(views, out);
}

TEST(StableVectorTest, TickRoundTrips) {
  const OriginVector vector = {{kA, 0}, {kB, 18446744073709551615ull}, {kC, 42}};
  std::string wire;
  AppendVectorTickResp(&wire, 1'900'000'000'000, 42, 4096, vector);
  const std::vector<std::string> tick = ParseWire(wire);
  ASSERT_EQ(tick.size(), 11u);
  EXPECT_EQ(tick[0], "tick");
  EXPECT_EQ(tick[1], "1900000000000");
  EXPECT_EQ(tick[2], "42");
  EXPECT_EQ(tick[3], "4096");
  std::optional<OriginVector> parsed;
  EXPECT_EQ(ParseTick(tick, &parsed), VectorParse::kOk);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(*parsed, vector);
  // An empty vector (a node with no origin yet) is a vector too.
  wire.clear();
  AppendVectorTickResp(&wire, 1, 0, 0, {});
  EXPECT_EQ(ParseTick(ParseWire(wire), &parsed), VectorParse::kOk);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_TRUE(parsed->empty());
}

TEST(StableVectorTest, ATickWithoutAVectorCarriesNone) {
  std::optional<OriginVector> parsed = OriginVector{{kA, 1}};
  EXPECT_EQ(ParseTick({"tick", "1", "2", "3"}, &parsed), VectorParse::kOk);
  EXPECT_FALSE(parsed.has_value());
  EXPECT_EQ(ParseTick({"tick", "1", "2"}, &parsed), VectorParse::kOk);
  EXPECT_FALSE(parsed.has_value());
  // A later field of another name is not a vector.
  EXPECT_EQ(ParseTick({"tick", "1", "2", "3", "other", kA, "1"}, &parsed), VectorParse::kOk);
  EXPECT_FALSE(parsed.has_value());
}

TEST(StableVectorTest, MalformedVectorsAreRefused) {
  const std::vector<std::string> head = {"tick", "1", "2", "3", "vector"};
  auto with = [&](std::vector<std::string> fields) {
    std::vector<std::string> tick = head;
    tick.insert(tick.end(), fields.begin(), fields.end());
    return tick;
  };
  struct Case {
    std::vector<std::string> fields;
    VectorParse expected;
  };
  const std::vector<Case> cases = {
      {{kA}, VectorParse::kOddFields},
      {{kA, "1", kB}, VectorParse::kOddFields},
      {{"", "1"}, VectorParse::kBadOriginId},
      {{std::string(39, 'a'), "1"}, VectorParse::kBadOriginId},
      {{std::string(41, 'a'), "1"}, VectorParse::kBadOriginId},
      {{std::string(39, 'a') + "g", "1"}, VectorParse::kBadOriginId},
      {{std::string(39, 'a') + '\0', "1"}, VectorParse::kBadOriginId},
      {{kA, "-1"}, VectorParse::kBadOffset},
      {{kA, ""}, VectorParse::kBadOffset},
      {{kA, "01"}, VectorParse::kBadOffset},
      {{kA, "1.5"}, VectorParse::kBadOffset},
      {{kA, " 1"}, VectorParse::kBadOffset},
      {{kA, "18446744073709551616"}, VectorParse::kBadOffset},
      {{kA, "1", kB, "2", kA, "3"}, VectorParse::kRepeatedOrigin},
  };
  for (const Case& c : cases) {
    std::optional<OriginVector> parsed = OriginVector{{kC, 1}};
    EXPECT_EQ(ParseTick(with(c.fields), &parsed), c.expected)
        << VectorParseText(ParseTick(with(c.fields), &parsed));
    EXPECT_FALSE(parsed.has_value());
    EXPECT_NE(VectorParseText(c.expected), "ok");
  }
}

TEST(StableVectorTest, OversizedVectorsAreRefused) {
  std::vector<std::string> fields;
  for (size_t i = 0; i <= kMaxVectorOrigins; i++) {
    std::string id = std::to_string(i);
    fields.push_back(std::string(kNodeIdLength - id.size(), '0') + id);
    fields.push_back("1");
  }
  std::vector<std::string_view> views(fields.begin(), fields.end());
  OriginVector parsed;
  EXPECT_EQ(ParseOriginVector(views, &parsed), VectorParse::kTooManyOrigins);
  EXPECT_TRUE(parsed.empty());
  // One fewer is the most a vector may name.
  views.resize(views.size() - 2);
  EXPECT_EQ(ParseOriginVector(views, &parsed), VectorParse::kOk);
  EXPECT_EQ(parsed.size(), kMaxVectorOrigins);
}

}  // namespace
}  // namespace ebb::server
