#include "types/tlog_codec.h"

#include <algorithm>
#include <limits>

#include "storage/util/coding.h"
#include "types/key_encoding.h"  // PutFixed64BE, GetFixed64BE

namespace ebb::types {
namespace {

constexpr char kEscaped = '\xFF';  // complement of 0x00: always followed by kEscapeTail
constexpr char kEscapeTail = '\x00';
constexpr char kTerminatorTail = '\xFE';

}  // namespace

uint64_t TlogNewestTs(const TlogMeta& meta) {
  return meta.cutoff > 0 ? std::max(meta.newest, meta.cutoff - 1) : meta.newest;
}

bool TlogRegisterHides(const TlogMeta& meta, int64_t now_ms) {
  const auto& reg = meta.expiry_register;
  return reg && reg->ts >= 0 && reg->expire_at && *reg->expire_at <= now_ms;
}

std::optional<int64_t> TlogOwnExpiry(const TlogMeta& meta) {
  if (meta.window_ms == 0) return std::nullopt;
  const uint64_t last = TlogNewestTs(meta);
  if (last > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - meta.window_ms) {
    return std::nullopt;
  }
  return static_cast<int64_t>(last + meta.window_ms);
}

std::string EncodeTlogMeta(const TlogMeta& meta) {
  std::string out;
  storage::PutVarint64(&out, meta.version);
  storage::PutFixed64(&out, meta.cutoff);
  storage::PutVarint64(&out, meta.size);
  if (meta.window_ms > 0 || meta.expiry_register) {
    storage::PutVarint64(&out, meta.window_ms);
    storage::PutFixed64(&out, meta.newest);
  }
  if (const auto& reg = meta.expiry_register) {
    storage::PutFixed64(&out, static_cast<uint64_t>(reg->ts));
    out.push_back(reg->expire_at ? 1 : 0);
    storage::PutFixed64(&out, static_cast<uint64_t>(reg->expire_at.value_or(0)));
  }
  return out;
}

bool DecodeTlogMeta(std::string_view payload, TlogMeta* meta) {
  if (!storage::GetVarint64(&payload, &meta->version) ||
      !storage::GetFixed64(&payload, &meta->cutoff) ||
      !storage::GetVarint64(&payload, &meta->size)) {
    return false;
  }
  meta->window_ms = 0;
  meta->newest = 0;
  meta->expiry_register.reset();
  if (payload.empty()) return true;
  if (!storage::GetVarint64(&payload, &meta->window_ms) ||
      !storage::GetFixed64(&payload, &meta->newest)) {
    return false;
  }
  if (payload.empty()) return meta->window_ms > 0;
  uint64_t ts = 0;
  uint64_t expire_at = 0;
  if (!storage::GetFixed64(&payload, &ts) || payload.empty()) return false;
  const uint8_t has_expiry = static_cast<uint8_t>(payload[0]);
  payload.remove_prefix(1);
  if (has_expiry > 1 || !storage::GetFixed64(&payload, &expire_at) || !payload.empty()) {
    return false;
  }
  TlogMeta::Register reg{.ts = static_cast<int64_t>(ts)};
  if (has_expiry) reg.expire_at = static_cast<int64_t>(expire_at);
  meta->expiry_register = reg;
  return true;
}

void AppendTlogElement(std::string* dst, uint64_t ts, std::string_view value) {
  // Sized once, then written through a pointer: every TLOG INS encodes one element.
  const size_t zeros = static_cast<size_t>(std::count(value.begin(), value.end(), '\0'));
  size_t at = dst->size();
  dst->resize(at + 8 + value.size() + zeros + 2);
  char* out = dst->data() + at;
  const uint64_t inverted = kGreatestTs - ts;
  for (int shift = 56; shift >= 0; shift -= 8) *out++ = static_cast<char>(inverted >> shift);
  for (char c : value) {
    if (c == '\0') {
      *out++ = kEscaped;
      *out++ = kEscapeTail;
    } else {
      *out++ = static_cast<char>(~static_cast<unsigned char>(c));
    }
  }
  *out++ = kEscaped;
  *out = kTerminatorTail;
}

std::string TlogElementSeekTs(uint64_t ts) {
  std::string out;
  PutFixed64BE(&out, kGreatestTs - ts);
  return out;
}

bool DecodeTlogElementTs(std::string_view element, uint64_t* ts) {
  uint64_t inverted;
  if (!GetFixed64BE(&element, &inverted)) return false;
  *ts = kGreatestTs - inverted;
  return true;
}

bool DecodeTlogElement(std::string_view element, uint64_t* ts, std::string* value) {
  uint64_t inverted;
  if (!GetFixed64BE(&element, &inverted)) return false;
  *ts = kGreatestTs - inverted;
  value->clear();
  // At most the bytes left less the two-byte terminator (a value of up to 15 bytes then stays
  // in std::string's inline buffer).
  if (element.size() > 2) value->reserve(element.size() - 2);
  for (size_t i = 0; i < element.size(); ++i) {
    char c = element[i];
    if (c != kEscaped) {
      value->push_back(static_cast<char>(~static_cast<unsigned char>(c)));
      continue;
    }
    if (i + 1 >= element.size()) return false;
    char tail = element[++i];
    if (tail == kEscapeTail) {
      value->push_back('\0');
    } else if (tail == kTerminatorTail) {
      return i + 1 == element.size();  // the terminator ends the element
    } else {
      return false;
    }
  }
  return false;  // no terminator
}

}  // namespace ebb::types
