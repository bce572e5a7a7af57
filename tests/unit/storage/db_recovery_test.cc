// Failure paths around the manifest: a compaction whose manifest edit fails keeps its outputs,
// open refuses a manifest that names a missing table (and deletes nothing), and a new manifest
// that CURRENT already names is never deleted when the directory fsync after the rename fails.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "tests/unit/storage/db_fault_fixture.h"

namespace ebb::storage {
namespace {

namespace fs = std::filesystem;

class DBRecoveryTest : public DBFaultTest {
 protected:
  // Three L0 files of ten keys each, every one acknowledged.
  void ThreeTables() {
    for (int t = 0; t < 3; t++) {
      for (int i = 0; i < 10; i++) {
        ASSERT_TRUE(
            TryPut("k" + std::to_string(t) + std::to_string(i), "v" + std::to_string(t)).ok());
      }
      ASSERT_TRUE(db_->FlushMemtable().ok());
    }
  }
  std::set<std::string> FileNames() {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.insert(e.path().filename().string());
    return names;
  }
};

TEST_F(DBRecoveryTest, FailedCompactionManifestEditKeepsOutputsAndReopenLosesNothing) {
  Open();
  ThreeTables();
  fs_->SetPathFilter("MANIFEST");
  fs_->SetFailSyncs(true);
  const Status s = db_->CompactAll();
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(db_->BackgroundError().IsIOError()) << db_->BackgroundError().ToString();
  ExpectAckedPresent();
  EXPECT_EQ(Scan(), AckedScan());
  // The edit (inputs out, outputs in) may be on disk although its fdatasync failed.
  db_.reset();
  ClearFaults();
  Open();
  ExpectAckedPresent();
  EXPECT_EQ(Scan(), AckedScan());
  ASSERT_TRUE(db_->CompactAll().ok());
  Reopen();
  EXPECT_EQ(Scan(), AckedScan());
}

TEST_F(DBRecoveryTest, FailedCompactionManifestEditThenResumeLosesNothing) {
  Open();
  ThreeTables();
  fs_->SetPathFilter("MANIFEST");
  fs_->SetFailSyncs(true);
  ASSERT_FALSE(db_->CompactAll().ok());
  ClearFaults();
  ASSERT_TRUE(db_->Resume().ok());
  EXPECT_EQ(Scan(), AckedScan());
  ASSERT_TRUE(TryPut("after", "y").ok());
  Reopen();
  EXPECT_EQ(Scan(), AckedScan());
}

TEST_F(DBRecoveryTest, OpenRefusesAManifestNamingAMissingTableAndDeletesNothing) {
  Open();
  ThreeTables();
  ASSERT_TRUE(TryPut("in-wal", "w").ok());
  db_.reset();
  std::string victim;
  for (const auto& name : FileNames()) {
    if (name.ends_with(".sst")) victim = name;
  }
  ASSERT_FALSE(victim.empty());
  fs::remove(dir_ + "/" + victim);
  // An unreferenced table the open would otherwise clean up.
  fs::copy_file(dir_ + "/" + *FileNames().begin(), dir_ + "/999999.sst");
  const std::set<std::string> before = FileNames();
  const Status s = TryOpen();
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find(victim), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("missing"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("ebb-check --repair"), std::string::npos) << s.ToString();
  EXPECT_EQ(FileNames(), before);
}

TEST_F(DBRecoveryTest, OpenRefusesATableShorterThanTheManifestSays) {
  Open();
  ThreeTables();
  db_.reset();
  std::string victim;
  for (const auto& name : FileNames()) {
    if (name.ends_with(".sst")) victim = dir_ + "/" + name;
  }
  fs::resize_file(victim, fs::file_size(victim) - 10);
  const Status s = TryOpen();
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find(victim), std::string::npos) << s.ToString();
}

TEST_F(DBRecoveryTest, FailedDirectorySyncAfterCurrentIsRenamedKeepsTheManifestItNames) {
  Open();
  ThreeTables();
  ASSERT_TRUE(TryPut("in-wal", "w").ok());
  // A manifest write fails: Resume must write a new manifest and point CURRENT at it.
  fs_->SetPathFilter("MANIFEST");
  fs_->SetFailSyncs(true);
  ASSERT_FALSE(db_->FlushMemtable().ok());
  ClearFaults();
  // The rename over CURRENT succeeds; the directory fsync after it fails.
  fs_->SetFailDirSyncs(true);
  ASSERT_FALSE(db_->Resume().ok());
  db_.reset();
  ClearFaults();
  Open();  // CURRENT may name the new manifest: it must still be there
  ExpectAckedPresent();
  EXPECT_EQ(Scan(), AckedScan());
}

}  // namespace
}  // namespace ebb::storage
