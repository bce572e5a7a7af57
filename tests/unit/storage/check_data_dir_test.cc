// DataDirChecker (ebb-check) on real data directories written by the DB: a clean directory
// passes; a flipped byte in an SST, a truncated manifest and a corrupt WAL record in the middle
// are each reported as damage naming the file and the offset; torn tails are warnings.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "storage/check/data_dir_checker.h"
#include "storage/db.h"
#include "storage/env/file.h"
#include "storage/wal/log_reader.h"
#include "tests/file_damage.h"

namespace ebb::storage {
namespace {

namespace fs = std::filesystem;
using test::FlipByte;

class CheckDataDirTest : public ::testing::Test {
 protected:
  CheckDataDirTest() {
    char tmpl[] = "/tmp/ebb_check_test_XXXXXX";
    dir_ = ::mkdtemp(tmpl);
  }
  ~CheckDataDirTest() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // Writes `flushed` keys and flushes them to an SST, then `unflushed` more that stay in the WAL;
  // closes the DB.
  void Populate(int flushed, int unflushed) {
    Options options;
    options.wal_fsync = WalFsync::kNo;
    options.compression = Compression::kNone;
    options.block_size = 256;
    std::unique_ptr<DB> db;
    ASSERT_TRUE(DB::Open(options, dir_, &db).ok());
    for (int i = 0; i < flushed; ++i) {
      ASSERT_TRUE(
          db->Put(WriteOptions(), "flushed" + std::to_string(i), "value" + std::to_string(i)).ok());
    }
    ASSERT_TRUE(db->FlushMemtable().ok());
    for (int i = 0; i < unflushed; ++i) {
      ASSERT_TRUE(db->Put(WriteOptions(), "wal" + std::to_string(i), std::string(40, 'w')).ok());
    }
  }

  // Paths of the files with `suffix` (".sst", ".log") or whose name starts with `prefix`.
  std::vector<std::string> Files(const std::string& suffix, bool prefix = false) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) {
      const std::string name = e.path().filename().string();
      const bool match =
          prefix ? name.rfind(suffix, 0) == 0
                 : name.size() > suffix.size() &&
                       name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
      if (match && fs::file_size(e.path()) > 0) out.push_back(e.path().string());
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  CheckReport Check() { return DataDirChecker(dir_).Run(); }

  static std::vector<CheckIssue> Of(const CheckReport& r, CheckIssue::Severity severity) {
    std::vector<CheckIssue> out;
    for (const auto& i : r.issues) {
      if (i.severity == severity) out.push_back(i);
    }
    return out;
  }

  std::string dir_;
};

TEST_F(CheckDataDirTest, CleanDirectoryPasses) {
  Populate(200, 20);
  const CheckReport r = Check();
  EXPECT_FALSE(r.damaged()) << r.ToString(true);
  EXPECT_TRUE(Of(r, CheckIssue::Severity::kWarning).empty()) << r.ToString(true);
  EXPECT_GE(r.tables, 1u);
  EXPECT_GE(r.wals, 1u);
  const std::string text = r.ToString(true);
  EXPECT_NE(text.find("ok: MANIFEST-"), std::string::npos) << text;
  EXPECT_NE(text.find(".sst: level 0, 200 entries"), std::string::npos) << text;
  EXPECT_NE(text.find("20 write(s)"), std::string::npos) << text;
  EXPECT_NE(text.find("clean"), std::string::npos) << text;
}

TEST_F(CheckDataDirTest, EmptyOrMissingDirectoryIsDamaged) {
  EXPECT_TRUE(Check().damaged());  // no CURRENT
  EXPECT_TRUE(DataDirChecker(dir_ + "/nope").Run().damaged());
}

TEST_F(CheckDataDirTest, FlippedByteInSstIsReportedWithFileAndOffset) {
  Populate(200, 0);
  const auto ssts = Files(".sst");
  ASSERT_EQ(ssts.size(), 1u);
  // Inside the second data block (blocks are ~256 bytes; the first starts at 0).
  const uint64_t size = fs::file_size(ssts[0]);
  ASSERT_GT(size, 700u);
  FlipByte(ssts[0], 300);
  const CheckReport r = Check();
  ASSERT_TRUE(r.damaged()) << r.ToString(false);
  const auto damage = Of(r, CheckIssue::Severity::kDamage);
  ASSERT_EQ(damage.size(), 1u) << r.ToString(false);
  EXPECT_EQ(damage[0].file, ssts[0]);
  EXPECT_NE(damage[0].what.find("checksum mismatch at offset "), std::string::npos)
      << damage[0].what;
  // The reported block contains the flipped byte.
  const uint64_t at = std::stoull(damage[0].what.substr(damage[0].what.rfind(' ') + 1));
  EXPECT_GT(at, 0u);
  EXPECT_LE(at, 300u);
  EXPECT_NE(r.ToString(false).find("damaged: " + ssts[0] + ": "), std::string::npos);
}

TEST_F(CheckDataDirTest, FlippedByteInSstFooterIsReported) {
  Populate(50, 0);
  const auto ssts = Files(".sst");
  ASSERT_EQ(ssts.size(), 1u);
  FlipByte(ssts[0], fs::file_size(ssts[0]) - 3);  // inside the magic number
  const auto damage = Of(Check(), CheckIssue::Severity::kDamage);
  ASSERT_EQ(damage.size(), 1u);
  EXPECT_EQ(damage[0].file, ssts[0]);
}

TEST_F(CheckDataDirTest, TruncatedManifestIsReportedWithFileAndOffset) {
  Populate(50, 5);
  const auto manifests = Files("MANIFEST-", true);
  ASSERT_EQ(manifests.size(), 1u);
  // Cut inside the first edit (the snapshot of the file set): nothing is left to recover from.
  fs::resize_file(manifests[0], 10);
  const CheckReport r = Check();
  ASSERT_TRUE(r.damaged()) << r.ToString(false);
  const auto damage = Of(r, CheckIssue::Severity::kDamage);
  ASSERT_GE(damage.size(), 1u);
  EXPECT_EQ(damage[0].file, manifests[0]);
  EXPECT_NE(damage[0].what.find("data ends at offset 0"), std::string::npos) << damage[0].what;
  const auto warnings = Of(r, CheckIssue::Severity::kWarning);
  ASSERT_GE(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].what.find("torn tail at offset 0"), 0u) << warnings[0].what;
}

TEST_F(CheckDataDirTest, ManifestCutInItsLastEditIsReportedWithTheTableItLost) {
  Populate(50, 5);
  const auto manifests = Files("MANIFEST-", true);
  ASSERT_EQ(manifests.size(), 1u);
  // Find where the last edit starts, then cut 3 bytes into it.
  std::vector<uint64_t> ends;
  {
    std::unique_ptr<SequentialFile> file;
    ASSERT_TRUE(DefaultFileSystem()->NewSequentialFile(manifests[0], &file).ok());
    LogReader reader(std::move(file), manifests[0]);
    std::string record;
    Status s;
    while (reader.ReadRecord(&record, &s)) ends.push_back(reader.LastRecordEndOffset());
  }
  ASSERT_GE(ends.size(), 2u);
  const uint64_t last_start = ends[ends.size() - 2];
  fs::resize_file(manifests[0], last_start + 3);
  // The cut edit is the flush that added the table; its WAL is gone, so the rows are lost.
  const CheckReport r = Check();
  const auto warnings = Of(r, CheckIssue::Severity::kWarning);
  ASSERT_EQ(warnings.size(), 1u) << r.ToString(false);
  EXPECT_EQ(warnings[0].file, manifests[0]);
  EXPECT_EQ(warnings[0].what.find("torn tail at offset " + std::to_string(last_start)), 0u)
      << warnings[0].what;
  const auto damage = Of(r, CheckIssue::Severity::kDamage);
  ASSERT_EQ(damage.size(), 1u) << r.ToString(false);
  EXPECT_EQ(damage[0].file, Files(".sst").at(0));
  EXPECT_NE(damage[0].what.find("holds writes up to sequence 50"), std::string::npos)
      << damage[0].what;
}

TEST_F(CheckDataDirTest, CorruptWalMiddleRecordIsReportedWithFileAndOffset) {
  Populate(0, 10);
  std::string wal;
  std::vector<uint64_t> ends;
  for (const std::string& path : Files(".log")) {
    std::unique_ptr<SequentialFile> file;
    ASSERT_TRUE(DefaultFileSystem()->NewSequentialFile(path, &file).ok());
    LogReader reader(std::move(file), path);
    std::string record;
    Status s;
    std::vector<uint64_t> e;
    while (reader.ReadRecord(&record, &s)) e.push_back(reader.LastRecordEndOffset());
    if (e.size() == 10) wal = path, ends = e;
  }
  ASSERT_FALSE(wal.empty()) << "no WAL holds the 10 writes";
  // A byte in the payload of the 5th record: records 6..10 still follow intact.
  const uint64_t fifth = ends[3];
  FlipByte(wal, fifth + 20);
  const CheckReport r = Check();
  ASSERT_TRUE(r.damaged()) << r.ToString(false);
  const auto damage = Of(r, CheckIssue::Severity::kDamage);
  ASSERT_EQ(damage.size(), 1u) << r.ToString(false);
  EXPECT_EQ(damage[0].file, wal);
  EXPECT_NE(damage[0].what.find("checksum mismatch at offset " + std::to_string(fifth)),
            std::string::npos)
      << damage[0].what;
}

TEST_F(CheckDataDirTest, TornWalTailIsAWarningNotDamage) {
  Populate(0, 10);
  std::string wal;
  for (const std::string& path : Files(".log")) {
    if (fs::file_size(path) > 100) wal = path;
  }
  ASSERT_FALSE(wal.empty());
  const uint64_t size = fs::file_size(wal);
  fs::resize_file(wal, size - 5);
  const CheckReport r = Check();
  EXPECT_FALSE(r.damaged()) << r.ToString(false);
  const auto warnings = Of(r, CheckIssue::Severity::kWarning);
  ASSERT_EQ(warnings.size(), 1u) << r.ToString(false);
  EXPECT_EQ(warnings[0].file, wal);
  EXPECT_EQ(warnings[0].what.find("torn tail at offset "), 0u) << warnings[0].what;
}

TEST_F(CheckDataDirTest, MissingLiveSstIsDamage) {
  Populate(50, 0);
  const auto ssts = Files(".sst");
  ASSERT_EQ(ssts.size(), 1u);
  fs::remove(ssts[0]);
  const auto damage = Of(Check(), CheckIssue::Severity::kDamage);
  ASSERT_EQ(damage.size(), 1u);
  EXPECT_EQ(damage[0].file, ssts[0]);
  EXPECT_NE(damage[0].what.find("missing"), std::string::npos) << damage[0].what;
}

}  // namespace
}  // namespace ebb::storage
