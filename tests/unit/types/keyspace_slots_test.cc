// The slot layout (a cluster node's keyspace, docs/key-encoding.md): rows grouped by hash slot,
// the per-slot count, listing and range deletion, whole-keyspace operations over it, the
// compaction filter on its sub-rows, and the refusal to open a data directory in the other
// layout. The database layout's slot operations (a walk) answer the same.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/key_slot.h"
#include "tests/unit/types/types_fixture.h"
#include "types/key_encoding.h"
#include "types/keyspace.h"
#include "types/kv.h"
#include "types/tlog.h"

namespace ebb::types {
namespace {

const int kFooSlot = KeySlot("foo");  // 12182 = 0x2F96

// Engine rows in [lower, upper), whatever they are (deleted and expired rows hidden).
size_t EngineRows(Keyspace& ks, std::string lower, std::string upper) {
  storage::ReadOptions options;
  options.lower_bound = lower;
  options.upper_bound = std::move(upper);
  std::unique_ptr<storage::Iterator> it = ks.db().NewIterator(options);
  size_t rows = 0;
  for (it->Seek(lower); it->Valid(); it->Next()) ++rows;
  EXPECT_TRUE(it->status().ok());
  return rows;
}

class SlotLayoutTest : public TypesTest, public ::testing::WithParamInterface<KeyLayout> {
 protected:
  SlotLayoutTest() { layout_ = GetParam(); }

  void Set(std::string_view key) {
    ASSERT_TRUE(Kv(*ks_, 0).Put({.key = key, .value = "v", .ts = clock_->NowMs()}).ok());
  }
  void Log(std::string_view key, int entries) {
    Tlog log(*ks_, 0);
    for (int i = 1; i <= entries; i++) {
      ASSERT_TRUE(log.Insert(key, "e" + std::to_string(i), static_cast<uint64_t>(i)).ok());
    }
  }
};

TEST_P(SlotLayoutTest, CountsListsAndDeletesTheKeysOfOneSlot) {
  Set("{foo}b");
  Set("{foo}a");
  Log("{foo}log", 5);
  Set("bar");
  Log("{bar}log", 3);
  EXPECT_EQ(Value(ks_->CountKeysInSlot(kFooSlot)), 3u);
  EXPECT_EQ(Value(ks_->CountKeysInSlot(KeySlot("bar"))), 2u);
  EXPECT_EQ(Value(ks_->CountKeysInSlot(0)), 0u);
  EXPECT_EQ(Value(ks_->KeysInSlot(kFooSlot, 2)), (std::vector<std::string>{"{foo}a", "{foo}b"}));
  EXPECT_EQ(Value(ks_->KeysInSlot(kFooSlot, 100)),
            (std::vector<std::string>{"{foo}a", "{foo}b", "{foo}log"}));
  EXPECT_TRUE(Value(ks_->KeysInSlot(kFooSlot, 0)).empty());

  ASSERT_TRUE(ks_->DeleteSlot(kFooSlot).ok());
  EXPECT_EQ(Value(ks_->CountKeysInSlot(kFooSlot)), 0u);
  EXPECT_FALSE(Value(ks_->Exists(0, "{foo}a")));
  EXPECT_EQ(Value(Tlog(*ks_, 0).Size("{foo}log")), 0u);
  // The other slot is whole, and survives a restart and a full compaction.
  Open();
  ASSERT_TRUE(ks_->db().CompactAll().ok());
  EXPECT_EQ(Value(ks_->CountKeysInSlot(KeySlot("bar"))), 2u);
  EXPECT_EQ(Value(Tlog(*ks_, 0).Size("{bar}log")), 3u);
  EXPECT_EQ(Value(ks_->CountKeysInSlot(kFooSlot)), 0u);
  // A key written again after the deletion starts afresh.
  Log("{foo}log", 1);
  EXPECT_EQ(Value(Tlog(*ks_, 0).Size("{foo}log")), 1u);
}

TEST_P(SlotLayoutTest, WholeKeyspaceOperationsSeeEverySlot) {
  for (const char* key : {"foo", "bar", "somekey", "{foo}2"}) Set(key);
  Log("log", 2);
  EXPECT_EQ(Value(ks_->DbSize(0)), 5u);
  EXPECT_EQ(Value(ks_->Keys(0, nullptr)).size(), 5u);
  // SCAN one key at a time visits each once.
  std::vector<std::string> seen;
  uint64_t cursor = 0;
  for (int step = 0; step < 20; step++) {
    ScanResult r = Value(ks_->Scan(0, cursor, nullptr, 1, std::nullopt));
    seen.insert(seen.end(), r.keys.begin(), r.keys.end());
    cursor = r.cursor;
    if (cursor == 0) break;
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<std::string>{"bar", "foo", "log", "somekey", "{foo}2"}));
  ASSERT_TRUE(ks_->FlushAll().ok());
  EXPECT_EQ(Value(ks_->DbSize(0)), 0u);
  EXPECT_EQ(EngineRows(*ks_, std::string(1, '\x01'), std::string(1, '\x05')), 0u);
}

TEST_P(SlotLayoutTest, CompactionDropsTheSubRowsOfADeletedLog) {
  Log("{foo}log", 4);
  ASSERT_TRUE(Value(ks_->Delete(0, "{foo}log")));
  ASSERT_TRUE(ks_->db().SyncWal().ok());
  ASSERT_TRUE(ks_->db().CompactAll().ok());
  const std::string subrows = SubRowDbPrefix(layout_, 0);
  // Sub-rows are never hidden by a read (they carry no expiry here): what is left is on disk.
  EXPECT_EQ(EngineRows(*ks_, subrows, PrefixUpperBound(subrows)), 0u);
}

INSTANTIATE_TEST_SUITE_P(Layouts, SlotLayoutTest,
                         ::testing::Values(KeyLayout::kByDatabase, KeyLayout::kBySlot),
                         [](const ::testing::TestParamInfo<KeyLayout>& info) {
                           return info.param == KeyLayout::kBySlot ? "BySlot" : "ByDatabase";
                         });

class SlotLayoutOnDiskTest : public TypesTest {};

TEST_F(SlotLayoutOnDiskTest, RowsAreGroupedBySlot) {
  ks_.reset();
  layout_ = KeyLayout::kBySlot;
  Open();
  ASSERT_TRUE(Kv(*ks_, 0).Put({.key = "foo", .value = "v", .ts = 1}).ok());
  ASSERT_TRUE(Tlog(*ks_, 0).Insert("{foo}log", "e", 5).ok());
  storage::Row row;
  EXPECT_TRUE(ks_->db()
                  .Get(storage::ReadOptions(),
                       std::string("\x03\x2f\x96"
                                   "foo",
                                   6),
                       &row)
                  .ok());
  EXPECT_TRUE(ks_->db().Get(storage::ReadOptions(), MetaKey(0, "foo"), &row).IsNotFound());
  // The log's entries: 0x04 | slot | len | key | version | element.
  EXPECT_EQ(EngineRows(*ks_, std::string("\x04\x2f\x96", 3), std::string("\x04\x2f\x97", 3)), 1u);
  EXPECT_EQ(EngineRows(*ks_, std::string(1, '\x02'), std::string(1, '\x03')), 0u);
}

TEST_F(SlotLayoutOnDiskTest, ADataDirectoryKeepsItsLayout) {
  ASSERT_TRUE(Kv(*ks_, 0).Put({.key = "k", .value = "v", .ts = 1}).ok());
  ks_.reset();
  std::unique_ptr<Keyspace> ks;
  storage::Status s = Keyspace::Open(options_, dir_, &ks, KeyLayout::kBySlot);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("start it with cluster-enabled no"), std::string::npos);
  // Emptied, it may become a cluster node's; then a server without cluster mode refuses it.
  Open();
  ASSERT_TRUE(ks_->FlushAll().ok());
  ks_.reset();
  s = Keyspace::Open(options_, dir_, &ks, KeyLayout::kBySlot);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_TRUE(Kv(*ks, 0).Put({.key = "k", .value = "v", .ts = 1}).ok());
  ks.reset();
  s = Keyspace::Open(options_, dir_, &ks, KeyLayout::kByDatabase);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("start the server with cluster-enabled yes"), std::string::npos);
  s = Keyspace::Open(options_, dir_, &ks, KeyLayout::kBySlot);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(Value(Kv(*ks, 0).Get("k")).value, "v");
}

}  // namespace
}  // namespace ebb::types
