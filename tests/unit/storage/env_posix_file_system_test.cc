// PosixFileSystem and FaultInjectionFileSystem, observed through the FileSystem interface.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <utility>

#include "storage/env/aligned_buffer.h"
#include "storage/env/fault_injection_file_system.h"
#include "storage/env/posix_file_system.h"

namespace ebb::storage {
namespace {

class EnvTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ebb_env_test_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string ReadAll(const std::string& path) {
    std::unique_ptr<SequentialFile> file;
    EXPECT_TRUE(fs_->NewSequentialFile(path, &file).ok());
    std::string out;
    char scratch[7];  // odd size: many short reads
    for (int i = 0; i < 100000; ++i) {
      std::string_view chunk;
      EXPECT_TRUE(file->Read(sizeof(scratch), &chunk, scratch).ok());
      if (chunk.empty()) break;
      out.append(chunk);
    }
    return out;
  }

  std::shared_ptr<FileSystem> fs_ = DefaultFileSystem();
  std::string dir_;
};

// Zeros stay ahead of what was written, a chunk at a time; Close cuts them off.
TEST_F(EnvTest, ZeroFillAheadKeepsZerosPastTheDataUntilClose) {
  const std::string path = dir_ + "/b.log";
  std::unique_ptr<WritableFile> file;
  ASSERT_TRUE(fs_->NewWritableFile(path, &file).ok());
  const uint64_t kChunk = 100000;
  file->ZeroFillAhead(kChunk);
  std::string expected;
  uint64_t size = 0;
  for (int i = 0; i < 30; ++i) {
    const std::string piece(7000 + i, static_cast<char>('a' + i % 26));
    ASSERT_TRUE(file->Append(piece).ok());
    ASSERT_TRUE(file->Sync().ok());
    expected += piece;
    ASSERT_TRUE(fs_->GetFileSize(path, &size).ok());
    EXPECT_GT(size, expected.size());                  // zeros ahead of the data...
    EXPECT_LE(size, expected.size() + kChunk + 7100);  // ...at most a chunk past a write
    const std::string on_disk = ReadAll(path);
    EXPECT_EQ(on_disk.substr(0, expected.size()), expected);
    EXPECT_EQ(on_disk.find_first_not_of('\0', expected.size()), std::string::npos);
  }
  ASSERT_TRUE(file->Close().ok());
  ASSERT_TRUE(fs_->GetFileSize(path, &size).ok());
  EXPECT_EQ(size, expected.size());
  EXPECT_EQ(ReadAll(path), expected);
}

TEST_F(EnvTest, WriteSyncReadBack) {
  const std::string path = dir_ + "/a.log";
  std::unique_ptr<WritableFile> file;
  ASSERT_TRUE(fs_->NewWritableFile(path, &file).ok());
  std::string expected;
  for (int i = 0; i < 5000; ++i) {  // crosses the 64 KiB buffer several times
    const std::string piece = "record-" + std::to_string(i) + std::string(i % 50, 'x');
    ASSERT_TRUE(file->Append(piece).ok());
    expected += piece;
  }
  ASSERT_TRUE(file->Append(std::string(200000, 'z')).ok());  // larger than the buffer
  expected += std::string(200000, 'z');
  EXPECT_EQ(file->Size(), expected.size());
  ASSERT_TRUE(file->Sync().ok());
  ASSERT_TRUE(file->Close().ok());

  uint64_t size = 0;
  ASSERT_TRUE(fs_->GetFileSize(path, &size).ok());
  EXPECT_EQ(size, expected.size());
  EXPECT_EQ(ReadAll(path), expected);

  std::unique_ptr<RandomAccessFile> ra;
  ASSERT_TRUE(fs_->NewRandomAccessFile(path, &ra).ok());
  char scratch[16];
  std::string_view got;
  ASSERT_TRUE(ra->Read(7, 9, &got, scratch).ok());
  EXPECT_EQ(got, expected.substr(7, 9));
  ASSERT_TRUE(ra->Read(expected.size() - 3, 16, &got, scratch).ok());
  EXPECT_EQ(got, expected.substr(expected.size() - 3));  // short read at end of file
}

TEST_F(EnvTest, AppendableFileContinuesAtEnd) {
  const std::string path = dir_ + "/b";
  std::unique_ptr<WritableFile> file;
  ASSERT_TRUE(fs_->NewWritableFile(path, &file).ok());
  ASSERT_TRUE(file->Append("hello ").ok());
  ASSERT_TRUE(file->Close().ok());
  ASSERT_TRUE(fs_->NewAppendableFile(path, &file).ok());
  EXPECT_EQ(file->Size(), 6u);
  ASSERT_TRUE(file->Append("world").ok());
  file.reset();  // destruction flushes and closes
  EXPECT_EQ(ReadAll(path), "hello world");
}

TEST_F(EnvTest, SequentialSkip) {
  const std::string path = dir_ + "/c";
  std::unique_ptr<WritableFile> file;
  ASSERT_TRUE(fs_->NewWritableFile(path, &file).ok());
  ASSERT_TRUE(file->Append("0123456789").ok());
  ASSERT_TRUE(file->Close().ok());
  std::unique_ptr<SequentialFile> seq;
  ASSERT_TRUE(fs_->NewSequentialFile(path, &seq).ok());
  ASSERT_TRUE(seq->Skip(4).ok());
  char scratch[10];
  std::string_view got;
  ASSERT_TRUE(seq->Read(3, &got, scratch).ok());
  EXPECT_EQ(got, "456");
}

TEST_F(EnvTest, DirectoryOperations) {
  const std::string sub = dir_ + "/x/y/z";
  ASSERT_TRUE(fs_->CreateDirIfMissing(sub).ok());
  ASSERT_TRUE(fs_->CreateDirIfMissing(sub).ok());  // idempotent
  std::unique_ptr<WritableFile> file;
  ASSERT_TRUE(fs_->NewWritableFile(sub + "/f1", &file).ok());
  ASSERT_TRUE(file->Append("abc").ok());
  ASSERT_TRUE(file->Close().ok());
  ASSERT_TRUE(fs_->RenameFile(sub + "/f1", sub + "/f2").ok());
  ASSERT_TRUE(fs_->SyncDir(sub).ok());
  EXPECT_FALSE(fs_->FileExists(sub + "/f1"));
  EXPECT_TRUE(fs_->FileExists(sub + "/f2"));
  std::vector<std::string> names;
  ASSERT_TRUE(fs_->GetChildren(sub, &names).ok());
  EXPECT_EQ(names, std::vector<std::string>{"f2"});
  ASSERT_TRUE(fs_->TruncateFile(sub + "/f2", 1).ok());
  EXPECT_EQ(ReadAll(sub + "/f2"), "a");
  ASSERT_TRUE(fs_->RemoveFile(sub + "/f2").ok());
  EXPECT_FALSE(fs_->FileExists(sub + "/f2"));
}

TEST_F(EnvTest, ErrorsNameCallAndPath) {
  const std::string missing = dir_ + "/nope/file";
  std::unique_ptr<SequentialFile> seq;
  Status s = fs_->NewSequentialFile(missing, &seq);
  ASSERT_TRUE(s.IsIOError());
  EXPECT_EQ(s.message(), "open " + missing + ": No such file or directory");
  s = fs_->RemoveFile(missing);
  EXPECT_TRUE(s.IsIOError());
  EXPECT_NE(s.message().find("unlink " + missing), std::string::npos);
  uint64_t size;
  EXPECT_TRUE(fs_->GetFileSize(missing, &size).IsIOError());
}

TEST_F(EnvTest, LockIsExclusiveUntilReleased) {
  const std::string path = dir_ + "/LOCK";
  std::unique_ptr<FileLock> first, second;
  ASSERT_TRUE(fs_->LockFile(path, &first).ok());
  Status s = fs_->LockFile(path, &second);
  EXPECT_TRUE(s.IsBusy()) << s.ToString();
  EXPECT_NE(s.message().find(path), std::string::npos);
  first.reset();
  EXPECT_TRUE(fs_->LockFile(path, &second).ok());
}

TEST_F(EnvTest, FaultInjectionFailsWritesAndSyncs) {
  auto faulty = std::make_shared<FaultInjectionFileSystem>(fs_);
  const std::string path = dir_ + "/w";
  std::unique_ptr<WritableFile> file;
  ASSERT_TRUE(faulty->NewWritableFile(path, &file).ok());
  ASSERT_TRUE(file->Append("ok").ok());
  ASSERT_TRUE(file->Sync().ok());

  faulty->SetFailWrites(true);
  Status s = file->Append("lost");
  ASSERT_TRUE(s.IsIOError());
  EXPECT_EQ(s.message(), "write " + path + ": injected fault");
  EXPECT_EQ(faulty->writes_failed(), 1u);
  faulty->SetFailWrites(false);

  faulty->SetFailSyncs(true);
  ASSERT_TRUE(file->Append("more").ok());
  EXPECT_TRUE(file->Sync().IsIOError());
  EXPECT_TRUE(faulty->SyncDir(dir_).IsIOError());
  EXPECT_EQ(faulty->syncs_failed(), 2u);
  faulty->SetFailSyncs(false);
  EXPECT_TRUE(faulty->SyncDir(dir_).ok());
  EXPECT_EQ(faulty->appends(), 3u);
  ASSERT_TRUE(file->Close().ok());
  EXPECT_EQ(ReadAll(path), "okmore");  // the failed append wrote nothing
}

TEST_F(EnvTest, FaultInjectionDropsUnsyncedData) {
  auto faulty = std::make_shared<FaultInjectionFileSystem>(fs_);
  std::unique_ptr<WritableFile> a, b;
  ASSERT_TRUE(faulty->NewWritableFile(dir_ + "/a", &a).ok());
  ASSERT_TRUE(faulty->NewWritableFile(dir_ + "/b", &b).ok());
  ASSERT_TRUE(a->Append("durable").ok());
  ASSERT_TRUE(a->Sync().ok());
  ASSERT_TRUE(a->Append("-volatile").ok());
  ASSERT_TRUE(b->Append("never synced").ok());
  a.reset();
  b.reset();
  ASSERT_TRUE(faulty->RenameFile(dir_ + "/a", dir_ + "/a2").ok());
  ASSERT_TRUE(faulty->DropUnsyncedData().ok());
  EXPECT_EQ(ReadAll(dir_ + "/a2"), "durable");
  EXPECT_EQ(ReadAll(dir_ + "/b"), "");
}

TEST_F(EnvTest, FaultInjectionSyncThroughASecondHandleCoversTheFile) {
  // The DB writes a WAL through one handle and fdatasyncs it through another.
  auto faulty = std::make_shared<FaultInjectionFileSystem>(fs_);
  const std::string path = dir_ + "/000003.log";
  std::unique_ptr<WritableFile> writer, syncer;
  ASSERT_TRUE(faulty->NewWritableFile(path, &writer).ok());
  ASSERT_TRUE(faulty->NewAppendableFile(path, &syncer).ok());
  ASSERT_TRUE(writer->Append("record-1").ok());
  ASSERT_TRUE(writer->Flush().ok());
  ASSERT_TRUE(syncer->Sync().ok());
  ASSERT_TRUE(writer->Append("record-2").ok());
  writer.reset();
  syncer.reset();
  ASSERT_TRUE(faulty->DropUnsyncedData().ok());
  EXPECT_EQ(ReadAll(path), "record-1");
}

TEST_F(EnvTest, FaultInjectionTornPowerCutKeepsSomeUnsyncedPagesAndZerosTheRest) {
  auto faulty = std::make_shared<FaultInjectionFileSystem>(fs_);
  const std::string path = dir_ + "/t";
  std::unique_ptr<WritableFile> file;
  ASSERT_TRUE(faulty->NewWritableFile(path, &file).ok());
  ASSERT_TRUE(file->Append(std::string(5000, 'd')).ok());
  ASSERT_TRUE(file->Sync().ok());
  std::string unsynced;
  for (int page = 0; page < 16; page++)
    unsynced += std::string(4096, static_cast<char>('A' + page));
  ASSERT_TRUE(file->Append(unsynced).ok());
  ASSERT_TRUE(file->Flush().ok());
  file.reset();
  FaultInjectionFileSystem::DropOptions drop;
  drop.torn_pages = true;
  drop.seed = 7;
  ASSERT_TRUE(faulty->DropUnsyncedData(drop).ok());
  const std::string after = ReadAll(path);
  ASSERT_GE(after.size(), 5000u);
  EXPECT_EQ(after.substr(0, 5000), std::string(5000, 'd'));  // the durable bytes stay
  // Every unsynced byte either survived as written or reads as zero, page by page.
  int kept = 0, zeroed = 0;
  for (size_t page = 4096; page < after.size(); page += 4096) {
    const size_t from = std::max<size_t>(page, 5000), to = std::min(page + 4096, after.size());
    const std::string got = after.substr(from, to - from);
    if (got == std::string(got.size(), '\0')) {
      zeroed++;
    } else {
      EXPECT_EQ(got, unsynced.substr(from - 5000, to - from)) << page;
      kept++;
    }
  }
  EXPECT_GT(kept, 0);
  EXPECT_GT(zeroed, 0);
  EXPECT_GT(faulty->last_drop().bytes_lost, 0u);
}

TEST_F(EnvTest, FaultInjectionPowerCutUndoesDirectoryEntriesNoFsyncCovered) {
  auto faulty = std::make_shared<FaultInjectionFileSystem>(fs_);
  auto write = [&](const std::string& name, const std::string& data) {
    std::unique_ptr<WritableFile> file;
    ASSERT_TRUE(faulty->NewWritableFile(dir_ + "/" + name, &file).ok());
    ASSERT_TRUE(file->Append(data).ok());
    ASSERT_TRUE(file->Sync().ok());
    ASSERT_TRUE(file->Close().ok());
  };
  write("CURRENT", "old\n");
  write("kept", "k");
  ASSERT_TRUE(faulty->SyncDir(dir_).ok());
  write("tmp", "new\n");
  ASSERT_TRUE(faulty->RenameFile(dir_ + "/tmp", dir_ + "/CURRENT").ok());
  write("lost", "l");
  ASSERT_TRUE(faulty->DropUnsyncedData({.directory_entries = true}).ok());
  EXPECT_EQ(ReadAll(dir_ + "/CURRENT"), "old\n");
  EXPECT_EQ(ReadAll(dir_ + "/kept"), "k");
  EXPECT_FALSE(fs_->FileExists(dir_ + "/lost"));
  EXPECT_FALSE(fs_->FileExists(dir_ + "/tmp"));
  EXPECT_EQ(faulty->last_drop().renames_undone, 1u);
  EXPECT_EQ(faulty->last_drop().files_removed, 2u);
}

TEST_F(EnvTest, FaultInjectionFreezeStopsEveryChange) {
  auto faulty = std::make_shared<FaultInjectionFileSystem>(fs_);
  std::unique_ptr<WritableFile> file;
  ASSERT_TRUE(faulty->NewWritableFile(dir_ + "/f", &file).ok());
  ASSERT_TRUE(file->Append("x").ok());
  faulty->Freeze();
  const Status s = file->Append("y");
  EXPECT_EQ(s.message(), "write " + dir_ + "/f: power cut");
  EXPECT_TRUE(file->Sync().IsIOError());
  std::unique_ptr<WritableFile> other;
  EXPECT_TRUE(faulty->NewWritableFile(dir_ + "/g", &other).IsIOError());
  EXPECT_TRUE(faulty->RemoveFile(dir_ + "/f").IsIOError());
  EXPECT_TRUE(faulty->RenameFile(dir_ + "/f", dir_ + "/h").IsIOError());
  EXPECT_TRUE(faulty->SyncDir(dir_).IsIOError());
  faulty->Thaw();
  EXPECT_TRUE(file->Sync().ok());
}

// A file opened for direct reads reads any range right, through its aligned buffers, and says
// whether O_DIRECT took (it does not on tmpfs, where the file is read as a buffered one).
TEST_F(EnvTest, DirectRandomAccessFileReadsAnyRangeAndReportsItsAlignment) {
  const std::string path = dir_ + "/d.sst";
  std::string contents(3 * 4096 + 1234, '\0');
  std::mt19937 rng(5);
  for (char& c : contents) c = static_cast<char>(rng());
  {
    std::unique_ptr<WritableFile> file;
    ASSERT_TRUE(fs_->NewWritableFile(path, &file).ok());
    ASSERT_TRUE(file->Append(contents).ok());
    ASSERT_TRUE(file->Close().ok());
  }
  const int probe = ::open(path.c_str(), O_RDONLY | O_DIRECT);
  const bool direct = probe >= 0;
  if (probe >= 0) ::close(probe);

  std::unique_ptr<RandomAccessFile> file;
  ASSERT_TRUE(fs_->NewDirectRandomAccessFile(path, &file).ok());
  EXPECT_EQ(file->alignment(), direct ? kDirectIoAlignment : 1u);
  EXPECT_GE(file->fd(), 0);
  const std::pair<uint64_t, size_t> ranges[] = {{0, 4096},    {1, 100},      {4095, 2},
                                                {5000, 9000}, {12000, 5000}, {0, contents.size()}};
  for (const auto& [offset, n] : ranges) {
    std::string scratch(n, '?');
    std::string_view got;
    ASSERT_TRUE(file->Read(offset, n, &got, scratch.data()).ok());
    const std::string_view want = std::string_view(contents).substr(offset, n);  // short at EOF
    EXPECT_EQ(got, want) << "offset " << offset << " n " << n;
  }
  // The whole aligned range through the descriptor (what io_uring does).
  AlignedBuffer buffer(file->alignment(), AlignUp(contents.size(), file->alignment()));
  std::string_view got;
  ASSERT_TRUE(file->Read(0, buffer.size(), &got, buffer.data()).ok());
  EXPECT_EQ(got, contents);
}

}  // namespace
}  // namespace ebb::storage
