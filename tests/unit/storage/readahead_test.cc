// Readahead: a sequential run of block reads on a direct-I/O file is served from reads ahead
// that grow; anything else is left to the caller; the bytes are always the file's.
#include "storage/table/readahead.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/unit/storage/table_test_util.h"

namespace ebb::storage {
namespace {

std::string Contents(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(i * 131 + 7);
  return s;
}

// Consecutive 1000-byte blocks (plus their 5-byte trailers) from offset 0.
BlockHandle Block(int i) { return BlockHandle{static_cast<uint64_t>(i) * 1005, 1000}; }

TEST(ReadaheadTest, ASequentialRunIsServedFromGrowingReadsAhead) {
  const std::string contents = Contents(600 * 1005);
  MemRandomAccessFile file(contents, 4096);
  Readahead readahead(64 << 10);
  int served = 0;
  for (int i = 0; i < 600; ++i) {
    std::string_view data;
    Status s;
    if (!readahead.Read(file, Block(i), &data, &s)) {
      EXPECT_LT(i, 1) << "block " << i << " of a sequential run was left to the caller";
      continue;
    }
    ASSERT_TRUE(s.ok());
    ++served;
    ASSERT_EQ(data, std::string_view(contents).substr(Block(i).offset, 1005)) << i;
  }
  EXPECT_EQ(served, 599);
  // 600 blocks in a handful of reads, each aligned, growing up to the maximum.
  ASSERT_LT(file.read_log.size(), 20u);
  for (const auto& [offset, n] : file.read_log) {
    EXPECT_EQ(offset % 4096, 0u);
    EXPECT_EQ(n % 4096, 0u);
    EXPECT_LE(n, size_t{64 << 10});
  }
  EXPECT_EQ(file.read_log.front().second, Readahead::kInitialBytes);
  EXPECT_EQ(file.read_log[file.read_log.size() - 2].second, size_t{64 << 10});
}

TEST(ReadaheadTest, BlocksAfterAlignmentPaddingStillReadAhead) {
  // A table written with block_align: each 3000-byte block (and trailer) starts a 4 KiB page.
  const std::string contents = Contents(200 * 4096);
  MemRandomAccessFile file(contents, 4096);
  Readahead readahead(64 << 10);
  auto block = [](int i) { return BlockHandle{static_cast<uint64_t>(i) * 4096, 3000}; };
  int served = 0;
  for (int i = 0; i < 200; ++i) {
    std::string_view data;
    Status s;
    if (!readahead.Read(file, block(i), &data, &s)) continue;
    ASSERT_TRUE(s.ok());
    ++served;
    ASSERT_EQ(data, std::string_view(contents).substr(block(i).offset, 3005)) << i;
  }
  EXPECT_EQ(served, 199);
  EXPECT_LT(file.read_log.size(), 20u);
}

TEST(ReadaheadTest, JumpsAndBufferedFilesAreLeftToTheCaller) {
  const std::string contents = Contents(100 * 1005);
  MemRandomAccessFile direct(contents, 4096);
  Readahead readahead(64 << 10);
  std::string_view data;
  Status s;
  EXPECT_FALSE(readahead.Read(direct, Block(3), &data, &s));
  EXPECT_FALSE(readahead.Read(direct, Block(50), &data, &s));  // a jump starts over
  EXPECT_TRUE(readahead.Read(direct, Block(51), &data, &s));   // the second in a row reads ahead
  EXPECT_EQ(data, std::string_view(contents).substr(Block(51).offset, 1005));
  EXPECT_TRUE(readahead.Read(direct, Block(52), &data, &s));  // from the buffer
  EXPECT_EQ(direct.read_log.size(), 1u);
  readahead.Reset();
  EXPECT_EQ(readahead.buffered_bytes(), 0u);
  EXPECT_FALSE(readahead.Read(direct, Block(53), &data, &s));  // the run starts again

  MemRandomAccessFile buffered(contents, 1);  // the OS reads ahead for it
  Readahead other(64 << 10);
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(other.Read(buffered, Block(i), &data, &s));
  EXPECT_TRUE(buffered.read_log.empty());
}

TEST(ReadaheadTest, TheFilesEndLeavesATruncatedLastBlock) {
  const std::string contents = Contents(3 * 1005 - 10);  // the third block is cut short
  MemRandomAccessFile file(contents, 4096);
  Readahead readahead(64 << 10);
  std::string_view data;
  Status s;
  EXPECT_FALSE(readahead.Read(file, Block(0), &data, &s));
  ASSERT_TRUE(readahead.Read(file, Block(1), &data, &s));
  ASSERT_TRUE(readahead.Read(file, Block(2), &data, &s));
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(data.size(), 1005u - 10);  // the caller's decode reports a truncated block
}

}  // namespace
}  // namespace ebb::storage
