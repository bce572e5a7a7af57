// Damaging files on purpose, for the tests of what ebb does with damaged data: changing one byte
// (as bit rot does) or writing bytes over a range (as a torn or misdirected write does).
// Thread-safety: none; the file must not be open for writing elsewhere.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>

namespace ebb::test {

// XORs the byte at `offset` of `path` with 0x5a.
inline void FlipByte(const std::string& path, uint64_t offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.read(&c, 1);
  c = static_cast<char>(c ^ 0x5a);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(&c, 1);
}

// Writes `bytes` over `path` from `offset` on.
inline void OverwriteAt(const std::string& path, uint64_t offset, std::string_view bytes) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace ebb::test
