// Causal stability between active-active peers (server/active_active/stable_vector.h): the
// stable vector as the pointwise minimum over this node and every configured peer, the largest
// lag, and a peer's vector and retired ids in its tick — round trips through the stream's parser,
// and every malformed or oversized vector refused without losing the tick; the reported vector
// waiting for the engine's sync, and retired ids leaving it.
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

TEST(StableVectorTest, RetiredIdsRoundTripAfterTheVector) {
  const OriginVector vector = {{kA, 3}, {kC, 9}};
  const RetiredIds retired = {kB, kC};
  std::string wire;
  AppendVectorTickResp(&wire, 7, 9, 100, vector, retired);
  const std::vector<std::string> tick = ParseWire(wire);
  ASSERT_EQ(tick.size(), 12u);
  EXPECT_EQ(tick[9], "retired");
  const std::vector<std::string_view> views(tick.begin(), tick.end());
  std::optional<OriginVector> parsed;
  RetiredIds parsed_retired = {kA};
  EXPECT_EQ(ParseTickVector(views, &parsed, &parsed_retired), VectorParse::kOk);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(*parsed, vector);
  EXPECT_EQ(parsed_retired, retired);
  // Without retired ids the tick is as before: no tag.
  wire.clear();
  AppendVectorTickResp(&wire, 7, 9, 100, vector, {});
  EXPECT_EQ(ParseWire(wire).size(), 9u);
  EXPECT_EQ(ParseTickVector(std::vector<std::string_view>(tick.begin(), tick.begin() + 9), &parsed,
                            &parsed_retired),
            VectorParse::kOk);
  EXPECT_TRUE(parsed_retired.empty());
  // A tag with no ids: none retired.
  EXPECT_EQ(ParseTick({"tick", "1", "2", "3", "vector", kA, "1", "retired"}, &parsed),
            VectorParse::kOk);
  EXPECT_EQ(*parsed, (OriginVector{{kA, 1}}));
}

TEST(StableVectorTest, MalformedRetiredIdsRefuseTheVector) {
  struct Case {
    std::vector<std::string> retired;
    VectorParse expected;
  };
  const std::vector<Case> cases = {
      {{"1"}, VectorParse::kBadOriginId},
      {{kA, std::string(39, 'b')}, VectorParse::kBadOriginId},
      {{kA, "retired"}, VectorParse::kBadOriginId},
      {{kA, kB, kA}, VectorParse::kRepeatedOrigin},
  };
  for (const Case& c : cases) {
    std::vector<std::string> tick = {"tick", "1", "2", "3", "vector", kC, "4", "retired"};
    tick.insert(tick.end(), c.retired.begin(), c.retired.end());
    const std::vector<std::string_view> views(tick.begin(), tick.end());
    std::optional<OriginVector> parsed = OriginVector{{kC, 1}};
    RetiredIds retired = {kA};
    EXPECT_EQ(ParseTickVector(views, &parsed, &retired), c.expected);
    EXPECT_FALSE(parsed.has_value());
    EXPECT_TRUE(retired.empty());
  }
  // The tag inside the pairs leaves an odd vector.
  std::optional<OriginVector> odd;
  EXPECT_EQ(ParseTick({"tick", "1", "2", "3", "vector", kA, "retired", kB}, &odd),
            VectorParse::kOddFields);
  std::vector<std::string> ids;
  for (size_t i = 0; i <= kMaxVectorOrigins; i++) {
    std::string id = std::to_string(i);
    ids.push_back(std::string(kNodeIdLength - id.size(), '0') + id);
  }
  std::vector<std::string_view> views(ids.begin(), ids.end());
  RetiredIds retired;
  EXPECT_EQ(ParseRetiredIds(views, &retired), VectorParse::kTooManyOrigins);
  views.pop_back();
  EXPECT_EQ(ParseRetiredIds(views, &retired), VectorParse::kOk);
  EXPECT_EQ(retired.size(), kMaxVectorOrigins);
}

// The reported vector waits for the engine's sync: a vector noted at sequence q is reported once
// the synced sequence reaches q, never before, and a later vector never gives way to an older one.
TEST(StableVectorTest, SyncedVectorReportsOnlyWhatTheEngineSynced) {
  SyncedVector synced;
  synced.Note(10, {{kA, 3}});
  synced.Note(12, {{kA, 5}, {kB, 1}});
  EXPECT_TRUE(synced.reported().empty());
  synced.Synced(9);
  EXPECT_TRUE(synced.reported().empty());
  synced.Synced(11);
  EXPECT_EQ(synced.reported(), (OriginVector{{kA, 3}}));
  synced.Note(13, {{kA, 5}, {kB, 1}});  // unchanged: still waits for 12
  synced.Synced(12);
  EXPECT_EQ(synced.reported(), (OriginVector{{kA, 5}, {kB, 1}}));
  synced.Synced(100);
  EXPECT_EQ(synced.reported(), (OriginVector{{kA, 5}, {kB, 1}}));
  // Under wal-fsync always the engine has synced what it wrote: a note is reported at once.
  synced.Note(101, {{kA, 6}, {kB, 1}});
  synced.Synced(101);
  EXPECT_EQ(synced.reported(), (OriginVector{{kA, 6}, {kB, 1}}));
  // Past kMaxPending waiting vectors the newest is replaced: reported no earlier than its own
  // sequence.
  for (uint64_t i = 1; i <= SyncedVector::kMaxPending + 5; i++) synced.Note(200 + i, {{kA, 6 + i}});
  synced.Synced(200 + SyncedVector::kMaxPending - 1);
  EXPECT_EQ(synced.reported(), (OriginVector{{kA, 6 + SyncedVector::kMaxPending - 1}}));
  synced.Synced(200 + SyncedVector::kMaxPending);
  EXPECT_EQ(synced.reported(), (OriginVector{{kA, 6 + SyncedVector::kMaxPending - 1}}));
  synced.Synced(200 + SyncedVector::kMaxPending + 5);
  EXPECT_EQ(synced.reported(), (OriginVector{{kA, 6 + SyncedVector::kMaxPending + 5}}));
  synced.Reset();
  EXPECT_TRUE(synced.reported().empty());
  synced.Synced(1000);
  EXPECT_TRUE(synced.reported().empty());
}

TEST(StableVectorTest, RetiredIdsLeaveAVectorUnlessLive) {
  const OriginVector vector = {{kA, 3}, {kB, 4}, {kC, 5}};
  EXPECT_EQ(WithoutRetired(vector, {kB, kC}, {kA}), (OriginVector{{kA, 3}}));
  // A retired id that a linked node answers to now stays.
  EXPECT_EQ(WithoutRetired(vector, {kB, kC}, {kA, kC}), (OriginVector{{kA, 3}, {kC, 5}}));
  EXPECT_EQ(WithoutRetired(vector, {}, {}), vector);
  // Once no vector names a retired id, S names it no more.
  const OriginVector self = WithoutRetired(vector, {kB}, {kA});
  const OriginVector peer = {{kA, 2}, {kC, 5}};
  const std::vector<const OriginVector*> peers = {&peer};
  EXPECT_EQ(StableVector(self, peers), (OriginVector{{kA, 2}, {kC, 5}}));
}

}  // namespace
}  // namespace ebb::server
