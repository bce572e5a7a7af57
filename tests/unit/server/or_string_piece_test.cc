// The snapshot piece of a string key under the observed-remove rule
// (server/active_active/peer_snapshot.h, `or-string`; docs/active-active.md, "Snapshots"): R and
// every slot with its dot, its version and its value round-trip, and the state it carries joins
// into an empty node as the sender holds it; wrong counts, slots out of order or named by R,
// unknown kinds, a tombstone with bytes or an expiry, non-canonical ids, digests and expiries, a
// hostile R and a sender that is no node id are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "server/active_active/peer_delta.h"
#include "server/active_active/peer_snapshot.h"
#include "tests/support/or_test_values.h"
#include "types/or_context.h"
#include "types/or_string.h"
#include "types/string_rank.h"

namespace ebb::server {
namespace {

using Args = std::vector<std::string>;
using types::Dot;
using types::MakeOrSlot;
using types::OrContext;
using types::OrStringState;
using types::StringVersion;

const std::string kSenderNode(40, '5');
const types::OriginId kSender(std::string(types::kOriginIdSize, '\x55'));
const types::OriginId kPieceA(std::string(types::kOriginIdSize, '\x11'));
const types::OriginId kPieceB(std::string(types::kOriginIdSize, '\x99'));
const types::OriginId kPieceC(std::string(types::kOriginIdSize, '\xee'));

// A state three origins wrote and deleted in: A's value, B's reduced version, the sender's
// tombstone, and R naming C (removed) — built by the rule, as a node holds it.
OrStringPiece ThreeSlots() {
  OrStringState state;
  types::ApplyOrDelta(&state, {.context = test::ContextOf({{kPieceC, 4}})});
  types::ApplyOrDelta(
      &state, {.write = MakeOrSlot({kPieceA, 5},
                                   StringVersion{.ts = 10, .value = "hello", .expire_at = 99})});
  StringVersion reduced{.ts = 8, .expire_at = 50};
  reduced.digest = types::StringDigest("gone");
  types::ApplyOrDelta(&state, {.write = MakeOrSlot({kPieceB, 2}, reduced)});
  types::ApplyOrDelta(
      &state, {.write = MakeOrSlot({kSender, 7}, StringVersion{.ts = 12, .tombstone = true})});
  return OrStringPiece{.key = "k", .state = state, .values = {"hello", std::nullopt, std::nullopt}};
}

bool OrPieceParses(const Args& args) {
  OrStringPiece piece;
  return ParseOrStringPiece(args, kSenderNode, &piece);
}

TEST(OrStringPieceTest, RoundTripsAndJoinsAsTheSenderHoldsIt) {
  const OrStringPiece sent = ThreeSlots();
  ASSERT_EQ(sent.state.slots.size(), 3u);
  const Args args = OrStringPieceArgs(sent, kSenderNode);
  const std::string hex_b = types::DigestHex(types::StringDigest("gone"));
  EXPECT_EQ(args, (Args{"or-string",
                        "k",
                        types::EncodeOrContext(test::ContextOf({{kPieceC, 4}}), kSender),
                        "3",
                        NodeIdOfOrigin(kPieceA),
                        "5",
                        "value",
                        "10",
                        "99",
                        "hello",
                        NodeIdOfOrigin(kSender),
                        "7",
                        "tombstone",
                        "12",
                        "NOTTL",
                        "",
                        NodeIdOfOrigin(kPieceB),
                        "2",
                        "reduced",
                        "8",
                        "50",
                        hex_b}));
  OrStringPiece got;
  ASSERT_TRUE(ParseOrStringPiece(args, kSenderNode, &got));
  EXPECT_EQ(got.key, "k");
  EXPECT_TRUE(types::SameOrState(got.state, sent.state));
  EXPECT_EQ(got.values, sent.values);
  EXPECT_EQ(OrStringPieceArgs(got, kSenderNode), args);
  OrStringState receiver;
  types::JoinOrState(&receiver, got.state);
  EXPECT_TRUE(types::SameOrState(receiver, sent.state));

  // R naming the sender itself travels as its own entry; a key with no slot left is its R alone.
  OrStringState removed;
  types::ApplyOrDelta(&removed, {.context = test::ContextOf({{kSender, 9}, {kPieceA, 1}})});
  const OrStringPiece only_r{.key = "gone", .state = removed, .values = {}};
  const Args r_args = OrStringPieceArgs(only_r, kSenderNode);
  EXPECT_EQ(r_args.size(), 4u);
  EXPECT_EQ(r_args[2].substr(0, 4), std::string("\x01\x02\x00\x09", 4));
  ASSERT_TRUE(ParseOrStringPiece(r_args, kSenderNode, &got));
  EXPECT_TRUE(types::SameOrState(got.state, removed));
  // Read by another node's name, the own entry is that node's.
  ASSERT_TRUE(ParseOrStringPiece(r_args, NodeIdOfOrigin(kPieceB), &got));
  EXPECT_EQ(got.state.removed.At(kPieceB), 9u);
}

TEST(OrStringPieceTest, AnythingElseIsRefused) {
  const Args good = OrStringPieceArgs(ThreeSlots(), kSenderNode);
  ASSERT_TRUE(OrPieceParses(good));
  auto with = [&good](size_t at, std::string arg) {
    Args args = good;
    args[at] = std::move(arg);
    return args;
  };
  const size_t a = 4, sender = 10, b = 16;  // each slot's first argument
  const std::string hex_b = good[b + 5];
  Args swapped = good;  // slots out of order
  std::swap_ranges(swapped.begin() + a, swapped.begin() + a + 6, swapped.begin() + sender);
  Args twice = good;  // one origin twice
  twice[sender] = twice[b] = good[a];
  std::string upper_hex = hex_b;
  for (char& c : upper_hex) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const Args& args : {
           with(0, "or-strings"),
           with(3, "2"),                     // fewer slots than the arguments hold
           with(3, "4"),                     // more
           with(3, "18446744073709551615"),  // far more
           with(3, "x"),
           Args(good.begin(), good.end() - 1),  // a slot cut short
           Args(good.begin(), good.begin() + 3),
           with(a, "0A" + std::string(38, '1')),  // an id in capitals
           with(a, std::string(39, '1')),         // an id cut short
           with(a, std::string(40, 'g')),         // no hex
           swapped,
           twice,
           with(a + 1, "0"),  // offset 0
           with(a + 1, "-1"),
           with(a + 2, "Value"),                // an unknown kind
           with(a + 3, "9223372036854775808"),  // ts past int64
           with(a + 4, "9223372036854775807"),  // never is only NOTTL
           with(a + 4, "nottl"),
           with(sender + 5, "x"),                        // a tombstone with bytes
           with(sender + 4, "100"),                      // or an expiry
           with(b + 5, hex_b.substr(1)),                 // a short digest
           with(b + 5, upper_hex),                       // a digest in capitals
           with(2, ""),                                  // R empty
           with(2, std::string("\x01\x01\x00\x00", 4)),  // R with offset 0
           with(2, good[2] + "x"),                       // R with trailing bytes
           with(2, types::EncodeOrContext(test::ContextOf({{kPieceA, 1}}),
                                          kSender)),  // R names a slot's origin
           with(2, types::EncodeOrContext(test::ContextOf({{kSender, 1}}), kSender)),
       }) {
    EXPECT_FALSE(OrPieceParses(args)) << testing::PrintToString(args);
  }
  EXPECT_TRUE(OrPieceParses(with(b + 2, "value")));  // a value whose bytes look like a digest
  EXPECT_TRUE(OrPieceParses(with(a, "0a" + std::string(38, '1'))));
  OrStringPiece piece;
  EXPECT_FALSE(ParseOrStringPiece(good, "x", &piece));  // the sender is no node id
}

}  // namespace
}  // namespace ebb::server
