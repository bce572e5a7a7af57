// Whole-key deletes: wipes (one key) and range deletions (DeleteRange) outrank every version
// written before them, whatever its timestamp, at every grace, through flushes, compactions and
// reopens; iterators apply the read rule with their grace.
#include "storage/db/db_impl.h"
#include "storage/write_batch.h"
#include "tests/unit/storage/db_test_fixture.h"

namespace ebb::storage {
namespace {

constexpr int64_t kFull = INT64_MAX;

class DeleteTest : public DBTest {
 protected:
  void Wipe(const std::string& key) {
    WriteBatch batch;
    WriteOptions wo;
    wo.timestamp_ms = clock_->NowMs();
    batch.Wipe(wo, key);
    ASSERT_TRUE(db_->Write(wo, batch).ok());
  }
  void DeleteRange(std::vector<KeyRange> ranges) { ASSERT_TRUE(db_->DeleteRange(ranges).ok()); }
  DBImpl* impl() { return static_cast<DBImpl*>(db_.get()); }
  // Every read this test checks, at grace 0 and full grace.
  std::string Both(const std::string& key) { return Get(key, 0) + "|" + Get(key, kFull); }
  uint64_t Entries() {
    uint64_t n = 0;
    for (const auto& level : db_->GetStats().levels) n += level.entries;
    return n;
  }
};

TEST_F(DeleteTest, AWipeHidesEveryOlderVersionWhateverItsTimestamp) {
  Open();
  const int64_t now = clock_->NowMs();
  Put("k", "future", now + 1'000'000);
  Put("k", "now", now);
  Put("k", "old", 5);
  EXPECT_EQ(Both("k"), "old|future");
  Wipe("k");
  EXPECT_EQ(Both("k"), "NOT_FOUND|NOT_FOUND");
  // A write after it is the key's only version, whatever its timestamp.
  Put("k", "again", 7);
  EXPECT_EQ(Both("k"), "again|again");
  ASSERT_TRUE(db_->FlushMemtable().ok());
  EXPECT_EQ(Both("k"), "again|again");
  Reopen();
  EXPECT_EQ(Both("k"), "again|again");
  ASSERT_TRUE(db_->CompactAll().ok());
  EXPECT_EQ(Both("k"), "again|again");
  // The wipe and what it hid are gone from the files: one row left.
  EXPECT_EQ(Entries(), 1u);
}

TEST_F(DeleteTest, AWipeStaysAboveOlderDataUntilItMeetsIt) {
  Open();
  Put("k", "deep", 900);
  ASSERT_TRUE(db_->CompactAll().ok());
  Wipe("k");
  ASSERT_TRUE(db_->FlushMemtable().ok());  // the wipe in L0, the value below
  EXPECT_EQ(Both("k"), "NOT_FOUND|NOT_FOUND");
  Reopen();
  EXPECT_EQ(Both("k"), "NOT_FOUND|NOT_FOUND");
  ASSERT_TRUE(db_->CompactAll().ok());
  EXPECT_EQ(Both("k"), "NOT_FOUND|NOT_FOUND");
  EXPECT_EQ(Entries(), 0u);
}

TEST_F(DeleteTest, GetReportsTheVersionThatMadeAKeyAbsent) {
  Open();
  ReadOptions ro;
  std::optional<DeadVersion> dead;
  ro.dead_version = &dead;
  Row row;
  EXPECT_TRUE(db_->Get(ro, "none", &row).IsNotFound());
  EXPECT_FALSE(dead.has_value());
  Put("e", "v", 10, 5);
  clock_->Advance(100);
  EXPECT_TRUE(db_->Get(ro, "e", &row).IsNotFound());
  ASSERT_TRUE(dead.has_value());
  EXPECT_EQ(dead->kind, RowKind::kValue);
  EXPECT_EQ(dead->meta.expire_at_ms, 15);
  EXPECT_EQ(dead->value, "v");
  Del("t", 42);
  EXPECT_TRUE(db_->Get(ro, "t", &row).IsNotFound());
  EXPECT_EQ(dead->kind, RowKind::kTombstone);
  EXPECT_EQ(dead->meta.timestamp_ms, 42);
  Wipe("w");
  EXPECT_TRUE(db_->Get(ro, "w", &row).IsNotFound());
  EXPECT_EQ(dead->kind, RowKind::kWipe);
  Put("live", "v");
  EXPECT_TRUE(db_->Get(ro, "live", &row).ok());
  EXPECT_FALSE(dead.has_value());
}

TEST_F(DeleteTest, ARangeDeletionHidesEveryVersionWrittenBeforeIt) {
  Open();
  const int64_t now = clock_->NowMs();
  for (int i = 0; i < 200; i++) Put(Cat("b", std::to_string(1000 + i)), std::string(40, 'x'));
  ASSERT_TRUE(db_->CompactAll().ok());  // files at the bottom
  for (int i = 0; i < 50; i++) Put(Cat("b", std::to_string(1000 + i)), "l0", now + 5000);
  ASSERT_TRUE(db_->FlushMemtable().ok());  // an L0 file with future timestamps
  Put("b1003", "memtable", 1);             // and one in the memtable, from the past
  Put("a", "outside");
  Put("c", "outside");
  DeleteRange({{"b", "c"}});
  EXPECT_EQ(Both("b1003"), "NOT_FOUND|NOT_FOUND");
  EXPECT_EQ(Both("b1150"), "NOT_FOUND|NOT_FOUND");
  EXPECT_EQ(Both("a"), "outside|outside");
  EXPECT_EQ(Both("c"), "outside|outside");
  EXPECT_EQ(Scan(), "a=outside,c=outside");
  ReadOptions grace;
  grace.retrieval_grace_ms = kFull;
  EXPECT_EQ(Scan(grace), "a=outside,c=outside");
  // Writes after it are untouched.
  Put("b5", "after", 1);
  EXPECT_EQ(Both("b5"), "after|after");
  // Durable at once (the manifest), and applied by background work: the covered files go
  // whole, the rest is compacted, and then the deletion retires.
  Reopen();
  EXPECT_EQ(Both("b1003"), "NOT_FOUND|NOT_FOUND");
  EXPECT_EQ(Scan(), "a=outside,b5=after,c=outside");
  ASSERT_TRUE(db_->FlushMemtable().ok());
  for (int i = 0; i < 20 && impl()->RunBackgroundCycle(); i++) {
  }
  const Stats stats = db_->GetStats();
  EXPECT_EQ(stats.range_deletions_pending, 0u);
  // Nothing the deletion covers is left in any table: a, c and b5 only. (Which DB instance's
  // background work applied it depends on timing, so the check is on the tables, not on counters
  // that a reopen resets.)
  EXPECT_EQ(Entries(), 3u);
  EXPECT_EQ(Scan(), "a=outside,b5=after,c=outside");
  EXPECT_EQ(Both("b1150"), "NOT_FOUND|NOT_FOUND");
  ASSERT_TRUE(db_->CompactAll().ok());
  EXPECT_EQ(Entries(), 3u);
}

TEST_F(DeleteTest, AFileInsideARangeDeletionIsDroppedWhole) {
  Open();
  for (int i = 0; i < 100; i++) Put(Cat("x", std::to_string(1000 + i)), std::string(40, 'x'));
  ASSERT_TRUE(db_->CompactAll().ok());
  const int files = TotalFiles();
  ASSERT_GE(files, 1);
  DeleteRange({{"x", "y"}});
  impl()->RunBackgroundCycle();
  const Stats stats = db_->GetStats();
  EXPECT_EQ(stats.files_deleted_by_range, static_cast<uint64_t>(files));  // none rewritten
  EXPECT_EQ(stats.range_deletions_pending, 0u);
  EXPECT_EQ(SstFilesOnDisk(), 0);
}

TEST_F(DeleteTest, ARangeDeletionRespectsASnapshotTakenBeforeIt) {
  Open();
  Put("k1", "v");
  const Snapshot* snap = db_->GetSnapshot();
  DeleteRange({{"k", "l"}});
  EXPECT_EQ(Get("k1"), "NOT_FOUND");
  EXPECT_EQ(Get("k1", 0, snap), "v");
  ASSERT_TRUE(db_->CompactAll().ok());
  EXPECT_EQ(Get("k1", 0, snap), "v");
  db_->ReleaseSnapshot(snap);
  ASSERT_TRUE(db_->CompactAll().ok());
  EXPECT_EQ(Get("k1"), "NOT_FOUND");
  EXPECT_EQ(Entries(), 0u);
}

TEST_F(DeleteTest, IteratorsApplyTheReadRuleWithTheirGrace) {
  Open();
  Put("a", "a200", 200);
  Del("a", 100);  // newest, older in time
  Put("b", "b100", 100);
  Put("b", "b50", 50);
  Put("c", "c", 10);
  Put("d", "d150", 150);
  Put("d", "d50", 50);
  ASSERT_TRUE(db_->FlushMemtable().ok());
  Put("c", "c5", 5);
  Put("d", "d100", 100);  // the RFC's example: @100, @50, @150 in walk order
  for (int pass = 0; pass < 2; pass++) {
    EXPECT_EQ(Scan(), "b=b50,c=c5,d=d100");
    ReadOptions ro;
    ro.retrieval_grace_ms = 50;
    EXPECT_EQ(Scan(ro), "a=a200,b=b100,c=c,d=d100");
    ro.retrieval_grace_ms = 51;
    EXPECT_EQ(Scan(ro), "a=a200,b=b100,c=c,d=d150");
    EXPECT_EQ(ScanReverse(ro), "d=d150,c=c,b=b100,a=a200");
    ro.retrieval_grace_ms = kFull;
    auto it = db_->NewIterator(ro);
    it->Seek("b");
    ASSERT_TRUE(it->Valid());
    EXPECT_EQ(it->key(), "b");
    EXPECT_EQ(it->value(), "b100");
    it->Next();
    ASSERT_TRUE(it->Valid());
    EXPECT_EQ(it->value(), "c");
    it.reset();
    Reopen();
  }
}

// With a grace the walk over a dead key's versions moves the iterator on to the next key: that
// key must still be shown (once).
TEST_F(DeleteTest, AGraceScanShowsTheKeyAfterADeadOne) {
  Open();
  Put("a", "a1", 100);
  Del("a", 200);
  Put("b", "b1", 100);
  Del("c", 300);
  Put("d", "d1", 100);
  ReadOptions ro;
  ro.retrieval_grace_ms = 1000;
  EXPECT_EQ(Scan(ro), "b=b1,d=d1");
  EXPECT_EQ(ScanReverse(ro), "d=d1,b=b1");
  ASSERT_TRUE(db_->FlushMemtable().ok());
  EXPECT_EQ(Scan(ro), "b=b1,d=d1");
}

// GetVersions: the versions the read rule could reach, newest first, stopping at a wipe or a
// range deletion — in the memtable, in files and across both.
TEST_F(DeleteTest, GetVersionsStopsAtTheFirstWholeKeyDelete) {
  Open();
  auto versions = [this](const std::string& key) {
    std::vector<VersionRow> rows;
    EXPECT_TRUE(db_->GetVersions(ReadOptions(), key, &rows).ok());
    std::string out;
    for (const VersionRow& v : rows) {
      out += (out.empty() ? "" : ",") +
             (v.kind == RowKind::kTombstone ? std::string("del") : v.value) + "@" +
             std::to_string(v.meta.timestamp_or_zero());
    }
    return out;
  };
  EXPECT_EQ(versions("k"), "");
  Put("k", "under", 1);
  Wipe("k");
  Put("k", "a", 300);
  ASSERT_TRUE(db_->FlushMemtable().ok());
  Del("k", 100);
  Put("k", "b", 200, 5'000);
  // "b" expired at 200 + 5000, long ago: it is returned all the same (it hides older versions),
  // with its meta.
  EXPECT_EQ(versions("k"), "b@200,del@100,a@300");
  std::vector<VersionRow> rows;
  ASSERT_TRUE(db_->GetVersions(ReadOptions(), "k", &rows).ok());
  EXPECT_EQ(rows[0].meta.expire_at_ms, 5'200);
  Wipe("k");
  EXPECT_EQ(versions("k"), "");
  Put("k", "c", 1);
  EXPECT_EQ(versions("k"), "c@1");
  // A range deletion ends the walk like a wipe.
  Put("r", "old", 1);
  DeleteRange({KeyRange{"r", "s"}});
  Put("r", "new", 2);
  EXPECT_EQ(versions("r"), "new@2");
  ASSERT_TRUE(db_->CompactAll().ok());
  EXPECT_EQ(versions("r"), "new@2");
}

}  // namespace
}  // namespace ebb::storage

namespace ebb::storage {
namespace {

// ReadOptions::include_dead: an iterator also lists the keys whose newest version is a tombstone
// or an expired value (what an active-active snapshot must carry), never a wiped key or one a
// range deletion hides; in memory and in files alike.
TEST_F(DeleteTest, IncludeDeadListsTombstonedAndExpiredKeysOnly) {
  Open();
  // The range deletion first: it freezes the memtable it finds (db_write.cc), and the background
  // thread's flush and compaction of the rows below would race the in-memory listing.
  Put("ranged", "v", 10);
  DeleteRange({KeyRange{"ranged", "ranged\x01"}});
  Put("live", "v", 10);
  Put("tomb", "v", 10);
  Del("tomb", 20);
  Put("expired", "v", 10, 5);  // expires 5 ms after the clock's now
  Put("wiped", "v", 10);
  Wipe("wiped");
  clock_->Advance(10);
  ReadOptions dead;
  dead.include_dead = true;
  EXPECT_EQ(Scan(), "live=v");
  EXPECT_EQ(Scan(dead), "expired=v,live=v,tomb=");
  // The flushed file holds an expired row, so the background thread may compact it at once, and
  // a compaction turns an expired value into a tombstone (storage/db.h): the dead listing then
  // shows the key without its value. Which of the two a scan meets is that thread's timing; both
  // list the same keys, and the live answer is the same.
  ASSERT_TRUE(db_->FlushMemtable().ok());
  const std::string flushed = Scan(dead);
  EXPECT_TRUE(flushed == "expired=v,live=v,tomb=" || flushed == "expired=,live=v,tomb=") << flushed;
  EXPECT_EQ(Scan(), "live=v");
}

}  // namespace
}  // namespace ebb::storage
