// BlockReader over real table files, with each backend: every wanted block arrives and is
// filled, `done` runs once on the io thread, more reads than the ring holds (and than one turn of
// the loop handles) all complete, reads one after another each see their own block, blocks too
// large for the reader's buffer slots arrive beside small ones, a read
// that fails reaches only its own fetch, and a reader destroyed with reads pending neither
// crashes nor calls their `done`.
#include "server/io/block_reader.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <liburing.h>
#include <stdlib.h>
#include <unistd.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "server/core/server_stats.h"
#include "storage/env/posix_file_system.h"
#include "storage/format/internal_key.h"
#include "storage/table/table.h"
#include "storage/table/table_builder.h"

namespace ebb::server {
namespace {

using storage::BlockFetch;
using storage::Status;
using Backend = BlockReader::Backend;

std::string UserKey(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "key%05d", i);
  return buf;
}
std::string Value(int i) { return std::string(60, static_cast<char>('a' + i % 26)); }

// Whether this process may use io_uring (a kernel or seccomp profile may refuse it).
bool KernelAllowsIoUring() {
  io_uring ring;
  if (io_uring_queue_init(8, &ring, 0) < 0) return false;
  io_uring_queue_exit(&ring);
  return true;
}

// A table file's descriptor opened write-only: reads through it fail (EBADF), as a failing
// device's would, on either backend.
class UnreadableFile final : public storage::RandomAccessFile {
 public:
  explicit UnreadableFile(const std::string& path) : fd_(::open(path.c_str(), O_WRONLY)) {}
  ~UnreadableFile() override { ::close(fd_); }
  Status Read(uint64_t, size_t, std::string_view* result, char*) const override {
    *result = {};
    return Status::IOError("pread unreadable: Bad file descriptor");
  }
  int fd() const override { return fd_; }

 private:
  int fd_;
};

class BlockReaderTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ebb_block_reader_test_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/000005.sst";
    uint64_t size = 0;
    ASSERT_NO_FATAL_FAILURE(WriteTable(path_, 1024, &size));
    ASSERT_NO_FATAL_FAILURE(OpenTable(path_, size, /*direct=*/false, 5, &buffered_));
    ASSERT_NO_FATAL_FAILURE(OpenTable(path_, size, /*direct=*/true, 6, &direct_));
    size_ = size;
    reader_ = std::make_unique<BlockReader>(io_, &stats_, GetParam());
  }
  // Writes the kKeys keys into a table file at `path` with blocks of about `block_size` bytes.
  static void WriteTable(const std::string& path, size_t block_size, uint64_t* size) {
    auto fs = storage::DefaultFileSystem();
    std::unique_ptr<storage::WritableFile> file;
    ASSERT_TRUE(fs->NewWritableFile(path, &file).ok());
    storage::TableBuilder builder(
        storage::TableOptions{.block_size = block_size, .compression = storage::Compression::kNone},
        file.get());
    for (int i = 0; i < kKeys; ++i) {
      std::string key, row;
      storage::AppendInternalKey(&key, UserKey(i), 1, storage::RowKind::kValue);
      storage::AppendEncodedRow(&row, storage::RowMeta{1, std::nullopt}, Value(i));
      builder.Add(key, row);
    }
    ASSERT_TRUE(builder.Finish().ok());
    ASSERT_TRUE(file->Close().ok());
    ASSERT_TRUE(fs->GetFileSize(path, size).ok());
  }
  static void OpenTable(const std::string& path, uint64_t size, bool direct, uint64_t number,
                        std::shared_ptr<storage::Table>* out) {
    auto fs = storage::DefaultFileSystem();
    std::unique_ptr<storage::RandomAccessFile> raf;
    ASSERT_TRUE(
        (direct ? fs->NewDirectRandomAccessFile(path, &raf) : fs->NewRandomAccessFile(path, &raf))
            .ok());
    std::unique_ptr<storage::Table> table;
    ASSERT_TRUE(storage::Table::Open(storage::TableOptions{}, std::move(raf), size, number, nullptr,
                                     path, &table)
                    .ok());
    *out = std::move(table);
  }

  void TearDown() override {
    reader_.reset();
    std::filesystem::remove_all(dir_);
  }

  // Reads key i from `table` through `fetch`: its value, "" when incomplete, or the error.
  std::string Get(const storage::Table& table, BlockFetch* fetch, int i) {
    std::string value;
    Status s = table.Get(
        storage::LookupKey(UserKey(i), storage::kMaxSequence), true,
        [&](std::string_view, std::string_view row) {
          storage::RowMeta meta;
          std::string_view v;
          EXPECT_TRUE(storage::DecodeRow(row, &meta, &v));
          value.assign(v);
          return false;
        },
        fetch);
    if (s.IsIncomplete()) return "";
    if (!s.ok()) return "ERR " + s.ToString();
    return value;
  }

  // Runs the io_context until `*count` reaches `want` (bounded).
  void RunUntil(const int* count, int want) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (*count < want && std::chrono::steady_clock::now() < deadline) {
      io_.run_one_for(std::chrono::milliseconds(10));
    }
    ASSERT_EQ(*count, want);
  }

  static constexpr int kKeys = 2000;  // about 150 blocks
  boost::asio::io_context io_;
  // The io_context never runs out of work (a server's never does), so it is never stopped.
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_ =
      boost::asio::make_work_guard(io_);
  ServerStats stats_;
  std::string dir_, path_;
  uint64_t size_ = 0;
  std::shared_ptr<storage::Table> buffered_, direct_;
  std::unique_ptr<BlockReader> reader_;
};

TEST_P(BlockReaderTest, UsesTheBackendAskedForWhereTheKernelAllowsIt) {
  const bool uring = GetParam() == Backend::kIoUring && KernelAllowsIoUring();
  EXPECT_EQ(reader_->backend(), uring ? Backend::kIoUring : Backend::kThreads);
  EXPECT_EQ(reader_->backend_name(), uring ? "io_uring" : "threads");
  EXPECT_TRUE(reader_->idle());
}

TEST_P(BlockReaderTest, ReadsEveryWantedBlockThenCallsDoneOnce) {
  for (const auto& table : {buffered_, direct_}) {
    BlockFetch fetch;
    fetch.BeginPass(true);
    std::vector<int> keys;
    for (int i = 0; i < kKeys; i += 97) keys.push_back(i);
    for (int k : keys) ASSERT_EQ(Get(*table, &fetch, k), "");
    const size_t wanted = fetch.wants().size();
    ASSERT_EQ(wanted, keys.size());
    int done = 0;
    reader_->Read(&fetch, [&] { ++done; });
    EXPECT_EQ(done, 0);  // never inside Read
    EXPECT_EQ(reader_->waiting(), 1u);
    RunUntil(&done, 1);
    EXPECT_TRUE(reader_->idle());
    EXPECT_EQ(reader_->reads_in_flight(), 0u);
    fetch.BeginPass(true);
    for (int k : keys) EXPECT_EQ(Get(*table, &fetch, k), Value(k)) << k;
    EXPECT_FALSE(fetch.incomplete());
  }
  EXPECT_EQ(stats_.disk_read_errors, 0u);
  EXPECT_EQ(stats_.disk_reads, 2 * ((kKeys + 96) / 97));
}

TEST_P(BlockReaderTest, MoreReadsThanTheRingHoldsAllComplete) {
  // One fetch wants every block of the file; 200 more want one each.
  BlockFetch all;
  all.BeginPass(true);
  for (int i = 0; i < kKeys; ++i) Get(*direct_, &all, i);
  ASSERT_GT(all.wants().size(), BlockReader::kRingEntries / 2);
  std::vector<std::unique_ptr<BlockFetch>> singles;
  for (int i = 0; i < 200; ++i) {
    singles.push_back(std::make_unique<BlockFetch>());
    singles.back()->BeginPass(true);
    Get(*buffered_, singles.back().get(), (i * 37) % kKeys);
  }
  int done = 0;
  reader_->Read(&all, [&] { ++done; });
  for (auto& fetch : singles) reader_->Read(fetch.get(), [&] { ++done; });
  RunUntil(&done, 201);
  all.BeginPass(true);
  for (int i = 0; i < kKeys; i += 7) EXPECT_EQ(Get(*direct_, &all, i), Value(i));
  for (int i = 0; i < 200; ++i) {
    singles[i]->BeginPass(true);
    const int k = (i * 37) % kKeys;
    EXPECT_EQ(Get(*buffered_, singles[i].get(), k), Value(k));
  }
  EXPECT_TRUE(reader_->idle());
}

TEST_P(BlockReaderTest, ReadsOneAfterAnotherEachSeeTheirOwnBlock) {
  // Read buffers are reused: each read must see only the bytes it read, whatever a longer or
  // shorter read left in the buffer before, direct or not.
  int done = 0;
  for (int round = 0; round < 3; ++round) {
    for (const auto& table : {direct_, buffered_}) {
      for (int k : {5, kKeys - 1, 977, 0, 1499}) {
        BlockFetch fetch;
        fetch.BeginPass(true);
        ASSERT_EQ(Get(*table, &fetch, k), "");
        const int before = done;
        reader_->Read(&fetch, [&] { ++done; });
        RunUntil(&done, before + 1);
        fetch.BeginPass(true);
        EXPECT_EQ(Get(*table, &fetch, k), Value(k)) << k;
      }
    }
  }
  EXPECT_EQ(stats_.disk_read_errors, 0u);
}

TEST_P(BlockReaderTest, BlocksLargerThanAReadSlotArriveBesideSmallOnes) {
  // Blocks of about 20 KiB do not fit a slot of the reader's buffer arena: they are read into
  // buffers of their own, in the same Read as 1 KiB blocks read into slots.
  const std::string big_path = dir_ + "/000007.sst";
  uint64_t size = 0;
  ASSERT_NO_FATAL_FAILURE(WriteTable(big_path, 20 << 10, &size));
  std::shared_ptr<storage::Table> big_direct, big_buffered;
  ASSERT_NO_FATAL_FAILURE(OpenTable(big_path, size, /*direct=*/true, 7, &big_direct));
  ASSERT_NO_FATAL_FAILURE(OpenTable(big_path, size, /*direct=*/false, 8, &big_buffered));
  const std::vector<int> keys = {0, 333, 700, 1200, kKeys - 1};
  BlockFetch fetch;
  fetch.BeginPass(true);
  for (const auto& table : {big_direct, direct_, big_buffered, buffered_}) {
    for (int k : keys) ASSERT_EQ(Get(*table, &fetch, k), "");
  }
  size_t larger = 0;
  for (const auto& want : fetch.wants()) larger += want.read_length > BlockReader::kSlotBytes;
  ASSERT_GT(larger, 0u);
  ASSERT_LT(larger, fetch.wants().size());
  int done = 0;
  reader_->Read(&fetch, [&] { ++done; });
  RunUntil(&done, 1);
  fetch.BeginPass(true);
  for (const auto& table : {big_direct, direct_, big_buffered, buffered_}) {
    for (int k : keys) EXPECT_EQ(Get(*table, &fetch, k), Value(k)) << k;
  }
  EXPECT_FALSE(fetch.incomplete());
  EXPECT_EQ(stats_.disk_read_errors, 0u);
}

TEST_P(BlockReaderTest, AFailedReadReachesOnlyItsOwnFetch) {
  // The table opens readable (Table::Open reads its footer, index and filter), then its file
  // turns unreadable, as a failing device would, for the data block reads.
  class SwitchableFile final : public storage::RandomAccessFile {
   public:
    SwitchableFile(std::unique_ptr<storage::RandomAccessFile> good, const std::string& path)
        : good_(std::move(good)), bad_(path) {}
    Status Read(uint64_t offset, size_t n, std::string_view* result, char* scratch) const override {
      return broken ? bad_.Read(offset, n, result, scratch)
                    : good_->Read(offset, n, result, scratch);
    }
    int fd() const override { return broken ? bad_.fd() : good_->fd(); }
    bool broken = false;

   private:
    std::unique_ptr<storage::RandomAccessFile> good_;
    UnreadableFile bad_;
  };
  std::unique_ptr<storage::RandomAccessFile> raf;
  ASSERT_TRUE(storage::DefaultFileSystem()->NewRandomAccessFile(path_, &raf).ok());
  auto switchable = std::make_unique<SwitchableFile>(std::move(raf), path_);
  SwitchableFile* file = switchable.get();
  std::unique_ptr<storage::Table> owned;
  ASSERT_TRUE(storage::Table::Open(storage::TableOptions{}, std::move(switchable), size_, 9,
                                   nullptr, path_, &owned)
                  .ok());
  std::shared_ptr<storage::Table> failing_table = std::move(owned);
  file->broken = true;

  BlockFetch failing, fine;
  failing.BeginPass(true);
  fine.BeginPass(true);
  ASSERT_EQ(Get(*failing_table, &failing, 10), "");
  ASSERT_EQ(Get(*buffered_, &fine, 10), "");
  int done = 0;
  reader_->Read(&failing, [&] { ++done; });
  reader_->Read(&fine, [&] { ++done; });
  RunUntil(&done, 2);
  failing.BeginPass(true);
  const std::string error = Get(*failing_table, &failing, 10);
  EXPECT_EQ(error.rfind("ERR IO error: pread ", 0), 0u) << error;
  EXPECT_NE(error.find("Bad file descriptor"), std::string::npos) << error;
  fine.BeginPass(true);
  EXPECT_EQ(Get(*buffered_, &fine, 10), Value(10));
  EXPECT_EQ(stats_.disk_read_errors, 1u);
}

TEST_P(BlockReaderTest, DestroyedWithReadsPendingItCallsNoDone) {
  reader_->set_completion_delay(std::chrono::seconds(60));
  BlockFetch fetch;
  fetch.BeginPass(true);
  ASSERT_EQ(Get(*direct_, &fetch, 3), "");
  bool called = false;
  auto guard = std::make_shared<int>(0);
  reader_->Read(&fetch, [&called, guard] { called = true; });
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
  while (std::chrono::steady_clock::now() < until) io_.run_one_for(std::chrono::milliseconds(10));
  EXPECT_FALSE(called);  // held by the delay
  EXPECT_FALSE(reader_->idle());
  EXPECT_EQ(reader_->waiting(), 1u);
  reader_.reset();
  EXPECT_EQ(guard.use_count(), 1);             // the pending `done` was dropped, not kept
  io_.run_for(std::chrono::milliseconds(20));  // handlers it had posted do nothing now
  EXPECT_FALSE(called);
}

INSTANTIATE_TEST_SUITE_P(Backends, BlockReaderTest,
                         ::testing::Values(Backend::kIoUring, Backend::kThreads),
                         [](const auto& info) {
                           return info.param == Backend::kIoUring ? "IoUring" : "Threads";
                         });

}  // namespace
}  // namespace ebb::server
