#include "types/counter.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <tuple>
#include <utility>

#include "common/strings.h"
#include "storage/util/coding.h"
#include "types/merge_rule.h"
#include "types/string_rank.h"

namespace ebb::types {
namespace {

constexpr uint8_t kCounterStateVersion = 1;

// An observed entry and a record share one encoding: origin, ts, seq, total, float total.
template <typename Part>
void PutPart(std::string* out, const Part& part) {
  storage::PutLengthPrefixed(out, part.origin);
  storage::PutFixed64(out, static_cast<uint64_t>(part.ts));
  storage::PutVarint64(out, part.seq);
  storage::PutFixed64(out, static_cast<uint64_t>(part.total));
  storage::PutLengthPrefixed(out, FloatTotalText(part.ftotal));
}

template <typename Part>
bool GetPart(std::string_view* in, Part* part) {
  std::string_view name;
  std::string_view ftotal;
  uint64_t raw_ts = 0;
  uint64_t raw_total = 0;
  if (!storage::GetLengthPrefixed(in, &name) || !storage::GetFixed64(in, &raw_ts) ||
      !storage::GetVarint64(in, &part->seq) || !storage::GetFixed64(in, &raw_total) ||
      !storage::GetLengthPrefixed(in, &ftotal) || !ParseFloatTotal(ftotal, &part->ftotal)) {
    return false;
  }
  part->origin.assign(name);
  part->ts = static_cast<int64_t>(raw_ts);
  part->total = static_cast<int64_t>(raw_total);
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
// same origin), and what the record adds beyond it (*adds; *fadds: its float total's part).
bool Observed(const CounterBase* base, const CounterRecord& record, __int128* adds,
              long double* fadds) {
  const CounterObserved* seen = base ? Find(base->observed, record.origin) : nullptr;
  if (seen == nullptr || seen->ts < record.ts) {
    *adds = record.total;
    *fadds = record.ftotal;
    return false;
  }
  if (seen->ts > record.ts || record.seq <= seen->seq) {
    *adds = 0;
    *fadds = 0;
    return true;
  }
  *adds = static_cast<__int128>(record.total) - seen->total;
  *fadds = record.ftotal - seen->ftotal;
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
    for (const CounterObserved& o : base.observed) PutPart(&out, o);
  }
  storage::PutVarint32(&out, static_cast<uint32_t>(state.records.size()));
  for (const CounterRecord& r : state.records) PutPart(&out, r);
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
      if (!GetPart(&in, &o)) return false;
      base.observed.push_back(std::move(o));
    }
    state->base = std::move(base);
  }
  if (!storage::GetVarint32(&in, &n)) return false;
  for (uint32_t i = 0; i < n; i++) {
    CounterRecord r;
    if (!GetPart(&in, &r)) return false;
    state->records.push_back(std::move(r));
  }
  return in.empty();
}

bool ReduceExpiredBase(CounterState* state, int64_t now_ms) {
  if (!state->base || state->base->kind != CounterBase::Kind::kValue ||
      state->base->expire_at > now_ms) {
    return false;
  }
  state->base->value = StringDigest(state->base->value);
  state->base->kind = CounterBase::Kind::kReduced;
  return true;
}

bool CounterBaseRanksBelow(const CounterBase& a, const CounterBase& b) {
  StringVersion va = VersionOf(a);
  StringVersion vb = VersionOf(b);
  return RanksBelow(va, vb);
}

namespace {

// The order entries of one origin join by: the later position (ts, seq), then the greater
// totals. An origin never writes two totals at one position, so the totals decide only between
// a part and a damaged or forged copy of it; ranking them keeps the merge a join, so every node
// keeps the same one whichever arrived first.
template <typename Entry>
auto JoinRank(const Entry& e) {
  return std::tuple(e.ts, e.seq, e.total, e.ftotal);
}

// Joins `incoming` into *entries (sorted by origin, one per origin): per origin the entry of
// greater JoinRank. True when it changed. Records merge so, and so do what two bases of equal
// rank observed.
template <typename Entry>
bool JoinByOrigin(std::vector<Entry>* entries, const Entry& incoming) {
  auto it =
      std::lower_bound(entries->begin(), entries->end(), incoming.origin,
                       [](const Entry& e, const std::string& origin) { return e.origin < origin; });
  if (it == entries->end() || it->origin != incoming.origin) {
    entries->insert(it, incoming);
    return true;
  }
  if (JoinRank(*it) >= JoinRank(incoming)) return false;
  *it = incoming;
  return true;
}

}  // namespace

bool MergeBase(CounterState* state, const CounterBase& incoming) {
  if (!state->base || CounterBaseRanksBelow(*state->base, incoming)) {
    state->base = incoming;
    return true;
  }
  if (CounterBaseRanksBelow(incoming, *state->base)) return false;
  // The same version from two origins (a SET of one value at one timestamp on each): it
  // observed what either had observed, whichever arrived first.
  bool changed = false;
  for (const CounterObserved& observed : incoming.observed) {
    changed = JoinByOrigin(&state->base->observed, observed) || changed;
  }
  return changed;
}

bool MergeRecord(CounterState* state, const CounterRecord& incoming) {
  return JoinByOrigin(&state->records, incoming);
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
  long double fbase = 0;
  bool integer = true;  // exact: an integer base, and no float total adds anything
  bool number = true;   // the base, if a value, is a number
  if (base != nullptr) {
    view.ts = base->ts;
    if (base->kind == CounterBase::Kind::kValue) {
      view.present = true;
      view.value = base->value;
      int64_t value = 0;
      if (ParseInt64(base->value, &value)) {
        sum = value;
      } else if (ParseLongDouble(base->value, &fbase)) {
        integer = false;
      } else {
        number = false;
      }
    }
    if (base->kind != CounterBase::Kind::kTombstone &&
        base->expire_at != std::numeric_limits<int64_t>::max()) {
      view.expire_at = base->expire_at;
    }
  }
  long double fsum = 0;
  for (const CounterRecord& r : state.records) {
    view.ts = std::max(view.ts, r.ts);
    __int128 adds = 0;
    long double fadds = 0;
    if (!Observed(base, r, &adds, &fadds)) view.present = true;
    sum += adds;
    if (fadds != 0) integer = false;
    fsum += fadds;
  }
  // A base that is no number reads as itself: the increments wait for a SET that is one.
  if (!number) return view;
  view.value =
      integer ? Int128Decimal(sum) : FormatLongDouble(fbase + static_cast<long double>(sum) + fsum);
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
    next.ftotal = held->ftotal;
    if (__builtin_add_overflow(held->total, delta, &next.total)) return std::nullopt;
  } else if (held != nullptr && held->ts > record_ts) {
    return std::nullopt;  // never: the horizon only grows
  }
  return next;
}

std::optional<CounterRecord> NextFloatRecord(const CounterState& state, std::string_view origin,
                                             int64_t record_ts, long double increment) {
  std::optional<CounterRecord> next = NextRecord(state, origin, record_ts, 0);
  if (!next) return std::nullopt;
  next->ftotal += increment;
  if (!std::isfinite(next->ftotal)) return std::nullopt;
  return next;
}

std::string FloatTotalText(long double total) {
  if (total == 0) return "0";
  char buf[64];
  const int n = std::snprintf(buf, sizeof(buf), "%La", total);
  return std::string(buf, static_cast<size_t>(std::clamp(n, 0, int{sizeof(buf)} - 1)));
}

bool ParseFloatTotal(std::string_view text, long double* total) {
  if (text == "0") {
    *total = 0;
    return true;
  }
  if (text.empty() || text.size() > 60) return false;
  const std::string copy(text);
  char* end = nullptr;
  *total = std::strtold(copy.c_str(), &end);
  // The canonical text only, so that a total has one spelling on every node.
  return end == copy.c_str() + copy.size() && std::isfinite(*total) && *total != 0 &&
         FloatTotalText(*total) == text;
}

std::string FormatLongDouble(long double value) {
  char buf[5 * 1024];  // Redis's MAX_LONG_DOUBLE_CHARS: any finite long double fits
  const int written = std::snprintf(buf, sizeof(buf), "%.17Lf", value);
  std::string text(buf, static_cast<size_t>(std::clamp(written, 0, int{sizeof(buf)} - 1)));
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  if (text == "-0") text = "0";
  return text;
}

std::vector<CounterObserved> ObservedOf(const CounterState& state) {
  std::vector<CounterObserved> observed;
  for (const CounterRecord& r : state.records) {
    observed.push_back({r.origin, r.ts, r.seq, r.total, r.ftotal});
  }
  return observed;
}

}  // namespace ebb::types
