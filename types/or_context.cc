#include "types/or_context.h"

#include <algorithm>
#include <cassert>
#include <cstring>

#include "storage/util/coding.h"
#include "types/string_rank.h"

namespace ebb::types {
namespace {

constexpr uint8_t kContextVersion = 1;
constexpr uint8_t kOwnEntry = 0;
constexpr uint8_t kIdEntry = 1;

std::vector<Dot>::const_iterator Find(const std::vector<Dot>& entries, const OriginId& origin) {
  return std::lower_bound(entries.begin(), entries.end(), origin,
                          [](const Dot& d, const OriginId& o) { return d.origin < o; });
}

// One entry's offset: shortest, >= 1.
bool GetOffset(std::string_view* input, uint64_t* offset) {
  return GetShortestVarint64(input, offset) && *offset >= 1;
}

// The bytes GetVarint* consumed are exactly v's encoding: the shortest form, and no bits above
// 64 in a tenth byte (which the engine's decoder drops).
bool IsEncodingOf(std::string_view consumed, uint64_t v) {
  char buf[storage::kMaxVarint64Bytes];
  const char* end = storage::EncodeVarint64(buf, v);
  return consumed == std::string_view(buf, static_cast<size_t>(end - buf));
}

}  // namespace

OriginId::OriginId(std::string_view bytes) {
  assert(bytes.size() == kOriginIdSize);
  std::memcpy(bytes_.data(), bytes.data(), kOriginIdSize);
}

std::optional<OriginId> OriginId::FromHex(std::string_view hex) {
  OriginId id;
  if (!ParseHex(hex, id.bytes_)) return std::nullopt;
  return id;
}

uint64_t OrContext::At(const OriginId& origin) const {
  auto it = Find(entries_, origin);
  return it != entries_.end() && it->origin == origin ? it->offset : 0;
}

bool OrContext::Raise(const OriginId& origin, uint64_t offset) {
  auto it = entries_.begin() + (Find(entries_, origin) - entries_.cbegin());
  if (it != entries_.end() && it->origin == origin) {
    if (offset <= it->offset) return false;
    it->offset = offset;
    return true;
  }
  entries_.insert(it, Dot{origin, offset});
  return true;
}

bool OrContext::Join(const OrContext& other) {
  bool grew = false;
  for (const Dot& d : other.entries_) grew |= Raise(d.origin, d.offset);
  return grew;
}

void OrContext::Erase(const OriginId& origin) {
  auto it = Find(entries_, origin);
  if (it != entries_.end() && it->origin == origin) entries_.erase(it);
}

std::string EncodeOrContext(const OrContext& context, const OriginId& own_origin) {
  std::string out;
  out.push_back(static_cast<char>(kContextVersion));
  storage::PutVarint32(&out, static_cast<uint32_t>(context.entries().size()));
  if (const uint64_t own = context.At(own_origin)) {
    out.push_back(static_cast<char>(kOwnEntry));
    storage::PutVarint64(&out, own);
  }
  for (const Dot& d : context.entries()) {
    if (d.origin == own_origin) continue;
    out.push_back(static_cast<char>(kIdEntry));
    out.append(d.origin);
    storage::PutVarint64(&out, d.offset);
  }
  return out;
}

bool DecodeOrContext(std::string_view bytes, const OriginId& own_origin, OrContext* context) {
  *context = OrContext();
  uint32_t count = 0;
  if (bytes.empty() || static_cast<uint8_t>(bytes[0]) != kContextVersion) return false;
  bytes.remove_prefix(1);
  if (!GetShortestVarint32(&bytes, &count)) return false;
  std::string_view previous_id;  // the last `1` entry's id: the next must be greater
  for (uint32_t i = 0; i < count; ++i) {
    if (bytes.empty()) return false;
    const uint8_t kind = static_cast<uint8_t>(bytes[0]);
    bytes.remove_prefix(1);
    uint64_t offset = 0;
    if (kind == kOwnEntry && i == 0) {
      if (!GetOffset(&bytes, &offset)) return false;
      context->Raise(own_origin, offset);
      continue;
    }
    if (kind != kIdEntry || bytes.size() < kOriginIdSize) return false;
    const std::string_view id = bytes.substr(0, kOriginIdSize);
    bytes.remove_prefix(kOriginIdSize);
    if (id == own_origin || (!previous_id.empty() && id <= previous_id)) return false;
    if (!GetOffset(&bytes, &offset)) return false;
    context->Raise(OriginId(id), offset);
    previous_id = id;
  }
  return bytes.empty();
}

bool GetShortestVarint64(std::string_view* input, uint64_t* v) {
  const std::string_view before = *input;
  if (!storage::GetVarint64(input, v)) return false;
  return IsEncodingOf(before.substr(0, before.size() - input->size()), *v);
}

bool GetShortestVarint32(std::string_view* input, uint32_t* v) {
  const std::string_view before = *input;
  if (!storage::GetVarint32(input, v)) return false;
  return IsEncodingOf(before.substr(0, before.size() - input->size()), *v);
}

}  // namespace ebb::types
