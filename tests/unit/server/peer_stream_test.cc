// The stream a peer sends after PEER SYNC's reply, as the link parses it
// (server/active_active/peer_link.h, ParsePeerStreamFrame and ParsePeerStreamMessage): only
// arrays frame, a frame cut short waits for more, and each kind of message — a delta with its wire
// size, a tick with or without its vector, a snapshot piece and the snapshot's end — parses to
// what its sender wrote, while a message out of shape is refused.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/request_parser.h"
#include "server/active_active/peer_delta.h"
#include "server/active_active/peer_link.h"
#include "server/active_active/stable_vector.h"

namespace ebb::server {
namespace {

using protocol::ParseStatus;
using Kind = PeerStreamMessage::Kind;

std::string Resp(const std::vector<std::string>& fields) {
  std::string out = "*" + std::to_string(fields.size()) + "\r\n";
  for (const std::string& f : fields) AppendRespBulk(&out, f);
  return out;
}

// A delta's frame, as its origin sends it.
std::string Frame(const PeerDelta& delta) {
  std::string wire;
  AppendDeltaFrame(&wire, EncodePeerDelta(delta));
  return wire;
}

// The message `wire` (one whole frame) parses to; nullopt when it frames but is no message.
std::optional<PeerStreamMessage> Parse(const std::string& wire) {
  protocol::RequestParser parser;
  size_t consumed = 0;
  EXPECT_EQ(ParsePeerStreamFrame(parser, wire, &consumed), ParseStatus::kComplete) << wire;
  EXPECT_EQ(consumed, wire.size());
  PeerStreamMessage m;
  if (!ParsePeerStreamMessage(parser.args(), consumed, &m)) return std::nullopt;
  return m;
}

TEST(PeerStreamTest, OnlyArraysFrameAndACutFrameWaits) {
  protocol::RequestParser parser;
  size_t consumed = 0;
  EXPECT_EQ(ParsePeerStreamFrame(parser, "", &consumed), ParseStatus::kNeedMore);
  EXPECT_EQ(ParsePeerStreamFrame(parser, "PING\r\n", &consumed), ParseStatus::kError);
  EXPECT_EQ(ParsePeerStreamFrame(parser, "$4\r\ntick\r\n", &consumed), ParseStatus::kError);
  const std::string tick = Resp({"tick", "1000", "5", "77"});
  EXPECT_EQ(ParsePeerStreamFrame(parser, tick.substr(0, tick.size() - 3), &consumed),
            ParseStatus::kNeedMore);
  EXPECT_EQ(ParsePeerStreamFrame(parser, tick + tick, &consumed), ParseStatus::kComplete);
  EXPECT_EQ(consumed, tick.size());
}

TEST(PeerStreamTest, ADeltaParsesToWhatItsSenderWrote) {
  PeerDelta delta;
  delta.offset = 7;
  delta.origin_ms = 1'900'000'000'000;
  delta.db = 3;
  delta.args = {"put", "k", "v", "TS", "1900000000000000", "NOTTL"};
  const std::string wire = Frame(delta);
  // The frame is the log row's bytes behind the delta's array header.
  EXPECT_EQ(wire, Resp({"delta", EncodePeerDelta(delta)}));
  const std::optional<PeerStreamMessage> m = Parse(wire);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->kind, Kind::kDelta);
  EXPECT_EQ(m->delta.offset, 7u);
  EXPECT_EQ(m->delta.origin_ms, delta.origin_ms);
  EXPECT_EQ(m->delta.db, 3);
  EXPECT_EQ(m->delta.args, delta.args);
  EXPECT_EQ(m->end_bytes, wire.size());
}

// The link parses into the messages of batches it delivered before (peer_link.h): what a message
// held is never part of what it parses to next.
TEST(PeerStreamTest, AMessageParsedIntoAgainHoldsOnlyTheNewOne) {
  auto parse_into = [](const std::string& wire, PeerStreamMessage* m) {
    protocol::RequestParser parser;
    size_t consumed = 0;
    EXPECT_EQ(ParsePeerStreamFrame(parser, wire, &consumed), ParseStatus::kComplete);
    return ParsePeerStreamMessage(parser.args(), consumed, m);
  };
  PeerStreamMessage m;
  ASSERT_TRUE(parse_into(Resp({"tick", "1000", "5", "77", "vector", "not-an-id", "5"}), &m));
  ASSERT_NE(m.vector_parse, VectorParse::kOk);
  std::string tick;
  const std::vector<std::string> retired = {std::string(40, 'b')};
  AppendVectorTickResp(&tick, 1000, 5, 77, OriginVector{{std::string(40, 'a'), 5}}, retired);
  ASSERT_TRUE(parse_into(tick, &m));
  ASSERT_TRUE(m.vector);
  ASSERT_EQ(m.retired, retired);
  ASSERT_EQ(m.vector_parse, VectorParse::kOk);
  ASSERT_TRUE(parse_into(Resp({"tick", "1000", "5", "77", "vector", "not-an-id", "5"}), &m));
  ASSERT_NE(m.vector_parse, VectorParse::kOk);

  PeerDelta delta;
  delta.offset = 9;
  delta.origin_ms = 2000;
  delta.db = 2;
  delta.args = {"put", std::string(300, 'k'), "v", "TS", "2000", "PXAT", "9000"};
  std::string wire = Frame(delta);
  ASSERT_TRUE(parse_into(wire, &m));
  EXPECT_EQ(m.kind, Kind::kDelta);
  EXPECT_FALSE(m.vector);
  EXPECT_TRUE(m.retired.empty());
  EXPECT_EQ(m.vector_parse, VectorParse::kOk);
  EXPECT_EQ(m.tick_ms, 0);
  EXPECT_EQ(m.end, 0u);
  EXPECT_EQ(m.end_bytes, wire.size());

  delta.offset = 10;
  delta.db = 0;
  delta.args = {"delete", "k", "TS", "2001"};  // fewer and shorter arguments
  wire = Frame(delta);
  ASSERT_TRUE(parse_into(wire, &m));
  EXPECT_EQ(m.delta.offset, 10u);
  EXPECT_EQ(m.delta.db, 0);
  EXPECT_EQ(m.delta.args, delta.args);

  ASSERT_TRUE(parse_into(Resp({"tick", "3000", "10"}), &m));  // a tick without a byte position
  EXPECT_EQ(m.kind, Kind::kTick);
  EXPECT_EQ(m.end_bytes, 0u);
  EXPECT_EQ(m.delta.offset, 0u);
  EXPECT_TRUE(m.delta.args.empty());
  EXPECT_FALSE(m.vector);
}

TEST(PeerStreamTest, ATickKeepsItsVectorOrSaysWhyNot) {
  const std::string id(40, 'a');
  std::string wire;
  AppendVectorTickResp(&wire, 1000, 5, 77, OriginVector{{id, 5}});
  std::optional<PeerStreamMessage> m = Parse(wire);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->kind, Kind::kTick);
  EXPECT_EQ(m->tick_ms, 1000);
  EXPECT_EQ(m->end, 5u);
  EXPECT_EQ(m->end_bytes, 77u);
  EXPECT_EQ(m->vector, (OriginVector{{id, 5}}));
  // A malformed vector is refused; the tick still counts.
  m = Parse(Resp({"tick", "1000", "5", "77", "vector", "not-an-id", "5"}));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->kind, Kind::kTick);
  EXPECT_EQ(m->end, 5u);
  EXPECT_FALSE(m->vector);
  EXPECT_EQ(m->vector_parse, VectorParse::kBadOriginId);
  // An older peer's tick: no byte position, no vector.
  m = Parse(Resp({"tick", "1000", "5"}));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->end_bytes, 0u);
  EXPECT_FALSE(m->vector);
  EXPECT_EQ(m->vector_parse, VectorParse::kOk);
}

TEST(PeerStreamTest, SnapshotPiecesAndTheEnd) {
  std::optional<PeerStreamMessage> m = Parse(Resp({"snap", "2", "marker-at", "10", "k", "2"}));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->kind, Kind::kPiece);
  EXPECT_EQ(m->delta.offset, 0u);
  EXPECT_EQ(m->delta.db, 2);
  EXPECT_EQ(m->delta.args, (std::vector<std::string>{"marker-at", "10", "k", "2"}));
  m = Parse(Resp({"snapend", "40", "900"}));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->kind, Kind::kSnapshotEnd);
  EXPECT_EQ(m->end, 40u);
  EXPECT_EQ(m->end_bytes, 900u);
}

TEST(PeerStreamTest, MessagesOutOfShapeAreRefused) {
  PeerDelta put;
  put.offset = 1;
  put.origin_ms = 1000;
  put.args = {"put", "k", "v", "TS", "1", "NOTTL"};
  const std::string encoded = EncodePeerDelta(put);
  PeerDelta negative_db = put;
  negative_db.db = -1;  // 0xffffffff on the wire: past INT32_MAX
  PeerDelta no_arguments = put;
  no_arguments.args.clear();
  std::string huge_count = encoded;
  huge_count[20] = '\xff';  // argc 0x..ff: more arguments than bytes left
  std::string long_argument = encoded;
  long_argument[24] = '\x7f';  // the first argument's length past the end
  for (const std::vector<std::string>& fields : std::vector<std::vector<std::string>>{
           {"tick", "1000"},                                  // too short
           {"tick", "soon", "5", "77"},                       // a clock that is no number
           {"tick", "1000", "-5", "77"},                      // a negative end offset
           {"tick", "1000", "5", "x"},                        // a byte position that is no number
           {"snapend", "40", "-1"},                           // a negative byte position
           {"snapend", "40"},                                 // too short
           {"delta"},                                         // no bytes
           {"delta", encoded, "more"},                        // a field after the bytes
           {"delta", encoded + "x"},                          // a byte after the delta
           {"delta", encoded.substr(0, 23)},                  // cut in its header
           {"delta", encoded.substr(0, encoded.size() - 1)},  // cut in its last argument
           {"delta", EncodePeerDelta(no_arguments)},          // no arguments
           {"delta", EncodePeerDelta(negative_db)},           // a database past INT32_MAX
           {"delta", huge_count},                             // a count past the bytes
           {"delta", long_argument},                          // an argument past the bytes
           {"delta", "1", "1000", "0", "put", "k"},           // the fields as separate bulks
           {"snap", "x", "put", "k"},                         // a database that is no number
           {"snap", "0"},                                     // a piece without arguments
           {"hello", "1", "2", "3"},                          // no such kind
       }) {
    EXPECT_FALSE(Parse(Resp(fields))) << fields[0] << " " << fields.size();
  }
}

}  // namespace
}  // namespace ebb::server
