#include "common/key_slot.h"

#include <gtest/gtest.h>

namespace ebb {
namespace {

TEST(KeySlotTest, Crc16IsXmodem) { EXPECT_EQ(Crc16("123456789"), 0x31C3); }

TEST(KeySlotTest, SlotsAsRedisClusterComputesThem) {
  // CLUSTER KEYSLOT answers of redis-server 7.0.
  EXPECT_EQ(KeySlot("foo"), 12182);
  EXPECT_EQ(KeySlot("bar"), 5061);
  EXPECT_EQ(KeySlot(""), 0);
  EXPECT_EQ(KeySlot("somekey"), 11058);
}

TEST(KeySlotTest, HashTagsShareASlot) {
  EXPECT_EQ(KeySlot("{user1000}.following"), KeySlot("user1000"));
  EXPECT_EQ(KeySlot("{user1000}.followers"), KeySlot("{user1000}.following"));
  EXPECT_EQ(KeySlot("foo{bar}{zap}"), KeySlot("bar"));  // the first tag only
  EXPECT_EQ(KeySlot("foo{}{bar}"), Crc16("foo{}{bar}") % 16384);  // empty tag: the whole key
  EXPECT_EQ(KeySlot("foo{{bar}}zap"), KeySlot("{bar"));
  EXPECT_EQ(KeySlot("foo{bar"), Crc16("foo{bar") % 16384);  // no closing brace
}

}  // namespace
}  // namespace ebb
