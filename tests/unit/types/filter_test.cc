// TypesCompactionFilter: which sub-rows are orphans (dropped) and which belong to a live
// incarnation (kept, or decided by the type's hook), read from real metadata rows.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "storage/clock.h"
#include "storage/util/coding.h"
#include "storage/write_batch.h"
#include "tests/support/test_constants.h"
#include "tests/unit/types/types_fixture.h"
#include "types/compaction_filter.h"
#include "types/keyspace.h"
#include "types/or_string_ext.h"
#include "types/string_rank.h"

namespace ebb::types {
namespace {

using Decision = storage::CompactionFilter::Decision;

class FilterTest : public TypesTest {
 protected:
  FilterTest() : TypesTest(test::kTypesStartMs) {
    options_.memtable_size = storage::Options().memtable_size;
    options_.block_size = storage::Options().block_size;
  }

  // A collection metadata row naming `version` (payload: varint version | extra).
  void PutCollection(int db, std::string_view key, uint64_t version,
                     std::optional<int64_t> expire_at = std::nullopt, std::string extra = "") {
    std::string payload;
    storage::PutVarint64(&payload, version);
    payload += extra;
    storage::WriteOptions options = ks_->WriteOptions();
    options.timestamp_ms = clock_->NowMs();
    options.expire_at_ms = expire_at;
    ASSERT_TRUE(
        ks_->db().Put(options, MetaKey(db, key), EncodeMetaValue(KeyType::kTlog, payload)).ok());
  }

  Decision Decide(std::string_view engine_key, std::string_view value = "") {
    std::string new_value;
    return ks_->compaction_filter().Filter(engine_key, storage::RowMeta{}, value, clock_->NowMs(),
                                           &new_value);
  }
};

TEST_F(FilterTest, KeepsSystemMetadataAndUnparsableRows) {
  EXPECT_EQ(Decide(SystemKey("version-hwm")), Decision::kKeep);
  EXPECT_EQ(Decide(MetaKey(0, "anything")), Decision::kKeep);
  EXPECT_EQ(Decide(std::string("\x02\x00\x05short", 8)), Decision::kKeep);
  EXPECT_EQ(Decide(std::string("\x07junk", 5)), Decision::kKeep);
}

TEST_F(FilterTest, KeepsSubRowsOfTheLiveIncarnationWithoutAHook) {
  ks_->compaction_filter().RegisterSubRowHook(KeyType::kTlog, nullptr);
  PutCollection(0, "log", 7);
  EXPECT_EQ(Decide(SubRowKey(0, "log", 7, "e1")), Decision::kKeep);
}

TEST_F(FilterTest, DropsSubRowsWhoseKeyIsGoneExpiredOrAnotherIncarnation) {
  ks_->compaction_filter().RegisterSubRowHook(KeyType::kTlog, nullptr);
  // Never existed.
  EXPECT_EQ(Decide(SubRowKey(0, "nokey", 1, "e")), Decision::kDrop);
  // Deleted.
  PutCollection(0, "deleted", 3);
  OpResult<bool> deleted = ks_->Delete(0, "deleted");
  ASSERT_TRUE(deleted.ok());
  ASSERT_TRUE(*deleted);
  EXPECT_EQ(Decide(SubRowKey(0, "deleted", 3, "e")), Decision::kDrop);
  // Expired.
  PutCollection(0, "expiring", 4, test::kTypesStartMs + 10);
  EXPECT_EQ(Decide(SubRowKey(0, "expiring", 4, "e")), Decision::kKeep);
  clock_->Advance(10);
  EXPECT_EQ(Decide(SubRowKey(0, "expiring", 4, "e")), Decision::kDrop);
  // Re-created: the old version's rows are orphans, the new one's are not.
  PutCollection(0, "recreated", 5);
  PutCollection(0, "recreated", 9);
  EXPECT_EQ(Decide(SubRowKey(0, "recreated", 5, "e")), Decision::kDrop);
  EXPECT_EQ(Decide(SubRowKey(0, "recreated", 9, "e")), Decision::kKeep);
  // Overwritten by a type without sub-rows.
  ASSERT_TRUE(ks_->db()
                  .Put(ks_->WriteOptions(), MetaKey(0, "now-string"),
                       EncodeMetaValue(KeyType::kString, "v"))
                  .ok());
  EXPECT_EQ(Decide(SubRowKey(0, "now-string", 1, "e")), Decision::kDrop);
  // Same user key in another database is another key.
  PutCollection(1, "other-db", 2);
  EXPECT_EQ(Decide(SubRowKey(0, "other-db", 2, "e")), Decision::kDrop);
  EXPECT_EQ(Decide(SubRowKey(1, "other-db", 2, "e")), Decision::kKeep);
}

TEST_F(FilterTest, AsksTheTypesHookForLiveSubRowsOnly) {
  int calls = 0;
  ks_->compaction_filter().RegisterSubRowHook(
      KeyType::kTlog,
      [&calls](const KeyMetaRow& meta, const SubRowKeyParts& key, const storage::RowMeta&,
               std::string_view value, int64_t, std::string* new_value) {
        ++calls;
        EXPECT_EQ(meta.type, KeyType::kTlog);
        EXPECT_EQ(key.user_key, "log");
        if (key.element == "old") return Decision::kDrop;
        if (key.element == "rewrite") {
          *new_value = std::string(value) + "!";
          return Decision::kChangeValue;
        }
        return Decision::kKeep;
      });
  PutCollection(0, "log", 11, std::nullopt, "cutoff");
  EXPECT_EQ(Decide(SubRowKey(0, "log", 11, "old")), Decision::kDrop);
  EXPECT_EQ(Decide(SubRowKey(0, "log", 11, "new")), Decision::kKeep);
  std::string new_value;
  EXPECT_EQ(ks_->compaction_filter().Filter(SubRowKey(0, "log", 11, "rewrite"), {}, "v",
                                            test::kTypesStartMs, &new_value),
            Decision::kChangeValue);
  EXPECT_EQ(new_value, "v!");
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(Decide(SubRowKey(0, "log", 10, "new")), Decision::kDrop);  // orphan: no hook call
  EXPECT_EQ(calls, 3);
}

// The whole path: the filter installed by Keyspace::Open runs inside DB::CompactAll.
TEST_F(FilterTest, CompactionRemovesOrphanedSubRowsAndKeepsLiveOnes) {
  ks_->compaction_filter().RegisterSubRowHook(KeyType::kTlog, nullptr);
  auto create = [&](std::string_view key, int elements) {
    uint64_t version = 0;
    EXPECT_TRUE(ks_->NewVersion(&version).ok());
    std::string payload;
    storage::PutVarint64(&payload, version);
    storage::WriteBatch batch;  // metadata and sub-rows in one batch (docs/key-encoding.md)
    batch.Put(ks_->WriteOptions(), MetaKey(0, key), EncodeMetaValue(KeyType::kTlog, payload),
              clock_->NowMs());
    for (int i = 0; i < elements; ++i) {
      batch.Put(ks_->WriteOptions(), SubRowKey(0, key, version, "e" + std::to_string(i)), "",
                clock_->NowMs());
    }
    EXPECT_TRUE(ks_->db().Write(ks_->WriteOptions(), batch).ok());
    return version;
  };
  create("dead", 3);
  uint64_t live = create("live", 3);
  create("again", 2);
  uint64_t again = create("again", 1);  // a new incarnation orphans the first one's rows
  create("expiring", 2);
  ASSERT_TRUE(ks_->Delete(0, "dead").ok());
  ASSERT_TRUE(ks_->Expire(0, "expiring", test::kTypesStartMs + 5, 0).ok());
  clock_->Advance(5);

  ASSERT_TRUE(ks_->db().CompactAll().ok());

  std::multiset<std::pair<std::string, uint64_t>> left;
  storage::ReadOptions options;
  options.lower_bound = std::string(1, static_cast<char>(KeyTag::kSubRow));
  options.upper_bound = std::string(1, static_cast<char>(static_cast<int>(KeyTag::kSubRow) + 1));
  std::unique_ptr<storage::Iterator> it = ks_->db().NewIterator(options);
  for (it->Seek(*options.lower_bound); it->Valid(); it->Next()) {
    SubRowKeyParts parts;
    ASSERT_TRUE(ParseSubRowKey(it->key(), &parts));
    left.emplace(std::string(parts.user_key), parts.version);
  }
  ASSERT_TRUE(it->status().ok());
  std::multiset<std::pair<std::string, uint64_t>> expected = {
      {"live", live}, {"live", live}, {"live", live}, {"again", again}};
  EXPECT_EQ(left, expected);
  EXPECT_GE(ks_->db().GetStats().filter_rows_dropped, 7u);
}

// A compaction's run reads a key's metadata row once for all the key's sub-rows (compaction
// meets them one after another). Every input row of a compaction was written before it started,
// so what the run read stays right for them even if the key changes meanwhile.
TEST_F(FilterTest, ACompactionRunReadsEachKeysMetadataOnce) {
  ks_->compaction_filter().RegisterSubRowHook(KeyType::kTlog, nullptr);
  PutCollection(0, "log", 7);
  PutCollection(0, "next", 3);
  std::unique_ptr<storage::CompactionFilter> run =
      ks_->compaction_filter().StartCompaction(nullptr);
  ASSERT_NE(run, nullptr);
  auto run_decides = [&](std::string_view engine_key) {
    std::string new_value;
    return run->Filter(engine_key, storage::RowMeta{}, "", clock_->NowMs(), &new_value);
  };
  EXPECT_EQ(run_decides(SubRowKey(0, "log", 7, "a")), Decision::kKeep);
  EXPECT_EQ(run_decides(SubRowKey(0, "log", 6, "a")), Decision::kDrop);  // an older incarnation
  PutCollection(0, "log", 9);  // re-created after the run read "log"
  EXPECT_EQ(run_decides(SubRowKey(0, "log", 7, "b")), Decision::kKeep);  // what the run read
  EXPECT_EQ(Decide(SubRowKey(0, "log", 7, "b")), Decision::kDrop);       // a fresh read
  // Another key is read afresh, and so is "log" when the run comes back to it.
  EXPECT_EQ(run_decides(SubRowKey(0, "next", 3, "a")), Decision::kKeep);
  EXPECT_EQ(run_decides(SubRowKey(1, "next", 3, "a")), Decision::kDrop);  // same name, db 1
  EXPECT_EQ(run_decides(SubRowKey(0, "log", 7, "c")), Decision::kDrop);
  EXPECT_EQ(run_decides(SubRowKey(0, "log", 9, "c")), Decision::kKeep);
  EXPECT_EQ(run_decides(MetaKey(0, "log")), Decision::kKeep);  // not a sub-row
  EXPECT_STREQ(run->Name(), "ebb.types");
}

// System rows go to the hook registered for their name's prefix (a compaction run's too), and
// an expired string version names the rows SetStringDependents gives for its key that exist, so
// that they are purged with it; other rows, and other types' metadata, name none.
TEST_F(FilterTest, SystemRowHooksAndAStringsDependentRows) {
  TypesCompactionFilter& filter = ks_->compaction_filter();
  filter.RegisterSystemRowHook(
      "ctr:", [](std::string_view name, std::string_view value, int64_t, std::string* new_value) {
        if (value != "old") return Decision::kKeep;
        *new_value = std::string(name) + "=new";
        return Decision::kChangeValue;
      });
  std::string new_value;
  EXPECT_EQ(filter.Filter(SystemKey("ctr:7"), storage::RowMeta{}, "old", 0, &new_value),
            Decision::kChangeValue);
  EXPECT_EQ(new_value, "ctr:7=new");
  EXPECT_EQ(filter.Filter(SystemKey("ctr:7"), storage::RowMeta{}, "kept", 0, &new_value),
            Decision::kKeep);
  EXPECT_EQ(filter.Filter(SystemKey("other"), storage::RowMeta{}, "old", 0, &new_value),
            Decision::kKeep);
  std::unique_ptr<storage::CompactionFilter> run = filter.StartCompaction(nullptr);
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->Filter(SystemKey("ctr:8"), storage::RowMeta{}, "old", 0, &new_value),
            Decision::kChangeValue);

  filter.SetStringDependents([](int db, std::string_view key, std::vector<std::string>* rows) {
    rows->push_back(SystemKey("ctr:" + std::to_string(db) + ":" + std::string(key)));
  });
  ASSERT_TRUE(ks_->db().Put(ks_->WriteOptions(), SystemKey("ctr:2:s"), "state").ok());
  std::vector<storage::KeyRange> ranges;
  run->ExpiredRowRanges(MetaKey(2, "s"), EncodeMetaValue(KeyType::kString, "v"), &ranges);
  ASSERT_EQ(ranges.size(), 1u);
  EXPECT_TRUE(ranges[0].Contains(SystemKey("ctr:2:s")));
  EXPECT_FALSE(ranges[0].Contains(SystemKey("ctr:2:s2")));
  ranges.clear();
  // A named row that does not exist makes no range.
  filter.ExpiredRowRanges(MetaKey(2, "t"), EncodeMetaValue(KeyType::kString, "v"), &ranges);
  run->ExpiredRowRanges(MetaKey(2, "r"), EncodeMetaValue(KeyType::kTreg, "pair"), &ranges);
  run->ExpiredRowRanges(SystemKey("ctr:2:s"), "state", &ranges);
  EXPECT_TRUE(ranges.empty());
  filter.SetStringDependents(nullptr);
  filter.RegisterSystemRowHook("ctr:", nullptr);
  EXPECT_EQ(filter.Filter(SystemKey("ctr:7"), storage::RowMeta{}, "old", 0, &new_value),
            Decision::kKeep);
}

TEST(TypesCompactionFilterTest, KeepsEverythingWithoutADb) {
  TypesCompactionFilter filter;
  std::string new_value;
  EXPECT_EQ(filter.Filter(SubRowKey(0, "k", 1, "e"), {}, "", 0, &new_value), Decision::kKeep);
  EXPECT_STREQ(filter.Name(), "ebb.types");
}

// While it keeps dead versions (active-active mode), an expired string's metadata row is reduced
// to a tombstone carrying its rank: the SHA-256 of the value (not of its type tag) and its
// expiry. Other rows, and every row outside the mode, carry nothing.
TEST(TypesCompactionFilterTest, ReducesADeadStringToItsRank) {
  TypesCompactionFilter filter;
  storage::RowMeta meta;
  meta.timestamp_ms = 100;
  meta.expire_at_ms = 150;
  std::string reduced = "stale";
  const std::string value = EncodeMetaValue(KeyType::kString, "x");
  filter.ReducedDeadValue(MetaKey(0, "s"), meta, value, &reduced);
  EXPECT_EQ(reduced, "");
  filter.SetKeepNewestDead(true);
  filter.ReducedDeadValue(MetaKey(0, "s"), meta, value, &reduced);
  std::string digest;
  int64_t expire_at = 0;
  ASSERT_TRUE(DecodeReducedString(reduced, &digest, &expire_at));
  EXPECT_EQ(DigestHex(digest), "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881");
  EXPECT_EQ(expire_at, 150);
  std::string raw_reduced;
  filter.ReducedDeadValue(MetaKey(0, "s"), meta, EncodeMetaValue(KeyType::kString, "x", true),
                          &raw_reduced);
  EXPECT_EQ(raw_reduced, reduced);
  filter.ReducedDeadValue(MetaKey(0, "r"), meta, EncodeMetaValue(KeyType::kTreg, "pair"), &reduced);
  EXPECT_EQ(reduced, "");
  filter.ReducedDeadValue(SubRowKey(0, "k", 1, "e"), meta, value, &reduced);
  EXPECT_EQ(reduced, "");
  EXPECT_FALSE(DecodeReducedString("", &digest, &expire_at));
  std::string parsed;
  EXPECT_TRUE(ParseDigestHex(DigestHex(digest), &parsed));
  EXPECT_EQ(parsed, digest);
  EXPECT_FALSE(ParseDigestHex("2d71", &parsed));
  // A tag-5 row (the data row or an aa-sib: sibling row) keeps its extension before the rank.
  std::string tagged;
  EncodeOrStringRow({.dot = Dot{OriginId(std::string(kOriginIdSize, 'a')), 3}}, value, &tagged);
  const std::string sibling = SystemKey(SiblingRowPrefix(0, "s") + std::string(kOriginIdSize, 'a'));
  for (const std::string& key : {MetaKey(0, "s"), sibling}) {
    EXPECT_TRUE(filter.KeepsNewestDead(key));
    std::string tagged_reduced;
    filter.ReducedDeadValue(key, meta, tagged, &tagged_reduced);
    EXPECT_EQ(tagged_reduced, tagged.substr(0, tagged.size() - value.size()) + raw_reduced);
  }
  EXPECT_FALSE(filter.KeepsNewestDead(SystemKey("aa-key:0:s")));
}

// An observed-remove key's tombstone that holds no slot is collected once the vector the server
// hands the filter covers its R (docs/active-active.md, "Collection of observed-remove deletes");
// a row with a slot, a row of today's forms and every row outside the mode are not.
TEST(TypesCompactionFilterTest, CollectsAnObservedRemoveTombstoneItsVectorCovers) {
  TypesCompactionFilter filter;
  const OriginId a(std::string(kOriginIdSize, 'a'));
  const OriginId b(std::string(kOriginIdSize, 'b'));
  OrStringExt slotless;
  slotless.removed.Raise(a, 3);
  slotless.removed.Raise(b, 7);
  std::string row;
  EncodeOrStringRow(slotless, "", &row);
  const storage::RowMeta meta;
  const std::string key = MetaKey(0, "s");
  auto vector = [](std::initializer_list<Dot> entries) {
    auto v = std::make_shared<OrContext>();
    for (const Dot& d : entries) v->Raise(d.origin, d.offset);
    return v;
  };
  filter.SetOrCollectionVector(vector({{a, 3}, {b, 7}}));
  EXPECT_FALSE(filter.CollectsNewestDead(key, meta, row, false));  // outside the mode
  filter.SetKeepNewestDead(true);
  EXPECT_TRUE(filter.CollectsNewestDead(key, meta, row, false));
  filter.SetOrCollectionVector(vector({{a, 3}, {b, 6}}));  // b's 7th not applied yet
  EXPECT_FALSE(filter.CollectsNewestDead(key, meta, row, false));
  filter.SetOrCollectionVector(vector({{a, 9}}));  // b named by no vector entry
  EXPECT_FALSE(filter.CollectsNewestDead(key, meta, row, false));
  filter.SetOrCollectionVector(nullptr);
  EXPECT_FALSE(filter.CollectsNewestDead(key, meta, row, false));
  filter.SetOrCollectionVector(vector({{a, 9}, {b, 9}}));
  EXPECT_TRUE(filter.CollectsNewestDead(key, meta, row, false));
  // Newer data of the range does not hold it back: a lower version of the key comes after a wipe.
  EXPECT_TRUE(filter.CollectsNewestDead(key, meta, row, true));
  std::string with_slot;
  EncodeOrStringRow({.dot = Dot{a, 4}, .removed = {}}, "", &with_slot);
  EXPECT_FALSE(filter.CollectsNewestDead(key, meta, with_slot, false));
  EXPECT_FALSE(filter.CollectsNewestDead(key, meta, "", false));  // a plain tombstone
  EXPECT_FALSE(filter.CollectsNewestDead(SystemKey("aa-key:0:s"), meta, row, false));
}

// A live row that holds a slot loses its removed context once the vector covers it; its slot
// and value stay.
TEST(TypesCompactionFilterTest, DropsALiveRowsRemovedContextItsVectorCovers) {
  TypesCompactionFilter filter;
  const OriginId a(std::string(kOriginIdSize, 'a'));
  const OriginId b(std::string(kOriginIdSize, 'b'));
  OrStringExt held{.dot = Dot{a, 4}, .removed = {}};
  held.removed.Raise(b, 7);
  std::string row;
  const std::string value_row = EncodeMetaValue(KeyType::kString, "value");
  EncodeOrStringRow(held, value_row, &row);
  const storage::RowMeta meta;
  const std::string key = MetaKey(0, "s");
  auto vector = [](uint64_t b_offset, const OriginId& b_id) {
    auto v = std::make_shared<OrContext>();
    v->Raise(b_id, b_offset);
    return v;
  };
  std::string rewritten;
  filter.SetOrCollectionVector(vector(7, b));
  EXPECT_EQ(filter.Filter(key, meta, row, 0, &rewritten), Decision::kKeep);  // outside the mode
  filter.SetKeepNewestDead(true);
  filter.SetOrCollectionVector(vector(6, b));  // b's 7th not applied yet
  EXPECT_EQ(filter.Filter(key, meta, row, 0, &rewritten), Decision::kKeep);
  filter.SetOrCollectionVector(vector(7, b));
  ASSERT_EQ(filter.Filter(key, meta, row, 0, &rewritten), Decision::kChangeValue);
  OrStringExt ext;
  std::string_view inner;
  ASSERT_TRUE(DecodeOrStringRow(rewritten, &ext, &inner));
  EXPECT_EQ(ext.dot, held.dot);
  EXPECT_TRUE(ext.removed.empty());
  EXPECT_EQ(inner, value_row);
  EXPECT_LT(rewritten.size(), row.size());
  EXPECT_EQ(filter.Filter(key, meta, rewritten, 0, &rewritten), Decision::kKeep);  // nothing left
}

}  // namespace
}  // namespace ebb::types
