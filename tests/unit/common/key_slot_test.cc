#include "common/key_slot.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace ebb {
namespace {

TEST(KeySlotTest, Crc16IsXmodem) { EXPECT_EQ(Crc16("123456789"), 0x31C3); }

// Crc16 folds two bytes a step; it must equal CRC16-XMODEM computed bit by bit for every length
// (odd ones end with a single byte) and every byte value.
TEST(KeySlotTest, Crc16MatchesTheBitwiseDefinition) {
  auto bitwise = [](std::string_view bytes) {
    uint16_t crc = 0;
    for (unsigned char c : bytes) {
      crc ^= static_cast<uint16_t>(c << 8);
      for (int bit = 0; bit < 8; bit++) {
        crc = (crc & 0x8000) ? static_cast<uint16_t>((crc << 1) ^ 0x1021)
                             : static_cast<uint16_t>(crc << 1);
      }
    }
    return crc;
  };
  std::mt19937 rng(7);
  for (size_t length = 0; length <= 67; length++) {
    for (int round = 0; round < 20; round++) {
      std::string bytes(length, '\0');
      for (char& c : bytes) c = static_cast<char>(rng());
      ASSERT_EQ(Crc16(bytes), bitwise(bytes)) << length;
    }
  }
}

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
  EXPECT_EQ(KeySlot("foo{bar}{zap}"), KeySlot("bar"));            // the first tag only
  EXPECT_EQ(KeySlot("foo{}{bar}"), Crc16("foo{}{bar}") % 16384);  // empty tag: the whole key
  EXPECT_EQ(KeySlot("foo{{bar}}zap"), KeySlot("{bar"));
  EXPECT_EQ(KeySlot("foo{bar"), Crc16("foo{bar") % 16384);  // no closing brace
}

}  // namespace
}  // namespace ebb
