// A string version's rank between active-active peers without its value bytes
// (docs/active-active.md, "Merge rules" and "Dead versions"; docs/key-encoding.md, "String rows").
//
// String versions merge as a last-writer-wins register over (timestamp, tombstone,
// digest(value), expire_at with "never" greatest), where the digest is the SHA-256 of the value
// bytes: equal digests are the same version. The rank needs no bytes, so a dead version keeps it
// after compaction drops its value: the tombstone it is reduced to carries the digest and the
// expiry (EncodeReducedString), and a peer that never had the bytes can hold the same version.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace ebb::types {

inline constexpr size_t kStringDigestSize = 32;

// SHA-256 of a string's value bytes (without the metadata row's type tag), raw.
std::string StringDigest(std::string_view value);

// The value of the tombstone an expired string version is reduced to:
// 0x00 (KeyType::kString) | digest:32 bytes | expire_at:fixed64 (little-endian, signed;
// INT64_MAX for "never"). A DELETE's tombstone carries no value.
std::string EncodeReducedString(std::string_view digest, int64_t expire_at);
// False when `tombstone_value` is not such a value (a DELETE's empty one, for example).
bool DecodeReducedString(std::string_view tombstone_value, std::string* digest, int64_t* expire_at);

// Lower-case hex of a digest, and back (false unless exactly kStringDigestSize bytes' worth).
std::string DigestHex(std::string_view digest);
bool ParseDigestHex(std::string_view hex, std::string* digest);
// `hex` as the bytes.size() bytes it spells: false (bytes unspecified) unless it is exactly
// 2 * bytes.size() hex digits, either case.
bool ParseHex(std::string_view hex, std::span<char> bytes);

}  // namespace ebb::types
