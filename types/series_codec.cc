#include "types/series_codec.h"

#include <algorithm>
#include <bit>

#include "common/strings.h"
#include "storage/util/coding.h"
#include "types/key_encoding.h"

namespace ebb::types {

namespace {

constexpr std::string_view kPolicyNames[] = {"block", "first", "last", "min", "max", "sum"};

void PutRulesExtension(std::string* out, const SeriesMeta& meta) {
  out->push_back(static_cast<char>(kSeriesRulesExtension));
  out->push_back(meta.source ? 1 : 0);
  if (meta.source) storage::PutLengthPrefixed(out, *meta.source);
  storage::PutVarint64(out, meta.rules.size());
  for (const SeriesRule& rule : meta.rules) {
    storage::PutLengthPrefixed(out, rule.dest);
    out->push_back(static_cast<char>(rule.aggregator));
    storage::PutVarint64(out, static_cast<uint64_t>(rule.bucket_ms));
    storage::PutVarint64(out, static_cast<uint64_t>(rule.align));
  }
}

bool GetRule(std::string_view* in, SeriesRule* rule) {
  std::string_view dest;
  uint8_t aggregator = 0;
  uint64_t bucket = 0;
  uint64_t align = 0;
  if (!storage::GetLengthPrefixed(in, &dest) || !storage::GetByte(in, &aggregator) ||
      aggregator > static_cast<uint8_t>(Aggregator::kTwa) || !storage::GetVarint64(in, &bucket) ||
      bucket == 0 || bucket > static_cast<uint64_t>(kMaxSeriesTimestamp) ||
      !storage::GetVarint64(in, &align) || align > static_cast<uint64_t>(kMaxSeriesTimestamp)) {
    return false;
  }
  rule->dest = std::string(dest);
  rule->aggregator = static_cast<Aggregator>(aggregator);
  rule->bucket_ms = static_cast<int64_t>(bucket);
  rule->align = static_cast<int64_t>(align);
  return true;
}

bool GetRulesExtension(std::string_view* in, SeriesMeta* meta) {
  uint8_t tag = 0;
  uint8_t has_source = 0;
  uint64_t count = 0;
  if (!storage::GetByte(in, &tag) || tag != kSeriesRulesExtension ||
      !storage::GetByte(in, &has_source) || has_source > 1) {
    return false;
  }
  if (has_source) {
    std::string_view source;
    if (!storage::GetLengthPrefixed(in, &source)) return false;
    meta->source = std::string(source);
  }
  // Each rule takes at least 4 bytes: a count above the bytes left is malformed.
  if (!storage::GetVarint64(in, &count) || count > in->size()) return false;
  meta->rules.resize(count);
  for (SeriesRule& rule : meta->rules) {
    if (!GetRule(in, &rule)) return false;
  }
  return true;
}

// The tail extension.
bool GetTailExtension(std::string_view* in, SeriesMeta* meta) {
  uint8_t tag = 0;
  uint64_t from = 0;
  if (!storage::GetByte(in, &tag) || tag != kSeriesTailExtension ||
      !storage::GetVarint64(in, &meta->tail_count) || meta->tail_count == 0 ||
      meta->tail_count >= kMaxSeriesBlockSamples || !storage::GetVarint64(in, &from) ||
      from > static_cast<uint64_t>(kMaxSeriesTimestamp)) {
    return false;
  }
  meta->tail_from = static_cast<int64_t>(from);
  return true;
}

// The purge extension.
bool GetPurgeExtension(std::string_view* in, SeriesMeta* meta) {
  uint8_t tag = 0;
  uint64_t until = 0;
  if (!storage::GetByte(in, &tag) || tag != kSeriesPurgeExtension ||
      !storage::GetVarint64(in, &until) || until == 0 ||
      until > static_cast<uint64_t>(kMaxSeriesTimestamp)) {
    return false;
  }
  meta->purge_marked_until = static_cast<int64_t>(until);
  return true;
}

// The hidden extension.
bool GetHiddenExtension(std::string_view* in, SeriesMeta* meta) {
  uint8_t tag = 0;
  uint64_t count = 0;
  if (!storage::GetByte(in, &tag) || tag != kSeriesHiddenExtension ||
      !storage::GetVarint64(in, &count) || count == 0 || count > kMaxSeriesHidden) {
    return false;
  }
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t at = 0;
    uint64_t floor = 0;
    if (!storage::GetVarint64(in, &at) || !storage::GetVarint64(in, &floor) ||
        at > static_cast<uint64_t>(INT64_MAX) || floor == 0 ||
        floor > static_cast<uint64_t>(kMaxSeriesTimestamp)) {
      return false;
    }
    const SeriesHidden entry{static_cast<int64_t>(at), static_cast<int64_t>(floor)};
    if (!meta->hidden.empty() &&
        (entry.at_ms < meta->hidden.back().at_ms || entry.floor < meta->hidden.back().floor)) {
      return false;
    }
    meta->hidden.push_back(entry);
  }
  return true;
}

// The register extension, which ends the payload.
bool GetRegisterExtension(std::string_view* in, SeriesMeta* meta) {
  uint8_t tag = 0;
  uint8_t flags = 0;
  uint64_t ts = 0;
  uint64_t expire_at = 0;
  if (!storage::GetByte(in, &tag) || tag != kSeriesRegisterExtension ||
      !storage::GetFixed64(in, &ts) || !storage::GetByte(in, &flags) || flags > 3 ||
      !storage::GetFixed64(in, &expire_at) || (!(flags & 1) && expire_at != 0)) {
    return false;
  }
  SeriesMeta::ExpiryRegister reg;
  reg.ts = static_cast<int64_t>(ts);
  if (flags & 1) reg.expire_at = static_cast<int64_t>(expire_at);
  reg.settings_after = (flags & 2) != 0;
  meta->expiry_register = reg;
  return in->empty();
}

}  // namespace

std::optional<std::string_view> DuplicatePolicyName(DuplicatePolicy policy) {
  const auto index = static_cast<size_t>(policy);
  if (index == 0 || index > std::size(kPolicyNames)) return std::nullopt;
  return kPolicyNames[index - 1];
}

std::optional<DuplicatePolicy> DuplicatePolicyFromName(std::string_view name) {
  for (size_t i = 0; i < std::size(kPolicyNames); ++i) {
    if (EqualsIgnoreCase(name, kPolicyNames[i])) return static_cast<DuplicatePolicy>(i + 1);
  }
  return std::nullopt;
}

std::string EncodeSeriesMeta(const SeriesMeta& meta) {
  std::string out;
  storage::PutVarint64(&out, meta.version);
  storage::PutVarint64(&out, meta.settings.retention_ms);
  out.push_back(static_cast<char>(meta.settings.duplicate_policy));
  out.push_back(static_cast<char>(meta.settings.encoding));
  storage::PutVarint64(&out, meta.settings.chunk_size);
  storage::PutVarint64(&out, meta.settings.labels.size());
  for (const auto& [name, value] : meta.settings.labels) {
    storage::PutLengthPrefixed(&out, name);
    storage::PutLengthPrefixed(&out, value);
  }
  out.push_back(meta.newest ? 1 : 0);
  if (meta.newest) {
    storage::PutFixed64(&out, static_cast<uint64_t>(meta.newest->ts));
    storage::PutFixed64(&out, std::bit_cast<uint64_t>(meta.newest->value));
  }
  storage::PutFixed64(&out, static_cast<uint64_t>(meta.purged_below));
  if (meta.source || !meta.rules.empty()) PutRulesExtension(&out, meta);
  if (meta.tail_count > 0) {
    out.push_back(static_cast<char>(kSeriesTailExtension));
    storage::PutVarint64(&out, meta.tail_count);
    storage::PutVarint64(&out, static_cast<uint64_t>(meta.tail_from));
  }
  if (meta.purge_marked_until > 0) {
    out.push_back(static_cast<char>(kSeriesPurgeExtension));
    storage::PutVarint64(&out, static_cast<uint64_t>(meta.purge_marked_until));
  }
  if (!meta.hidden.empty()) {
    out.push_back(static_cast<char>(kSeriesHiddenExtension));
    storage::PutVarint64(&out, meta.hidden.size());
    for (const SeriesHidden& entry : meta.hidden) {
      storage::PutVarint64(&out, static_cast<uint64_t>(entry.at_ms));
      storage::PutVarint64(&out, static_cast<uint64_t>(entry.floor));
    }
  }
  if (const auto& reg = meta.expiry_register) {
    out.push_back(static_cast<char>(kSeriesRegisterExtension));
    storage::PutFixed64(&out, static_cast<uint64_t>(reg->ts));
    out.push_back(static_cast<char>((reg->expire_at ? 1 : 0) | (reg->settings_after ? 2 : 0)));
    storage::PutFixed64(&out, static_cast<uint64_t>(reg->expire_at.value_or(0)));
  }
  return out;
}

bool DecodeSeriesMeta(std::string_view in, SeriesMeta* meta) {
  *meta = SeriesMeta();
  SeriesSettings& s = meta->settings;
  uint8_t policy = 0;
  uint8_t encoding = 0;
  uint64_t labels = 0;
  if (!storage::GetVarint64(&in, &meta->version) || !storage::GetVarint64(&in, &s.retention_ms) ||
      !storage::GetByte(&in, &policy) || policy > static_cast<uint8_t>(DuplicatePolicy::kSum) ||
      !storage::GetByte(&in, &encoding) ||
      encoding > static_cast<uint8_t>(SeriesEncoding::kUncompressed) ||
      !storage::GetVarint64(&in, &s.chunk_size) || !storage::GetVarint64(&in, &labels) ||
      labels > in.size()) {
    return false;
  }
  s.duplicate_policy = static_cast<DuplicatePolicy>(policy);
  s.encoding = static_cast<SeriesEncoding>(encoding);
  for (uint64_t i = 0; i < labels; ++i) {
    std::string_view name;
    std::string_view value;
    if (!storage::GetLengthPrefixed(&in, &name) || !storage::GetLengthPrefixed(&in, &value)) {
      return false;
    }
    s.labels.emplace_back(std::string(name), std::string(value));
  }
  uint8_t has_newest = 0;
  if (!storage::GetByte(&in, &has_newest) || has_newest > 1) return false;
  if (has_newest) {
    uint64_t ts = 0;
    uint64_t bits = 0;
    if (!storage::GetFixed64(&in, &ts) || !storage::GetFixed64(&in, &bits) ||
        ts > static_cast<uint64_t>(kMaxSeriesTimestamp)) {
      return false;
    }
    meta->newest = Sample{static_cast<int64_t>(ts), std::bit_cast<double>(bits)};
  }
  uint64_t purged = 0;
  if (!storage::GetFixed64(&in, &purged) || purged > static_cast<uint64_t>(kMaxSeriesTimestamp)) {
    return false;
  }
  meta->purged_below = static_cast<int64_t>(purged);
  if (!in.empty() && static_cast<uint8_t>(in[0]) == kSeriesRulesExtension &&
      !GetRulesExtension(&in, meta)) {
    return false;
  }
  if (!in.empty() && static_cast<uint8_t>(in[0]) == kSeriesTailExtension &&
      !GetTailExtension(&in, meta)) {
    return false;
  }
  if (!in.empty() && static_cast<uint8_t>(in[0]) == kSeriesPurgeExtension &&
      !GetPurgeExtension(&in, meta)) {
    return false;
  }
  if (!in.empty() && static_cast<uint8_t>(in[0]) == kSeriesHiddenExtension &&
      !GetHiddenExtension(&in, meta)) {
    return false;
  }
  return in.empty() || GetRegisterExtension(&in, meta);
}

std::string SeriesElement(int64_t ts) {
  std::string out;
  PutFixed64BE(&out, static_cast<uint64_t>(ts));
  return out;
}

bool DecodeSeriesElement(std::string_view element, int64_t* ts) {
  uint64_t raw = 0;
  if (!GetFixed64BE(&element, &raw) || !element.empty()) return false;
  if (raw > static_cast<uint64_t>(kMaxSeriesTimestamp)) return false;
  *ts = static_cast<int64_t>(raw);
  return true;
}

std::string SeriesTailElement(int64_t ts) {
  std::string out(1, kSeriesTailTag);
  PutFixed64BE(&out, static_cast<uint64_t>(ts));
  return out;
}

bool DecodeSeriesTailElement(std::string_view element, int64_t* ts) {
  if (element.empty() || element[0] != kSeriesTailTag) return false;
  return DecodeSeriesElement(element.substr(1), ts);
}

std::string EncodeSampleValue(double value) {
  std::string out;
  storage::PutFixed64(&out, std::bit_cast<uint64_t>(value));
  return out;
}

bool DecodeSampleValue(std::string_view bytes, double* value) {
  uint64_t bits = 0;
  if (!storage::GetFixed64(&bytes, &bits) || !bytes.empty()) return false;
  *value = std::bit_cast<double>(bits);
  return true;
}

uint64_t SeriesBlockBound(uint64_t chunk_size) {
  return std::clamp(chunk_size, kMinSeriesBlockBytes, kMaxSeriesBlockBytes);
}

std::vector<SeriesBlock> PackSeriesBlocks(const std::vector<Sample>& samples, uint64_t bound) {
  std::vector<SeriesBlock> blocks;
  size_t start = 0;
  while (start < samples.size()) {
    SampleBlockWriter writer;
    size_t end = start;
    while (end < samples.size() && end - start < kMaxSeriesBlockSamples) {
      writer.Add(samples[end].ts, samples[end].value);
      if (writer.size() > bound && end > start) break;
      ++end;
    }
    if (writer.count() > end - start) {  // samples[end] overflowed the bound: encode without it
      writer = SampleBlockWriter();
      for (size_t i = start; i < end; ++i) writer.Add(samples[i].ts, samples[i].value);
    }
    blocks.push_back(SeriesBlock{samples[start].ts, writer.Finish()});
    start = end;
  }
  return blocks;
}

namespace {

// Reads every sample of a block row, checking what DecodeSeriesBlock promises; `visit` sees each.
template <typename Visit>
bool ReadSeriesBlock(int64_t first_ts, SampleBlockReader* reader, Visit visit) {
  std::optional<int64_t> previous;
  Sample sample;
  while (reader->Next(&sample)) {
    if (sample.ts < 0 || (previous ? sample.ts <= *previous : sample.ts < first_ts)) return false;
    previous = sample.ts;
    visit(sample);
  }
  return !reader->corrupt() && previous && reader->count() > 0;
}

}  // namespace

bool DecodeSeriesBlock(int64_t first_ts, std::string_view bytes, std::vector<Sample>* samples) {
  samples->clear();
  SampleBlockReader reader(bytes);
  return ReadSeriesBlock(first_ts, &reader,
                         [&](const Sample& sample) { samples->push_back(sample); }) &&
         samples->size() == reader.count();
}

bool ContinueSeriesBlock(int64_t first_ts, std::string_view bytes, SampleBlockWriter* writer,
                         Sample* last) {
  SampleBlockReader reader(bytes);
  if (!ReadSeriesBlock(first_ts, &reader, [&](const Sample& sample) { *last = sample; })) {
    return false;
  }
  *writer = SampleBlockWriter::ContinueAfter(reader);
  return true;
}

}  // namespace ebb::types
