// Disk faults in the engine (db.h, "Disk faults"): failed WAL writes and syncs, failed table,
// manifest and directory writes put the DB in an error state that refuses writes at once and
// changes nothing, keeps reads served, never loses an acknowledged write (checked after a
// reopen and after a simulated power cut), and is left by Resume — by hand or by the
// background thread — once the fault clears.
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "tests/unit/storage/db_fault_fixture.h"

namespace ebb::storage {
namespace {

using namespace std::chrono_literals;

TEST_F(DBFaultTest, FailedWalAppendRefusesWritesServesReadsAndResumes) {
  Open();
  for (int i = 0; i < 10; i++) ASSERT_TRUE(TryPut("a" + std::to_string(i), "v").ok());
  ASSERT_TRUE(db_->FlushMemtable().ok());  // some keys in a table file, some in the memtable
  for (int i = 0; i < 5; i++) ASSERT_TRUE(TryPut("b" + std::to_string(i), "w").ok());
  const uint64_t sequence = db_->GetStats().last_sequence;

  fs_->SetFaultErrno(ENOSPC);
  fs_->FailWritesAfterAppends(1);  // the record's header is buffered, its payload fails
  Status s = TryPut("refused", "x");
  ASSERT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.message().find("No space left on device"), std::string::npos) << s.ToString();
  EXPECT_TRUE(db_->BackgroundError().IsIOError());

  // Every write path is refused with the same error and nothing changes.
  EXPECT_TRUE(TryPut("refused2", "x").IsIOError());
  EXPECT_TRUE(db_->Delete(WriteOptions(), "a1").IsIOError());
  EXPECT_FALSE(db_->FlushMemtable().ok());
  EXPECT_FALSE(db_->CompactAll().ok());
  EXPECT_FALSE(db_->SyncWal().ok());
  EXPECT_EQ(db_->GetStats().last_sequence, sequence);
  EXPECT_EQ(Get("refused"), "NOT_FOUND");
  EXPECT_EQ(Get("a1"), "v");
  ExpectAckedPresent();
  EXPECT_EQ(Scan(), AckedScan());

  // While the disk still fails, Resume fails and writes stay refused.
  EXPECT_FALSE(db_->Resume().ok());
  EXPECT_FALSE(TryPut("refused3", "x").ok());

  fs_->SetFailWrites(false);
  ASSERT_TRUE(db_->Resume().ok());
  EXPECT_TRUE(db_->BackgroundError().ok());
  ASSERT_TRUE(TryPut("after", "y").ok());
  EXPECT_EQ(Scan(), AckedScan());

  Reopen();
  ExpectAckedPresent();
  EXPECT_EQ(Scan(), AckedScan());
  EXPECT_EQ(Get("refused"), "NOT_FOUND");
}

TEST_F(DBFaultTest, FailedFsyncUnderAlwaysIsNotAcknowledgedAndPowerCutKeepsAcked) {
  Open();
  for (int i = 0; i < 20; i++) ASSERT_TRUE(TryPut("k" + std::to_string(i), "v1").ok());
  fs_->SetFailSyncs(true);
  EXPECT_TRUE(TryPut("k-unsynced", "v").IsIOError());
  EXPECT_TRUE(db_->BackgroundError().IsIOError());
  EXPECT_TRUE(TryPut("k-refused", "v").IsIOError());
  ExpectAckedPresent();
  fs_->SetFailSyncs(false);
  ASSERT_TRUE(db_->Resume().ok());
  for (int i = 0; i < 20; i++) ASSERT_TRUE(TryPut("k" + std::to_string(i), "v2").ok());
  PowerCutAndReopen();
  ExpectAckedPresent();
  EXPECT_EQ(Get("k-refused"), "NOT_FOUND");
}

TEST_F(DBFaultTest, FailedBackgroundSyncUnderEverySecSetsTheErrorAndAutoResumes) {
  options_.wal_fsync = WalFsync::kEverySec;
  Open();
  for (int i = 0; i < 10; i++) ASSERT_TRUE(TryPut("e" + std::to_string(i), "v").ok());
  fs_->SetFailSyncs(true);
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (db_->BackgroundError().ok() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(20ms);
  }
  ASSERT_TRUE(db_->BackgroundError().IsIOError());
  EXPECT_NE(db_->BackgroundError().message().find("fdatasync"), std::string::npos);
  EXPECT_TRUE(TryPut("refused", "x").IsIOError());
  ExpectAckedPresent();
  fs_->SetFailSyncs(false);
  ASSERT_TRUE(WaitForAutoResume());
  ASSERT_TRUE(TryPut("after", "y").ok());
  ASSERT_TRUE(db_->SyncWal().ok());
  // The writes before the fault were made durable by Resume (a table file), not by the WAL.
  PowerCutAndReopen();
  ExpectAckedPresent();
}

TEST_F(DBFaultTest, FailedFlushWalIsAnErrorUntilResume) {
  options_.wal_fsync = WalFsync::kNo;
  Open();
  ASSERT_TRUE(TryPut("a", "1").ok());
  ASSERT_TRUE(db_->FlushWal().ok());
  fs_->SetFailFlushes(true);  // appends reach the WAL's buffer, writing it out fails
  ASSERT_TRUE(db_->Put(WriteOptions(), "b", "2").ok());  // not acknowledged: FlushWal fails
  EXPECT_TRUE(db_->FlushWal().IsIOError());
  EXPECT_TRUE(db_->BackgroundError().IsIOError());
  EXPECT_TRUE(db_->FlushWal().IsIOError());
  EXPECT_TRUE(TryPut("c", "3").IsIOError());
  EXPECT_FALSE(db_->Resume().ok());
  fs_->SetFailFlushes(false);
  ASSERT_TRUE(db_->Resume().ok());
  ASSERT_TRUE(TryPut("c", "3").ok());
  ASSERT_TRUE(db_->FlushWal().ok());
  Reopen();
  ExpectAckedPresent();
}

// Under kAlways the WAL keeps zeros written ahead of its records; a crash leaves them, and the
// reopen reads them as the log's end: nothing lost, nothing reported as torn.
TEST_F(DBFaultTest, ZerosAheadInTheWalUnderAlwaysReadAsItsEndAfterAPowerCut) {
  Open();
  for (int i = 0; i < 50; i++) ASSERT_TRUE(TryPut("z" + std::to_string(i), "v").ok());
  uint64_t wal_bytes_on_disk = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
    if (entry.path().extension() == ".log") wal_bytes_on_disk += entry.file_size();
  }
  EXPECT_GE(wal_bytes_on_disk, uint64_t{1} << 20);  // a chunk of zeros past 50 small records
  testing::internal::CaptureStderr();
  PowerCutAndReopen();
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(log.find("torn tail"), std::string::npos) << log;
  ExpectAckedPresent();
  ASSERT_TRUE(TryPut("after", "y").ok());
  Reopen();
  EXPECT_EQ(Scan(), AckedScan());
}

TEST_F(DBFaultTest, TornTailInANonLastWalIsToleratedOnReopen) {
  Open();
  for (int i = 0; i < 10; i++) ASSERT_TRUE(TryPut("t" + std::to_string(i), "v").ok());
  fs_->SetPathFilter(".log");
  fs_->FailWritesAfterAppends(1);
  ASSERT_TRUE(TryPut("torn", std::string(100, 'x')).IsIOError());
  fs_->SetFailWrites(false);
  // Resume gets as far as a new WAL, then cannot write the table: the old WAL (ending in the
  // torn record's header) stays needed and is no longer the last one.
  fs_->SetPathFilter(".sst");
  fs_->SetFailNewFiles(true);
  EXPECT_FALSE(db_->Resume().ok());
  EXPECT_GE(FilesWithExtension(".log"), 2);
  EXPECT_TRUE(TryPut("refused", "x").IsIOError());
  db_.reset();
  ClearFaults();
  Open();
  ExpectAckedPresent();
  EXPECT_EQ(Get("torn"), "NOT_FOUND");
  ASSERT_TRUE(TryPut("after", "y").ok());
  Reopen();
  ExpectAckedPresent();
  EXPECT_EQ(Scan(), AckedScan());
}

TEST_F(DBFaultTest, FailedManifestSyncKeepsFilesUntilResumeWritesANewManifest) {
  Open();
  for (int i = 0; i < 30; i++) ASSERT_TRUE(TryPut("m" + std::to_string(i), "v").ok());
  fs_->SetPathFilter("MANIFEST");
  fs_->SetFailSyncs(true);
  EXPECT_FALSE(db_->FlushMemtable().ok());
  EXPECT_TRUE(db_->BackgroundError().IsIOError());
  EXPECT_TRUE(TryPut("refused", "x").IsIOError());
  ExpectAckedPresent();
  // The table the failed edit names stays on disk: the edit may have reached the disk.
  EXPECT_EQ(SstFilesOnDisk(), 1);
  EXPECT_EQ(TotalFiles(), 0);
  ClearFaults();
  ASSERT_TRUE(db_->Resume().ok());
  ASSERT_TRUE(TryPut("after", "y").ok());
  EXPECT_EQ(SstFilesOnDisk(), TotalFiles());  // the unnamed table is gone once resumed
  EXPECT_EQ(FilesWithExtension(".log"), 1);   // the WALs before the fault are obsolete
  Reopen();
  ExpectAckedPresent();
  EXPECT_EQ(Scan(), AckedScan());
}

TEST_F(DBFaultTest, CrashBeforeResumeAfterAFailedManifestSyncLosesNothing) {
  Open();
  for (int i = 0; i < 30; i++) ASSERT_TRUE(TryPut("c" + std::to_string(i), "v").ok());
  fs_->SetPathFilter("MANIFEST");
  fs_->SetFailSyncs(true);
  EXPECT_FALSE(db_->FlushMemtable().ok());
  db_.reset();
  ClearFaults();
  Open();
  ExpectAckedPresent();
  EXPECT_EQ(Scan(), AckedScan());
}

TEST_F(DBFaultTest, FailedDirectoryFsyncIsAnErrorLikeAnyOther) {
  Open();
  for (int i = 0; i < 10; i++) ASSERT_TRUE(TryPut("d" + std::to_string(i), "v").ok());
  fs_->SetFailDirSyncs(true);
  Status s = db_->FlushMemtable();  // a new WAL and a new table: both need the directory synced
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind("fsync " + dir_, 0), 0u) << s.ToString();
  EXPECT_TRUE(TryPut("refused", "x").IsIOError());
  EXPECT_FALSE(db_->Resume().ok());
  fs_->SetFailDirSyncs(false);
  ASSERT_TRUE(db_->Resume().ok());
  ASSERT_TRUE(db_->FlushMemtable().ok());
  EXPECT_EQ(TotalFiles(), 1);
  Reopen();
  ExpectAckedPresent();
}

TEST_F(DBFaultTest, BackgroundFlushFailureRefusesWritesAndAutoResumes) {
  options_.memtable_size = 4 << 10;  // background flushes all the time
  options_.wal_fsync = WalFsync::kNo;
  Open();
  fs_->SetPathFilter(".sst");
  fs_->SetFailNewFiles(true);
  Status s;
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  for (int i = 0; i < 100000 && std::chrono::steady_clock::now() < deadline; i++) {
    s = TryPut("f" + std::to_string(i), std::string(100, 'v'));
    if (!s.ok()) break;
  }
  ASSERT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.message().find(".sst"), std::string::npos) << s.ToString();
  ExpectAckedPresent();
  EXPECT_EQ(Scan(), AckedScan());
  ClearFaults();
  ASSERT_TRUE(WaitForAutoResume());
  ASSERT_TRUE(TryPut("after", "y").ok());
  ASSERT_TRUE(db_->FlushWal().ok());
  Reopen();
  ExpectAckedPresent();
  EXPECT_EQ(Scan(), AckedScan());
}

TEST_F(DBFaultTest, ConcurrentWritersAcrossAFaultLoseNoAcknowledgedWrite) {
  Open();
  constexpr int kThreads = 4, kPerThread = 300;
  std::vector<std::map<std::string, std::string>> acked(kThreads);
  std::atomic<int> refused{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; i++) {
        const std::string key = "w" + std::to_string(t) + "-" + std::to_string(i);
        if (db_->Put(WriteOptions(), key, key).ok()) {
          acked[t][key] = key;
        } else {
          refused++;
        }
      }
    });
  }
  std::this_thread::sleep_for(5ms);
  fs_->SetFailSyncs(true);
  std::this_thread::sleep_for(20ms);
  fs_->SetFailSyncs(false);
  for (auto& thread : threads) thread.join();
  if (!db_->BackgroundError().ok()) {
    ASSERT_TRUE(db_->Resume().ok());
  }
  for (const auto& m : acked) acked_.insert(m.begin(), m.end());
  PowerCutAndReopen();
  ExpectAckedPresent();
  ASSERT_TRUE(TryPut("after", "y").ok());
}

}  // namespace
}  // namespace ebb::storage
