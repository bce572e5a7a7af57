// The active-active key marker row (server/active_active/whole_key.h; docs/key-encoding.md,
// "Active-active markers"): the documented bytes, round trips, and what is refused.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server/active_active/peer_snapshot.h"
#include "server/active_active/whole_key.h"

namespace ebb::server {
namespace {

TEST(KeyMarkerTest, DeleteOnlyMarkerIsTenBytes) {
  KeyMarker marker;
  marker.deleted_up_to = 1'700'000'000'000;  // 0x18BCFE56800
  marker.floor = 2;
  const std::string encoded = EncodeKeyMarker(marker);
  EXPECT_EQ(encoded, std::string("\x01\x00\x68\xe5\xcf\x8b\x01\x00\x00\x02", 10));
  KeyMarker decoded;
  ASSERT_TRUE(DecodeKeyMarker(encoded, &decoded));
  EXPECT_EQ(decoded, marker);
}

TEST(KeyMarkerTest, RegisterRoundTrips) {
  KeyMarker marker;  // nothing deleted: the least int64
  marker.expiry = ExpiryRegister{.ts = 42, .origin = "node-a", .expire_at = 1000};
  KeyMarker decoded;
  ASSERT_TRUE(DecodeKeyMarker(EncodeKeyMarker(marker), &decoded));
  EXPECT_EQ(decoded, marker);
  EXPECT_EQ(decoded.deleted_up_to, KeyMarker::kNothingDeleted);

  marker.expiry->expire_at.reset();  // PERSIST
  marker.deleted_up_to = -5;
  const std::string encoded = EncodeKeyMarker(marker);
  EXPECT_EQ(encoded.size(), 10u + 8 + 1 + 8 + 1 + 6);
  ASSERT_TRUE(DecodeKeyMarker(encoded, &decoded));
  EXPECT_EQ(decoded, marker);
  EXPECT_FALSE(decoded.expiry->expire_at.has_value());
}

TEST(KeyMarkerTest, RefusesUnknownVersionsFloorsAndTruncation) {
  KeyMarker marker;
  marker.expiry = ExpiryRegister{.ts = 1, .origin = "o", .expire_at = 2};
  const std::string encoded = EncodeKeyMarker(marker);
  KeyMarker decoded;
  for (size_t n = 0; n < encoded.size(); n++) {
    if (n == 10) continue;  // a marker without a register
    EXPECT_FALSE(DecodeKeyMarker(encoded.substr(0, n), &decoded)) << n;
  }
  std::string bad = encoded;
  bad[0] = 2;
  EXPECT_FALSE(DecodeKeyMarker(bad, &decoded));
  bad = encoded;
  bad[9] = 3;  // floor: a series, the highest type
  EXPECT_TRUE(DecodeKeyMarker(bad, &decoded));
  EXPECT_EQ(decoded.floor, 3);
  bad[9] = 4;  // no such type
  EXPECT_FALSE(DecodeKeyMarker(bad, &decoded));
  EXPECT_FALSE(DecodeKeyMarker(encoded + "x", &decoded));
}

TEST(KeyMarkerTest, RegisterOrderIsTimeThenOrigin) {
  const ExpiryRegister a{.ts = 5, .origin = "b"};
  const ExpiryRegister b{.ts = 6, .origin = "a"};
  const ExpiryRegister c{.ts = 6, .origin = "b"};
  EXPECT_TRUE(a.Precedes(b));
  EXPECT_TRUE(b.Precedes(c));
  EXPECT_FALSE(c.Precedes(b));
  EXPECT_FALSE(c.Precedes(c));
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

// A snapshot carries a marker whole (the delete, the floor, the register with its own origin)
// and a horizon as the flush that made it.
TEST(KeyMarkerTest, SnapshotPiecesOfMarkerRows) {
  std::vector<std::vector<std::string>> pieces;
  int db = -1;
  KeyMarker marker{.deleted_up_to = 1000, .floor = 2};
  ASSERT_TRUE(SnapshotMarkerRow("aa-key:1:log", EncodeKeyMarker(marker), &db, &pieces).ok());
  EXPECT_EQ(db, 1);
  marker = KeyMarker{.expiry = ExpiryRegister{.ts = 7, .origin = "node-b", .expire_at = 9000}};
  ASSERT_TRUE(SnapshotMarkerRow("aa-key:0:s", EncodeKeyMarker(marker), &db, &pieces).ok());
  marker.expiry->expire_at.reset();
  ASSERT_TRUE(SnapshotMarkerRow("aa-key:0:p", EncodeKeyMarker(marker), &db, &pieces).ok());
  ASSERT_TRUE(SnapshotMarkerRow("aa-horizon:2", "1500", &db, &pieces).ok());
  EXPECT_EQ(db, 2);
  ASSERT_TRUE(SnapshotMarkerRow("aa-node-id", "abc", &db, &pieces).ok());
  const std::vector<std::vector<std::string>> expected = {
      {"marker-at", "1000", "log", "2"},
      {"marker-at", std::to_string(KeyMarker::kNothingDeleted), "s", "0", "7", "9000", "node-b"},
      {"marker-at", std::to_string(KeyMarker::kNothingDeleted), "p", "0", "7", "persist", "node-b"},
      {"flushdb-at", "1500"}};
  EXPECT_EQ(pieces, expected);
  EXPECT_TRUE(SnapshotMarkerRow("aa-key:0:s", "\x09", &db, &pieces).IsCorruption());
  EXPECT_TRUE(SnapshotMarkerRow("aa-horizon:0", "soon", &db, &pieces).IsCorruption());
}

}  // namespace
}  // namespace ebb::server
