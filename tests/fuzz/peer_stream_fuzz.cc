// libFuzzer target for what an active-active peer sends after PEER SYNC's reply
// (server/active_active/peer_link.h): every byte of it is hostile.
//
// The input is the stream's bytes. They are cut into frames as the link cuts them
// (ParsePeerStreamFrame), once whole and once fed in two reads split where the first byte says,
// which must give the same frames and stop at the same place; each frame is parsed into a message
// (ParsePeerStreamMessage) and what parses is checked:
//  - a tick: a vector it accepts names at most kMaxVectorOrigins ids of 40 hex digits (and as
//    many retired ids at most), and the tick written again (AppendVectorTickResp) parses to the
//    same tick, vector and retired ids;
//  - a delta: written again (AppendDeltaFrame over its log row's encoding) it frames and parses
//    to the same delta, its digest is the digest of that wire form, and the origin log's row of
//    it decodes to it;
//  - a delta or a snapshot piece, its name lower-cased as ApplyDeltas takes it: the parsers that
//    take it apart without a server (reduced puts and entries, counters, ts-merge, ts-delrange,
//    ts-rule, a logged value and its reduced form) either refuse it or accept it, and what they
//    accept written as a delta again parses to the same arguments; a whole-key piece's shape
//    (ParseWholeKeyPiece, as ApplyWholeKey judges it) accepts only a whole-key operation with a
//    floor in range; the observed-remove forms (a string delta's CTX, del-or, the or-string
//    piece) and the collect forms read against one origin are written back to the same
//    arguments, a context read is its only encoding, and a piece's state joins into an empty
//    node as it is.
// Build and run: `make fuzz-smoke` or `make fuzz`.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/strings.h"
#include "protocol/request_parser.h"
#include "server/active_active/collect.h"
#include "server/active_active/counters.h"
#include "server/active_active/marker_piece.h"
#include "server/active_active/peer_delta.h"
#include "server/active_active/peer_link.h"
#include "server/active_active/peer_snapshot.h"
#include "server/active_active/series_range.h"
#include "server/active_active/series_rules_state.h"
#include "server/active_active/series_state.h"
#include "server/active_active/stable_vector.h"
#include "tests/fuzz/fuzz_check.h"
#include "types/merge_rule.h"
#include "types/or_context.h"
#include "types/or_string.h"

namespace {

using ebb::server::PeerDelta;
using ebb::server::PeerStreamMessage;
using Kind = PeerStreamMessage::Kind;
using ebb::protocol::ParseStatus;
using ebb::protocol::RequestParser;

using ebb::fuzz::Check;

// A frame as the link reads it: its fields (copied) and its size on the wire.
struct Frame {
  std::vector<std::string> fields;
  size_t wire_size = 0;
  bool operator==(const Frame&) const = default;
};

// The frames of `stream` parsed as the link parses its buffer: in place, until one is not whole
// (*stopped kNeedMore) or the bytes are no stream (kError). *rest: the bytes not consumed.
std::vector<Frame> FramesOf(RequestParser& parser, std::string_view stream, ParseStatus* stopped,
                            std::string_view* rest) {
  std::vector<Frame> frames;
  size_t pos = 0;
  for (;;) {
    size_t consumed = 0;
    const ParseStatus status =
        ebb::server::ParsePeerStreamFrame(parser, stream.substr(pos), &consumed);
    if (status != ParseStatus::kComplete) {
      *stopped = status;
      break;
    }
    Check(consumed > 0 && consumed <= stream.size() - pos, "a frame's size is out of its input");
    Frame f{{}, consumed};
    for (std::string_view a : parser.args()) f.fields.emplace_back(a);
    frames.push_back(std::move(f));
    pos += consumed;
  }
  *rest = stream.substr(pos);
  return frames;
}

// The same bytes in two reads, the second appended to what the first left unconsumed, as
// PeerConnection keeps its input.
std::vector<Frame> FramesInTwoReads(std::string_view stream, size_t split, ParseStatus* stopped) {
  RequestParser parser;
  std::string_view rest;
  std::vector<Frame> frames = FramesOf(parser, stream.substr(0, split), stopped, &rest);
  if (*stopped == ParseStatus::kError) return frames;
  const std::string input = std::string(rest) + std::string(stream.substr(split));
  std::vector<Frame> more = FramesOf(parser, input, stopped, &rest);
  frames.insert(frames.end(), more.begin(), more.end());
  return frames;
}

// The message the wire form `wire` (one frame) parses to.
std::optional<PeerStreamMessage> Reparse(const std::string& wire) {
  RequestParser parser;
  size_t consumed = 0;
  if (ebb::server::ParsePeerStreamFrame(parser, wire, &consumed) != ParseStatus::kComplete ||
      consumed != wire.size()) {
    return std::nullopt;
  }
  PeerStreamMessage m;
  if (!ebb::server::ParsePeerStreamMessage(parser.args(), consumed, &m)) return std::nullopt;
  return m;
}

bool SameDelta(const PeerDelta& a, const PeerDelta& b) {
  return a.offset == b.offset && a.origin_ms == b.origin_ms && a.db == b.db && a.args == b.args;
}

void CheckTick(const PeerStreamMessage& m) {
  if (m.vector) {
    Check(m.vector_parse == ebb::server::VectorParse::kOk, "a vector kept with a refusal");
    Check(m.vector->size() <= ebb::server::kMaxVectorOrigins, "a vector past its bound");
    Check(m.retired.size() <= ebb::server::kMaxVectorOrigins, "retired ids past their bound");
    for (const auto& [id, offset] : *m.vector) {
      Check(id.size() == ebb::server::kNodeIdLength, "a vector names an id of a bad length");
    }
  }
  Check(!ebb::server::VectorParseText(m.vector_parse).empty(), "a vector outcome without words");
  std::string wire;
  ebb::server::AppendVectorTickResp(&wire, m.tick_ms, m.end, m.end_bytes,
                                    m.vector.value_or(ebb::server::OriginVector{}), m.retired);
  const std::optional<PeerStreamMessage> again = Reparse(wire);
  Check(again && again->kind == Kind::kTick && again->tick_ms == m.tick_ms && again->end == m.end &&
            again->end_bytes == m.end_bytes,
        "a tick written again parses differently");
  Check(again->vector.value_or(ebb::server::OriginVector{}) ==
            m.vector.value_or(ebb::server::OriginVector{}),
        "a tick's vector written again parses differently");
  Check(again->retired == m.retired, "a tick's retired ids written again parse differently");
}

void CheckDeltaWire(const PeerStreamMessage& m) {
  std::string wire;
  ebb::server::AppendDeltaFrame(&wire, ebb::server::EncodePeerDelta(m.delta));
  const std::optional<PeerStreamMessage> again = Reparse(wire);
  Check(again && again->kind == Kind::kDelta && SameDelta(again->delta, m.delta),
        "a delta written again parses differently");
  Check(again->end_bytes == wire.size(), "a delta's wire size is not its frame's");
  Check(ebb::server::DeltaDigest(m.delta) == ebb::server::WireDigest(wire),
        "a delta's digest is not its wire form's");
  PeerDelta decoded;
  Check(ebb::server::DecodePeerDelta(ebb::server::EncodePeerDelta(m.delta), &decoded) &&
            SameDelta(decoded, m.delta),
        "a delta's log encoding does not decode to it");
  std::string digests;
  Check(ebb::server::DecodeLogRow(ebb::server::EncodeLogRow(m.delta, ""), &decoded, &digests) &&
            SameDelta(decoded, m.delta) && digests.empty(),
        "a delta's log row does not decode to it");
}

// Parses `args` with `parse`; what it accepts, written by `write` and parsed again, gives the same
// arguments again (a canonical form is a fixed point).
template <typename Value, typename Parse, typename Write>
void ParsesStably(std::span<const std::string> args, Parse parse, Write write, const char* what) {
  Value value;
  if (!parse(args, &value)) return;
  const std::vector<std::string> once = write(value);
  Value again;
  Check(parse(std::span<const std::string>(once), &again), what);
  Check(write(again) == once, what);
}

// The origin the observed-remove forms are read against (a delta's origin is the link's peer).
const std::string kOriginNode(40, 'a');

// A string delta (its CTX read against kOriginNode), a del-or and an or-string piece: what parses
// is written back to the same arguments, a context read is its only encoding, a delta without its
// CTX is a string delta without one, and a piece's state joins into an empty node as it is.
void CheckObservedRemove(std::span<const std::string> view) {
  using namespace ebb::server;  // NOLINT: the parsers of this one namespace
  ParsesStably<StringDelta>(view, ParseStringDelta, StringDeltaArgs,
                            "a string delta is not stable");
  StringDelta delta;
  std::optional<ebb::types::OrContext> context;
  ebb::types::OriginId origin;
  Check(OriginOfNodeId(kOriginNode, &origin), "the fuzz origin is no node id");
  if (ParseStringDelta(view, &delta) && DecodeDeltaContext(delta, kOriginNode, &context) &&
      context) {
    Check(ebb::types::EncodeOrContext(*context, origin) == *delta.context,
          "a context read is not its only encoding");
  }
  std::vector<std::string> stripped(view.begin(), view.end());
  if (StripDeltaContext(kOriginNode, &stripped)) {
    Check(ParseStringDelta(stripped, &delta) && !delta.context, "a stripped delta keeps its CTX");
  }
  auto parse_del_or = [](std::span<const std::string> args, DelOr* del) {
    return ParseDelOr(args, kOriginNode, del);
  };
  ParsesStably<DelOr>(
      view, parse_del_or, [](const DelOr& del) { return DelOrArgs(del, kOriginNode); },
      "a del-or is not stable");
  // A collect delta or piece (collect.h) read against kOriginNode is written back to the same
  // arguments.
  if (const std::optional<CollectOf> collect = ParseCollect(view, origin)) {
    Check((view[0] == kCollectDelta ? CollectDeltaArgs(collect->collect, collect->origin)
                                    : CollectPieceArgs(collect->collect, collect->origin)) ==
              std::vector<std::string>(view.begin(), view.end()),
          "a collect is not stable");
  }
  auto parse_piece = [](std::span<const std::string> args, OrStringPiece* piece) {
    return ParseOrStringPiece(args, kOriginNode, piece);
  };
  ParsesStably<OrStringPiece>(
      view, parse_piece,
      [](const OrStringPiece& piece) { return OrStringPieceArgs(piece, kOriginNode); },
      "an or-string piece is not stable");
  OrStringPiece piece;
  if (ParseOrStringPiece(view, kOriginNode, &piece)) {
    Check(piece.values.size() == piece.state.slots.size(), "a piece's values are not its slots'");
    ebb::types::OrStringState joined;
    ebb::types::JoinOrState(&joined, piece.state);
    Check(ebb::types::SameOrState(joined, piece.state), "a piece's state does not join as it is");
  }
}

// A delta's or a piece's arguments through the parsers that judge them without a server, named
// as ApplyDeltas names them (lower-case).
void CheckArguments(const PeerDelta& delta) {
  using namespace ebb::server;  // NOLINT: the parsers of this one namespace
  if (delta.args.size() < 2) return;
  std::vector<std::string> args = delta.args;
  args[0] = ebb::AsciiLower(args[0]);
  if (args[0] == "tlog" || args[0] == "treg") args[1] = ebb::AsciiLower(args[1]);
  const std::span<const std::string> view(args);
  // A whole-key piece's shape, judged as ApplyWholeKey judges it: what it accepts is a whole-key
  // operation with a floor in range.
  ebb::server::WholeKeyPiece piece;
  if (ParseWholeKeyPiece(view, &piece)) {
    Check(
        piece.floor >= 0 && piece.floor <= ebb::types::TypePrecedence(ebb::types::KeyType::kSeries),
        "a whole-key piece's floor out of range");
    Check(args[0] == kDelAt || args[0] == kFlushDbAt || args[0] == kFlushAllAt ||
              args[0] == kExpiryAt || args[0] == kMarkerAt,
          "a whole-key piece of no whole-key operation");
    // A piece's deletes end at its T and are written back as they came (ids in either case).
    Check(piece.deletes.empty() || piece.deletes.Greatest() == piece.ts,
          "a piece's deletes do not end at its T");
    const std::vector<std::string> tail = MarkerDeletesArgs(piece.deletes);
    Check(tail.size() <= args.size() && std::equal(tail.rbegin(), tail.rend(), args.rbegin(),
                                                   [](const std::string& a, const std::string& b) {
                                                     return ebb::AsciiLower(a) ==
                                                            ebb::AsciiLower(b);
                                                   }),
          "a whole-key piece's deletes are not stable");
  }
  ParsesStably<ReducedPut>(view, ParseReducedPut, ReducedPutArgs, "a reduced put is not stable");
  ParsesStably<ReducedEntry>(view, ParseReducedEntry, ReducedEntryArgs,
                             "a reduced entry is not stable");
  ReducedEntry entry;
  if (ParseReducedEntry(view, &entry)) {
    Check(JudgedFormOf(entry).size() == 5, "a reduced entry's judged form is out of shape");
  }
  ParsesStably<CounterDelta>(view, ParseCounterDelta, CounterDeltaArgs,
                             "a counter delta is not stable");
  ebb::types::CounterBase base;
  if (IsStringDelta(args[0])) BaseOfStringDelta(view, &base);
  CheckObservedRemove(view);
  ParsesStably<std::vector<SeriesGroup>>(
      view, ParseSeriesDelta,
      [](const std::vector<SeriesGroup>& groups) { return SeriesDeltaArgs(groups); },
      "a ts-merge delta is not stable");
  ParsesStably<SeriesRangeDelete>(
      view, ParseSeriesRangeDelta,
      [](const SeriesRangeDelete& d) { return SeriesRangeDeltaArgs(d.key, d.markers); },
      "a ts-delrange delta is not stable");
  if (args.size() == 3) {
    const std::string dest = args[1];
    ParsesStably<ebb::types::SeriesRuleRegister>(
        view, ParseSeriesRuleDelta,
        [&dest](const ebb::types::SeriesRuleRegister& reg) {
          return SeriesRuleDeltaArgs(dest, reg);
        },
        "a ts-rule delta is not stable");
  }
  PeerDelta lowered = delta;
  lowered.args = args;
  PutExpiry(lowered);
  if (!LoggedValueOf(lowered)) return;
  const PeerDelta reduced = ReducedValueDelta(lowered);
  Check(!LoggedValueOf(reduced), "a reduced delta still carries its value");
  Check(reduced.offset == delta.offset && reduced.db == delta.db, "a reduced delta moved");
}

void CheckFrame(const Frame& f) {
  std::vector<std::string_view> views(f.fields.begin(), f.fields.end());
  PeerStreamMessage m;
  if (!ebb::server::ParsePeerStreamMessage(views, f.wire_size, &m)) return;
  switch (m.kind) {
    case Kind::kTick:
      CheckTick(m);
      break;
    case Kind::kSnapshotEnd:
      break;
    case Kind::kDelta:
      Check(m.end_bytes == f.wire_size, "a delta's share is not its wire size");
      CheckDeltaWire(m);
      CheckArguments(m.delta);
      break;
    case Kind::kPiece:
      Check(m.delta.offset == 0, "a snapshot piece carries an offset");
      CheckArguments(m.delta);
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view stream(reinterpret_cast<const char*>(data) + 1, size - 1);
  RequestParser parser;
  ParseStatus stopped = ParseStatus::kComplete;
  std::string_view rest;
  const std::vector<Frame> frames = FramesOf(parser, stream, &stopped, &rest);
  ParseStatus stopped_split = ParseStatus::kComplete;
  const size_t split = stream.empty() ? 0 : data[0] % (stream.size() + 1);
  const std::vector<Frame> split_frames = FramesInTwoReads(stream, split, &stopped_split);
  if (stopped == ParseStatus::kNeedMore) {
    Check(stopped_split == ParseStatus::kNeedMore && split_frames == frames,
          "two reads frame the stream differently");
  } else {
    // An error met in the first read may come before a frame the whole read took.
    Check(split_frames.size() <= frames.size() &&
              std::equal(split_frames.begin(), split_frames.end(), frames.begin()),
          "two reads frame the stream differently");
  }
  for (const Frame& f : frames) CheckFrame(f);
  return 0;
}
