#include "types/string_rank.h"

#include <array>
#include <cstdint>

#include "common/message_digest.h"
#include "storage/util/coding.h"
#include "types/key_meta.h"

namespace ebb::types {

std::string StringDigest(std::string_view value) {
  static_assert(kStringDigestSize == kSha256Size);
  std::string digest(kStringDigestSize, '\0');
  Sha256(value, reinterpret_cast<unsigned char*>(digest.data()));
  return digest;
}

std::string EncodeReducedString(std::string_view digest, int64_t expire_at) {
  std::string out;
  out.reserve(1 + kStringDigestSize + 8);
  out.push_back(static_cast<char>(KeyType::kString));
  out.append(digest);
  storage::PutFixed64(&out, static_cast<uint64_t>(expire_at));
  return out;
}

bool DecodeReducedString(std::string_view tombstone_value, std::string* digest,
                         int64_t* expire_at) {
  if (tombstone_value.size() != 1 + kStringDigestSize + 8 ||
      tombstone_value[0] != static_cast<char>(KeyType::kString)) {
    return false;
  }
  digest->assign(tombstone_value.substr(1, kStringDigestSize));
  *expire_at =
      static_cast<int64_t>(storage::DecodeFixed64(tombstone_value.data() + 1 + kStringDigestSize));
  return true;
}

std::string DigestHex(std::string_view digest) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(digest.size() * 2);
  for (unsigned char c : digest) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

bool ParseDigestHex(std::string_view hex, std::string* digest) {
  digest->resize(kStringDigestSize);
  return ParseHex(hex, *digest);
}

bool ParseHex(std::string_view hex, std::span<char> bytes) {
  // Each character's value as a hex digit, -1 for any other (a peer applies one per delta).
  static constexpr auto kNibble = [] {
    std::array<int8_t, 256> table{};
    table.fill(-1);
    for (int d = 0; d < 10; d++) table['0' + d] = static_cast<int8_t>(d);
    for (int d = 0; d < 6; d++) {
      table['a' + d] = static_cast<int8_t>(10 + d);
      table['A' + d] = static_cast<int8_t>(10 + d);
    }
    return table;
  }();
  if (hex.size() != 2 * bytes.size()) return false;
  for (size_t i = 0; i < bytes.size(); i++) {
    const int hi = kNibble[static_cast<unsigned char>(hex[2 * i])];
    const int lo = kNibble[static_cast<unsigned char>(hex[2 * i + 1])];
    if ((hi | lo) < 0) return false;
    bytes[i] = static_cast<char>(hi << 4 | lo);
  }
  return true;
}

}  // namespace ebb::types
