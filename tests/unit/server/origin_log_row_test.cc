// The origin log's row and the reduced form of a logged put whose value expired
// (server/active_active/peer_delta.h; docs/active-active.md, "The origin log").
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace ebb::server
