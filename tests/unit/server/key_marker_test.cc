// The active-active key marker row (server/active_active/whole_key.h; docs/key-encoding.md,
// "Active-active markers"): the documented bytes, round trips, and what is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "server/active_active/marker_piece.h"
#include "server/active_active/peer_snapshot.h"
#include "server/active_active/whole_key.h"
#include "tests/support/or_test_values.h"

namespace ebb::server {
namespace {

// The node id (40 hex digits) of 20 bytes that are each the two hex digits `byte`.
std::string Hex(const std::string& byte) {
  std::string out;
  for (int i = 0; i < 20; i++) out += byte;
  return out;
}

// A marker with one delete: version, floor, the deletes (count, each dot as 20 id bytes and an
// offset varint, its T).
TEST(KeyMarkerTest, DeleteKeepsItsDot) {
  KeyMarker marker;
  marker.floor = 2;
  ASSERT_TRUE(marker.AddDelete({{test::kOriginA, 3}, 1'700'000'000'000}));   // 0x18BCFE56800
  EXPECT_FALSE(marker.AddDelete({{test::kOriginA, 2}, 1'700'000'000'000}));  // dominated
  EXPECT_EQ(marker.deleted_up_to, 1'700'000'000'000);
  const std::string encoded = EncodeKeyMarker(marker);
  EXPECT_EQ(encoded, std::string("\x02\x02\x01", 3) + std::string(20, 'a') +
                         std::string("\x03\x00\x68\xe5\xcf\x8b\x01\x00\x00", 9));
  KeyMarker decoded;
  ASSERT_TRUE(DecodeKeyMarker(encoded, &decoded));
  EXPECT_EQ(decoded, marker);
}

// A row written before markers kept their dots reads as one delete at the pre-mode dot (its
// register at offset 0), and is written back in today's form.
TEST(KeyMarkerTest, VersionOneRowReadsAsOneDeleteAtThePreModeDot) {
  const std::string v1("\x01\x00\x68\xe5\xcf\x8b\x01\x00\x00\x02", 10);
  KeyMarker decoded;
  ASSERT_TRUE(DecodeKeyMarker(v1, &decoded));
  EXPECT_EQ(decoded.deleted_up_to, 1'700'000'000'000);
  EXPECT_EQ(decoded.floor, 2);
  const std::vector<MarkerEntry> deletes = {{PreModeMarkerDot(), 1'700'000'000'000}};
  EXPECT_EQ(decoded.deletes.entries(), deletes);
  KeyMarker again;
  ASSERT_TRUE(DecodeKeyMarker(EncodeKeyMarker(decoded), &again));
  EXPECT_EQ(again, decoded);
  // Nothing deleted (the least int64), a floor, a register of node "o".
  std::string with_register("\x01\x00\x00\x00\x00\x00\x00\x00\x80\x01", 10);
  with_register += std::string("\x07\0\0\0\0\0\0\0\x01\x09\0\0\0\0\0\0\0\x01o", 19);
  ASSERT_TRUE(DecodeKeyMarker(with_register, &decoded));
  EXPECT_TRUE(decoded.deletes.empty());
  EXPECT_EQ(decoded.deleted_up_to, KeyMarker::kNothingDeleted);
  EXPECT_EQ(decoded.floor, 1);
  EXPECT_EQ(decoded.expiry, (ExpiryRegister{.ts = 7, .origin = "o", .expire_at = 9, .offset = 0}));
  EXPECT_FALSE(DecodeKeyMarker(std::string("\x01\x00\x68\xe5\xcf\x8b\x01\x00\x00\x04", 10),
                               &decoded));  // no such type
}

TEST(KeyMarkerTest, RegisterRoundTrips) {
  KeyMarker marker;  // nothing deleted: the least int64
  marker.expiry = ExpiryRegister{.ts = 42, .origin = "node-a", .expire_at = 1000, .offset = 300};
  KeyMarker decoded;
  ASSERT_TRUE(DecodeKeyMarker(EncodeKeyMarker(marker), &decoded));
  EXPECT_EQ(decoded, marker);
  EXPECT_EQ(decoded.deleted_up_to, KeyMarker::kNothingDeleted);

  marker.expiry->expire_at.reset();  // PERSIST
  marker.AddDelete({{test::kOriginB, 9}, -5});
  const std::string encoded = EncodeKeyMarker(marker);
  EXPECT_EQ(encoded.size(), 3u + 20 + 1 + 8 + 8 + 1 + 8 + 2 + 1 + 6);
  ASSERT_TRUE(DecodeKeyMarker(encoded, &decoded));
  EXPECT_EQ(decoded, marker);
  EXPECT_EQ(decoded.deleted_up_to, -5);
  EXPECT_FALSE(decoded.expiry->expire_at.has_value());
}

TEST(KeyMarkerTest, RefusesUnknownVersionsFloorsAndTruncation) {
  KeyMarker marker;
  marker.AddDelete({{test::kOriginA, 1}, 7});
  marker.expiry = ExpiryRegister{.ts = 1, .origin = "o", .expire_at = 2};
  const std::string encoded = EncodeKeyMarker(marker);
  const size_t without_register = 3 + 20 + 1 + 8;
  KeyMarker decoded;
  for (size_t n = 0; n < encoded.size(); n++) {
    if (n == without_register) continue;  // a marker without a register
    EXPECT_FALSE(DecodeKeyMarker(encoded.substr(0, n), &decoded)) << n;
  }
  std::string bad = encoded;
  bad[0] = 3;
  EXPECT_FALSE(DecodeKeyMarker(bad, &decoded));
  bad = encoded;
  bad[1] = 3;  // floor: a series, the highest type
  EXPECT_TRUE(DecodeKeyMarker(bad, &decoded));
  EXPECT_EQ(decoded.floor, 3);
  bad[1] = 4;  // no such type
  EXPECT_FALSE(DecodeKeyMarker(bad, &decoded));
  EXPECT_FALSE(DecodeKeyMarker(encoded + "x", &decoded));
}

// The deletes are a set each node reaches whatever the order they arrive in, and the form on disk
// is its only encoding: out of order, dominated, long varints and duplicates are refused.
TEST(KeyMarkerTest, DeletesKeepWhatNoOtherOfTheirOriginDominates) {
  const std::vector<MarkerEntry> arrivals = {{{test::kOriginA, 2}, 5}, {{test::kOriginB, 7}, 3},
                                             {{test::kOriginA, 3}, 4}, {{test::kOriginA, 4}, 6},
                                             {{test::kOriginA, 1}, 9}, {{test::kOriginB, 7}, 3}};
  std::vector<size_t> order = {0, 1, 2, 3, 4, 5};
  std::string first;
  do {
    MarkerEntries deletes;
    for (size_t i : order) deletes.Add(arrivals[i]);
    const std::vector<MarkerEntry> expected = {
        {{test::kOriginA, 1}, 9}, {{test::kOriginA, 4}, 6}, {{test::kOriginB, 7}, 3}};
    ASSERT_EQ(deletes.entries(), expected);
    EXPECT_EQ(deletes.Greatest(), 9);
    std::string encoded;
    AppendMarkerEntries(deletes, &encoded);
    if (first.empty()) first = encoded;
    EXPECT_EQ(encoded, first);
  } while (std::next_permutation(order.begin(), order.end()));

  MarkerEntries decoded;
  std::string_view input = first;
  ASSERT_TRUE(ConsumeMarkerEntries(&input, &decoded));
  EXPECT_TRUE(input.empty());
  EXPECT_EQ(decoded.Greatest(), 9);
  auto entry = [](const types::OriginId& origin, std::string offset, int64_t ts) {
    std::string out(origin.view());
    out += offset;
    out.append(reinterpret_cast<const char*>(&ts), 8);  // little-endian on this machine
    return out;
  };
  for (const std::string& bad : {
           "\x02" + entry(test::kOriginA, "\x04", 6) +
               entry(test::kOriginA, "\x01", 9),  // out of order
           "\x02" + entry(test::kOriginA, "\x01", 5) +
               entry(test::kOriginA, "\x04", 6),  // the first is dominated
           "\x02" + entry(test::kOriginA, "\x04", 6) +
               entry(test::kOriginA, "\x04", 6),                           // a duplicate
           "\x01" + entry(test::kOriginA, std::string("\x84\x00", 2), 6),  // a long varint
           std::string("\x81\x00", 2),                                     // a long count
           "\x02" + entry(test::kOriginA, "\x04", 6),                      // one short
       }) {
    std::string_view in = bad;
    EXPECT_FALSE(ConsumeMarkerEntries(&in, &decoded)) << testing::PrintToString(bad);
  }
}

// A horizon keeps its deletes too; one written in decimal reads as one at the pre-mode dot.
// A view (an origin's last collect) leaves out the entries it covers; offset 0 and the pre-mode
// dot name no delta an origin announced, so no view covers them.
TEST(KeyMarkerTest, GreatestBeyondAViewLeavesOutWhatItCovers) {
  const types::OriginId a(std::string(types::kOriginIdSize, 'a'));
  const types::OriginId b(std::string(types::kOriginIdSize, 'b'));
  MarkerEntries deletes;
  deletes.Add({{a, 2}, 5});
  deletes.Add({{b, 7}, 9});
  types::OrContext view;
  EXPECT_EQ(deletes.GreatestBeyond(view), 9);
  view.Raise(b, 6);
  EXPECT_EQ(deletes.GreatestBeyond(view), 9);
  view.Raise(b, 7);
  EXPECT_EQ(deletes.GreatestBeyond(view), 5);
  view.Raise(a, 2);
  EXPECT_EQ(deletes.GreatestBeyond(view), MarkerEntries::kNone);
  MarkerEntries unnamed;
  unnamed.Add({{a, 0}, 3});
  unnamed.Add({PreModeMarkerDot(), 4});
  view.Raise(PreModeMarkerDot().origin, 9);
  EXPECT_EQ(unnamed.GreatestBeyond(view), 4);
}

TEST(KeyMarkerTest, HorizonRows) {
  MarkerEntries deletes;
  deletes.Add({{test::kOriginA, 5}, 1500});
  deletes.Add({{test::kOriginB, 2}, 1200});
  MarkerEntries decoded;
  ASSERT_TRUE(DecodeHorizon(EncodeHorizon(deletes), &decoded));
  EXPECT_EQ(decoded, deletes);
  ASSERT_TRUE(DecodeHorizon("1500", &decoded));
  ASSERT_EQ(decoded.entries().size(), 1u);
  EXPECT_EQ(decoded.entries()[0], (MarkerEntry{PreModeMarkerDot(), 1500}));
  EXPECT_FALSE(DecodeHorizon("soon", &decoded));
  EXPECT_FALSE(DecodeHorizon(EncodeHorizon(deletes) + "x", &decoded));
  EXPECT_FALSE(DecodeHorizon("", &decoded));
}

TEST(KeyMarkerTest, RegisterOrderIsTimeThenOriginThenOffset) {
  const ExpiryRegister a{.ts = 5, .origin = "b"};
  const ExpiryRegister b{.ts = 6, .origin = "a"};
  const ExpiryRegister c{.ts = 6, .origin = "b"};
  EXPECT_TRUE(a.Precedes(b));
  EXPECT_TRUE(b.Precedes(c));
  EXPECT_FALSE(c.Precedes(b));
  EXPECT_FALSE(c.Precedes(c));
  const ExpiryRegister d{.ts = 6, .origin = "b", .offset = 3};  // c's at a later offset
  EXPECT_TRUE(c.Precedes(d));
  EXPECT_FALSE(d.Precedes(c));
}

TEST(KeyMarkerTest, RowNames) {
  EXPECT_EQ(KeyMarkerRowName(3, "user:1"), "aa-key:3:user:1");
  EXPECT_EQ(HorizonRowName(0), "aa-horizon:0");
  int db = -1;
  std::string_view key;
  ASSERT_TRUE(ParseKeyMarkerRowName("aa-key:3:user:1", &db, &key));
  EXPECT_EQ(db, 3);
  EXPECT_EQ(key, "user:1");
  ASSERT_TRUE(ParseKeyMarkerRowName("aa-key:0:", &db, &key));
  EXPECT_EQ(key, "");
  EXPECT_FALSE(ParseKeyMarkerRowName("aa-key:x:k", &db, &key));
  EXPECT_FALSE(ParseKeyMarkerRowName("aa-key:3", &db, &key));
  EXPECT_FALSE(ParseKeyMarkerRowName("aa-horizon:3", &db, &key));
  ASSERT_TRUE(ParseHorizonRowName("aa-horizon:15", &db));
  EXPECT_EQ(db, 15);
  EXPECT_FALSE(ParseHorizonRowName("aa-horizon:", &db));
  EXPECT_FALSE(ParseHorizonRowName("aa-horizon:-1", &db));
  EXPECT_FALSE(ParseHorizonRowName("aa-key:1:k", &db));
}

// A snapshot carries a marker whole (its deletes with their dots, the floor, the register with its
// own origin and offset) and a horizon as the flushes that made it.
TEST(KeyMarkerTest, SnapshotPiecesOfMarkerRows) {
  std::vector<std::vector<std::string>> pieces;
  int db = -1;
  KeyMarker marker{.floor = 2};
  marker.AddDelete({{test::kOriginA, 4}, 1000});
  marker.AddDelete({{test::kOriginB, 2}, 900});
  ASSERT_TRUE(SnapshotMarkerRow("aa-key:1:log", EncodeKeyMarker(marker), &db, &pieces).ok());
  EXPECT_EQ(db, 1);
  marker = KeyMarker{
      .expiry = ExpiryRegister{.ts = 7, .origin = "node-b", .expire_at = 9000, .offset = 5}};
  ASSERT_TRUE(SnapshotMarkerRow("aa-key:0:s", EncodeKeyMarker(marker), &db, &pieces).ok());
  marker.expiry->expire_at.reset();
  marker.AddDelete({{test::kOriginA, 6}, 3});
  ASSERT_TRUE(SnapshotMarkerRow("aa-key:0:p", EncodeKeyMarker(marker), &db, &pieces).ok());
  MarkerEntries horizon;
  horizon.Add({{test::kOriginB, 8}, 1500});
  ASSERT_TRUE(SnapshotMarkerRow("aa-horizon:2", EncodeHorizon(horizon), &db, &pieces).ok());
  EXPECT_EQ(db, 2);
  ASSERT_TRUE(SnapshotMarkerRow("aa-horizon:3", "1400", &db, &pieces).ok());
  ASSERT_TRUE(SnapshotMarkerRow("aa-node-id", "abc", &db, &pieces).ok());
  const std::string a = Hex("61");  // the bytes of test::kOriginA and test::kOriginB, 'a' and 'b'
  const std::string b = Hex("62");
  const std::string zero = Hex("00");
  const std::vector<std::vector<std::string>> expected = {
      {"marker-at", "1000", "log", "2", "deletes", a, "4", "1000", b, "2", "900"},
      {"marker-at", std::to_string(KeyMarker::kNothingDeleted), "s", "0", "7", "9000", "node-b",
       "5"},
      {"marker-at", "3", "p", "0", "7", "persist", "node-b", "5", "deletes", a, "6", "3"},
      {"flushdb-at", "1500", "deletes", b, "8", "1500"},
      {"flushdb-at", "1400", "deletes", zero, "1", "1400"}};
  EXPECT_EQ(pieces, expected);
  // Each piece parses back to the entries it was made from.
  WholeKeyPiece piece;
  ASSERT_TRUE(ParseWholeKeyPiece(pieces[0], &piece));
  EXPECT_EQ(piece.deletes.entries().size(), 2u);
  ASSERT_TRUE(ParseWholeKeyPiece(pieces[1], &piece));
  EXPECT_TRUE(piece.has_register);
  EXPECT_EQ(piece.register_offset, 5u);
  for (const auto& made : pieces) {
    EXPECT_TRUE(ParseWholeKeyPiece(made, &piece)) << testing::PrintToString(made);
  }
  EXPECT_TRUE(SnapshotMarkerRow("aa-key:0:s", "\x09", &db, &pieces).IsCorruption());
  EXPECT_TRUE(SnapshotMarkerRow("aa-horizon:0", "soon", &db, &pieces).IsCorruption());
}

}  // namespace
}  // namespace ebb::server
