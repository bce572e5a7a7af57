// Redis Cluster's hash slot of a key: CRC16 (XMODEM: polynomial 0x1021, initial value 0) of the
// key, or of its hash tag — the bytes between the first '{' and the first '}' after it, when
// there is at least one byte between them — modulo 16384. Keys with the same hash tag share a
// slot, so multi-key commands can name them together in a cluster.
// Thread-safety: safe from any thread (KeySlot remembers each thread's last key and slot).
#pragma once

#include <cstdint>
#include <string_view>

namespace ebb {

inline constexpr int kClusterSlots = 16384;

// CRC16-XMODEM of `bytes` (CRC16("123456789") == 0x31C3).
uint16_t Crc16(std::string_view bytes);
// The hash slot of `key`, in [0, kClusterSlots).
int KeySlot(std::string_view key);

}  // namespace ebb
