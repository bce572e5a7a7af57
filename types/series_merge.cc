#include "types/series_merge.h"

#include <algorithm>
#include <bit>
#include <limits>

#include "storage/util/coding.h"

namespace ebb::types {
namespace {

constexpr uint8_t kSampleStateVersion = 1;
constexpr uint8_t kSeriesRegisterVersion = 1;
constexpr uint8_t kRangeMarkersVersion = 1;
constexpr uint8_t kMaxPolicy = static_cast<uint8_t>(DuplicatePolicy::kSum);

void PutDouble(std::string* out, double v) { storage::PutFixed64(out, std::bit_cast<uint64_t>(v)); }

bool GetDouble(std::string_view* in, double* v) {
  uint64_t bits = 0;
  if (!storage::GetFixed64(in, &bits)) return false;
  *v = std::bit_cast<double>(bits);
  return true;
}

bool GetInt64(std::string_view* in, int64_t* v) {
  uint64_t bits = 0;
  if (!storage::GetFixed64(in, &bits)) return false;
  *v = static_cast<int64_t>(bits);
  return true;
}

void PutRecord(std::string* out, const SampleRecord& r) {
  storage::PutLengthPrefixed(out, r.origin);
  storage::PutVarint64(out, r.seq);
  out->push_back(static_cast<char>(r.policy));
  PutDouble(out, r.sum);
  PutDouble(out, r.min);
  PutDouble(out, r.max);
  storage::PutFixed64(out, static_cast<uint64_t>(r.first_ms));
  PutDouble(out, r.first);
  storage::PutFixed64(out, static_cast<uint64_t>(r.last_ms));
  PutDouble(out, r.last);
}

bool GetRecord(std::string_view* in, SampleRecord* r) {
  std::string_view origin;
  uint8_t policy = 0;
  if (!storage::GetLengthPrefixed(in, &origin) || !storage::GetVarint64(in, &r->seq) ||
      !storage::GetByte(in, &policy) || policy > kMaxPolicy || !GetDouble(in, &r->sum) ||
      !GetDouble(in, &r->min) || !GetDouble(in, &r->max) || !GetInt64(in, &r->first_ms) ||
      !GetDouble(in, &r->first) || !GetInt64(in, &r->last_ms) || !GetDouble(in, &r->last)) {
    return false;
  }
  r->origin = std::string(origin);
  r->policy = static_cast<DuplicatePolicy>(policy);
  return true;
}

std::string EncodedRecord(const SampleRecord& r) {
  std::string out;
  PutRecord(&out, r);
  return out;
}

// Stamp order: (ms, origin).
bool StampBefore(int64_t a_ms, std::string_view a_origin, int64_t b_ms, std::string_view b_origin) {
  return a_ms != b_ms ? a_ms < b_ms : a_origin < b_origin;
}

}  // namespace

int64_t GreatestStampMs(const SampleState& state) {
  int64_t ms = std::numeric_limits<int64_t>::min();
  for (const SampleRecord& r : state.records) ms = std::max(ms, r.last_ms);
  return ms;
}

SampleRecord NextRecord(const SampleState& state, std::string_view origin, int64_t stamp_ms,
                        DuplicatePolicy policy, double value) {
  auto it = std::find_if(state.records.begin(), state.records.end(),
                         [&](const SampleRecord& r) { return r.origin == origin; });
  SampleRecord next;
  if (it == state.records.end()) {
    next = SampleRecord{.origin = std::string(origin),
                        .seq = 0,
                        .sum = 0,
                        .min = value,
                        .max = value,
                        .first_ms = stamp_ms,
                        .first = value};
  } else {
    next = *it;
  }
  next.seq++;
  next.policy = policy;
  next.sum += value;
  next.min = std::min(next.min, value);
  next.max = std::max(next.max, value);
  next.last_ms = stamp_ms;
  next.last = value;
  return next;
}

SampleRecord AdoptedRecord(double value) {
  return SampleRecord{.origin = "",
                      .seq = 1,
                      .policy = DuplicatePolicy::kLast,
                      .sum = value,
                      .min = value,
                      .max = value,
                      .first_ms = 0,
                      .first = value,
                      .last_ms = 0,
                      .last = value};
}

bool MergeRecord(SampleState* state, const SampleRecord& record) {
  auto it = std::lower_bound(
      state->records.begin(), state->records.end(), record.origin,
      [](const SampleRecord& r, const std::string& origin) { return r.origin < origin; });
  if (it == state->records.end() || it->origin != record.origin) {
    state->records.insert(it, record);
    return true;
  }
  if (record.first_ms != it->first_ms) {
    if (record.first_ms < it->first_ms) return false;
  } else if (record.seq != it->seq) {
    if (record.seq < it->seq) return false;
  } else if (EncodedRecord(record) <= EncodedRecord(*it)) {
    return false;
  }
  *it = record;
  return true;
}

double ResolveSample(const SampleState& state) {
  const std::vector<SampleRecord>& rs = state.records;
  const SampleRecord* last = &rs.front();
  const SampleRecord* first = &rs.front();
  for (const SampleRecord& r : rs) {
    if (StampBefore(last->last_ms, last->origin, r.last_ms, r.origin)) last = &r;
    if (StampBefore(r.first_ms, r.origin, first->first_ms, first->origin)) first = &r;
  }
  switch (last->policy) {
    case DuplicatePolicy::kLast:
      return last->last;
    case DuplicatePolicy::kMin: {
      double v = rs.front().min;
      for (const SampleRecord& r : rs) v = std::min(v, r.min);
      return v;
    }
    case DuplicatePolicy::kMax: {
      double v = rs.front().max;
      for (const SampleRecord& r : rs) v = std::max(v, r.max);
      return v;
    }
    case DuplicatePolicy::kSum: {
      double v = 0;
      for (const SampleRecord& r : rs) v += r.sum;  // records are in origin order
      return v;
    }
    case DuplicatePolicy::kUnset:
    case DuplicatePolicy::kBlock:
    case DuplicatePolicy::kFirst:
      break;
  }
  return first->first;
}

std::string EncodeSampleState(const SampleState& state) {
  std::string out;
  out.push_back(static_cast<char>(kSampleStateVersion));
  storage::PutVarint32(&out, static_cast<uint32_t>(state.records.size()));
  for (const SampleRecord& r : state.records) PutRecord(&out, r);
  return out;
}

bool DecodeSampleState(std::string_view in, SampleState* state) {
  *state = SampleState();
  uint8_t version = 0;
  uint32_t n = 0;
  if (!storage::GetByte(&in, &version) || version != kSampleStateVersion ||
      !storage::GetVarint32(&in, &n)) {
    return false;
  }
  if (n > in.size()) return false;  // every record takes bytes
  state->records.resize(n);
  for (uint32_t i = 0; i < n; i++) {
    if (!GetRecord(&in, &state->records[i])) return false;
    if (i > 0 && state->records[i - 1].origin >= state->records[i].origin) return false;
  }
  return in.empty();
}

bool DropCoveredRecords(std::span<const SeriesRangeMarker> markers, int64_t ts,
                        SampleState* state) {
  const size_t before = state->records.size();
  std::erase_if(state->records, [&](const SampleRecord& r) {
    return std::any_of(markers.begin(), markers.end(),
                       [&](const SeriesRangeMarker& m) { return RangeMarkerCovers(m, ts, r); });
  });
  return state->records.size() != before;
}

int64_t GreatestCoveringMs(std::span<const SeriesRangeMarker> markers, int64_t ts) {
  int64_t ms = std::numeric_limits<int64_t>::min();
  for (const SeriesRangeMarker& m : markers) {
    if (m.from <= ts && ts <= m.to) ms = std::max(ms, m.ms);
  }
  return ms;
}

bool MergeRangeMarker(std::vector<SeriesRangeMarker>* markers, const SeriesRangeMarker& marker) {
  auto it = std::lower_bound(markers->begin(), markers->end(), marker);
  if (it != markers->end() && *it == marker) return false;
  markers->insert(it, marker);
  return true;
}

std::string EncodeRangeMarkers(std::span<const SeriesRangeMarker> markers) {
  std::string out;
  out.push_back(static_cast<char>(kRangeMarkersVersion));
  storage::PutVarint32(&out, static_cast<uint32_t>(markers.size()));
  for (const SeriesRangeMarker& m : markers) {
    storage::PutFixed64(&out, static_cast<uint64_t>(m.from));
    storage::PutFixed64(&out, static_cast<uint64_t>(m.to));
    storage::PutFixed64(&out, static_cast<uint64_t>(m.ms));
    storage::PutLengthPrefixed(&out, m.origin);
  }
  return out;
}

bool DecodeRangeMarkers(std::string_view in, std::vector<SeriesRangeMarker>* markers) {
  markers->clear();
  uint8_t version = 0;
  uint32_t n = 0;
  if (!storage::GetByte(&in, &version) || version != kRangeMarkersVersion ||
      !storage::GetVarint32(&in, &n) || n > in.size()) {
    return false;
  }
  markers->resize(n);
  for (uint32_t i = 0; i < n; i++) {
    SeriesRangeMarker& m = (*markers)[i];
    std::string_view origin;
    if (!GetInt64(&in, &m.from) || !GetInt64(&in, &m.to) || !GetInt64(&in, &m.ms) ||
        !storage::GetLengthPrefixed(&in, &origin) || m.from < 0 || m.from > m.to || m.ms < 0) {
      return false;
    }
    m.origin = std::string(origin);
    if (i > 0 && !((*markers)[i - 1] < m)) return false;
  }
  return in.empty();
}

std::string EncodeSeriesRegister(const SeriesRegister& reg) {
  std::string out;
  out.push_back(static_cast<char>(kSeriesRegisterVersion));
  storage::PutFixed64(&out, static_cast<uint64_t>(reg.ms));
  storage::PutLengthPrefixed(&out, reg.origin);
  const SeriesSettings& s = reg.settings;
  storage::PutVarint64(&out, s.retention_ms);
  out.push_back(static_cast<char>(s.duplicate_policy));
  out.push_back(static_cast<char>(s.encoding));
  storage::PutVarint64(&out, s.chunk_size);
  storage::PutVarint32(&out, static_cast<uint32_t>(s.labels.size()));
  for (const auto& [name, value] : s.labels) {
    storage::PutLengthPrefixed(&out, name);
    storage::PutLengthPrefixed(&out, value);
  }
  return out;
}

bool DecodeSeriesRegister(std::string_view in, SeriesRegister* reg) {
  *reg = SeriesRegister();
  uint8_t version = 0;
  std::string_view origin;
  uint8_t policy = 0;
  uint8_t encoding = 0;
  uint32_t labels = 0;
  SeriesSettings& s = reg->settings;
  if (!storage::GetByte(&in, &version) || version != kSeriesRegisterVersion ||
      !GetInt64(&in, &reg->ms) || !storage::GetLengthPrefixed(&in, &origin) ||
      !storage::GetVarint64(&in, &s.retention_ms) || !storage::GetByte(&in, &policy) ||
      policy > kMaxPolicy || !storage::GetByte(&in, &encoding) || encoding > 1 ||
      !storage::GetVarint64(&in, &s.chunk_size) || !storage::GetVarint32(&in, &labels) ||
      labels > in.size() || s.chunk_size < kMinSeriesBlockBytes ||
      s.chunk_size > kMaxSeriesBlockBytes) {
    return false;
  }
  reg->origin = std::string(origin);
  s.duplicate_policy = static_cast<DuplicatePolicy>(policy);
  s.encoding = static_cast<SeriesEncoding>(encoding);
  for (uint32_t i = 0; i < labels; i++) {
    std::string_view name;
    std::string_view value;
    if (!storage::GetLengthPrefixed(&in, &name) || !storage::GetLengthPrefixed(&in, &value)) {
      return false;
    }
    s.labels.emplace_back(name, value);
  }
  return in.empty();
}

bool SameSeriesSettings(const SeriesSettings& a, const SeriesSettings& b) {
  return a.retention_ms == b.retention_ms && a.duplicate_policy == b.duplicate_policy &&
         a.encoding == b.encoding && a.chunk_size == b.chunk_size && a.labels == b.labels;
}

}  // namespace ebb::types
