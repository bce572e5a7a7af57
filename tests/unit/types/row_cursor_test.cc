// Keyspace's cursors (types/row_cursor.h) and WriteMetaVersion over a real engine: a key cursor
// shows every key whose newest version holds something (live, a tombstone with what it carries,
// expired) in key order within its database and its positions, reads at a snapshot or through
// the open batch; a system-row cursor shows the rows of its prefix by name.
#include "types/row_cursor.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "tests/unit/types/types_fixture.h"

namespace ebb::types {
namespace {

class RowCursorTest : public TypesTest {
 protected:
  // Writes a string version of `key` through WriteMetaVersion.
  void Write(int db, std::string_view key, storage::RowKind kind, std::string_view value,
             storage::RowMeta meta = {}) {
    if (!meta.timestamp_ms) meta.timestamp_ms = clock_->NowMs();
    const std::string row = kind == storage::RowKind::kValue
                                ? EncodeMetaValue(KeyType::kString, value)
                                : std::string(value);
    const storage::Status s = ks_->WriteMetaVersion(db, key, kind, row, meta);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  // The names a cursor walks, to its end; the cursor's status must be OK.
  static std::vector<std::string> WalkNames(RowCursor& cursor) {
    std::vector<std::string> names;
    for (; cursor.Valid(); cursor.Next()) names.emplace_back(cursor.name());
    EXPECT_TRUE(cursor.status().ok()) << cursor.status().ToString();
    return names;
  }

  std::vector<std::string> KeysOf(int db, std::string from, std::string to,
                                  const storage::Snapshot* snapshot = nullptr) {
    std::unique_ptr<RowCursor> cursor =
        ks_->KeyCursor(db, std::move(from), std::move(to), snapshot);
    return WalkNames(*cursor);
  }

  std::vector<std::string> AllKeysOf(int db) {
    return KeysOf(db, ks_->FirstKeyPosition(db), ks_->EndKeyPosition(db));
  }
};

using Names = std::vector<std::string>;

TEST_F(RowCursorTest, AKeyCursorShowsLiveTombstonedAndExpiredKeysOfItsDatabaseInOrder) {
  Write(0, "b", storage::RowKind::kValue, "live");
  Write(0, "a", storage::RowKind::kTombstone, "carried");
  Write(0, "c", storage::RowKind::kValue, "gone", {.expire_at_ms = clock_->NowMs() + 10});
  Write(1, "a", storage::RowKind::kValue, "other database");
  clock_->Advance(100);  // c has expired

  EXPECT_EQ(AllKeysOf(0), (Names{"a", "b", "c"}));
  EXPECT_EQ(AllKeysOf(1), (Names{"a"}));
  EXPECT_TRUE(AllKeysOf(2).empty());

  // The tombstone's row is what it carries, and a live row its value.
  std::unique_ptr<RowCursor> cursor =
      ks_->KeyCursor(0, ks_->FirstKeyPosition(0), ks_->EndKeyPosition(0));
  ASSERT_TRUE(cursor->Valid());
  EXPECT_EQ(cursor->value(), "carried");
  EXPECT_EQ(cursor->position(), ks_->KeyPosition(0, "a"));
  cursor->Next();
  ASSERT_TRUE(cursor->Valid());
  EXPECT_EQ(cursor->value(), EncodeMetaValue(KeyType::kString, "live"));
}

TEST_F(RowCursorTest, PositionsBoundTheWalkAndPositionAfterPassesOneKey) {
  for (std::string_view key : {"a", "a\x01", "b", "c"}) {
    Write(0, key, storage::RowKind::kValue, "v");
  }
  EXPECT_LE(ks_->FirstKeyPosition(0), ks_->KeyPosition(0, ""));  // the empty key's own
  EXPECT_LT(ks_->KeyPosition(0, "a"), ks_->KeyPosition(0, "b"));
  EXPECT_LT(ks_->KeyPosition(0, "zzzz"), ks_->EndKeyPosition(0));

  const std::string after_a = Keyspace::PositionAfter(ks_->KeyPosition(0, "a"));
  EXPECT_LT(ks_->KeyPosition(0, "a"), after_a);
  EXPECT_LE(after_a, ks_->KeyPosition(0, "a\x01"));  // no key lies between them

  EXPECT_EQ(KeysOf(0, after_a, ks_->KeyPosition(0, "c")), (Names{"a\x01", "b"}));
  EXPECT_EQ(KeysOf(0, ks_->KeyPosition(0, "b"), ks_->EndKeyPosition(0)), (Names{"b", "c"}));
  EXPECT_TRUE(KeysOf(0, ks_->KeyPosition(0, "c"), ks_->KeyPosition(0, "c")).empty());
  // Positions beyond the database's range are held to it.
  Write(1, "x", storage::RowKind::kValue, "v");
  EXPECT_EQ(KeysOf(0, ks_->FirstKeyPosition(0), ks_->EndKeyPosition(1)),
            (Names{"a", "a\x01", "b", "c"}));
}

TEST_F(RowCursorTest, AKeyCursorReadsAtItsSnapshotOrThroughTheOpenBatch) {
  Write(0, "a", storage::RowKind::kValue, "v");
  const storage::Snapshot* snapshot = ks_->db().GetSnapshot();
  Write(0, "b", storage::RowKind::kValue, "v");
  EXPECT_EQ(KeysOf(0, ks_->FirstKeyPosition(0), ks_->EndKeyPosition(0), snapshot), (Names{"a"}));
  ks_->db().ReleaseSnapshot(snapshot);

  ks_->BeginBatch();
  Write(0, "c", storage::RowKind::kValue, "pending");
  EXPECT_EQ(AllKeysOf(0), (Names{"a", "b", "c"}));
  ks_->DiscardBatch();
  EXPECT_EQ(AllKeysOf(0), (Names{"a", "b"}));
}

TEST_F(RowCursorTest, WriteMetaVersionKeepsTheTimestampAndExpiryItIsGiven) {
  const int64_t ts = clock_->NowMs() - 5000;
  const int64_t expire_at = clock_->NowMs() + 5000;
  Write(0, "k", storage::RowKind::kValue, "v", {.timestamp_ms = ts, .expire_at_ms = expire_at});
  KeyMetaRow row;
  ASSERT_TRUE(ks_->GetMeta(0, "k", &row).ok());
  EXPECT_EQ(row.type, KeyType::kString);
  EXPECT_EQ(row.payload, "v");
  EXPECT_EQ(row.meta.timestamp_ms, ts);
  EXPECT_EQ(row.meta.expire_at_ms, expire_at);

  // A tombstone at a later timestamp hides it, carrying its bytes.
  Write(0, "k", storage::RowKind::kTombstone, "rank", {.timestamp_ms = ts + 1});
  EXPECT_TRUE(ks_->GetMeta(0, "k", &row).IsNotFound());
  std::unique_ptr<RowCursor> cursor =
      ks_->KeyCursor(0, ks_->FirstKeyPosition(0), ks_->EndKeyPosition(0));
  ASSERT_TRUE(cursor->Valid());
  EXPECT_EQ(cursor->value(), "rank");
  EXPECT_EQ(cursor->meta().timestamp_ms, ts + 1);
}

TEST_F(RowCursorTest, ASystemRowCursorShowsTheRowsOfItsPrefixByName) {
  ASSERT_TRUE(ks_->PutSystemRow("walk:b", "2").ok());
  ASSERT_TRUE(ks_->PutSystemRow("walk:a", "1").ok());
  ASSERT_TRUE(ks_->PutSystemRow("walker", "no").ok());
  ASSERT_TRUE(ks_->PutSystemRow("wal", "no").ok());
  Write(0, "walk:c", storage::RowKind::kValue, "a key, not a system row");

  std::unique_ptr<RowCursor> cursor = ks_->SystemRowCursor("walk:");
  ASSERT_TRUE(cursor->Valid());
  EXPECT_EQ(cursor->value(), "1");
  EXPECT_EQ(WalkNames(*cursor), (Names{"walk:a", "walk:b"}));
  EXPECT_TRUE(WalkNames(*ks_->SystemRowCursor("none:")).empty());
}

}  // namespace
}  // namespace ebb::types
