#include "common/key_slot.h"

#include <array>
#include <string>

namespace ebb {
namespace {

constexpr std::array<uint16_t, 256> MakeCrc16Table() {
  std::array<uint16_t, 256> table{};
  for (int byte = 0; byte < 256; byte++) {
    uint16_t crc = static_cast<uint16_t>(byte << 8);
    for (int bit = 0; bit < 8; bit++) {
      crc = (crc & 0x8000) ? static_cast<uint16_t>((crc << 1) ^ 0x1021)
                           : static_cast<uint16_t>(crc << 1);
    }
    table[byte] = crc;
  }
  return table;
}

constexpr std::array<uint16_t, 256> kCrc16Table = MakeCrc16Table();

// The CRC of byte i followed by a zero byte: with it two bytes are folded per step (slicing by
// two), which halves the work of a key's CRC (routing computes one per command).
// Both tables as 32-bit words, so the loop needs no 16-bit loads or masks.
constexpr std::array<uint32_t, 256> MakeWide(const std::array<uint16_t, 256>& table) {
  std::array<uint32_t, 256> wide{};
  for (int i = 0; i < 256; i++) wide[i] = table[i];
  return wide;
}

constexpr std::array<uint32_t, 256> MakeCrc16ShiftedTable() {
  std::array<uint32_t, 256> table{};
  for (int byte = 0; byte < 256; byte++) {
    const uint16_t once = kCrc16Table[byte];
    table[byte] = static_cast<uint16_t>((once << 8) ^ kCrc16Table[once >> 8]);
  }
  return table;
}

constexpr std::array<uint32_t, 256> kCrc16Wide = MakeWide(kCrc16Table);
constexpr std::array<uint32_t, 256> kCrc16ShiftedTable = MakeCrc16ShiftedTable();

}  // namespace

uint16_t Crc16(std::string_view bytes) {
  uint32_t crc = 0;
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  for (size_t pairs = bytes.size() / 2; pairs > 0; pairs--, p += 2) {
    const uint32_t x = crc ^ ((uint32_t{p[0]} << 8) | p[1]);
    crc = kCrc16ShiftedTable[x >> 8] ^ kCrc16Wide[x & 0xFF];
  }
  if (bytes.size() % 2 != 0) crc = ((crc << 8) ^ kCrc16Wide[((crc >> 8) ^ *p) & 0xFF]) & 0xFFFF;
  return static_cast<uint16_t>(crc);
}

int KeySlot(std::string_view key) {
  // A command's key is hashed by the routing and again by each engine key the keyspace builds
  // for it (a cluster node's rows are grouped by slot): the thread's last answer is kept.
  thread_local std::string last_key;
  thread_local int last_slot = -1;
  if (last_slot >= 0 && key == last_key) return last_slot;
  last_key.assign(key);
  const size_t open = key.find('{');
  if (open != std::string_view::npos) {
    const size_t close = key.find('}', open + 1);
    if (close != std::string_view::npos && close > open + 1) {
      key = key.substr(open + 1, close - open - 1);
    }
  }
  last_slot = Crc16(key) & (kClusterSlots - 1);
  return last_slot;
}

}  // namespace ebb
