// The WAL recovery flow on real files: records written through PosixFileSystem, a power cut
// simulated by FaultInjectionFileSystem::DropUnsyncedData, the reader finding the torn tail,
// truncation, and appending again. Plus robustness of the reader on arbitrary bytes.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "storage/env/fault_injection_file_system.h"
#include "storage/env/posix_file_system.h"
#include "storage/wal/log_format.h"
#include "storage/wal/log_reader.h"
#include "storage/wal/log_writer.h"

namespace ebb::storage {
namespace {

class WalRecoveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ebb_wal_test_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/000001.log";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::vector<std::string> ReadAll(FileSystem& fs, Status* status, bool* torn, uint64_t* cut) {
    std::unique_ptr<SequentialFile> file;
    EXPECT_TRUE(fs.NewSequentialFile(path_, &file).ok());
    LogReader reader(std::move(file), path_);
    std::vector<std::string> out;
    std::string record;
    for (int i = 0; i < 100000 && reader.ReadRecord(&record, status); ++i) out.push_back(record);
    *torn = reader.torn_tail();
    *cut = reader.torn_tail_offset();
    return out;
  }

  std::string dir_, path_;
};

TEST_F(WalRecoveryTest, PowerCutLosesOnlyUnsyncedRecordsThenAppendContinues) {
  auto fs = std::make_shared<FaultInjectionFileSystem>(DefaultFileSystem());
  const std::string big(50000, 'b');  // spans blocks
  {
    std::unique_ptr<WritableFile> file;
    ASSERT_TRUE(fs->NewWritableFile(path_, &file).ok());
    LogWriter writer(std::move(file));
    ASSERT_TRUE(writer.AddRecord("synced-1").ok());
    ASSERT_TRUE(writer.AddRecord(big).ok());
    ASSERT_TRUE(writer.Sync().ok());
    ASSERT_TRUE(writer.AddRecord("unsynced").ok());
    ASSERT_TRUE(writer.Flush().ok());
  }
  // The power cut keeps the synced prefix plus part of the unsynced record.
  uint64_t size = 0;
  ASSERT_TRUE(fs->GetFileSize(path_, &size).ok());
  ASSERT_TRUE(fs->DropUnsyncedData().ok());
  uint64_t synced = 0;
  ASSERT_TRUE(fs->GetFileSize(path_, &synced).ok());
  ASSERT_LT(synced, size);
  ASSERT_TRUE(fs->TruncateFile(path_, synced).ok());
  {
    // Simulate a partly written page: append a few bytes of the lost record's header.
    std::unique_ptr<WritableFile> file;
    ASSERT_TRUE(DefaultFileSystem()->NewAppendableFile(path_, &file).ok());
    ASSERT_TRUE(file->Append(std::string("\x12\x34\x56", 3)).ok());
  }
  Status s;
  bool torn = false;
  uint64_t cut = 0;
  auto records = ReadAll(*fs, &s, &torn, &cut);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(torn);
  EXPECT_EQ(cut, synced);
  EXPECT_EQ(records, (std::vector<std::string>{"synced-1", big}));

  // Recovery: truncate at the cut and continue appending to the same file.
  ASSERT_TRUE(fs->TruncateFile(path_, cut).ok());
  {
    std::unique_ptr<WritableFile> file;
    ASSERT_TRUE(fs->NewAppendableFile(path_, &file).ok());
    LogWriter writer(std::move(file));
    ASSERT_TRUE(writer.AddRecord("after-recovery").ok());
    ASSERT_TRUE(writer.Sync().ok());
    ASSERT_TRUE(writer.Close().ok());
  }
  records = ReadAll(*fs, &s, &torn, &cut);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_FALSE(torn);
  EXPECT_EQ(records, (std::vector<std::string>{"synced-1", big, "after-recovery"}));
}

TEST_F(WalRecoveryTest, FailedSyncSurfacesAndBreaksTheWriter) {
  auto fs = std::make_shared<FaultInjectionFileSystem>(DefaultFileSystem());
  std::unique_ptr<WritableFile> file;
  ASSERT_TRUE(fs->NewWritableFile(path_, &file).ok());
  LogWriter writer(std::move(file));
  ASSERT_TRUE(writer.AddRecord("a").ok());
  fs->SetFailSyncs(true);
  Status s = writer.Sync();
  EXPECT_TRUE(s.IsIOError());
  EXPECT_EQ(s.message(), "fdatasync " + path_ + ": injected fault");
  fs->SetFailSyncs(false);
  EXPECT_TRUE(writer.AddRecord("b").IsIOError());  // the DB must switch to a new log
}

TEST(WalRobustnessTest, ArbitraryBytesNeverCrashAndNeverYieldUncheckedRecords) {
  std::mt19937 rng(99);
  for (int trial = 0; trial < 200; ++trial) {
    std::string bytes(rng() % (3 * log::kBlockSize), '\0');
    const int mode = trial % 3;  // random, zeros with noise, sparse headers
    for (char& c : bytes) {
      c = mode == 0 ? static_cast<char>(rng()) : (rng() % 50 == 0 ? static_cast<char>(rng()) : 0);
    }
    class Source final : public SequentialFile {
     public:
      explicit Source(std::string s) : s_(std::move(s)) {}
      Status Read(size_t n, std::string_view* r, char* scratch) override {
        n = std::min(n, s_.size() - pos_);
        s_.copy(scratch, n, pos_);
        pos_ += n;
        *r = std::string_view(scratch, n);
        return Status::OK();
      }
      Status Skip(uint64_t n) override {
        pos_ = std::min<size_t>(s_.size(), pos_ + n);
        return Status::OK();
      }

     private:
      std::string s_;
      size_t pos_ = 0;
    };
    LogReader reader(std::make_unique<Source>(bytes), "garbage");
    std::string record;
    Status s;
    int n = 0;
    while (n < 1000 && reader.ReadRecord(&record, &s)) ++n;
    EXPECT_EQ(n, 0);  // random bytes essentially never carry a valid crc
    EXPECT_TRUE(s.ok() || s.IsCorruption());
    if (s.ok() && !bytes.empty() && !reader.torn_tail()) {
      // A clean end is only possible for short zero trailers.
      EXPECT_LT(bytes.size(), log::kHeaderSize);
    }
  }
}

}  // namespace
}  // namespace ebb::storage
