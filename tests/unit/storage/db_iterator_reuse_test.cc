// Iterators over reused trees (DBImpl keeps the last iterator's tree for the next one) and the
// level iterators inside them: whatever tree an iterator gets, it shows exactly the state of
// the DB when it was created, within its own bounds.
#include <string>

#include "tests/unit/storage/db_test_fixture.h"

namespace ebb::storage {
namespace {

ReadOptions Bounded(std::optional<std::string> lower, std::optional<std::string> upper) {
  ReadOptions ro;
  ro.lower_bound = std::move(lower);
  ro.upper_bound = std::move(upper);
  return ro;
}

TEST_F(DBTest, ReusedTreeSeesWritesMadeSinceItWasBuilt) {
  Open();
  Put("a", "1");
  EXPECT_EQ(Scan(), "a=1");
  const uint64_t reused = db_->GetStats().iterator_trees_reused;
  Put("b", "2");
  Put("a", "3");
  Del("c");
  EXPECT_EQ(Scan(), "a=3,b=2");
  EXPECT_EQ(ScanReverse(), "b=2,a=3");
  EXPECT_EQ(db_->GetStats().iterator_trees_reused, reused + 2);  // same memtable, same files
}

TEST_F(DBTest, ReusedTreeTakesEachIteratorsBounds) {
  Open();
  for (char c = 'a'; c <= 'h'; c++) Put(std::string(1, c), std::string(1, c));
  ASSERT_TRUE(db_->FlushMemtable().ok());
  Put("d", "D");
  EXPECT_EQ(Scan(Bounded("b", "e")), "b=b,c=c,d=D");
  EXPECT_EQ(Scan(Bounded("f", std::nullopt)), "f=f,g=g,h=h");
  EXPECT_EQ(ScanReverse(Bounded(std::nullopt, "c")), "b=b,a=a");
  EXPECT_EQ(Scan(), "a=a,b=b,c=c,d=D,e=e,f=f,g=g,h=h");
  EXPECT_GE(db_->GetStats().iterator_trees_reused, 3u);
}

TEST_F(DBTest, ReusedTreeKeepsASnapshotsView) {
  Open();
  Put("a", "old");
  EXPECT_EQ(Scan(), "a=old");
  const Snapshot* snapshot = db_->GetSnapshot();
  Put("a", "new");
  Put("b", "new");
  ReadOptions at_snapshot;
  at_snapshot.snapshot = snapshot;
  EXPECT_EQ(Scan(at_snapshot), "a=old");
  EXPECT_EQ(Scan(), "a=new,b=new");
  db_->ReleaseSnapshot(snapshot);
}

TEST_F(DBTest, IteratorsAliveTogetherEachShowTheirOwnState) {
  Open();
  Put("a", "1");
  auto first = db_->NewIterator(ReadOptions());
  Put("b", "2");
  auto second = db_->NewIterator(ReadOptions());
  first->SeekToFirst();
  second->SeekToFirst();
  ASSERT_TRUE(first->Valid() && second->Valid());
  first->Next();
  second->Next();
  EXPECT_FALSE(first->Valid());  // created before b was written
  ASSERT_TRUE(second->Valid());
  EXPECT_EQ(second->key(), "b");
  first.reset();
  second.reset();
  EXPECT_EQ(Scan(), "a=1,b=2");
}

TEST_F(DBTest, IteratorAfterFlushAndCompactionReadsTheNewFiles) {
  Open();
  for (int i = 0; i < 200; i++) Put(Cat("k", std::to_string(1000 + i)), std::to_string(i));
  EXPECT_EQ(Scan(Bounded("k1000", "k1002")), "k1000=0,k1001=1");
  ASSERT_TRUE(db_->FlushMemtable().ok());
  EXPECT_EQ(Scan(Bounded("k1198", std::nullopt)), "k1198=198,k1199=199");
  ASSERT_TRUE(db_->CompactAll().ok());
  Put("k1000", "again");
  EXPECT_EQ(Scan(Bounded("k1000", "k1002")), "k1000=again,k1001=1");
}

TEST_F(DBTest, SpareTreeDoesNotKeepCompactedFilesOnDisk) {
  Open();
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < 100; i++) Put(Cat("k", std::to_string(1000 + i)), std::to_string(round));
    ASSERT_TRUE(db_->FlushMemtable().ok());
    EXPECT_EQ(Scan(Bounded("k1000", "k1001")), "k1000=" + std::to_string(round));
  }
  ASSERT_TRUE(db_->CompactAll().ok());
  EXPECT_EQ(SstFilesOnDisk(), TotalFiles());
}

// Level iterators never read a file outside the bounds (it is open all the same: the background
// thread opens every table after the DB opens).
TEST_F(DBTest, BoundedScanReadsOnlyTheFilesInItsRange) {
  options_.l0_compaction_trigger = 100;  // two L0 files with disjoint ranges stay as they are
  Open();
  for (int i = 0; i < 10; i++) Put(Cat("a", std::to_string(i)), "low");
  ASSERT_TRUE(db_->FlushMemtable().ok());
  for (int i = 0; i < 10; i++) Put(Cat("m", std::to_string(i)), "high");
  ASSERT_TRUE(db_->FlushMemtable().ok());
  Reopen();  // an empty block cache; each file is one data block
  const uint64_t misses = db_->GetStats().block_cache_misses;
  EXPECT_EQ(Scan(Bounded("a0", "a2")), "a0=low,a1=low");
  EXPECT_EQ(db_->GetStats().block_cache_misses - misses, 1u);
  EXPECT_EQ(ScanReverse(Bounded(std::nullopt, "b")).substr(0, 14), "a9=low,a8=low,");
  EXPECT_EQ(db_->GetStats().block_cache_misses - misses, 1u);
  auto it = db_->NewIterator(ReadOptions());
  int seen = 0;
  for (it->SeekToFirst(); it->Valid() && seen < 100; it->Next()) seen++;
  EXPECT_EQ(seen, 20);
  EXPECT_EQ(db_->GetStats().block_cache_misses - misses, 2u);
}

}  // namespace
}  // namespace ebb::storage
