// Compaction errors: a compaction that cannot write its outputs (a full disk) leaves writes
// accepted and is retried with a growing pause, instead of putting the DB in its error state
// every time it runs again; a damaged table that compaction finds is reported by name, is not
// compacted again, and writes go on — until they need the compaction it blocks, which refuses
// them with that damage rather than waiting forever.
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "storage/db/db_impl.h"
#include "tests/file_damage.h"
#include "tests/unit/storage/db_fault_fixture.h"

namespace ebb::storage {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class DBCompactionErrorTest : public DBFaultTest {
 protected:
  DBCompactionErrorTest() {
    options_.wal_fsync = WalFsync::kNo;
    options_.compression = Compression::kNone;  // table sizes follow what is written
    options_.l0_compaction_trigger = 100;       // compactions only when a test asks
    options_.l0_stop_writes_trigger = 100;
  }
  void ThreeTables() {
    for (int t = 0; t < 3; t++) {
      for (int i = 0; i < 40; i++) {
        ASSERT_TRUE(TryPut("k" + std::to_string(t) + "-" + std::to_string(100 + i),
                           std::string(50, static_cast<char>('a' + t)))
                        .ok());
      }
      ASSERT_TRUE(db_->FlushMemtable().ok());
    }
  }
  std::string NewestTable() {
    std::string newest;
    for (const auto& e : fs::directory_iterator(dir_)) {
      const std::string name = e.path().filename().string();
      if (name.ends_with(".sst") && name > newest) newest = name;
    }
    return newest;
  }
  void FlipByte(const std::string& name, uint64_t offset) {
    test::FlipByte(dir_ + "/" + name, offset);
  }
};

TEST_F(DBCompactionErrorTest, AFullDiskDuringCompactionKeepsWritesGoingAndRetriesWithBackoff) {
  options_.l0_compaction_trigger = 3;
  Open();
  // The disk has room for a flush's small table, not for a compaction's larger output.
  fs_->SetFaultErrno(ENOSPC);
  fs_->SetPathFilter(".sst");
  fs_->SetMaxFileBytes(6 << 10);
  testing::internal::CaptureStderr();
  ThreeTables();
  const Status s = db_->CompactAll();
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.message().find("No space left on device"), std::string::npos) << s.ToString();
  // Not the error state: writes and reads go on.
  EXPECT_TRUE(db_->BackgroundError().ok()) << db_->BackgroundError().ToString();
  for (int i = 0; i < 20; i++) ASSERT_TRUE(TryPut("during" + std::to_string(i), "d").ok());
  ExpectAckedPresent();
  // The background thread retries after 1 s, then after 2 s, writes still accepted.
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (db_->GetStats().compaction_errors < 3 && std::chrono::steady_clock::now() < deadline) {
    ASSERT_TRUE(db_->BackgroundError().ok());
    std::this_thread::sleep_for(20ms);
  }
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_GE(db_->GetStats().compaction_errors, 3u);
  EXPECT_NE(log.find("next try in 1 s"), std::string::npos) << log;
  EXPECT_NE(log.find("next try in 2 s"), std::string::npos) << log;
  EXPECT_NE(db_->GetStats().compaction_error.find("No space left"), std::string::npos);
  ASSERT_TRUE(TryPut("still", "s").ok());
  // Space returns: Resume (what DEBUG DISK-FAULT OFF calls) makes the next try come at once.
  fs_->SetMaxFileBytes(0);
  ClearFaults();
  ASSERT_TRUE(db_->Resume().ok());
  const auto compacted_by = std::chrono::steady_clock::now() + 10s;
  while (db_->GetStats().levels[0].files > 0 && std::chrono::steady_clock::now() < compacted_by) {
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(db_->GetStats().levels[0].files, 0);
  EXPECT_EQ(db_->GetStats().compaction_error, "");
  ASSERT_TRUE(db_->CompactAll().ok());
  Reopen();
  ExpectAckedPresent();
  EXPECT_EQ(Scan(), AckedScan());
}

TEST_F(DBCompactionErrorTest, AFullDiskThatBlocksTheLevel0CompactionRefusesWritesWithTheDiskError) {
  options_.l0_compaction_trigger = 3;
  options_.l0_stop_writes_trigger = 4;
  options_.memtable_size = 4 << 10;
  Open();
  // The disk has room for a flush's small table, not for a compaction's larger output.
  fs_->SetFaultErrno(ENOSPC);
  fs_->SetPathFilter(".sst");
  fs_->SetMaxFileBytes(6 << 10);
  Status s;
  for (int i = 0; i < 5000 && s.ok(); i++) {
    s = TryPut("k" + std::to_string(i), std::string(100, 'v'));
  }
  ASSERT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.message().find("No space left on device"), std::string::npos) << s.ToString();
  EXPECT_TRUE(db_->CheckWriteStall().IsIOError());
  EXPECT_TRUE(db_->BackgroundError().ok()) << db_->BackgroundError().ToString();
  EXPECT_GE(db_->GetStats().levels[0].files, 4);
  ExpectAckedPresent();
  fs_->SetMaxFileBytes(0);
  ASSERT_TRUE(db_->Resume().ok());  // the compaction is tried again at once
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!db_->CheckWriteStall().ok() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(20ms);
  }
  ASSERT_TRUE(db_->CheckWriteStall().ok());
  ASSERT_TRUE(TryPut("after", "a").ok());
  Reopen();
  ExpectAckedPresent();
}

TEST_F(DBCompactionErrorTest, ADamagedTableIsReportedNotCompactedAgainAndWritesGoOn) {
  Open();
  ThreeTables();
  const std::string damaged = NewestTable();
  FlipByte(damaged, 100);  // inside its first data block
  testing::internal::CaptureStderr();
  const Status s = db_->CompactAll();
  const std::string log = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find(damaged), std::string::npos) << s.ToString();
  EXPECT_NE(log.find(damaged), std::string::npos) << log;
  EXPECT_NE(log.find("ebb-check --repair"), std::string::npos) << log;
  EXPECT_EQ(log.find("Errors writing"), std::string::npos) << log;
  // Writes are not refused; reads that do not touch the damaged block are served.
  EXPECT_TRUE(db_->BackgroundError().ok()) << db_->BackgroundError().ToString();
  ASSERT_TRUE(TryPut("after", "a").ok());
  EXPECT_EQ(Get("after"), "a");
  EXPECT_EQ(Get("k0-100"), std::string(50, 'a'));
  EXPECT_EQ(Get("k2-100").rfind("ERROR: Corruption", 0), 0u) << Get("k2-100");
  const Stats stats = db_->GetStats();
  ASSERT_EQ(stats.damaged_tables.size(), 1u);
  EXPECT_NE(stats.damaged_tables[0].find(damaged), std::string::npos);
  // The damaged table is not read by compaction again.
  const uint64_t errors = stats.compaction_errors;
  EXPECT_TRUE(db_->CompactAll().IsCorruption());
  EXPECT_FALSE(static_cast<DBImpl*>(db_.get())->RunBackgroundCycle());
  EXPECT_EQ(db_->GetStats().compaction_errors, errors);
}

TEST_F(DBCompactionErrorTest, ADamagedLevel0TableRefusesTheWritesThatNeedItsCompaction) {
  options_.l0_compaction_trigger = 3;
  options_.l0_stop_writes_trigger = 5;
  options_.memtable_size = 4 << 10;
  Open();
  for (int i = 0; i < 40; i++) ASSERT_TRUE(TryPut("first" + std::to_string(i), "v").ok());
  ASSERT_TRUE(db_->FlushMemtable().ok());
  FlipByte(NewestTable(), 20);
  // Level 0 fills up behind the damaged table; the write that needs a new file is refused with
  // the damage, not left waiting.
  Status s;
  for (int i = 0; i < 2000 && s.ok(); i++) {
    s = db_->Put(WriteOptions(), "more" + std::to_string(i), std::string(100, 'm'));
  }
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find("ebb-check --repair"), std::string::npos) << s.ToString();
  EXPECT_TRUE(db_->CheckWriteStall().IsCorruption());
  EXPECT_TRUE(db_->BackgroundError().ok());
}

}  // namespace
}  // namespace ebb::storage
