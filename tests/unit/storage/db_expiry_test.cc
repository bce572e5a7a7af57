// The SlateDB RFC's timestamp/TTL scenarios and the grace example, each checked as written, after
// a flush, after a full compaction and across a reopen; whole-file expiry; the purge deadline.
#include <chrono>
#include <thread>

#include "storage/db/db_impl.h"
#include "tests/unit/storage/db_test_fixture.h"

namespace ebb::storage {
namespace {

enum class Step { kNone, kFlush, kCompactAll, kReopen };

class RfcScenarioTest : public DBTest, public ::testing::WithParamInterface<Step> {
 protected:
  void SetUp() override {
    clock_->Set(100);
    Open();
  }
  // Moves the data to where the parameter says (at the current clock).
  void Settle() {
    switch (GetParam()) {
      case Step::kNone:
        break;
      case Step::kFlush:
        ASSERT_TRUE(db_->FlushMemtable().ok());
        break;
      case Step::kCompactAll:
        ASSERT_TRUE(db_->CompactAll().ok());
        break;
      case Step::kReopen:
        Reopen();
        break;
    }
  }
  bool Compacted() const { return GetParam() == Step::kCompactAll; }
};

TEST_P(RfcScenarioTest, HappyPath) {
  Put("A", "v", 100, 100);  // live until 200
  Settle();
  clock_->Set(199);
  EXPECT_EQ(Get("A"), "v");
  clock_->Set(200);
  EXPECT_EQ(Get("A"), "NOT_FOUND");
  ASSERT_TRUE(db_->CompactAll().ok());  // compaction at >= 200 removes it
  EXPECT_EQ(Get("A"), "NOT_FOUND");
  db_->SetExpirationEnabled(false);  // physically gone, not just hidden
  EXPECT_EQ(Get("A"), "NOT_FOUND");
  // Gone by whole-file expiry (the file held only this row) or by compaction.
  const Stats stats = db_->GetStats();
  EXPECT_GE(stats.expired_rows_dropped + stats.files_expired_whole, 1u);
}

TEST_P(RfcScenarioTest, InOrderOverwriteNewerTtl) {
  Put("A", "v1", 100, 100);
  clock_->Set(150);
  Put("A", "v2", 150, 100);
  Settle();
  EXPECT_EQ(Get("A"), "v2");
  clock_->Set(249);
  EXPECT_EQ(Get("A"), "v2");
  EXPECT_EQ(Get("A", 1000), "v2");
  clock_->Set(250);
  EXPECT_EQ(Get("A"), "NOT_FOUND");
}

TEST_P(RfcScenarioTest, InOrderOverwriteOlderTtl) {
  Put("A", "v1", 100, 100);  // until 200
  Put("A", "v2", 110, 40);   // until 150
  Settle();
  clock_->Set(149);
  EXPECT_EQ(Get("A"), "v2");
  clock_->Set(150);
  EXPECT_EQ(Get("A"), "NOT_FOUND");  // the expired newest version hides v1
  clock_->Set(160);
  ASSERT_TRUE(db_->CompactAll().ok());
  EXPECT_EQ(Get("A"), "NOT_FOUND");
  EXPECT_EQ(Get("A", 1000), "NOT_FOUND");
  clock_->Set(199);
  EXPECT_EQ(Get("A"), "NOT_FOUND");
}

TEST_P(RfcScenarioTest, OutOfOrderOverwrites) {
  Put("A", "v100", 100);
  Put("A", "v50", 50);
  Settle();
  // Compaction keeps the greatest timestamp, so grace 0 converges to it.
  EXPECT_EQ(Get("A", 0), Compacted() ? "v100" : "v50");
  EXPECT_EQ(Get("A", 1), "v100");
  EXPECT_EQ(Get("A", 1000), "v100");
  ASSERT_TRUE(db_->CompactAll().ok());
  EXPECT_EQ(Get("A", 0), "v100");
}

TEST_P(RfcScenarioTest, OutOfOrderTombstone) {
  Put("A", "v", 100);
  Del("A", 50);
  Settle();
  EXPECT_EQ(Get("A", 0), Compacted() ? "v" : "NOT_FOUND");
  EXPECT_EQ(Get("A", 1000), "v");
  ASSERT_TRUE(db_->CompactAll().ok());
  EXPECT_EQ(Get("A", 0), "v");  // the tombstone at 50 does not hide the value at 100
}

TEST_P(RfcScenarioTest, GraceExample) {
  Put("K", "v150", 150);
  Put("K", "v50", 50);
  Put("K", "v100", 100);  // walk order: @100, @50, @150
  Settle();
  EXPECT_EQ(Get("K", 0), Compacted() ? "v150" : "v100");
  EXPECT_EQ(Get("K", 50), Compacted() ? "v150" : "v100");
  EXPECT_EQ(Get("K", 51), "v150");
  EXPECT_EQ(Get("K", 100000), "v150");
}

INSTANTIATE_TEST_SUITE_P(Steps, RfcScenarioTest,
                         ::testing::Values(Step::kNone, Step::kFlush, Step::kCompactAll,
                                           Step::kReopen));

class ExpiryTest : public DBTest {
 protected:
  DBImpl* impl() { return static_cast<DBImpl*>(db_.get()); }
};

TEST_F(ExpiryTest, SnapshotKeepsViewAcrossFlushAndCompaction) {
  Open();
  for (int i = 0; i < 100; i++) Put(Cat("k", std::to_string(i)), "old");
  const Snapshot* snap = db_->GetSnapshot();
  for (int i = 0; i < 100; i++) Put(Cat("k", std::to_string(i)), "new");
  Del("k5");
  ASSERT_TRUE(db_->CompactAll().ok());
  EXPECT_EQ(Get("k5", 0, snap), "old");
  EXPECT_EQ(Get("k7", 0, snap), "old");
  EXPECT_EQ(Get("k7"), "new");
  EXPECT_EQ(Get("k5"), "NOT_FOUND");
  ReadOptions ro;
  ro.snapshot = snap;
  auto it = db_->NewIterator(ro);
  int n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), n++) EXPECT_EQ(it->value(), "old");
  EXPECT_EQ(n, 100);
  it.reset();
  db_->ReleaseSnapshot(snap);
  ASSERT_TRUE(db_->CompactAll().ok());
  EXPECT_EQ(Get("k7"), "new");
}

TEST_F(ExpiryTest, WholeFileExpiryDropsAFullyExpiredFile) {
  Open();
  const int64_t now = clock_->NowMs();
  for (int i = 0; i < 20; i++) Put(Cat("t", std::to_string(i)), "v", now, 100 + i);
  ASSERT_TRUE(db_->FlushMemtable().ok());
  ASSERT_GE(TotalFiles(), 1);
  EXPECT_FALSE(impl()->RunBackgroundCycle());  // nothing has expired yet
  clock_->Advance(200);
  while (impl()->RunBackgroundCycle()) {
  }
  const Stats stats = db_->GetStats();
  EXPECT_GE(stats.files_expired_whole, 1u);
  EXPECT_EQ(stats.compactions, 0u);
  EXPECT_EQ(TotalFiles(), 0);
  EXPECT_EQ(SstFilesOnDisk(), 0);
}

TEST_F(ExpiryTest, WholeFileExpirySparesFilesWithNonExpiringRowsOrOverlap) {
  Open();
  const int64_t now = clock_->NowMs();
  Put("a", "forever");
  Put("b", "v", now, 100);
  ASSERT_TRUE(db_->FlushMemtable().ok());
  clock_->Advance(200);
  for (int i = 0; i < 5 && impl()->RunBackgroundCycle(); i++) {
  }
  EXPECT_EQ(db_->GetStats().files_expired_whole, 0u);
  EXPECT_EQ(Get("a"), "forever");

  // A fully expiring file above an overlapping deeper file is kept (older data would resurface).
  Put("m", "deep");
  Put("z", "deep");
  ASSERT_TRUE(db_->CompactAll().ok());
  Put("m", "shallow", clock_->NowMs(), 100);
  ASSERT_TRUE(db_->FlushMemtable().ok());
  clock_->Advance(200);
  impl()->RunBackgroundCycle();
  EXPECT_EQ(db_->GetStats().files_expired_whole, 0u);
  EXPECT_EQ(Get("m"), "NOT_FOUND");
  db_->SetWholeFileExpiry(false);
}

TEST_F(ExpiryTest, WholeFileExpiryCanBeSwitchedOff) {
  options_.whole_file_expiry = false;
  Open();
  Put("t", "v", clock_->NowMs(), 100);
  ASSERT_TRUE(db_->FlushMemtable().ok());
  clock_->Advance(200);
  impl()->RunBackgroundCycle();
  EXPECT_EQ(db_->GetStats().files_expired_whole, 0u);
}

TEST_F(ExpiryTest, PurgeDeadlineRemovesExpiredBytesFromEveryLevel) {
  options_.purge_deadline_ms = 1000;
  options_.whole_file_expiry = false;  // make compaction do it
  Open();
  const int64_t now = clock_->NowMs();
  const std::string value(100, 'x');
  for (int i = 0; i < 200; i++) {
    const std::string key = Cat("k", std::to_string(1000 + i));
    if (i % 2 == 0) {
      Put(key, value);
    } else {
      Put(key, value, now, 500);
    }
  }
  ASSERT_TRUE(db_->FlushMemtable().ok());
  while (impl()->RunBackgroundCycle()) {
  }
  uint64_t bytes_before = 0;
  for (const auto& level : db_->GetStats().levels) bytes_before += level.bytes;
  clock_->Advance(500 + 999);  // expired, deadline not yet reached
  EXPECT_EQ(Get("k1001"), "NOT_FOUND");
  for (int i = 0; i < 50 && impl()->RunBackgroundCycle(); i++) {
  }
  clock_->Advance(1);  // the deadline
  int cycles = 0;
  while (cycles < 50 && impl()->RunBackgroundCycle()) cycles++;
  EXPECT_GT(cycles, 0);
  const Stats stats = db_->GetStats();
  EXPECT_EQ(stats.expired_rows_dropped, 100u);
  uint64_t bytes_after = 0;
  for (const auto& level : stats.levels) bytes_after += level.bytes;
  EXPECT_LT(bytes_after, bytes_before * 3 / 4);
  // Physically gone: with expiration switched off nothing comes back.
  db_->SetExpirationEnabled(false);
  EXPECT_EQ(Get("k1001"), "NOT_FOUND");
  EXPECT_EQ(Get("k1000"), value);
  auto it = db_->NewIterator(ReadOptions());
  int n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) n++;
  EXPECT_EQ(n, 100);
}

TEST_F(ExpiryTest, BackgroundThreadEnforcesThePurgeDeadlineOnItsOwn) {
  options_.purge_deadline_ms = 400;  // the background thread re-checks every 100 ms
  options_.whole_file_expiry = false;
  Open();
  const int64_t now = clock_->NowMs();
  Put("keep", "v");
  for (int i = 0; i < 10; i++) Put(Cat("t", std::to_string(i)), "v", now, 100);
  ASSERT_TRUE(db_->FlushMemtable().ok());
  clock_->Advance(100 + 400);
  // No call into the DB: wait (bounded) for the background cycle to notice the deadline.
  uint64_t dropped = 0;
  for (int i = 0; i < 400 && dropped < 10; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    dropped = db_->GetStats().expired_rows_dropped;
  }
  EXPECT_EQ(dropped, 10u);
  db_->SetExpirationEnabled(false);
  EXPECT_EQ(Get("t3"), "NOT_FOUND");
  EXPECT_EQ(Get("keep"), "v");
}

TEST_F(ExpiryTest, FlushAndCompactionHappenInTheBackground) {
  Open();
  const std::string value(200, 'v');
  for (int i = 0; i < 2000; i++)
    Put(Cat("key", std::to_string(i % 500)), Cat(value, std::to_string(i)));
  ASSERT_TRUE(db_->FlushMemtable().ok());
  const Stats stats = db_->GetStats();
  EXPECT_GT(stats.flushes, 10u);
  for (int i = 0; i < 500; i++) {
    EXPECT_EQ(Get(Cat("key", std::to_string(i))), Cat(value, std::to_string(1500 + i)));
  }
  Reopen();
  EXPECT_EQ(Get("key7"), value + "1507");
  ASSERT_TRUE(db_->CompactAll().ok());
  EXPECT_EQ(Get("key499"), value + "1999");
  EXPECT_EQ(db_->GetStats().levels[0].files, 0);
}

}  // namespace
}  // namespace ebb::storage
