// DataDirRepairer (ebb-check --repair) on data directories the DB wrote and that were then
// damaged: a flipped byte in a table, a table the manifest names gone, CURRENT naming a missing
// manifest, a damaged WAL. After the repair the DB opens, holds everything that was readable,
// compacts, passes ebb-check, and nothing deleted comes back.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "storage/check/data_dir_checker.h"
#include "storage/check/data_dir_repairer.h"
#include "storage/db.h"
#include "storage/env/file.h"
#include "storage/wal/log_reader.h"
#include "storage/write_batch.h"
#include "tests/file_damage.h"

namespace ebb::storage {
namespace {

namespace fs = std::filesystem;

class RepairDataDirTest : public ::testing::Test {
 protected:
  RepairDataDirTest() {
    char tmpl[] = "/tmp/ebb_repair_test_XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    options_.wal_fsync = WalFsync::kNo;
    options_.compression = Compression::kNone;
    options_.block_size = 256;
    options_.l0_compaction_trigger = 100;
    options_.l0_stop_writes_trigger = 100;
  }
  ~RepairDataDirTest() override {
    db_.reset();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  void Open() { ASSERT_TRUE(DB::Open(options_, dir_, &db_).ok()); }
  void Close() { db_.reset(); }
  void Put(const std::string& key, const std::string& value) {
    ASSERT_TRUE(db_->Put(WriteOptions(), key, value).ok());
    model_[key] = value;
  }
  void Delete(const std::string& key) {
    ASSERT_TRUE(db_->Delete(WriteOptions(), key).ok());
    model_.erase(key);
  }
  // Table `t`'s keys: "t<t>-<i>".
  void Table(int t, int count = 60) {
    for (int i = 0; i < count; i++) {
      Put("t" + std::to_string(t) + "-" + std::to_string(100 + i), std::string(40, 'a' + t));
    }
    ASSERT_TRUE(db_->FlushMemtable().ok());
  }
  std::string Get(const std::string& key) {
    Row row;
    Status s = db_->Get(ReadOptions(), key, &row);
    if (s.IsNotFound()) return "NOT_FOUND";
    if (!s.ok()) return "ERROR: " + s.ToString();
    return row.value;
  }
  std::vector<std::string> Files(const std::string& suffix) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) {
      const std::string name = e.path().filename().string();
      if (name.ends_with(suffix)) out.push_back(name);
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  void FlipByte(const std::string& name, uint64_t offset) {
    test::FlipByte(dir_ + "/" + name, offset);
  }
  RepairReport Repair() {
    RepairReport report;
    const Status s = DataDirRepairer(dir_).Run(&report);
    EXPECT_TRUE(s.ok()) << s.ToString() << "\n" << report.ToString();
    return report;
  }
  // After a repair: the directory checks clean, the DB opens and compacts, and every key in
  // the model that `lost` does not name reads back exactly; lost keys are absent.
  void ExpectRepaired(const std::function<bool(const std::string&)>& lost) {
    const CheckReport check = DataDirChecker(dir_).Run();
    EXPECT_FALSE(check.damaged()) << check.ToString(true);
    Open();
    int kept = 0;
    for (const auto& [key, value] : model_) {
      if (lost(key)) {
        EXPECT_EQ(Get(key), "NOT_FOUND") << key;
      } else {
        EXPECT_EQ(Get(key), value) << key;
        kept++;
      }
    }
    EXPECT_GT(kept, 0);
    ASSERT_TRUE(db_->CompactAll().ok());
    Put("after-repair", "x");
    Close();
    Open();
    EXPECT_EQ(Get("after-repair"), "x");
  }

  Options options_;
  std::string dir_;
  std::unique_ptr<DB> db_;
  std::map<std::string, std::string> model_;
};

TEST_F(RepairDataDirTest, ADamagedBlockLosesOnlyItsEntries) {
  Open();
  Table(0);
  Table(1);
  Table(2);
  Put("in-wal", "w");
  Close();
  const std::string damaged = Files(".sst")[1];  // table 1
  FlipByte(damaged, 300);                        // its second data block
  ASSERT_TRUE(DataDirChecker(dir_).Run().damaged());
  const RepairReport report = Repair();
  EXPECT_EQ(report.tables_rewritten, 1u) << report.ToString();
  EXPECT_GE(report.damaged_blocks, 1u);
  EXPECT_NE(report.ToString().find(damaged), std::string::npos) << report.ToString();
  EXPECT_EQ(report.wal_records, 1u);
  EXPECT_TRUE(fs::exists(dir_ + "/lost/" + damaged));
  // At most the damaged block's entries (256-byte blocks: a handful) are lost, all table 1's.
  std::set<std::string> lost;
  Open();
  for (const auto& [key, value] : model_) {
    if (Get(key) != value) lost.insert(key);
  }
  Close();
  EXPECT_GE(lost.size(), 1u);
  EXPECT_LE(lost.size(), 8u);
  for (const auto& key : lost) EXPECT_EQ(key.rfind("t1-", 0), 0u) << key;
  ExpectRepaired([&](const std::string& key) { return lost.count(key) > 0; });
}

TEST_F(RepairDataDirTest, DeletedKeysStayDeletedAndLeftOverTablesAreSetAside) {
  Open();
  Table(0);
  // A copy of this table as it is now, which a finished compaction would leave behind if its
  // deletion were cut short.
  const std::string old_table = Files(".sst")[0];
  fs::copy_file(dir_ + "/" + old_table, dir_ + "/leftover.tmp");
  for (int i = 0; i < 30; i++) Delete("t0-" + std::to_string(100 + i));
  ASSERT_TRUE(db_->CompactAll().ok());
  Table(1);
  Close();
  fs::rename(dir_ + "/leftover.tmp", dir_ + "/" + old_table);
  FlipByte(Files(".sst").back(), 300);  // damage elsewhere calls for a repair
  const RepairReport report = Repair();
  EXPECT_NE(report.ToString().find(old_table + ": left over"), std::string::npos)
      << report.ToString();
  std::set<std::string> damaged_keys;
  Open();
  for (int i = 0; i < 30; i++) {
    EXPECT_EQ(Get("t0-" + std::to_string(100 + i)), "NOT_FOUND") << i;  // still deleted
  }
  for (const auto& [key, value] : model_) {
    if (Get(key) != value) damaged_keys.insert(key);
  }
  Close();
  ExpectRepaired([&](const std::string& key) { return damaged_keys.count(key) > 0; });
}

// Range deletions (FLUSHDB, FLUSHALL) hold across a repair, whether the manifest recorded them
// or only a WAL record still holds them.
TEST_F(RepairDataDirTest, RangeDeletionsStayInForce) {
  Open();
  Table(0);
  Table(1);
  Table(2);
  ASSERT_TRUE(db_->DeleteRange({{"t0-", "t0."}}).ok());  // the manifest records it
  WriteBatch batch;
  batch.Put(WriteOptions(), "t1-before", "x", 0);
  batch.DeleteRange({"t1-", "t1."});  // only a WAL record holds it: the repair converts it
  batch.Put(WriteOptions(), "t1-late", "y", 0);
  ASSERT_TRUE(db_->Write(WriteOptions(), batch).ok());
  Close();
  for (auto it = model_.begin(); it != model_.end();) {
    it = it->first.starts_with("t0-") || it->first.starts_with("t1-") ? model_.erase(it) : ++it;
  }
  model_["t1-late"] = "y";
  Repair();
  Open();
  for (int i = 0; i < 60; i++) {
    EXPECT_EQ(Get("t0-" + std::to_string(100 + i)), "NOT_FOUND") << i;
    EXPECT_EQ(Get("t1-" + std::to_string(100 + i)), "NOT_FOUND") << i;
  }
  EXPECT_EQ(Get("t1-before"), "NOT_FOUND");
  Close();
  ExpectRepaired([](const std::string&) { return false; });
}

TEST_F(RepairDataDirTest, ATableTheManifestNamesIsGoneTheRestOpens) {
  Open();
  Table(0);
  Table(1);
  Table(2);
  Close();
  const std::string gone = Files(".sst")[0];
  fs::remove(dir_ + "/" + gone);
  std::unique_ptr<DB> refused;
  const Status open = DB::Open(options_, dir_, &refused);
  ASSERT_TRUE(open.IsCorruption()) << open.ToString();
  const RepairReport report = Repair();
  EXPECT_EQ(report.tables_dropped, 1u) << report.ToString();
  EXPECT_NE(report.ToString().find(gone), std::string::npos) << report.ToString();
  ExpectRepaired([](const std::string& key) { return key.rfind("t0-", 0) == 0; });
}

TEST_F(RepairDataDirTest, CurrentNamingAMissingManifestFallsBackToTheNewestThatReplays) {
  Open();
  Table(0);
  Put("in-wal", "w");
  Close();
  std::ofstream(dir_ + "/CURRENT", std::ios::trunc) << "MANIFEST-999999\n";
  std::unique_ptr<DB> refused;
  const Status open = DB::Open(options_, dir_, &refused);
  ASSERT_TRUE(open.IsCorruption()) << open.ToString();
  EXPECT_NE(open.message().find("ebb-check --repair"), std::string::npos) << open.ToString();
  const RepairReport report = Repair();
  EXPECT_NE(report.ToString().find("starting from MANIFEST-"), std::string::npos)
      << report.ToString();
  ExpectRepaired([](const std::string&) { return false; });
}

TEST_F(RepairDataDirTest, ADamagedWalIsReadOnPastItsDamage) {
  options_.memtable_size = 1 << 20;
  Open();
  // Records in three 32 KiB blocks.
  for (int i = 0; i < 300; i++) Put("w" + std::to_string(1000 + i), std::string(300, 'w'));
  Close();
  const std::string wal = Files(".log").back();
  ASSERT_GT(fs::file_size(dir_ + "/" + wal), 70000u);
  FlipByte(wal, 40000);  // inside the second block
  std::unique_ptr<DB> refused;
  ASSERT_TRUE(DB::Open(options_, dir_, &refused).IsCorruption());
  const RepairReport report = Repair();
  EXPECT_GE(report.wal_damage, 1u) << report.ToString();
  EXPECT_GE(report.wal_records, 190u) << report.ToString();  // all but a block's worth
  // The records of the damaged block are lost (about 32 KiB / 320 bytes); every other one is
  // there, including those after the damage.
  std::set<std::string> lost;
  Open();
  for (const auto& [key, value] : model_) {
    if (Get(key) != value) lost.insert(key);
  }
  EXPECT_EQ(Get("w1299"), std::string(300, 'w'));
  Close();
  EXPECT_GE(lost.size(), 1u);
  EXPECT_LE(lost.size(), 110u);
  ExpectRepaired([&](const std::string& key) { return lost.count(key) > 0; });
}

TEST_F(RepairDataDirTest, ARunningServersDirectoryIsRefused) {
  Open();
  Table(0);
  RepairReport report;
  const Status s = DataDirRepairer(dir_).Run(&report);
  EXPECT_TRUE(s.IsBusy()) << s.ToString();
}

}  // namespace
}  // namespace ebb::storage
