// Little-endian fixed-width and varint encodings used by every on-disk format.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace ebb::storage {

inline void EncodeFixed32(char* dst, uint32_t v) { std::memcpy(dst, &v, 4); }  // x86/ARM: LE
inline void EncodeFixed64(char* dst, uint64_t v) { std::memcpy(dst, &v, 8); }
inline uint32_t DecodeFixed32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline uint64_t DecodeFixed64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

void PutFixed32(std::string* dst, uint32_t v);
void PutFixed64(std::string* dst, uint64_t v);
void PutVarint32(std::string* dst, uint32_t v);
void PutVarint64(std::string* dst, uint64_t v);
// Writes v's varint (at most kMaxVarint64Bytes) at dst; returns the byte after it.
inline constexpr size_t kMaxVarint64Bytes = 10;
inline char* EncodeVarint64(char* dst, uint64_t v) {
  while (v >= 0x80) {
    *dst++ = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  *dst++ = static_cast<char>(v);
  return dst;
}
// varint32 length, then the bytes.
void PutLengthPrefixed(std::string* dst, std::string_view value);
// Zig-zag maps signed to unsigned so small negative numbers stay small varints.
inline uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t UnZigZag(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

// Each Get* consumes from the front of *input; false (input unspecified) if it is malformed.
// A varint is at most 10 bytes; GetVarint32 also rejects values above UINT32_MAX.
inline bool GetByte(std::string_view* input, uint8_t* v) {
  if (input->empty()) return false;
  *v = static_cast<uint8_t>(input->front());
  input->remove_prefix(1);
  return true;
}
bool GetFixed32(std::string_view* input, uint32_t* v);
bool GetFixed64(std::string_view* input, uint64_t* v);
// A varint32 length, then that many bytes (PutLengthPrefixed's form), from the front of *input:
// false, *input unchanged, when it is malformed or runs past the end. Inline (below): a decoder
// takes one per field.
inline bool GetLengthPrefixed(std::string_view* input, std::string_view* value);

// Pointer forms for hot parsing loops: decode the varint starting at p (bytes [p, limit)) into
// *v and return the byte after it, or nullptr if it is malformed or runs past limit.
// The one-byte case (values < 128, by far the most common in blocks) is inline; longer ones
// go to the out-of-line *Slow functions.
const char* GetVarint32PtrSlow(const char* p, const char* limit, uint32_t* v);
const char* GetVarint64PtrSlow(const char* p, const char* limit, uint64_t* v);

namespace coding_internal {

// The inline one-byte case, then `slow`; shared by the 32- and 64-bit forms.
template <typename Int>
inline const char* GetVarintPtr(const char* p, const char* limit, Int* v,
                                const char* (*slow)(const char*, const char*, Int*)) {
  if (p < limit) {
    const Int byte = static_cast<uint8_t>(*p);
    if ((byte & 0x80) == 0) {
      *v = byte;
      return p + 1;
    }
  }
  return slow(p, limit, v);
}

// A pointer-form decoder applied to the front of *input, consuming what it read.
template <typename Int>
inline bool GetVarint(std::string_view* input, Int* v,
                      const char* (*decode)(const char*, const char*, Int*)) {
  const char* p = input->data();
  const char* q = decode(p, p + input->size(), v);
  if (q == nullptr) return false;
  input->remove_prefix(static_cast<size_t>(q - p));
  return true;
}

}  // namespace coding_internal

inline const char* GetVarint32Ptr(const char* p, const char* limit, uint32_t* v) {
  return coding_internal::GetVarintPtr(p, limit, v, GetVarint32PtrSlow);
}
inline const char* GetVarint64Ptr(const char* p, const char* limit, uint64_t* v) {
  return coding_internal::GetVarintPtr(p, limit, v, GetVarint64PtrSlow);
}
inline bool GetVarint32(std::string_view* input, uint32_t* v) {
  return coding_internal::GetVarint(input, v, GetVarint32Ptr);
}
inline bool GetVarint64(std::string_view* input, uint64_t* v) {
  return coding_internal::GetVarint(input, v, GetVarint64Ptr);
}

inline bool GetLengthPrefixed(std::string_view* input, std::string_view* value) {
  std::string_view probe = *input;
  uint32_t len = 0;
  if (!GetVarint32(&probe, &len) || probe.size() < len) return false;
  *value = probe.substr(0, len);
  probe.remove_prefix(len);
  *input = probe;
  return true;
}

int VarintLength(uint64_t v);

}  // namespace ebb::storage
