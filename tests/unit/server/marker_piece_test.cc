// The observed-remove DEL (server/active_active/marker_piece.h, `del-or`; docs/active-active.md,
// "Deltas"): the keys of other types under T and each string key with its context round-trip
// through the wire form, the contexts read against the delta's origin; wrong counts, missing
// keys, hostile contexts and an origin that is no node id are refused; del-at stays as it was.
#include "server/active_active/marker_piece.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server/active_active/peer_delta.h"
#include "types/or_context.h"

namespace ebb::server {
namespace {

using Args = std::vector<std::string>;

const std::string kNode(40, 'c');  // the delta's origin
const types::OriginId kOrigin(std::string(types::kOriginIdSize, '\xcc'));
const types::OriginId kOther(std::string(types::kOriginIdSize, '\x11'));

types::OrContext Context(std::initializer_list<types::Dot> dots) {
  types::OrContext c;
  for (const types::Dot& d : dots) c.Raise(d.origin, d.offset);
  return c;
}

bool MarkerPieceParses(const Args& args) {
  DelOr del;
  return ParseDelOr(args, kNode, &del);
}

TEST(DelOrTest, KeysOfOtherTypesThenStringKeysWithTheirContexts) {
  const DelOr del{
      .ts = -5,
      .keys = {"log", "reg"},
      .string_keys = {{"s", Context({{kOrigin, 4}})}, {"t", Context({{kOther, 9}, {kOrigin, 1}})}}};
  const Args args = DelOrArgs(del, kNode);
  EXPECT_EQ(args, (Args{"del-or", "-5", "2", "log", "reg", "s", std::string("\x01\x01\x00\x04", 4),
                        "t", types::EncodeOrContext(del.string_keys[1].context, kOrigin)}));
  DelOr back;
  ASSERT_TRUE(ParseDelOr(args, kNode, &back));
  EXPECT_EQ(back, del);
  // Only other types, or only strings (then no node id is needed for the former).
  const DelOr others{.ts = 7, .keys = {"a"}};
  ASSERT_TRUE(ParseDelOr(DelOrArgs(others, kNode), "x", &back));
  EXPECT_EQ(back, others);
  const DelOr strings{.ts = 7, .string_keys = {{"s", types::OrContext()}}};
  ASSERT_TRUE(ParseDelOr(DelOrArgs(strings, kNode), kNode, &back));
  EXPECT_EQ(back, strings);
  EXPECT_EQ(DelOrArgs(strings, kNode), (Args{"del-or", "7", "0", "s", std::string("\x01\x00", 2)}));
}

TEST(DelOrTest, WrongCountsAndHostileContextsAreRefused) {
  const std::string ctx("\x01\x01\x00\x04", 4);
  EXPECT_TRUE(MarkerPieceParses({"del-or", "5", "1", "a", "s", ctx}));
  for (const Args& args : {
           Args{"del-or", "5", "0"},                          // no key
           Args{"del-or", "5"},                               //
           Args{"del-or", "5", "2", "a"},                     // fewer keys than n
           Args{"del-or", "5", "1", "a", "s"},                // a string key without its context
           Args{"del-or", "5", "0", "s", ctx, "t"},           //
           Args{"del-or", "5", "-1", "a", "b"},               // a negative count
           Args{"del-or", "5", "x", "a"},                     // no number
           Args{"del-or", "5", "18446744073709551616", "a"},  // past 64 bits
           Args{"del-or", "5", "18446744073709551615", "a"},  // far more than there are
           Args{"del-or", "x", "1", "a"},                     // T no number
           Args{"del-or", "9223372036854775808", "1", "a"},   // T past int64
           Args{"del-at", "5", "a"},                          // another operation
           Args{"del-or", "5", "0", "s", ""},                 // an empty context
           Args{"del-or", "5", "0", "s", ctx + "x"},          // trailing bytes
           Args{"del-or", "5", "0", "s", ctx.substr(0, 3)},   // truncated
           Args{"del-or", "5", "0", "s", std::string("\x01\x01\x00\x84\x00", 5)},  // a long varint
           Args{"del-or", "5", "0", "s", std::string("\x01\x01\x00\x00", 4)},      // offset 0
           Args{"del-or", "5", "0", "s",
                std::string("\x01\x01\x01", 3) + std::string(kOrigin) + "\x01"},
       }) {
    EXPECT_FALSE(MarkerPieceParses(args)) << testing::PrintToString(args);
  }
  DelOr del;
  EXPECT_FALSE(ParseDelOr(Args{"del-or", "5", "0", "s", ctx}, "x", &del));  // no id to read it
  // del-at is read as before; del-or is no shape of it.
  WholeKeyPiece piece;
  ASSERT_TRUE(ParseWholeKeyPiece(Args{"del-at", "5", "a", "b"}, &piece));
  EXPECT_EQ(piece.ts, 5);
  EXPECT_FALSE(ParseWholeKeyPiece(Args{"del-or", "5", "1", "a"}, &piece));
}

// A snapshot's marker or horizon carries its deletes, each with its dot: a set in its order whose
// greatest T is the piece's T; anything else is out of shape.
TEST(WholeKeyPieceTest, DeletesAreASetEndingAtThePiecesT) {
  const std::string a(40, 'a');
  const std::string b(40, 'b');
  WholeKeyPiece piece;
  ASSERT_TRUE(ParseWholeKeyPiece(
      Args{"marker-at", "9", "k", "2", "deletes", a, "1", "9", b, "4", "3"}, &piece));
  ASSERT_EQ(piece.deletes.entries().size(), 2u);
  EXPECT_EQ(piece.deletes.entries()[1].dot.offset, 4u);
  EXPECT_EQ(piece.floor, 2);
  EXPECT_FALSE(piece.has_register);
  ASSERT_TRUE(ParseWholeKeyPiece(
      Args{"marker-at", "9", "k", "0", "5", "persist", b, "deletes", a, "1", "9"}, &piece));
  EXPECT_TRUE(piece.has_register);
  EXPECT_EQ(piece.register_ts, 5);
  EXPECT_EQ(piece.register_offset, 0u);  // a sender whose registers kept no offset
  ASSERT_TRUE(ParseWholeKeyPiece(
      Args{"marker-at", "9", "k", "1", "5", "persist", b, "12", "deletes", a, "1", "9"}, &piece));
  EXPECT_EQ(piece.register_offset, 12u);
  ASSERT_TRUE(ParseWholeKeyPiece(Args{"marker-at", "5", "k", "0", "5", "9000", b, "12"}, &piece));
  EXPECT_EQ(piece.expire_at, 9000);
  ASSERT_TRUE(ParseWholeKeyPiece(Args{"flushdb-at", "7", "deletes", a, "2", "7"}, &piece));
  EXPECT_EQ(piece.deletes.Greatest(), 7);
  ASSERT_TRUE(ParseWholeKeyPiece(Args{"flushdb-at", "7"}, &piece));  // a delta: its own dot
  EXPECT_TRUE(piece.deletes.empty());
  for (const Args& args : {
           Args{"marker-at", "8", "k", "0", "deletes", a, "1", "9"},    // T is not the greatest
           Args{"marker-at", "9", "k", "0", "deletes"},                 // none
           Args{"marker-at", "9", "k", "0", "deletes", a, "1"},         // one short
           Args{"marker-at", "9", "k", "0", "deletes", "a", "1", "9"},  // not a node id
           Args{"marker-at", "9", "k", "0", "deletes", a, "-1", "9"},   // a negative offset
           Args{"marker-at", "9", "k", "0", "deletes", b, "1", "9", a, "1", "3"},  // out of order
           Args{"marker-at", "9", "k", "0", "deletes", a, "1", "3", a, "2", "9"},  // dominated
           Args{"marker-at", "9", "k", "0", "dots", a, "1", "9"},                  // another tag
           Args{"marker-at", "9", "k", "0", "5", "persist", b, "-1"},  // a negative offset
           Args{"marker-at", "9", "k", "0", "5", "persist", b, "1", "2"},
           Args{"flushall-at", "9", "deletes", a, "1", "9"},  // a delta only
           Args{"flushdb-at", "9", "deletes", a, "1", "9", "x"},
       }) {
    EXPECT_FALSE(ParseWholeKeyPiece(args, &piece)) << testing::PrintToString(args);
  }
}

}  // namespace
}  // namespace ebb::server
