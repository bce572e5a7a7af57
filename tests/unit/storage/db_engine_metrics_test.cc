// The engine's measures for the metrics endpoint (storage::Stats): expired bytes awaiting purge
// and the age of the oldest expiry, bytes reclaimed by rewriting, compaction debt, and the
// durations of disk reads.
#include <cerrno>
#include <string>

#include "storage/disk_read_latency.h"
#include "tests/unit/storage/db_fault_fixture.h"
#include "tests/unit/storage/db_test_fixture.h"

namespace ebb::storage {
namespace {

uint64_t FileBytes(const Stats& s) {
  uint64_t bytes = 0;
  for (const LevelStats& l : s.levels) bytes += l.bytes;
  return bytes;
}

class DBEngineMetricsTest : public DBTest {
 protected:
  DBEngineMetricsTest() {
    options_.whole_file_expiry = false;  // expired rows leave by compaction only
    options_.memtable_size = 1 << 20;    // flushes only when the test asks
  }
};

TEST_F(DBEngineMetricsTest, ExpiredFilesAwaitPurgeUntilCompactionRewritesThem) {
  Open();
  const int64_t start = clock_->NowMs();
  uint64_t expiring_bytes = 0;
  for (int i = 0; i < 20; i++) {
    const std::string key = "exp" + std::to_string(100 + i);
    const std::string value(30, 'v');
    Put(key, value, start, 1000);  // expires at start + 1000
    expiring_bytes += key.size() + value.size();
  }
  Put("keep", "forever", start);
  ASSERT_TRUE(db_->FlushMemtable().ok());
  Stats s = db_->GetStats();
  EXPECT_EQ(s.expired_pending_bytes, 0u);
  EXPECT_EQ(s.oldest_expired_age_ms, 0);
  EXPECT_EQ(s.purge_deadline_ms, options_.purge_deadline_ms);
  EXPECT_EQ(s.expired_rewritten_bytes, 0u);

  clock_->Set(start + 1000 + 5000);  // expired 5 s ago
  s = db_->GetStats();
  ASSERT_GT(FileBytes(s), 0u);
  EXPECT_EQ(s.expired_pending_bytes, FileBytes(s));  // the one file holds them
  EXPECT_EQ(s.oldest_expired_age_ms, 5000);
  clock_->Advance(250);
  EXPECT_EQ(db_->GetStats().oldest_expired_age_ms, 5250);

  ASSERT_TRUE(db_->CompactAll().ok());
  s = db_->GetStats();
  EXPECT_EQ(s.expired_pending_bytes, 0u);
  EXPECT_EQ(s.oldest_expired_age_ms, 0);
  EXPECT_EQ(s.expired_rows_dropped, 20u);
  EXPECT_EQ(s.expired_rewritten_bytes, expiring_bytes);
  EXPECT_EQ(Get("keep"), "forever");
}

TEST_F(DBEngineMetricsTest, ThePurgeDeadlineFollowsTheSetting) {
  Open();
  EXPECT_EQ(db_->GetStats().purge_deadline_ms, options_.purge_deadline_ms);
  db_->SetPurgeDeadline(60'000);
  EXPECT_EQ(db_->GetStats().purge_deadline_ms, 60'000);
  db_->SetPurgeDeadline(-1);
  EXPECT_EQ(db_->GetStats().purge_deadline_ms, -1);
}

TEST_F(DBEngineMetricsTest, DiskReadsOfUncachedBlocksAreTimed) {
  options_.block_cache_size = 0;  // every data block read goes to the file
  auto latency = std::make_shared<DiskReadLatency>();
  options_.disk_read_latency = latency;
  Open();
  EXPECT_EQ(db_->disk_read_latency(), latency);
  for (int i = 0; i < 50; i++) Put("k" + std::to_string(100 + i), std::string(40, 'x'));
  ASSERT_TRUE(db_->FlushMemtable().ok());
  const uint64_t before = db_->GetStats().disk_read_latency.count;
  for (int i = 0; i < 50; i++) ASSERT_EQ(Get("k" + std::to_string(100 + i)), std::string(40, 'x'));
  const DiskReadHistogram h = db_->GetStats().disk_read_latency;
  EXPECT_GE(h.count, before + 50);
  ASSERT_EQ(h.counts.size(), h.bounds_us.size() + 1);
  uint64_t in_buckets = 0;
  for (uint64_t c : h.counts) in_buckets += c;
  EXPECT_EQ(in_buckets, h.count);
  EXPECT_GT(h.sum_ns, 0u);
}

TEST(DiskReadLatencyTest, ReadsFallInTheFirstBucketTheyFit) {
  DiskReadLatency latency;
  latency.Record(std::chrono::microseconds(50));   // <= 50 us
  latency.Record(std::chrono::microseconds(51));   // <= 100 us
  latency.Record(std::chrono::milliseconds(3));    // <= 5 ms
  latency.Record(std::chrono::milliseconds(100));  // <= 100 ms
  latency.Record(std::chrono::milliseconds(150));  // above every bound
  const DiskReadHistogram h = latency.Snapshot();
  ASSERT_EQ(h.bounds_us.size(), 11u);
  ASSERT_EQ(h.counts.size(), 12u);
  EXPECT_EQ(h.counts[0], 1u);
  EXPECT_EQ(h.counts[1], 1u);
  EXPECT_EQ(h.counts[6], 1u);   // 5000 us
  EXPECT_EQ(h.counts[10], 1u);  // 100000 us
  EXPECT_EQ(h.counts[11], 1u);
  EXPECT_EQ(h.count, 5u);
  EXPECT_EQ(h.sum_ns, (50u + 51u + 3000u + 100000u + 150000u) * 1000u);
}

class DBCompactionDebtTest : public DBFaultTest {
 protected:
  DBCompactionDebtTest() {
    options_.wal_fsync = WalFsync::kNo;
    options_.compression = Compression::kNone;  // table sizes follow what is written
    options_.l0_compaction_trigger = 3;
  }
};

TEST_F(DBCompactionDebtTest, Level0AtItsTriggerIsDebtWhileCompactionCannotRun) {
  Open();
  // The disk has room for a flush's small table, not for a compaction's larger output: the
  // level-0 compaction fails (and is retried later), so level 0 stays at its trigger.
  fs_->SetFaultErrno(ENOSPC);
  fs_->SetPathFilter(".sst");
  fs_->SetMaxFileBytes(6 << 10);
  testing::internal::CaptureStderr();
  for (int t = 0; t < 2; t++) {
    for (int i = 0; i < 40; i++) {
      ASSERT_TRUE(TryPut("k" + std::to_string(t) + "-" + std::to_string(100 + i),
                         std::string(50, static_cast<char>('a' + t)))
                      .ok());
    }
    ASSERT_TRUE(db_->FlushMemtable().ok());
  }
  Stats s = db_->GetStats();
  ASSERT_EQ(s.levels[0].files, 2);
  EXPECT_EQ(s.compaction_pending_bytes, 0u);  // under the trigger, and L1 is empty
  for (int i = 0; i < 40; i++) {
    ASSERT_TRUE(TryPut("k2-" + std::to_string(100 + i), std::string(50, 'c')).ok());
  }
  ASSERT_TRUE(db_->FlushMemtable().ok());
  s = db_->GetStats();
  testing::internal::GetCapturedStderr();
  ASSERT_EQ(s.levels[0].files, 3);
  ASSERT_LT(s.levels[0].bytes, options_.level1_max_bytes);  // moved to L1, within its target
  EXPECT_EQ(s.compaction_pending_bytes, s.levels[0].bytes);
}

}  // namespace
}  // namespace ebb::storage
