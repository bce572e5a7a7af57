// WireLog: the origin log's deltas in memory, in large blocks of bytes that go once every delta
// they hold has left.
#include "server/active_active/wire_log.h"

#include <gtest/gtest.h>

#include <string>

namespace ebb::server {
namespace {

// The wire form of delta `offset`, `size` bytes long, its content telling it apart.
std::string Wire(uint64_t offset, size_t size) {
  std::string wire = std::to_string(offset) + ":";
  wire.resize(size, static_cast<char>('a' + offset % 26));
  return wire;
}

TEST(WireLogTest, HoldsEachDeltaInOrderAcrossBlocks) {
  WireLog log;
  EXPECT_TRUE(log.empty());
  uint64_t bytes = 0;
  for (uint64_t offset = 1; offset <= 30000; offset++) {
    const size_t size = 20 + offset % 180;
    log.Append(offset, Wire(offset, size));
    bytes += size;
  }
  EXPECT_EQ(log.size(), 30000u);
  EXPECT_EQ(log.bytes(), bytes);
  EXPECT_GT(log.blocks(), 1u);  // about 3.3 MB in 1 MB blocks
  for (size_t i = 0; i < log.size(); i++) {
    ASSERT_EQ(log[i].offset, i + 1);
    ASSERT_EQ(log[i].wire(), Wire(i + 1, 20 + (i + 1) % 180));
  }
  log.back().prev_value_row = 7;
  EXPECT_EQ(log[29999].prev_value_row, 7u);
}

TEST(WireLogTest, ABlockGoesOnceEveryDeltaItHoldsHasLeft) {
  WireLog log;
  for (uint64_t offset = 1; offset <= 30000; offset++) log.Append(offset, Wire(offset, 100));
  const size_t blocks = log.blocks();
  ASSERT_GE(blocks, 3u);
  // A delta near the front rewritten: its new bytes go to the newest block.
  log.Rewrite(10, Wire(11, 40));
  EXPECT_EQ(log[10].wire(), Wire(11, 40));
  EXPECT_EQ(log.bytes(), 30000u * 100 - 60);
  while (log.size() > 100) log.PopFront();
  EXPECT_EQ(log.blocks(), 1u);  // only the newest block still holds a delta's bytes
  EXPECT_EQ(log.front().offset, 29901u);
  EXPECT_EQ(log[99].wire(), Wire(30000, 100));
  EXPECT_EQ(log.bytes(), 100u * 100);
  // The log goes on filling the newest block, then the spare.
  for (uint64_t offset = 30001; offset <= 60000; offset++) log.Append(offset, Wire(offset, 100));
  EXPECT_EQ(log[log.size() - 1].wire(), Wire(60000, 100));
  EXPECT_EQ(log[0].wire(), Wire(29901, 100));
  while (!log.empty()) log.PopFront();
  EXPECT_EQ(log.blocks(), 0u);
  EXPECT_EQ(log.bytes(), 0u);
}

TEST(WireLogTest, ARewrittenDeltaReadsItsNewBytesUntilItLeaves) {
  WireLog log;
  for (uint64_t offset = 1; offset <= 20000; offset++) log.Append(offset, Wire(offset, 100));
  ASSERT_EQ(log.blocks(), 2u);
  // Delta 5000's old bytes lie in the first block, its new ones in the newest.
  log.Rewrite(4999, Wire(5000, 30));
  while (log.front().offset < 5000) log.PopFront();
  EXPECT_EQ(log.front().wire(), Wire(5000, 30));
  EXPECT_EQ(log.blocks(), 2u);  // the first block still holds deltas 5000 and on
  while (log.front().offset < 15000) log.PopFront();
  EXPECT_EQ(log.blocks(), 1u);
  EXPECT_EQ(log.front().wire(), Wire(15000, 100));
  // A delta larger than a block gets a block of its own.
  const std::string large = Wire(20001, (1 << 20) + 5);
  log.Append(20001, large);
  EXPECT_EQ(log[log.size() - 1].wire(), large);
  log.Clear();
  EXPECT_TRUE(log.empty());
  EXPECT_EQ(log.bytes(), 0u);
}

}  // namespace
}  // namespace ebb::server
