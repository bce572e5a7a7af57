// The rows of an observed-remove string key (types/or_string_rows.h) through a real Keyspace:
// every state stored reads back the same (SameOrState) — one slot, siblings, a sibling promoted
// when the winner goes, a DEL's tombstone with R, inside an open batch too — and a row in today's
// forms loads as one slot at the pre-mode dot (kPreModeOrigin, 1), its type when another type's.
#include "types/or_string_rows.h"

#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <string>

#include "tests/support/or_test_values.h"
#include "tests/unit/types/types_fixture.h"
#include "types/compaction_filter.h"
#include "types/key_encoding.h"
#include "types/kv.h"
#include "types/or_string_ext.h"
#include "types/string_rank.h"
#include "types/treg.h"

namespace ebb::types {
namespace {

const OriginId& kPreMode = kPreModeOrigin;

OrSlotRow ValueRow(std::string_view value, int64_t ts,
                   std::optional<int64_t> expire_at = std::nullopt) {
  return OrSlotRow::Value(std::string(1, '\0') + std::string(value), {ts, expire_at});
}

OrContext Ctx(std::initializer_list<Dot> dots) {
  OrContext c;
  for (const Dot& d : dots) c.Raise(d.origin, d.offset);
  return c;
}

class OrStringRowsTest : public TypesTest {
 protected:
  OrStringRows Load(std::string_view key = "k") {
    OrStringRows rows;
    storage::Status s = LoadOrString(*ks_, 0, key, &rows);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return rows;
  }
  void Store(const OrStringRows& rows, const OrApplied& applied, std::string_view key = "k") {
    storage::Status s = StoreOrString(*ks_, 0, key, rows, applied);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  // Stores `rows` and checks that a load gives the same state back (and the same slot rows).
  void ExpectRoundTrip(const OrStringRows& rows, const OrApplied& applied) {
    Store(rows, applied);
    const OrStringRows back = Load();
    EXPECT_TRUE(SameOrState(back.state, rows.state));
    for (const OrSlot& slot : rows.state.slots) {
      const OrSlotRow& want = rows.slot_rows.at(slot.dot.origin);
      const OrSlotRow& got = back.slot_rows.at(slot.dot.origin);
      EXPECT_EQ(got.kind, want.kind);
      EXPECT_EQ(got.inner, want.inner);
      EXPECT_EQ(got.meta.timestamp_ms, want.meta.timestamp_ms);
    }
  }
  bool SiblingRowLive(std::string_view origin, std::string_view key = "k") {
    std::string value;
    return ks_->GetSystemRow(SiblingRowPrefix(0, key) + std::string(origin), &value).ok();
  }
  // The data row a read at `grace` takes, live or dead, decoded.
  OrStringExt DataExt(int64_t grace, std::string* inner = nullptr) {
    storage::ReadOptions options;
    options.retrieval_grace_ms = grace;
    std::optional<storage::DeadVersion> dead;
    options.dead_version = &dead;
    storage::Row row;
    storage::Status s = ks_->db().Get(options, MetaKey(0, "k"), &row);
    std::string value = s.ok() ? row.value : (dead ? dead->value : "");
    OrStringExt ext;
    std::string_view in;
    EXPECT_TRUE(DecodeOrStringRow(value, &ext, &in));
    if (inner != nullptr) *inner = std::string(in);
    return ext;
  }
  // Two origins' concurrent writes: A's at ts 200 wins, B's at ts 100 is its sibling.
  OrStringRows Siblings() {
    OrStringRows rows = Load();
    OrApplied a = ApplyOrWrite(&rows, {}, {test::kOriginA, 3}, ValueRow("a", 200));
    OrApplied b = ApplyOrWrite(&rows, {}, {test::kOriginB, 5}, ValueRow("b", 100));
    EXPECT_TRUE(a.written && b.written);
    Store(rows, b);
    return rows;
  }
};

TEST_F(OrStringRowsTest, AnAbsentKeyIsTheEmptyState) {
  const OrStringRows rows = Load();
  EXPECT_TRUE(rows.state.slots.empty());
  EXPECT_TRUE(rows.state.removed.empty());
  EXPECT_FALSE(rows.data_ts);
}

TEST_F(OrStringRowsTest, OneSlotRoundTripsInTheDataRowAlone) {
  OrStringRows rows = Load();
  constexpr int64_t kExpireAt = 1'700'000'001'000;  // a second after the clock's start
  const OrApplied applied = ApplyOrWrite(&rows, Ctx({{test::kOriginC, 7}}), {test::kOriginA, 9},
                                         ValueRow("v", 100, kExpireAt));
  ExpectRoundTrip(rows, applied);
  EXPECT_FALSE(SiblingRowLive(test::kOriginA));
  std::string inner;
  const OrStringExt ext = DataExt(0, &inner);
  EXPECT_EQ(ext.dot, (Dot{test::kOriginA, 9}));
  EXPECT_FALSE(ext.siblings_live);
  EXPECT_EQ(ext.removed, Ctx({{test::kOriginC, 7}}));
  EXPECT_EQ(inner, std::string("\0v", 2));
  // The row keeps the version's expiry: once it passed, the row is a dead value, still the slot.
  clock_->Advance(2000);
  storage::Row row;
  EXPECT_TRUE(ks_->db().Get({}, MetaKey(0, "k"), &row).IsNotFound());
  EXPECT_TRUE(SameOrState(Load().state, rows.state));
}

TEST_F(OrStringRowsTest, SiblingsGoToTheirOwnRows) {
  const OrStringRows rows = Siblings();
  EXPECT_EQ(rows.state.slots.size(), 2u);
  EXPECT_TRUE(SiblingRowLive(test::kOriginB));
  EXPECT_FALSE(SiblingRowLive(test::kOriginA));
  EXPECT_TRUE(DataExt(0).siblings_live);
  // The bytes of docs/key-encoding.md's worked example ("Active-active siblings").
  std::string sibling;
  ASSERT_TRUE(ks_->GetSystemRow("aa-sib:0:1:k" + std::string(test::kOriginB), &sibling).ok());
  EXPECT_EQ(sibling, "\x05\x01\x02" + std::string(test::kOriginB) +
                         std::string("\x05\x00\x00"
                                     "b",
                                     4));
  storage::Row data;
  ASSERT_TRUE(ks_->db().Get({}, MetaKey(0, "k"), &data).ok());
  EXPECT_EQ(data.value, "\x05\x01\x03" + std::string(test::kOriginA) +
                            std::string("\x03\x00\x00"
                                        "a",
                                        4));
  const OrStringRows back = Load();
  EXPECT_TRUE(SameOrState(back.state, rows.state));
  EXPECT_EQ(back.held_siblings.at(test::kOriginB), (Dot{test::kOriginB, 5}));
}

TEST_F(OrStringRowsTest, ASiblingIsPromotedWhenTheWinnerGoes) {
  Siblings();
  OrStringRows rows = Load();
  const OrApplied applied =
      ApplyOrDelete(&rows, Ctx({{test::kOriginA, 3}}));  // a DEL that saw A's write
  ASSERT_TRUE(applied.changed());
  ExpectRoundTrip(rows, applied);
  ASSERT_EQ(rows.state.slots.size(), 1u);
  EXPECT_FALSE(SiblingRowLive(test::kOriginB));
  // Every grace reads the promoted sibling, whose timestamp is below the old winner's.
  for (int64_t grace : {int64_t{0}, int64_t{1000}, std::numeric_limits<int64_t>::max()}) {
    std::string inner;
    EXPECT_EQ(DataExt(grace, &inner).dot, (Dot{test::kOriginB, 5})) << grace;
    EXPECT_EQ(inner, std::string("\0b", 2));
  }
  EXPECT_EQ(DataExt(0).removed, Ctx({{test::kOriginA, 3}}));
}

TEST_F(OrStringRowsTest, ASiblingReplacedByItsOriginsWriteIsRewritten) {
  Siblings();
  OrStringRows rows = Load();
  const OrApplied applied =
      ApplyOrWrite(&rows, Ctx({{test::kOriginB, 5}}), {test::kOriginB, 6}, ValueRow("b2", 150));
  ExpectRoundTrip(rows, applied);
  EXPECT_EQ(Load().held_siblings.at(test::kOriginB), (Dot{test::kOriginB, 6}));
  // B's next write outranks A's: B wins, A becomes the sibling.
  rows = Load();
  const OrApplied again =
      ApplyOrWrite(&rows, Ctx({{test::kOriginB, 6}}), {test::kOriginB, 7}, ValueRow("b3", 300));
  ExpectRoundTrip(rows, again);
  EXPECT_TRUE(SiblingRowLive(test::kOriginA));
  EXPECT_FALSE(SiblingRowLive(test::kOriginB));
  EXPECT_EQ(DataExt(0).dot, (Dot{test::kOriginB, 7}));
}

TEST_F(OrStringRowsTest, ADelOfEverySlotLeavesATombstoneCarryingR) {
  Siblings();
  OrStringRows rows = Load();
  const OrApplied applied = ApplyOrDelete(&rows, Ctx({{test::kOriginA, 3}, {test::kOriginB, 5}}));
  ExpectRoundTrip(rows, applied);
  EXPECT_TRUE(rows.state.slots.empty());
  EXPECT_FALSE(SiblingRowLive(test::kOriginB));
  std::string inner = "unset";
  const OrStringExt ext = DataExt(0, &inner);
  EXPECT_FALSE(ext.dot);
  EXPECT_EQ(ext.removed, Ctx({{test::kOriginA, 3}, {test::kOriginB, 5}}));
  EXPECT_TRUE(inner.empty());
  // A tombstone at the greatest timestamp removed: the key reads as absent.
  storage::ReadOptions options;
  std::optional<storage::DeadVersion> dead;
  options.dead_version = &dead;
  storage::Row row;
  EXPECT_TRUE(ks_->db().Get(options, MetaKey(0, "k"), &row).IsNotFound());
  ASSERT_TRUE(dead);
  EXPECT_EQ(dead->kind, storage::RowKind::kTombstone);
  EXPECT_EQ(dead->meta.timestamp_ms, 200);
  // A write the DEL did not see survives it.
  rows = Load();
  ExpectRoundTrip(rows, ApplyOrWrite(&rows, {}, {test::kOriginC, 1}, ValueRow("c", 50)));
  EXPECT_EQ(DataExt(0).removed, Ctx({{test::kOriginA, 3}, {test::kOriginB, 5}}));
}

// Compaction in active-active mode rewrites a live row without the R its collection vector covers
// (TypesCompactionFilter::DecideMetaRow): the slot and its value stay, and a vector short of R
// leaves R in place.
TEST_F(OrStringRowsTest, CompactionDropsTheRemovedContextTheVectorCovers) {
  OrStringRows rows = Load();
  const OrApplied applied =
      ApplyOrWrite(&rows, Ctx({{test::kOriginB, 5}}), {test::kOriginA, 3}, ValueRow("a", 200));
  ASSERT_TRUE(applied.written);
  Store(rows, applied);
  ASSERT_EQ(DataExt(0).removed, Ctx({{test::kOriginB, 5}}));
  TypesCompactionFilter& filter = ks_->compaction_filter();
  filter.SetKeepNewestDead(true);
  filter.SetOrCollectionVector(
      std::make_shared<OrContext>(Ctx({{test::kOriginA, 3}, {test::kOriginB, 4}})));
  ASSERT_TRUE(ks_->db().CompactAll().ok());
  EXPECT_EQ(DataExt(0).removed, Ctx({{test::kOriginB, 5}}));  // b's 5th not observed yet
  filter.SetOrCollectionVector(
      std::make_shared<OrContext>(Ctx({{test::kOriginA, 3}, {test::kOriginB, 5}})));
  ASSERT_TRUE(ks_->db().CompactAll().ok());
  std::string inner;
  const OrStringExt ext = DataExt(0, &inner);
  EXPECT_TRUE(ext.removed.empty());
  EXPECT_EQ(ext.dot, (Dot{test::kOriginA, 3}));
  EXPECT_EQ(inner, std::string(1, '\0') + "a");
  const OrStringRows back = Load();
  ASSERT_EQ(back.state.slots.size(), 1u);
  EXPECT_EQ(back.state.slots[0].dot, (Dot{test::kOriginA, 3}));
  EXPECT_TRUE(back.state.removed.empty());
}

// A DEL that removed what this node never held still keeps its R, in a tombstone at 0.
TEST_F(OrStringRowsTest, ADelOfNothingHeldKeepsItsR) {
  OrStringRows rows = Load();
  ExpectRoundTrip(rows, ApplyOrDelete(&rows, Ctx({{test::kOriginA, 4}})));
  EXPECT_EQ(Load().state.removed, Ctx({{test::kOriginA, 4}}));
  EXPECT_EQ(Load().data_ts, 0);
  rows = Load();
  EXPECT_FALSE(ApplyOrWrite(&rows, {}, {test::kOriginA, 4}, ValueRow("late", 10)).changed());
}

TEST_F(OrStringRowsTest, TombstonesAndReducedVersionsRoundTripAsSlots) {
  OrStringRows rows = Load();
  ApplyOrWrite(&rows, {}, {test::kOriginA, 1}, OrSlotRow::Tombstone(500));
  const std::string reduced = EncodeReducedString(StringDigest("gone"), 400);
  const OrApplied applied = ApplyOrWrite(&rows, {}, {test::kOriginB, 1},
                                         {storage::RowKind::kTombstone, reduced, {300, {}}});
  ExpectRoundTrip(rows, applied);
  EXPECT_TRUE(SiblingRowLive(test::kOriginA) == false &&
              SiblingRowLive(test::kOriginB) == false);  // both dead rows
  ASSERT_EQ(Load().state.slots.size(), 2u);
  EXPECT_EQ(OrWinner(rows.state)->dot, (Dot{test::kOriginA, 1}));
}

TEST_F(OrStringRowsTest, StoresAndLoadsInsideAnOpenBatch) {
  ks_->BeginBatch();
  OrStringRows rows = Load();
  ApplyOrWrite(&rows, {}, {test::kOriginA, 1}, ValueRow("a", 200));
  ApplyOrWrite(&rows, {}, {test::kOriginB, 1}, OrSlotRow::Tombstone(100));
  ExpectRoundTrip(rows, ApplyOrWrite(&rows, {}, {test::kOriginC, 1}, ValueRow("c", 150, 1)));
  ASSERT_TRUE(ks_->CommitBatch().ok());
  EXPECT_TRUE(SameOrState(Load().state, rows.state));
  EXPECT_EQ(Load().state.slots.size(), 3u);
}

TEST_F(OrStringRowsTest, NothingChangedWritesNothing) {
  OrStringRows rows = Load();
  const OrApplied applied = ApplyOrDelete(&rows, {});
  EXPECT_FALSE(applied.changed());
  Store(rows, applied);
  EXPECT_FALSE(Load().data_ts);
}

TEST_F(OrStringRowsTest, TodaysRowsLoadAsOneSlotAtThePreModeDot) {
  Kv kv(*ks_, 0);
  ASSERT_TRUE(
      kv.Put({.key = "k", .value = "v", .ts = 100, .expire_at_ms = 9'000'000'000'000}).ok());
  OrStringRows rows = Load();
  OrStringState want;
  ApplyOrDelta(&want,
               {.write = MakeOrSlot({kPreMode, 1},
                                    {.ts = 100, .value = "v", .expire_at = 9'000'000'000'000})});
  EXPECT_TRUE(SameOrState(rows.state, want));
  EXPECT_EQ(rows.data_ts, 100);
  // A reduced dead version keeps its rank; a plain tombstone is a tombstone slot.
  ASSERT_TRUE(kv.PutReduced("r", 50, StringDigest("x"), 60).ok());
  rows = Load("r");
  ASSERT_EQ(rows.state.slots.size(), 1u);
  EXPECT_EQ(rows.state.slots[0].version.digest, StringDigest("x"));
  EXPECT_EQ(rows.state.slots[0].value, "");
  EXPECT_EQ(rows.state.slots[0].version.expire_at, 60);
  EXPECT_FALSE(rows.state.slots[0].version.tombstone);
  ASSERT_TRUE(kv.Delete("t", 70).ok());
  rows = Load("t");
  ASSERT_EQ(rows.state.slots.size(), 1u);
  EXPECT_TRUE(rows.state.slots[0].version.tombstone);
  EXPECT_EQ(rows.state.slots[0].dot, (Dot{kPreMode, 1}));
  // A write over today's row: the data row becomes tag 5, the old version a sibling or gone.
  rows = Load();
  ExpectRoundTrip(
      rows, ApplyOrWrite(&rows, Ctx({{kPreMode, 1}}), {test::kOriginA, 1}, ValueRow("w", 150)));
  EXPECT_EQ(Load().state.slots.size(), 1u);
  // A wiped key and another type's key are empty states.
  ASSERT_TRUE(ks_->Delete(0, "k").ok());
  EXPECT_TRUE(Load().state.slots.empty());
  Treg treg(*ks_, 0);
  ASSERT_TRUE(treg.Set("g", "x", 5).ok());
  EXPECT_TRUE(Load("g").state.slots.empty());
  EXPECT_EQ(Load("g").other_type, KeyType::kTreg);
  EXPECT_FALSE(Load().other_type);
}

// Past the purge deadline compaction reduces an expired tag-5 row and an expired sibling row to
// their ranks and keeps the extension: the state loads the same, without the bytes.
TEST_F(OrStringRowsTest, CompactionPastThePurgeDeadlineKeepsTheExtension) {
  ks_->compaction_filter().SetKeepNewestDead(true);
  ks_->SetPurgeDeadline(2000);
  const int64_t now = ks_->NowMs();
  OrStringRows rows = Load();
  ApplyOrWrite(&rows, Ctx({{test::kOriginC, 2}}), {test::kOriginA, 3},
               ValueRow("winner", 200, now + 1000));
  const OrApplied applied =
      ApplyOrWrite(&rows, {}, {test::kOriginB, 4}, ValueRow("sibling", 100, now + 500));
  Store(rows, applied);
  clock_->Advance(10'000);
  ASSERT_TRUE(ks_->db().CompactAll().ok());
  const OrStringRows back = Load();
  EXPECT_TRUE(SameOrState(back.state, rows.state));
  for (const auto& [origin, row] : back.slot_rows) {
    EXPECT_EQ(row.kind, storage::RowKind::kTombstone);
    std::string digest;
    int64_t expire_at = 0;
    EXPECT_TRUE(DecodeReducedString(row.inner, &digest, &expire_at));
  }
  std::string inner;
  const OrStringExt ext = DataExt(0, &inner);
  EXPECT_EQ(ext.dot, (Dot{test::kOriginA, 3}));
  EXPECT_TRUE(ext.siblings_live);
  EXPECT_EQ(ext.removed, Ctx({{test::kOriginC, 2}}));
  EXPECT_EQ(inner, EncodeReducedString(StringDigest("winner"), now + 1000));
}

TEST_F(OrStringRowsTest, RefusesRowsThatDoNotDecode) {
  storage::WriteOptions options;
  options.timestamp_ms = 1;
  OrStringRows rows;
  // A sibling row naming another origin than its row's name.
  Siblings();
  std::string row;
  EncodeOrStringRow({.dot = Dot{test::kOriginC, 1}}, std::string("\0x", 2), &row);
  const std::string sibling =
      Keyspace::SystemRowKey(SiblingRowPrefix(0, "k") + std::string(test::kOriginB));
  ASSERT_TRUE(ks_->db().Put(options, sibling, row).ok());
  EXPECT_TRUE(LoadOrString(*ks_, 0, "k", &rows).IsCorruption());
  // A tag-5 data row whose extension is cut short.
  ASSERT_TRUE(ks_->db().Put(options, MetaKey(0, "k"), std::string("\x05\x01\x02", 3)).ok());
  EXPECT_TRUE(LoadOrString(*ks_, 0, "k", &rows).IsCorruption());
}

}  // namespace
}  // namespace ebb::types
