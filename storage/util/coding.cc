#include "storage/util/coding.h"

namespace ebb::storage {

void PutFixed32(std::string* dst, uint32_t v) {
  char buf[4];
  EncodeFixed32(buf, v);
  dst->append(buf, 4);
}

void PutFixed64(std::string* dst, uint64_t v) {
  char buf[8];
  EncodeFixed64(buf, v);
  dst->append(buf, 8);
}

void PutVarint64(std::string* dst, uint64_t v) {
  char buf[kMaxVarint64Bytes];
  dst->append(buf, static_cast<size_t>(EncodeVarint64(buf, v) - buf));
}

void PutVarint32(std::string* dst, uint32_t v) { PutVarint64(dst, v); }

void PutLengthPrefixed(std::string* dst, std::string_view value) {
  PutVarint32(dst, static_cast<uint32_t>(value.size()));
  dst->append(value.data(), value.size());
}

bool GetFixed32(std::string_view* input, uint32_t* v) {
  if (input->size() < 4) return false;
  *v = DecodeFixed32(input->data());
  input->remove_prefix(4);
  return true;
}

bool GetFixed64(std::string_view* input, uint64_t* v) {
  if (input->size() < 8) return false;
  *v = DecodeFixed64(input->data());
  input->remove_prefix(8);
  return true;
}

namespace {

// A varint of 2 to 8 bytes with 8 bytes readable at p, decoded from one 8-byte load: its length
// from the first byte with the continuation bit clear, then the 7-bit groups packed together.
// nullptr when none of the 8 bytes ends it.
const char* DecodeVarint64Of8(const char* p, uint64_t* v) {
  const uint64_t word = DecodeFixed64(p);
  const uint64_t ends = ~word & 0x8080808080808080ULL;
  if (ends == 0) return nullptr;
  const int length = (__builtin_ctzll(ends) >> 3) + 1;
  uint64_t x = length == 8 ? word : word & ((uint64_t{1} << (8 * length)) - 1);
  x &= 0x7f7f7f7f7f7f7f7fULL;
  x = ((x & 0x7f007f007f007f00ULL) >> 1) | (x & 0x007f007f007f007fULL);
  x = ((x & 0x3fff00003fff0000ULL) >> 2) | (x & 0x00003fff00003fffULL);
  x = ((x & 0x0fffffff00000000ULL) >> 4) | (x & 0x000000000fffffffULL);
  *v = x;
  return p + length;
}

}  // namespace

const char* GetVarint64PtrSlow(const char* p, const char* limit, uint64_t* v) {
  // Timestamps and expiries in ms are 6-byte varints: one load and a few shifts, not a loop.
  if (limit - p >= 8) {
    if (const char* end = DecodeVarint64Of8(p, v)) return end;
  }
  uint64_t result = 0;
  for (uint32_t shift = 0; p < limit && shift <= 63; shift += 7) {
    const uint64_t byte = static_cast<uint8_t>(*p++);
    result |= (byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      return p;
    }
  }
  return nullptr;
}

const char* GetVarint32PtrSlow(const char* p, const char* limit, uint32_t* v) {
  uint64_t wide;
  const char* q = GetVarint64PtrSlow(p, limit, &wide);
  if (q == nullptr || wide > UINT32_MAX) return nullptr;
  *v = static_cast<uint32_t>(wide);
  return q;
}

int VarintLength(uint64_t v) {
  int len = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++len;
  }
  return len;
}

}  // namespace ebb::storage
