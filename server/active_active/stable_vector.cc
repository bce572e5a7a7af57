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

VectorParse ParseRetiredIds(std::span<const std::string_view> fields, RetiredIds* out) {
  out->clear();
  if (fields.size() > kMaxVectorOrigins) return VectorParse::kTooManyOrigins;
  std::set<std::string_view> seen;
  for (std::string_view id : fields) {
    if (!IsNodeId(id)) return VectorParse::kBadOriginId;
    if (!seen.insert(id).second) return VectorParse::kRepeatedOrigin;
  }
  out->assign(fields.begin(), fields.end());
  return VectorParse::kOk;
}

VectorParse ParseTickVector(std::span<const std::string_view> tick,
                            std::optional<OriginVector>* vector, RetiredIds* retired) {
  vector->reset();
  if (retired != nullptr) retired->clear();
  if (tick.size() <= 4 || tick[4] != kTickVectorTag) return VectorParse::kOk;
  std::span<const std::string_view> pairs = tick.subspan(5);
  std::span<const std::string_view> retired_fields;
  // An id is 40 hex digits and an offset decimal digits: the tag cannot be either.
  const auto tag = std::find(pairs.begin(), pairs.end(), kTickRetiredTag);
  if (tag != pairs.end()) {
    const size_t at = static_cast<size_t>(tag - pairs.begin());
    retired_fields = pairs.subspan(at + 1);
    pairs = pairs.first(at);
  }
  OriginVector parsed;
  VectorParse outcome = ParseOriginVector(pairs, &parsed);
  RetiredIds ids;
  if (outcome == VectorParse::kOk) outcome = ParseRetiredIds(retired_fields, &ids);
  if (outcome != VectorParse::kOk) return outcome;
  *vector = std::move(parsed);
  if (retired != nullptr) *retired = std::move(ids);
  return outcome;
}

void AppendVectorTickResp(std::string* out, int64_t now_ms, uint64_t end_offset, uint64_t end_bytes,
                          const OriginVector& vector, std::span<const std::string> retired) {
  *out += '*';
  *out += std::to_string(5 + 2 * vector.size() + (retired.empty() ? 0 : 1 + retired.size()));
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
  if (retired.empty()) return;
  AppendRespBulk(out, kTickRetiredTag);
  for (const std::string& id : retired) AppendRespBulk(out, id);
}

void SyncedVector::Note(uint64_t sequence, OriginVector vector) {
  const OriginVector& newest = pending_.empty() ? reported_ : pending_.back().vector;
  if (vector == newest) return;  // nothing new: the writes it counts are noted already
  if (pending_.size() >= kMaxPending) {
    pending_.back() = {sequence, std::move(vector)};  // a later sequence: promoted no earlier
    return;
  }
  pending_.push_back({sequence, std::move(vector)});
}

void SyncedVector::Synced(uint64_t synced_sequence) {
  while (!pending_.empty() && pending_.front().sequence <= synced_sequence) {
    reported_ = std::move(pending_.front().vector);
    pending_.pop_front();
  }
}

void SyncedVector::Reset() {
  pending_.clear();
  reported_.clear();
}

OriginVector WithoutRetired(const OriginVector& vector,
                            const std::set<std::string, std::less<>>& retired,
                            const std::set<std::string, std::less<>>& live) {
  OriginVector out;
  for (const auto& [origin, offset] : vector) {
    if (retired.contains(origin) && !live.contains(origin)) continue;
    out.emplace_hint(out.end(), origin, offset);
  }
  return out;
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

types::OrContext OrContextOf(const OriginVector& vector) {
  types::OrContext context;
  for (const auto& [id, offset] : vector) {
    const std::optional<types::OriginId> origin = types::OriginId::FromHex(id);
    if (origin && offset > 0) context.Raise(*origin, offset);
  }
  return context;
}

OriginVector OriginVectorOf(const types::OrContext& context) {
  OriginVector vector;
  for (const types::Dot& dot : context.entries()) {
    vector.emplace(NodeIdOfOrigin(dot.origin.view()), dot.offset);
  }
  return vector;
}

}  // namespace ebb::server
