#include "server/core/digest.h"

#include <openssl/evp.h>

namespace ebb::server {
namespace {

std::string HexDigest(std::string_view data, const EVP_MD* md) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(data.data(), data.size(), digest, &length, md, nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 0xf]);
  }
  return hex;
}

}  // namespace

std::string Sha1Hex(std::string_view data) { return HexDigest(data, EVP_sha1()); }

std::string Sha256Hex(std::string_view data) { return HexDigest(data, EVP_sha256()); }

}  // namespace ebb::server
