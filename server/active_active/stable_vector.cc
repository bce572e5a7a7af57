#include "server/active_active/stable_vector.h"

#include <algorithm>
#include <cctype>

#include "common/strings.h"
#include "server/active_active/peer_delta.h"

namespace ebb::server {
namespace {

bool IsNodeId(std::string_view id) {
  return id.size() == kNodeIdLength && std::all_of(id.begin(), id.end(), [](char c) {
           return std::isxdigit(static_cast<unsigned char>(c)) != 0;
         });
}

}  // namespace

std::string_view VectorParseText(VectorParse outcome) {
  switch (outcome) {
    case VectorParse::kOk:
      return "ok";
    case VectorParse::kOddFields:
      return "an origin without its offset";
    case VectorParse::kTooManyOrigins:
      return "more origins than a vector may name";
    case VectorParse::kBadOriginId:
      return "an origin id that is not 40 hex digits";
    case VectorParse::kBadOffset:
      return "an offset that is not an unsigned 64-bit integer";
    case VectorParse::kRepeatedOrigin:
      return "an origin named twice";
  }
  return "unknown";
}

VectorParse ParseOriginVector(std::span<const std::string_view> fields, OriginVector* out) {
  out->clear();
  if (fields.size() % 2 != 0) return VectorParse::kOddFields;
  if (fields.size() / 2 > kMaxVectorOrigins) return VectorParse::kTooManyOrigins;
  OriginVector parsed;
  for (size_t i = 0; i < fields.size(); i += 2) {
    if (!IsNodeId(fields[i])) return VectorParse::kBadOriginId;
    uint64_t offset = 0;
    if (!ParseUint64(fields[i + 1], &offset)) return VectorParse::kBadOffset;
    if (!parsed.emplace(std::string(fields[i]), offset).second) {
      return VectorParse::kRepeatedOrigin;
    }
  }
  *out = std::move(parsed);
  return VectorParse::kOk;
}

VectorParse ParseTickVector(std::span<const std::string_view> tick,
                            std::optional<OriginVector>* vector) {
  vector->reset();
  if (tick.size() <= 4 || tick[4] != kTickVectorTag) return VectorParse::kOk;
  OriginVector parsed;
  const VectorParse outcome = ParseOriginVector(tick.subspan(5), &parsed);
  if (outcome == VectorParse::kOk) *vector = std::move(parsed);
  return outcome;
}

void AppendVectorTickResp(std::string* out, int64_t now_ms, uint64_t end_offset, uint64_t end_bytes,
                          const OriginVector& vector) {
  *out += '*';
  *out += std::to_string(5 + 2 * vector.size());
  *out += "\r\n";
  AppendRespBulk(out, "tick");
  AppendRespBulk(out, std::to_string(now_ms));
  AppendRespBulk(out, std::to_string(end_offset));
  AppendRespBulk(out, std::to_string(end_bytes));
  AppendRespBulk(out, kTickVectorTag);
  for (const auto& [origin, offset] : vector) {
    AppendRespBulk(out, origin);
    AppendRespBulk(out, std::to_string(offset));
  }
}

OriginVector StableVector(const OriginVector& self, std::span<const OriginVector* const> peers) {
  OriginVector stable = self;
  for (const OriginVector* peer : peers) {
    if (peer == nullptr) continue;
    for (const auto& [origin, offset] : *peer) stable.emplace(origin, offset);
  }
  for (auto& [origin, least] : stable) {
    auto in_self = self.find(origin);
    least = in_self == self.end() ? 0 : in_self->second;
    for (const OriginVector* peer : peers) {
      if (peer == nullptr) {
        least = 0;
        break;
      }
      auto it = peer->find(origin);
      least = std::min(least, it == peer->end() ? 0 : it->second);
    }
  }
  return stable;
}

uint64_t LargestLag(std::string_view self_id, uint64_t end_offset,
                    std::span<const OriginVector* const> peers) {
  uint64_t largest = 0;
  for (const OriginVector* peer : peers) {
    uint64_t applied = 0;
    if (peer != nullptr) {
      auto it = peer->find(self_id);
      if (it != peer->end()) applied = it->second;
    }
    if (end_offset > applied) largest = std::max(largest, end_offset - applied);
  }
  return largest;
}

std::string FormatOriginVector(const OriginVector& vector) {
  std::string out;
  for (const auto& [origin, offset] : vector) {
    if (!out.empty()) out += ',';
    out += origin;
    out += '=';
    out += std::to_string(offset);
  }
  return out;
}

}  // namespace ebb::server
