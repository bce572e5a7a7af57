// SHA-1 and SHA-256 through OpenSSL, for the hot callers: the digest that ranks a string version
// between active-active peers (types/string_rank.h), computed per SET that ties on its
// timestamp, and the digest of each applied burst's last delta. OpenSSL 3's one-shot calls
// (SHA256(), EVP_Digest with EVP_sha256()) look the algorithm up in the provider and allocate a
// context on every call; here each algorithm is fetched once per process and each thread reuses
// one context.
// Thread-safety: safe from any thread (the context is per thread).
#pragma once

#include <cstddef>
#include <string_view>

namespace ebb {

inline constexpr size_t kSha1Size = 20;
inline constexpr size_t kSha256Size = 32;

// Writes the SHA-1 of `data` (kSha1Size raw bytes) to `out`.
void Sha1(std::string_view data, unsigned char* out);
// Writes the SHA-256 of `data` (kSha256Size raw bytes) to `out`.
void Sha256(std::string_view data, unsigned char* out);

}  // namespace ebb
