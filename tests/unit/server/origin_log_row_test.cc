// The origin log's row and the reduced form of a logged put whose value expired
// (server/active_active/peer_delta.h; docs/active-active.md, "The origin log").
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "server/active_active/peer_delta.h"
#include "types/string_rank.h"

namespace ebb::server {
namespace {

PeerDelta Put(std::vector<std::string> args) {
  PeerDelta delta;
  delta.offset = 42;
  delta.origin_ms = 1'700'000'000'000;
  delta.db = 3;
  delta.args = std::move(args);
  return delta;
}

TEST(OriginLogRowTest, ARowAsFirstLoggedIsTheEncodedDelta) {
  const PeerDelta delta = Put({"put", "k", "v", "TS", "10", "PXAT", "20"});
  const std::string row = EncodeLogRow(delta, "");
  EXPECT_EQ(row, EncodePeerDelta(delta));
  PeerDelta decoded;
  std::string first_digest = "stale";
  ASSERT_TRUE(DecodeLogRow(row, &decoded, &first_digest));
  EXPECT_EQ(decoded.args, delta.args);
  EXPECT_EQ(decoded.offset, 42u);
  EXPECT_EQ(decoded.db, 3);
  EXPECT_EQ(first_digest, "");
}

TEST(OriginLogRowTest, AReducedRowCarriesTheDigestOfTheDeltaAsFirstLogged) {
  const PeerDelta whole = Put({"put", "k", "secret", "TS", "10", "PXAT", "20"});
  const PeerDelta reduced = ReducedPutDelta(whole);
  const std::string row = EncodeLogRow(reduced, DeltaDigest(whole));
  EXPECT_EQ(row.find("secret"), std::string::npos);
  PeerDelta decoded;
  std::string first_digest;
  ASSERT_TRUE(DecodeLogRow(row, &decoded, &first_digest));
  EXPECT_EQ(decoded.args, reduced.args);
  EXPECT_EQ(first_digest, DeltaDigest(whole));
  // A trailer of any other length is malformed; the delta alone is not a reduced row's form.
  EXPECT_FALSE(DecodeLogRow(row + "x", &decoded, &first_digest));
  EXPECT_FALSE(DecodeLogRow(row.substr(0, row.size() - 1), &decoded, &first_digest));
  EXPECT_FALSE(DecodePeerDelta(row, &decoded));
}

// A `ts-merge` row rewritten twice carries the digest of each earlier form, oldest first, and a
// peer's vector naming either is recognised.
TEST(OriginLogRowTest, ASeriesRowRewrittenTwiceCarriesEachEarlierDigest) {
  const PeerDelta first = Put({"ts-merge", "s", "reg", "2", "1", "a", "2", "b"});
  const PeerDelta second = Put({"ts-merge", "s", "reg", "1", "2", "b"});
  const PeerDelta third = Put({"ts-merge", "s", "reg", "0"});
  const std::string digests = DeltaDigest(first) + DeltaDigest(second);
  const std::string row = EncodeLogRow(third, digests);
  PeerDelta decoded;
  std::string read;
  ASSERT_TRUE(DecodeLogRow(row, &decoded, &read));
  EXPECT_EQ(decoded.args, third.args);
  EXPECT_EQ(read, digests);
  EXPECT_TRUE(NamesDigest(read, DeltaDigest(first)));
  EXPECT_TRUE(NamesDigest(read, DeltaDigest(second)));
  EXPECT_FALSE(NamesDigest(read, DeltaDigest(third)));
  EXPECT_FALSE(NamesDigest(read, DeltaDigest(first).substr(8) + DeltaDigest(second).substr(0, 8)));
  EXPECT_FALSE(DecodeLogRow(row + "x", &decoded, &read));
}

// The bytes of the log row and of the wire form, spelled out: peers and the rows on disk depend
// on every one of them (docs/active-active.md, "Deltas").
TEST(OriginLogRowTest, TheRowAndTheWireFormKeepTheirBytes) {
  const std::string big(200, 'x');  // a length of two varint bytes
  PeerDelta delta = Put({"put", "k", big});
  std::string row(
      "\x2a\x00\x00\x00\x00\x00\x00\x00"   // offset 42
      "\x00\x68\xe5\xcf\x8b\x01\x00\x00"   // origin_ms 1,700,000,000,000
      "\x03\x00\x00\x00\x03\x00\x00\x00",  // db 3, 3 arguments
      24);
  row += "\x03put\x01k\xc8\x01" + big;
  EXPECT_EQ(EncodePeerDelta(delta), row);
  std::string reused = "what an earlier row left, longer than nothing";
  EncodePeerDelta(delta, &reused);  // the origin's write path reuses one buffer
  EXPECT_EQ(reused, row);
  EncodePeerDelta(Put({"put", "k", "v"}), &reused);
  EXPECT_EQ(reused, EncodePeerDelta(Put({"put", "k", "v"})));

  // The wire form frames the row's bytes: a two-element array, "delta", then the row.
  std::string wire = "prefix";
  AppendDeltaFrame(&wire, row);
  EXPECT_EQ(wire,
            "prefix*2\r\n$5\r\ndelta\r\n$" + std::to_string(row.size()) + "\r\n" + row + "\r\n");
  // A delta decoded into one that held more and longer arguments holds only its own.
  PeerDelta into = Put({"put", std::string(100, 'q'), "w", "TS", "9", "PXAT", "99"});
  ASSERT_TRUE(DecodePeerDelta(row, &into));
  EXPECT_EQ(into.offset, 42u);
  EXPECT_EQ(into.origin_ms, 1'700'000'000'000);
  EXPECT_EQ(into.db, 3);
  EXPECT_EQ(into.args, delta.args);

  std::string tick = "t";
  AppendTickResp(&tick, 1'700'000'000'000, 7, 123);
  EXPECT_EQ(tick, "t*4\r\n$4\r\ntick\r\n$13\r\n1700000000000\r\n$1\r\n7\r\n$3\r\n123\r\n");
  std::string bulk;
  AppendRespBulk(&bulk, "snap");
  EXPECT_EQ(bulk, "$4\r\nsnap\r\n");
}

TEST(OriginLogRowTest, OnlyAPutWithAnExpiryHasAValueThatExpires) {
  EXPECT_EQ(PutExpiry(Put({"put", "k", "v", "TS", "10", "PXAT", "20"})), 20);
  EXPECT_EQ(PutExpiry(Put({"put", "k", "v", "TS", "10", "NOTTL"})), std::nullopt);
  EXPECT_EQ(PutExpiry(Put({"put", "k", "v", "TS", "x", "PXAT", "20"})), std::nullopt);
  EXPECT_EQ(PutExpiry(Put({"put", "k", "v", "TS", "10", "PXAT", "x"})), std::nullopt);
  EXPECT_EQ(PutExpiry(Put({"tlog", "ins", "k", "v", "10"})), std::nullopt);
  EXPECT_EQ(PutExpiry(ReducedPutDelta(Put({"put", "k", "v", "TS", "10", "PXAT", "20"}))),
            std::nullopt);
}

TEST(OriginLogRowTest, TheReducedPutKeepsTheRankWithoutTheValue) {
  const PeerDelta whole = Put({"put", "k", "secret", "TS", "10", "PXAT", "20"});
  const PeerDelta reduced = ReducedPutDelta(whole);
  EXPECT_EQ(reduced.offset, whole.offset);
  EXPECT_EQ(reduced.origin_ms, whole.origin_ms);
  EXPECT_EQ(reduced.db, whole.db);
  const std::vector<std::string> expected = {
      "put-expired", "k",  "DIGEST", types::DigestHex(types::StringDigest("secret")),
      "TS",          "10", "PXAT",   "20"};
  EXPECT_EQ(reduced.args, expected);
  ReducedPut parsed;
  EXPECT_TRUE(ParseReducedPut(reduced.args, &parsed));
}

TEST(OriginLogRowTest, EveryDeltaThatCarriesAValueIsALoggedValue) {
  // A LoggedValue views its delta's arguments: each delta outlives it.
  const PeerDelta put_delta = Put({"put", "k", "v", "TS", "10", "PXAT", "20"});
  const auto put = LoggedValueOf(put_delta);
  ASSERT_TRUE(put.has_value());
  EXPECT_EQ(put->kind, LoggedValue::Kind::kPut);
  EXPECT_EQ(put->key, "k");
  EXPECT_EQ(put->value, "v");
  EXPECT_TRUE(put->ts == 10);
  EXPECT_EQ(put->own_expiry, 20);
  const PeerDelta nottl_delta = Put({"put", "k", "v", "TS", "10", "NOTTL"});
  const auto nottl = LoggedValueOf(nottl_delta);
  ASSERT_TRUE(nottl.has_value());
  EXPECT_EQ(nottl->own_expiry, std::nullopt);
  const PeerDelta treg_delta = Put({"treg", "set", "r", "v", "18446744073709551615"});
  const auto treg = LoggedValueOf(treg_delta);
  ASSERT_TRUE(treg.has_value());
  EXPECT_EQ(treg->kind, LoggedValue::Kind::kTregSet);
  EXPECT_EQ(treg->key, "r");
  EXPECT_TRUE(treg->ts == static_cast<__int128>(18446744073709551615ULL));
  const PeerDelta tlog_delta = Put({"tlog", "ins", "l", "v", "7"});
  const auto tlog = LoggedValueOf(tlog_delta);
  ASSERT_TRUE(tlog.has_value());
  EXPECT_EQ(tlog->kind, LoggedValue::Kind::kTlogIns);
  // No value, a reduced form, or out of shape: none.
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"tlog", "trimat", "l", "7"},
           {"delete", "k", "TS", "10"},
           {"put", "k", "v", "TS", "10"},
           {"put", "k", "v", "TS", "10", "NOTTL", "x"},
           {"put", "k", "v", "TS", "10", "KEEP"},
           {"treg", "set", "r", "v", "-1"},
           {"tlog", "ins", "l", "v", "x"},
           {"tlog", "ins", "l", "v"},
           {"expiry-at", "10", "k", "20"},
           ReducedValueDelta(Put({"tlog", "ins", "l", "v", "7"})).args}) {
    EXPECT_FALSE(LoggedValueOf(Put(args)).has_value()) << args[0];
  }
}

TEST(OriginLogRowTest, TheReducedEntryAndPairKeepTheirTimestampWithoutTheValue) {
  const std::string hex = types::DigestHex(types::StringDigest("secret"));
  const PeerDelta entry = ReducedValueDelta(Put({"tlog", "ins", "l", "secret", "7"}));
  EXPECT_EQ(entry.offset, 42u);
  EXPECT_EQ(entry.db, 3);
  EXPECT_EQ(entry.args, (std::vector<std::string>{"tlog", "ins-expired", "l", "DIGEST", hex, "7"}));
  const PeerDelta pair = ReducedValueDelta(Put({"treg", "set", "r", "secret", "9"}));
  EXPECT_EQ(pair.args, (std::vector<std::string>{"treg", "set-expired", "r", "DIGEST", hex, "9"}));
  const PeerDelta put = ReducedValueDelta(Put({"put", "k", "secret", "TS", "10", "NOTTL"}));
  EXPECT_EQ(put.args,
            (std::vector<std::string>{"put-expired", "k", "DIGEST", hex, "TS", "10", "NOTTL"}));

  ReducedEntry parsed;
  ASSERT_TRUE(ParseReducedEntry(entry.args, &parsed));
  EXPECT_TRUE(parsed.tlog);
  EXPECT_EQ(parsed.key, "l");
  EXPECT_EQ(parsed.digest, types::StringDigest("secret"));
  EXPECT_EQ(parsed.ts, 7u);
  EXPECT_EQ(JudgedFormOf(parsed), (std::vector<std::string>{"tlog", "ins", "l", "", "7"}));
  ASSERT_TRUE(ParseReducedEntry(pair.args, &parsed));
  EXPECT_FALSE(parsed.tlog);
  EXPECT_EQ(JudgedFormOf(parsed), (std::vector<std::string>{"treg", "set", "r", "", "9"}));
  EXPECT_EQ(ReducedEntryArgs(parsed), pair.args);
}

TEST(OriginLogRowTest, AReducedEntryOutOfShapeIsRefused) {
  const std::string hex = types::DigestHex(types::StringDigest("secret"));
  ReducedEntry parsed;
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"tlog", "ins-expired", "l", "DIGEST", hex},
           {"tlog", "ins-expired", "l", "DIGEST", hex, "7", "8"},
           {"tlog", "ins-expired", "l", "HASH", hex, "7"},
           {"tlog", "ins-expired", "l", "DIGEST", hex.substr(1), "7"},
           {"tlog", "ins-expired", "l", "DIGEST", hex + "0", "7"},
           {"tlog", "ins-expired", "l", "DIGEST", "zz" + hex.substr(2), "7"},
           {"tlog", "ins-expired", "l", "DIGEST", hex, "-7"},
           {"tlog", "ins-expired", "l", "DIGEST", hex, "18446744073709551616"},
           {"tlog", "ins-expired", "l", "DIGEST", hex, ""},
           {"tlog", "set-expired", "l", "DIGEST", hex, "7"},
           {"treg", "ins-expired", "l", "DIGEST", hex, "7"},
           {"put", "set-expired", "l", "DIGEST", hex, "7"},
       }) {
    EXPECT_FALSE(ParseReducedEntry(args, &parsed))
        << args[1] << " " << args[4] << " " << args.size();
  }
}

}  // namespace
}  // namespace ebb::server
