// DBTest: a fixture that opens a real DB in a fresh temp directory with tiny memtables and files,
// so flushes and compactions happen constantly, and a ManualClock the test drives.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "storage/clock.h"
#include "storage/db.h"

namespace ebb::storage {

// a + b, spelled so GCC 12's -Wrestrict false positive on "literal" + std::string stays quiet.
inline std::string Cat(std::string_view a, const std::string& b) {
  std::string s(a);
  s.append(b);
  return s;
}

class DBTest : public ::testing::Test {
 protected:
  DBTest() : clock_(std::make_shared<ManualClock>(1'000'000)) {
    char tmpl[] = "/tmp/ebb_db_test_XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    options_.clock = clock_;
    options_.memtable_size = 4 << 10;
    options_.block_size = 512;
    options_.target_file_size = 8 << 10;
    options_.level1_max_bytes = 32 << 10;
    options_.level_size_multiplier = 4;
    options_.l0_compaction_trigger = 3;
    options_.wal_fsync = WalFsync::kNo;
    options_.purge_deadline_ms = 1'000'000'000;
  }
  ~DBTest() override {
    db_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  void Open() { ASSERT_TRUE(TryOpen().ok()); }
  Status TryOpen() {
    db_.reset();
    return DB::Open(options_, dir_, &db_);
  }
  void Reopen() { Open(); }

  void Put(const std::string& key, const std::string& value, std::optional<int64_t> ts = {},
           std::optional<int64_t> ttl = {}) {
    WriteOptions wo;
    wo.timestamp_ms = ts;
    wo.ttl_ms = ttl;
    ASSERT_TRUE(db_->Put(wo, key, value).ok());
  }
  void Del(const std::string& key, std::optional<int64_t> ts = {}) {
    WriteOptions wo;
    wo.timestamp_ms = ts;
    ASSERT_TRUE(db_->Delete(wo, key).ok());
  }
  // The value, or "NOT_FOUND".
  std::string Get(const std::string& key, int64_t grace = 0, const Snapshot* snap = nullptr) {
    ReadOptions ro;
    ro.retrieval_grace_ms = grace;
    ro.snapshot = snap;
    Row row;
    Status s = db_->Get(ro, key, &row);
    if (s.IsNotFound()) return "NOT_FOUND";
    if (!s.ok()) return "ERROR: " + s.ToString();
    return row.value;
  }
  // Get through DB::GetPinned: the value, or "NOT_FOUND".
  std::string GetPinned(const std::string& key, int64_t grace = 0, const Snapshot* snap = nullptr) {
    ReadOptions ro;
    ro.retrieval_grace_ms = grace;
    ro.snapshot = snap;
    PinnedRow row;
    Status s = db_->GetPinned(ro, key, &row);
    if (s.IsNotFound()) return "NOT_FOUND";
    if (!s.ok()) return "ERROR: " + s.ToString();
    return std::string(row.value());
  }
  // "k=v,k=v" in iterator order (forward).
  std::string Scan(const ReadOptions& ro = ReadOptions()) {
    auto it = db_->NewIterator(ro);
    std::string out;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      if (!out.empty()) out += ",";
      out += std::string(it->key()) + "=" + std::string(it->value());
    }
    EXPECT_TRUE(it->status().ok()) << it->status().ToString();
    return out;
  }
  std::string ScanReverse(const ReadOptions& ro = ReadOptions()) {
    auto it = db_->NewIterator(ro);
    std::string out;
    for (it->SeekToLast(); it->Valid(); it->Prev()) {
      if (!out.empty()) out += ",";
      out += std::string(it->key()) + "=" + std::string(it->value());
    }
    EXPECT_TRUE(it->status().ok()) << it->status().ToString();
    return out;
  }
  int SstFilesOnDisk() {
    int n = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
      if (entry.path().extension() == ".sst") n++;
    }
    return n;
  }
  int TotalFiles() {
    int n = 0;
    for (const auto& level : db_->GetStats().levels) n += level.files;
    return n;
  }

  std::shared_ptr<ManualClock> clock_;
  Options options_;
  std::string dir_;
  std::unique_ptr<DB> db_;
};

}  // namespace ebb::storage
