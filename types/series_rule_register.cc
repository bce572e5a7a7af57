#include "types/series_rule_register.h"

#include <limits>

#include "storage/util/coding.h"

namespace ebb::types {
namespace {

constexpr uint8_t kRuleRegisterVersion = 1;
constexpr uint8_t kRuleRegisterFloorVersion = 2;  // the same, with a floor after the align
constexpr uint8_t kMaxAggregator = static_cast<uint8_t>(Aggregator::kTwa);
constexpr uint64_t kMaxSigned = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

}  // namespace

bool SeriesRuleRegister::Below(const SeriesRuleRegister& other) const {
  if (ms != other.ms) return ms < other.ms;
  if (origin != other.origin) return origin < other.origin;
  return EncodeSeriesRuleRegister(*this) < EncodeSeriesRuleRegister(other);
}

std::string EncodeSeriesRuleRegister(const SeriesRuleRegister& reg) {
  std::string out;
  const bool floored = reg.present && reg.floor > 0;
  out.push_back(static_cast<char>(floored ? kRuleRegisterFloorVersion : kRuleRegisterVersion));
  storage::PutFixed64(&out, static_cast<uint64_t>(reg.ms));
  storage::PutLengthPrefixed(&out, reg.origin);
  out.push_back(reg.present ? 1 : 0);
  if (!reg.present) return out;
  storage::PutLengthPrefixed(&out, reg.source);
  out.push_back(static_cast<char>(reg.rule.aggregator));
  storage::PutVarint64(&out, static_cast<uint64_t>(reg.rule.bucket_ms));
  storage::PutVarint64(&out, static_cast<uint64_t>(reg.rule.align));
  if (floored) storage::PutVarint64(&out, static_cast<uint64_t>(reg.floor));
  return out;
}

bool DecodeSeriesRuleRegister(std::string_view in, std::string_view dest, SeriesRuleRegister* reg) {
  *reg = SeriesRuleRegister();
  uint8_t version = 0;
  uint64_t ms = 0;
  std::string_view origin;
  uint8_t present = 0;
  if (!storage::GetByte(&in, &version) ||
      (version != kRuleRegisterVersion && version != kRuleRegisterFloorVersion) ||
      !storage::GetFixed64(&in, &ms) || !storage::GetLengthPrefixed(&in, &origin) ||
      !storage::GetByte(&in, &present) || present > 1) {
    return false;
  }
  reg->ms = static_cast<int64_t>(ms);
  reg->origin = std::string(origin);
  reg->present = present == 1;
  reg->rule.dest = std::string(dest);
  if (!reg->present) return in.empty() && version == kRuleRegisterVersion;
  std::string_view source;
  uint8_t aggregator = 0;
  uint64_t bucket = 0;
  uint64_t align = 0;
  if (!storage::GetLengthPrefixed(&in, &source) || !storage::GetByte(&in, &aggregator) ||
      aggregator > kMaxAggregator || !storage::GetVarint64(&in, &bucket) || bucket == 0 ||
      bucket > kMaxSigned || !storage::GetVarint64(&in, &align) || align > kMaxSigned) {
    return false;
  }
  reg->source = std::string(source);
  reg->rule.aggregator = static_cast<Aggregator>(aggregator);
  reg->rule.bucket_ms = static_cast<int64_t>(bucket);
  reg->rule.align = static_cast<int64_t>(align);
  if (version == kRuleRegisterFloorVersion) {
    uint64_t floor = 0;
    if (!storage::GetVarint64(&in, &floor) || floor == 0 || floor > kMaxSigned) return false;
    reg->floor = static_cast<int64_t>(floor);
  }
  return in.empty();
}

}  // namespace ebb::types
