#include "server/core/digest.h"

#include "common/message_digest.h"

namespace ebb::server {
namespace {

std::string Hex(const unsigned char* digest, size_t length) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * length);
  for (size_t i = 0; i < length; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 0xf]);
  }
  return hex;
}

}  // namespace

std::string Sha1Hex(std::string_view data) {
  unsigned char digest[kSha1Size];
  Sha1(data, digest);
  return Hex(digest, kSha1Size);
}

std::string Sha256Hex(std::string_view data) {
  unsigned char digest[kSha256Size];
  Sha256(data, digest);
  return Hex(digest, kSha256Size);
}

}  // namespace ebb::server
