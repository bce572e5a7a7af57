// A torn last write in the WAL: when power fails during a write the OS may persist its pages out
// of order, so the log reads as zeros (what the unwritten pages held) followed by valid records.
// Recovery keeps every record before the tear, cuts the rest, says so, and starts; damage that
// is not zeros, followed by valid records, still refuses the start.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "storage/env/posix_file_system.h"
#include "storage/wal/log_reader.h"
#include "tests/file_damage.h"
#include "tests/unit/storage/db_test_fixture.h"

namespace ebb::storage {
namespace {

namespace fs = std::filesystem;

class DBTornWriteTest : public DBTest {
 protected:
  DBTornWriteTest() {
    options_.wal_fsync = WalFsync::kAlways;
    options_.memtable_size = 1 << 20;  // everything stays in the one WAL
  }

  // Writes `count` keys ("k00".."kNN") with `value_size`-byte values and closes the DB; returns
  // the WAL's path and, per record, the file offset where it starts.
  void WriteAndClose(int count, size_t value_size) {
    Open();
    for (int i = 0; i < count; i++) Put(Key(i), Value(i, value_size));
    db_.reset();
    for (const auto& e : fs::directory_iterator(dir_)) {
      if (e.path().extension() == ".log" && fs::file_size(e.path()) > 0) wal_ = e.path().string();
    }
    ASSERT_FALSE(wal_.empty());
    std::unique_ptr<SequentialFile> file;
    ASSERT_TRUE(DefaultFileSystem()->NewSequentialFile(wal_, &file).ok());
    LogReader reader(std::move(file), wal_);
    std::string record;
    Status s;
    starts_.push_back(0);
    while (reader.ReadRecord(&record, &s)) starts_.push_back(reader.LastRecordEndOffset());
    ASSERT_TRUE(s.ok()) << s.ToString();
    starts_.pop_back();
    ASSERT_EQ(starts_.size(), static_cast<size_t>(count));
  }
  static std::string Key(int i) { return "k" + std::to_string(100 + i); }
  static std::string Value(int i, size_t size) {
    std::string v(size, static_cast<char>('a' + i % 26));
    v.replace(0, std::to_string(i).size(), std::to_string(i));
    return v;
  }
  void Overwrite(uint64_t offset, const std::string& bytes) {
    test::OverwriteAt(wal_, offset, bytes);
  }
  // Reopens, capturing what the engine logs.
  Status ReopenLogging(std::string* log) {
    testing::internal::CaptureStderr();
    const Status s = TryOpen();
    *log = testing::internal::GetCapturedStderr();
    return s;
  }

  std::string wal_;
  std::vector<uint64_t> starts_;
};

TEST_F(DBTornWriteTest, ZerosFromARecordThenValidRecordsKeepEverythingBeforeAndStart) {
  WriteAndClose(40, 300);
  // Records 30.. were one write; its first pages never reached the disk, its last ones did.
  const uint64_t tear = starts_[30];
  Overwrite(tear, std::string(starts_[33] + 100 - tear, '\0'));
  std::string log;
  const Status s = ReopenLogging(&log);
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (int i = 0; i < 30; i++) EXPECT_EQ(Get(Key(i)), Value(i, 300)) << i;
  for (int i = 30; i < 40; i++) EXPECT_EQ(Get(Key(i)), "NOT_FOUND") << i;
  EXPECT_NE(log.find("torn write at offset " + std::to_string(tear)), std::string::npos) << log;
  EXPECT_NE(log.find("6 record(s)"), std::string::npos) << log;  // 34..39 were cut
  // The cut is durable: the next start neither warns nor finds the cut records.
  Put("after", "y");
  Reopen();
  for (int i = 30; i < 40; i++) EXPECT_EQ(Get(Key(i)), "NOT_FOUND") << i;
  EXPECT_EQ(Get("after"), "y");
}

TEST_F(DBTornWriteTest, AZeroSectorInsideARecordIsATornWriteToo) {
  WriteAndClose(12, 3000);
  // A 512-byte aligned sector inside record 5's value never reached the disk.
  const uint64_t sector = (starts_[5] + 1024) / 512 * 512;
  ASSERT_LT(sector + 512, starts_[6]);
  Overwrite(sector, std::string(512, '\0'));
  std::string log;
  const Status s = ReopenLogging(&log);
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (int i = 0; i < 5; i++) EXPECT_EQ(Get(Key(i)), Value(i, 3000)) << i;
  for (int i = 5; i < 12; i++) EXPECT_EQ(Get(Key(i)), "NOT_FOUND") << i;
  EXPECT_NE(log.find("torn write at offset " + std::to_string(starts_[5])), std::string::npos)
      << log;
}

TEST_F(DBTornWriteTest, ChangedBytesFollowedByValidRecordsStillRefuseTheStart) {
  WriteAndClose(40, 300);
  Overwrite(starts_[30] + 50, "garbage");
  const Status s = TryOpen();
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find(wal_), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("offset " + std::to_string(starts_[30])), std::string::npos)
      << s.ToString();
}

}  // namespace
}  // namespace ebb::storage
