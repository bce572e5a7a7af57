#include "types/string_rank.h"

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
  if (hex.size() != kStringDigestSize * 2) return false;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  digest->clear();
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = nibble(hex[i]);
    const int lo = nibble(hex[i + 1]);
    if (hi < 0 || lo < 0) return false;
    digest->push_back(static_cast<char>(hi << 4 | lo));
  }
  return true;
}

}  // namespace ebb::types
