// DBFaultTest: DBTest over a FaultInjectionFileSystem (storage/env/), with a record of the
// writes the DB acknowledged and helpers to check them after faults, reopens and power cuts.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "storage/env/fault_injection_file_system.h"
#include "storage/env/posix_file_system.h"
#include "tests/unit/storage/db_test_fixture.h"

namespace ebb::storage {

class DBFaultTest : public DBTest {
 protected:
  DBFaultTest() : fs_(std::make_shared<FaultInjectionFileSystem>(DefaultFileSystem())) {
    options_.file_system = fs_;
    options_.memtable_size = 1 << 20;  // flushes happen only when a test asks
    options_.wal_fsync = WalFsync::kAlways;
  }

  Status TryPut(const std::string& key, const std::string& value) {
    Status s = db_->Put(WriteOptions(), key, value);
    if (s.ok()) acked_[key] = value;
    return s;
  }
  // Every acknowledged write is readable with its value.
  void ExpectAckedPresent() {
    for (const auto& [key, value] : acked_) EXPECT_EQ(Get(key), value) << key;
  }
  std::string AckedScan() const {
    std::string out;
    for (const auto& [key, value] : acked_) {
      if (!out.empty()) out += ",";
      out += key + "=" + value;
    }
    return out;
  }
  // Polls (bounded) until the DB has left the error state by itself.
  bool WaitForAutoResume(std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      if (db_->BackgroundError().ok()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return db_->BackgroundError().ok();
  }
  // Closes the DB as a power cut would: nothing more reaches the disk, then everything not
  // fsynced is dropped — the file creations and renames no directory fsync covered too, and
  // with `torn_seed` a seeded half of the unsynced pages is kept instead, the rest zeroed.
  // Reopens with the faults cleared.
  void PowerCutAndReopen(std::optional<uint64_t> torn_seed = std::nullopt) {
    fs_->Freeze();
    db_.reset();
    ClearFaults();
    FaultInjectionFileSystem::DropOptions drop;
    drop.directory_entries = true;
    drop.torn_pages = torn_seed.has_value();
    drop.seed = torn_seed.value_or(0);
    ASSERT_TRUE(fs_->DropUnsyncedData(drop).ok());
    fs_->Thaw();
    Open();
  }
  void ClearFaults() {
    fs_->SetFailWrites(false);
    fs_->SetFailSyncs(false);
    fs_->SetFailDirSyncs(false);
    fs_->SetFailNewFiles(false);
    fs_->SetPathFilter("");
  }
  int FilesWithExtension(const std::string& ext) {
    int n = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
      if (entry.path().extension() == ext) n++;
    }
    return n;
  }

  std::shared_ptr<FaultInjectionFileSystem> fs_;
  std::map<std::string, std::string> acked_;
};

}  // namespace ebb::storage
