// Message digests as hex text, through OpenSSL: SHA-1 (Redis's script names, redis.sha1hex,
// DEBUG DIGEST) and SHA-256 (ACL password hashes).
// Thread-safety: safe from any thread.
#pragma once

#include <string>
#include <string_view>

namespace ebb::server {

// The SHA-1 of `data` as 40 lower-case hex digits.
std::string Sha1Hex(std::string_view data);
// The SHA-256 of `data` as 64 lower-case hex digits.
std::string Sha256Hex(std::string_view data);

}  // namespace ebb::server
