#include "storage/format/internal_key.h"

#include <algorithm>
#include <cstring>

#include "storage/util/coding.h"

namespace ebb::storage {

void AppendInternalKey(std::string* dst, std::string_view user_key, uint64_t sequence,
                       RowKind kind) {
  dst->append(user_key.data(), user_key.size());
  PutFixed64(dst, (sequence << 8) | static_cast<uint8_t>(kind));
}

bool ParseInternalKey(std::string_view internal_key, ParsedInternalKey* parsed) {
  if (internal_key.size() < kInternalKeyTrailer) return false;
  const uint64_t trailer = DecodeFixed64(internal_key.data() + internal_key.size() - 8);
  const uint8_t kind = trailer & 0xff;
  if (kind > static_cast<uint8_t>(RowKind::kWipe)) return false;
  parsed->user_key = ExtractUserKey(internal_key);
  parsed->sequence = trailer >> 8;
  parsed->kind = static_cast<RowKind>(kind);
  return true;
}

int CompareInternalKeys(std::string_view a, std::string_view b) {
  const int r = CompareUserKeys(ExtractUserKey(a), ExtractUserKey(b));
  if (r != 0) return r;
  const uint64_t ta = DecodeFixed64(a.data() + a.size() - 8);
  const uint64_t tb = DecodeFixed64(b.data() + b.size() - 8);
  return ta > tb ? -1 : (ta < tb ? 1 : 0);
}

void AppendLookupKey(std::string* dst, std::string_view user_key, uint64_t sequence) {
  dst->append(user_key.data(), user_key.size());
  PutFixed64(dst, (sequence << 8) | 0xff);
}

std::string_view EncodeLookupKey(char* dst, std::string_view user_key, uint64_t sequence) {
  std::memcpy(dst, user_key.data(), user_key.size());
  EncodeFixed64(dst + user_key.size(), (sequence << 8) | 0xff);
  return std::string_view(dst, user_key.size() + kInternalKeyTrailer);
}

std::string LookupKey(std::string_view user_key, uint64_t sequence) {
  std::string key;
  key.reserve(user_key.size() + kInternalKeyTrailer);
  AppendLookupKey(&key, user_key, sequence);
  return key;
}

size_t EncodeRowHeader(const RowMeta& meta, char* dst) {
  uint8_t flags = 0;
  if (meta.timestamp_ms) flags |= kRowHasTimestamp;
  if (meta.expire_at_ms) flags |= kRowHasExpiry;
  char* p = dst;
  *p++ = static_cast<char>(flags);
  if (meta.timestamp_ms) p = EncodeVarint64(p, ZigZag(*meta.timestamp_ms));
  if (meta.expire_at_ms) p = EncodeVarint64(p, ZigZag(*meta.expire_at_ms));
  return static_cast<size_t>(p - dst);
}

void AppendEncodedRow(std::string* dst, const RowMeta& meta, std::string_view value) {
  char header[kMaxRowHeaderBytes];
  dst->append(header, EncodeRowHeader(meta, header));
  dst->append(value.data(), value.size());
}

size_t EncodedRowLength(const RowMeta& meta, std::string_view value) {
  size_t n = 1 + value.size();
  if (meta.timestamp_ms) n += VarintLength(ZigZag(*meta.timestamp_ms));
  if (meta.expire_at_ms) n += VarintLength(ZigZag(*meta.expire_at_ms));
  return n;
}

bool DecodeRow(std::string_view encoded, RowMeta* meta, std::string_view* value) {
  if (encoded.empty()) return false;
  const uint8_t flags = static_cast<uint8_t>(encoded[0]);
  if (flags & ~(kRowHasTimestamp | kRowHasExpiry)) return false;
  encoded.remove_prefix(1);
  uint64_t v;
  meta->timestamp_ms.reset();
  meta->expire_at_ms.reset();
  if (flags & kRowHasTimestamp) {
    if (!GetVarint64(&encoded, &v)) return false;
    meta->timestamp_ms = UnZigZag(v);
  }
  if (flags & kRowHasExpiry) {
    if (!GetVarint64(&encoded, &v)) return false;
    meta->expire_at_ms = UnZigZag(v);
  }
  *value = encoded;
  return true;
}

}  // namespace ebb::storage
