#include "types/counter.h"

#include <algorithm>

#include "common/strings.h"
#include "storage/util/coding.h"
#include "types/merge_rule.h"

namespace ebb::types {
namespace {

constexpr uint8_t kCounterStateVersion = 1;

// An observed entry and a record share one encoding: origin, ts, seq, total.
void PutPart(std::string* out, std::string_view origin, int64_t ts, uint64_t seq, int64_t total) {
  storage::PutLengthPrefixed(out, origin);
  storage::PutFixed64(out, static_cast<uint64_t>(ts));
  storage::PutVarint64(out, seq);
  storage::PutFixed64(out, static_cast<uint64_t>(total));
}

bool GetPart(std::string_view* in, std::string* origin, int64_t* ts, uint64_t* seq,
             int64_t* total) {
  std::string_view name;
  uint64_t raw_ts = 0;
  uint64_t raw_total = 0;
  if (!storage::GetLengthPrefixed(in, &name) || !storage::GetFixed64(in, &raw_ts) ||
      !storage::GetVarint64(in, seq) || !storage::GetFixed64(in, &raw_total)) {
    return false;
  }
  origin->assign(name);
  *ts = static_cast<int64_t>(raw_ts);
  *total = static_cast<int64_t>(raw_total);
  return true;
}

StringVersion VersionOf(const CounterBase& base) {
  StringVersion v;
  v.ts = base.ts;
  v.expire_at = base.expire_at;
  if (base.kind == CounterBase::Kind::kTombstone) {
    v.tombstone = true;
  } else if (base.kind == CounterBase::Kind::kReduced) {
    v.digest = base.value;
  } else {
    v.value = base.value;
  }
  return v;
}

// The entry of `origin` in a vector sorted by origin, or null.
template <typename Part>
const Part* Find(const std::vector<Part>& parts, std::string_view origin) {
  auto it = std::lower_bound(parts.begin(), parts.end(), origin,
                             [](const Part& p, std::string_view o) { return p.origin < o; });
  return it != parts.end() && it->origin == origin ? &*it : nullptr;
}

// Whether `base` already counts all of `record` (its origin saw it, or a later record of the
// same origin), and what the record adds beyond it.
bool Observed(const CounterBase* base, const CounterRecord& record, __int128* adds) {
  const CounterObserved* seen = base ? Find(base->observed, record.origin) : nullptr;
  if (seen == nullptr || seen->ts < record.ts) {
    *adds = record.total;
    return false;
  }
  if (seen->ts > record.ts || record.seq <= seen->seq) {
    *adds = 0;
    return true;
  }
  *adds = static_cast<__int128>(record.total) - seen->total;
  return false;
}

std::string Int128Decimal(__int128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  std::string digits;
  while (v != 0) {
    const int d = static_cast<int>(v % 10);
    digits.push_back(static_cast<char>('0' + (d < 0 ? -d : d)));
    v /= 10;
  }
  if (negative) digits.push_back('-');
  std::reverse(digits.begin(), digits.end());
  return digits;
}

}  // namespace

const CounterRecord* CounterState::RecordOf(std::string_view origin) const {
  return Find(records, origin);
}

std::string EncodeCounterState(const CounterState& state) {
  std::string out;
  out.push_back(static_cast<char>(kCounterStateVersion));
  out.push_back(state.base ? 1 : 0);
  if (state.base) {
    const CounterBase& base = *state.base;
    out.push_back(static_cast<char>(base.kind));
    storage::PutFixed64(&out, static_cast<uint64_t>(base.ts));
    storage::PutFixed64(&out, static_cast<uint64_t>(base.expire_at));
    storage::PutLengthPrefixed(&out, base.value);
    storage::PutVarint32(&out, static_cast<uint32_t>(base.observed.size()));
    for (const CounterObserved& o : base.observed) PutPart(&out, o.origin, o.ts, o.seq, o.total);
  }
  storage::PutVarint32(&out, static_cast<uint32_t>(state.records.size()));
  for (const CounterRecord& r : state.records) PutPart(&out, r.origin, r.ts, r.seq, r.total);
  return out;
}

bool DecodeCounterState(std::string_view in, CounterState* state) {
  *state = CounterState();
  if (in.size() < 2 || static_cast<uint8_t>(in[0]) != kCounterStateVersion) return false;
  const bool has_base = in[1] != 0;
  in.remove_prefix(2);
  uint32_t n = 0;
  if (has_base) {
    if (in.empty() || static_cast<uint8_t>(in[0]) > 2) return false;
    CounterBase base;
    base.kind = static_cast<CounterBase::Kind>(in[0]);
    in.remove_prefix(1);
    uint64_t ts = 0;
    uint64_t expire_at = 0;
    std::string_view value;
    if (!storage::GetFixed64(&in, &ts) || !storage::GetFixed64(&in, &expire_at) ||
        !storage::GetLengthPrefixed(&in, &value) || !storage::GetVarint32(&in, &n)) {
      return false;
    }
    base.ts = static_cast<int64_t>(ts);
    base.expire_at = static_cast<int64_t>(expire_at);
    base.value.assign(value);
    for (uint32_t i = 0; i < n; i++) {
      CounterObserved o;
      if (!GetPart(&in, &o.origin, &o.ts, &o.seq, &o.total)) return false;
      base.observed.push_back(std::move(o));
    }
    state->base = std::move(base);
  }
  if (!storage::GetVarint32(&in, &n)) return false;
  for (uint32_t i = 0; i < n; i++) {
    CounterRecord r;
    if (!GetPart(&in, &r.origin, &r.ts, &r.seq, &r.total)) return false;
    state->records.push_back(std::move(r));
  }
  return in.empty();
}

bool CounterBaseRanksBelow(const CounterBase& a, const CounterBase& b) {
  StringVersion va = VersionOf(a);
  StringVersion vb = VersionOf(b);
  return RanksBelow(va, vb);
}

bool MergeBase(CounterState* state, const CounterBase& incoming) {
  if (state->base && !CounterBaseRanksBelow(*state->base, incoming)) return false;
  state->base = incoming;
  return true;
}

bool MergeRecord(CounterState* state, const CounterRecord& incoming) {
  auto it =
      std::lower_bound(state->records.begin(), state->records.end(), incoming.origin,
                       [](const CounterRecord& r, const std::string& o) { return r.origin < o; });
  if (it == state->records.end() || it->origin != incoming.origin) {
    state->records.insert(it, incoming);
    return true;
  }
  if (std::pair(it->ts, it->seq) >= std::pair(incoming.ts, incoming.seq)) return false;
  *it = incoming;
  return true;
}

void Prune(CounterState* state, int64_t deleted_up_to) {
  if (state->base && state->base->ts <= deleted_up_to) state->base.reset();
  std::erase_if(state->records, [&](const CounterRecord& r) { return r.ts <= deleted_up_to; });
  if (state->base) {
    std::erase_if(state->base->observed,
                  [&](const CounterObserved& o) { return o.ts <= deleted_up_to; });
  }
}

CounterView ViewOf(const CounterState& state) {
  CounterView view;
  view.ts = std::numeric_limits<int64_t>::min();
  const CounterBase* base = state.base ? &*state.base : nullptr;
  __int128 sum = 0;
  bool numeric = true;
  if (base != nullptr) {
    view.ts = base->ts;
    if (base->kind == CounterBase::Kind::kValue) {
      view.present = true;
      int64_t value = 0;
      numeric = ParseInt64(base->value, &value);
      sum = value;
      view.value = base->value;
    }
    if (base->kind != CounterBase::Kind::kTombstone &&
        base->expire_at != std::numeric_limits<int64_t>::max()) {
      view.expire_at = base->expire_at;
    }
  }
  for (const CounterRecord& r : state.records) {
    view.ts = std::max(view.ts, r.ts);
    __int128 adds = 0;
    if (!Observed(base, r, &adds)) view.present = true;
    sum += adds;
  }
  // A base that is no integer reads as itself: the increments wait for a SET that is one.
  if (numeric) view.value = Int128Decimal(sum);
  return view;
}

int64_t RecordTsFor(int64_t deleted_up_to) {
  if (deleted_up_to < 0) return 0;
  return deleted_up_to == std::numeric_limits<int64_t>::max() ? deleted_up_to : deleted_up_to + 1;
}

std::optional<CounterRecord> NextRecord(const CounterState& state, std::string_view origin,
                                        int64_t record_ts, int64_t delta) {
  CounterRecord next;
  next.origin = std::string(origin);
  next.ts = record_ts;
  next.seq = 1;
  next.total = delta;
  const CounterRecord* held = state.RecordOf(origin);
  if (held != nullptr && held->ts == record_ts) {
    next.seq = held->seq + 1;
    if (__builtin_add_overflow(held->total, delta, &next.total)) return std::nullopt;
  } else if (held != nullptr && held->ts > record_ts) {
    return std::nullopt;  // never: the horizon only grows
  }
  return next;
}

std::vector<CounterObserved> ObservedOf(const CounterState& state) {
  std::vector<CounterObserved> observed;
  for (const CounterRecord& r : state.records) {
    observed.push_back({r.origin, r.ts, r.seq, r.total});
  }
  return observed;
}

}  // namespace ebb::types
