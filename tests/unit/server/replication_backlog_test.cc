// ReplicationBacklog and ReplicationIds: what PSYNC may continue from.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "server/replication/backlog.h"
#include "server/replication/replication_id.h"

namespace ebb::server {
namespace {

// The stream's byte at offset o, for checking what the backlog hands back.
char StreamByte(uint64_t o) { return static_cast<char>('a' + o % 26); }
std::string StreamBytes(uint64_t from, uint64_t to) {
  std::string s;
  for (uint64_t o = from; o <= to; o++) s.push_back(StreamByte(o));
  return s;
}

TEST(ReplicationBacklogTest, KeepsTheLastCapacityBytesWithRedisOffsets) {
  ReplicationBacklog backlog(10, 100);
  EXPECT_EQ(backlog.end_offset(), 100u);
  EXPECT_EQ(backlog.histlen(), 0u);
  EXPECT_EQ(backlog.first_offset(), 101u);
  EXPECT_TRUE(backlog.Holds(101));  // nothing to send yet, but a valid place to continue
  EXPECT_FALSE(backlog.Holds(100));
  EXPECT_FALSE(backlog.Holds(102));

  backlog.Append(StreamBytes(101, 104));
  EXPECT_EQ(backlog.end_offset(), 104u);
  EXPECT_EQ(backlog.histlen(), 4u);
  std::string out;
  backlog.CopyFrom(102, &out);
  EXPECT_EQ(out, StreamBytes(102, 104));

  // Wraps around, in pieces of every size, including one larger than the ring.
  uint64_t next = 105;
  for (size_t n : {3, 7, 1, 10, 25, 2, 9}) {
    backlog.Append(StreamBytes(next, next + n - 1));
    next += n;
    ASSERT_EQ(backlog.end_offset(), next - 1);
    ASSERT_EQ(backlog.histlen(), std::min<uint64_t>(10, next - 101));
    for (uint64_t from = backlog.first_offset(); from <= next; from++) {
      out.clear();
      backlog.CopyFrom(from, &out);
      ASSERT_EQ(out, StreamBytes(from, next - 1)) << from;
    }
    EXPECT_FALSE(backlog.Holds(backlog.first_offset() - 1));
    EXPECT_FALSE(backlog.Holds(next + 1));
  }
}

TEST(ReplicationBacklogTest, ResizeKeepsTheNewestBytes) {
  ReplicationBacklog backlog(8, 0);
  backlog.Append(StreamBytes(1, 13));
  backlog.Resize(4);
  EXPECT_EQ(backlog.end_offset(), 13u);
  EXPECT_EQ(backlog.first_offset(), 10u);
  std::string out;
  backlog.CopyFrom(10, &out);
  EXPECT_EQ(out, StreamBytes(10, 13));
  backlog.Resize(16);
  EXPECT_EQ(backlog.histlen(), 4u);
  backlog.Append(StreamBytes(14, 20));
  out.clear();
  backlog.CopyFrom(10, &out);
  EXPECT_EQ(out, StreamBytes(10, 20));
}

TEST(ReplicationIdsTest, APromotionKeepsTheOldHistoryUpToItsOffset) {
  ReplicationIds ids;
  EXPECT_EQ(ids.replid.size(), 40u);
  EXPECT_EQ(ids.replid.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_NE(ids.replid, ReplicationIds::NewId());
  EXPECT_EQ(ids.replid2, ReplicationIds::kNoId);
  EXPECT_EQ(ids.second_offset, -1);
  EXPECT_TRUE(ids.SameHistory(ids.replid, 12345));
  EXPECT_FALSE(ids.SameHistory(ReplicationIds::kNoId, 1));

  const std::string old = ids.replid;
  ids.Shift(500);
  EXPECT_EQ(ids.replid2, old);
  EXPECT_EQ(ids.second_offset, 501);
  EXPECT_NE(ids.replid, old);
  EXPECT_TRUE(ids.SameHistory(old, 501));
  EXPECT_FALSE(ids.SameHistory(old, 502));
  ids.ClearSecond();
  EXPECT_FALSE(ids.SameHistory(old, 1));
}

}  // namespace
}  // namespace ebb::server
