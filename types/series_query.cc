#include "types/series_query.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "types/series_index.h"

namespace ebb::types {
namespace {

// "a,b" of "l=(a,b)" (the text after '(', ')' included); false if malformed.
bool ParseValueList(std::string_view text, std::vector<std::string>* values) {
  if (text.empty() || text.back() != ')') return false;
  text.remove_suffix(1);
  if (text.empty()) return true;  // "()"
  while (true) {
    const size_t comma = text.find(',');
    const std::string_view value = text.substr(0, comma);
    if (value.empty()) return false;
    values->emplace_back(value);
    if (comma == std::string_view::npos) return true;
    text.remove_prefix(comma + 1);
  }
}

bool Contains(const std::vector<std::string>& values, std::string_view value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

bool Matches(const LabelMatcher& m, const SeriesLabels& labels) {
  const std::optional<std::string_view> value = LabelValue(labels, m.label);
  switch (m.kind) {
    case LabelMatcher::Kind::kEqual:
      return value && *value == m.values.front();
    case LabelMatcher::Kind::kNotEqual:
      return !value || *value != m.values.front();
    case LabelMatcher::Kind::kLacks:
      return !value;
    case LabelMatcher::Kind::kHas:
      return value.has_value();
    case LabelMatcher::Kind::kIn:
      return value && Contains(m.values, *value);
    case LabelMatcher::Kind::kNotIn:
      return !value || !Contains(m.values, *value);
  }
  return false;
}

}  // namespace

std::optional<LabelMatcher> ParseLabelMatcher(std::string_view text) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos) return std::nullopt;
  LabelMatcher m;
  const bool negated = eq > 0 && text[eq - 1] == '!';
  m.label = std::string(text.substr(0, negated ? eq - 1 : eq));
  if (m.label.empty()) return std::nullopt;
  const std::string_view rest = text.substr(eq + 1);
  if (!rest.empty() && rest.front() == '(') {
    m.kind = negated ? LabelMatcher::Kind::kNotIn : LabelMatcher::Kind::kIn;
    if (!ParseValueList(rest.substr(1), &m.values)) return std::nullopt;
  } else if (rest.empty()) {
    m.kind = negated ? LabelMatcher::Kind::kHas : LabelMatcher::Kind::kLacks;
  } else {
    m.kind = negated ? LabelMatcher::Kind::kNotEqual : LabelMatcher::Kind::kEqual;
    m.values.emplace_back(rest);
  }
  return m;
}

bool RequiresValue(const LabelMatcher& matcher) {
  return matcher.kind == LabelMatcher::Kind::kEqual || matcher.kind == LabelMatcher::Kind::kIn;
}

bool MatchesLabels(const std::vector<LabelMatcher>& filter, const SeriesLabels& labels) {
  return std::all_of(filter.begin(), filter.end(),
                     [&](const LabelMatcher& m) { return Matches(m, labels); });
}

std::optional<std::string_view> LabelValue(const SeriesLabels& labels, std::string_view label) {
  for (const auto& [name, value] : labels) {
    if (name == label) return std::string_view(value);
  }
  return std::nullopt;
}

namespace {

// The most value matchers a query reads the index for (FindSeries).
constexpr size_t kMaxIndexLookups = 16;

// Every series of `db` whose labels pass `filter`: a walk of the database's metadata rows.
OpResult<std::vector<FoundSeries>> WalkSeries(Keyspace& keyspace, int db,
                                              const std::vector<LabelMatcher>& filter) {
  std::vector<FoundSeries> found;
  bool malformed = false;
  OpResult<void> walked = keyspace.ForEachKeyOfType(
      db, KeyType::kSeries, [&](std::string_view key, std::string_view payload) {
        SeriesMeta meta;
        if (!DecodeSeriesMeta(payload, &meta)) {
          malformed = true;
          return false;
        }
        if (MatchesLabels(filter, meta.settings.labels)) {
          found.push_back(FoundSeries{std::string(key), std::move(meta)});
        }
        return true;
      });
  if (!walked.ok()) return FailureOf(walked);
  if (malformed) return storage::Status::Corruption("bad SERIES metadata payload");
  return found;
}

// The series among `candidates` (key order) that are live and pass `filter`: a metadata read
// each.
OpResult<std::vector<FoundSeries>> CheckCandidates(Keyspace& keyspace, int db,
                                                   const std::vector<std::string>& candidates,
                                                   const std::vector<LabelMatcher>& filter) {
  std::vector<FoundSeries> found;
  KeyMetaRow row;
  for (const std::string& key : candidates) {
    storage::Status s = keyspace.GetMeta(db, key, &row);
    if (s.IsNotFound()) continue;  // a stale index row: the key is gone
    if (!s.ok()) return s;
    if (row.type != KeyType::kSeries) continue;  // ... or holds another type now
    SeriesMeta meta;
    if (!DecodeSeriesMeta(row.payload, &meta)) {
      return storage::Status::Corruption("bad SERIES metadata payload");
    }
    if (MatchesLabels(filter, meta.settings.labels)) {
      found.push_back(FoundSeries{key, std::move(meta)});
    }
  }
  return found;
}

// The series the index names for the most selective of `lookups` that are live and pass
// `filter`, counted into *cost (when given).
OpResult<std::vector<FoundSeries>> FindByIndex(Keyspace& keyspace, int db,
                                               const std::vector<SeriesIndexLookup>& lookups,
                                               const std::vector<LabelMatcher>& filter,
                                               SeriesQueryCost* cost) {
  std::vector<std::string> candidates;
  uint64_t rows = 0;
  storage::Status s = SeriesIndexCandidates(keyspace, db, lookups, &candidates, &rows);
  if (!s.ok()) return s;
  if (cost != nullptr) {
    cost->indexed = true;
    cost->index_rows += rows;
    cost->candidates += candidates.size();
  }
  return CheckCandidates(keyspace, db, candidates, filter);
}

}  // namespace

OpResult<std::vector<FoundSeries>> FindSeries(Keyspace& keyspace, int db,
                                              const std::vector<LabelMatcher>& filter,
                                              SeriesQueryCost* cost) {
  // The value matchers the index is read for: each one's candidates hold every answer, so any
  // of them will do; at most kMaxIndexLookups (each reads through an iterator of its own, open
  // side by side), a matcher named twice once.
  std::vector<SeriesIndexLookup> lookups;
  for (const LabelMatcher& m : filter) {
    if (!RequiresValue(m) || lookups.size() == kMaxIndexLookups) continue;
    const bool named = std::any_of(lookups.begin(), lookups.end(), [&](const auto& l) {
      return l.label == m.label && l.values == m.values;
    });
    if (!named) lookups.push_back(SeriesIndexLookup{m.label, m.values});
  }
  bool indexed = false;
  if (!lookups.empty()) {
    storage::Status s = SeriesIndexReady(keyspace, &indexed);
    if (!s.ok()) return s;
  }
  OpResult<std::vector<FoundSeries>> found =
      indexed ? FindByIndex(keyspace, db, lookups, filter, cost) : WalkSeries(keyspace, db, filter);
  if (!found.ok()) return found;
  // The slot layout walks by slot first; replies list keys in byte order.
  std::sort(found->begin(), found->end(),
            [](const FoundSeries& a, const FoundSeries& b) { return a.key < b.key; });
  return found;
}

bool IsReducer(Aggregator aggregator) {
  return aggregator != Aggregator::kFirst && aggregator != Aggregator::kLast &&
         aggregator != Aggregator::kTwa;
}

std::vector<Sample> ReduceSeries(const std::vector<std::vector<Sample>>& inputs,
                                 Aggregator reducer) {
  std::vector<Sample> all;
  for (const std::vector<Sample>& input : inputs) all.insert(all.end(), input.begin(), input.end());
  std::stable_sort(all.begin(), all.end(),
                   [](const Sample& a, const Sample& b) { return a.ts < b.ts; });
  std::vector<Sample> out;
  for (size_t i = 0; i < all.size();) {
    ValueStats stats;
    size_t j = i;
    for (; j < all.size() && all[j].ts == all[i].ts; ++j) {
      if (!std::isnan(all[j].value)) stats.Add(all[j].value);
    }
    out.push_back(Sample{all[i].ts, stats.count == 0 ? std::numeric_limits<double>::quiet_NaN()
                                                     : stats.Value(reducer)});
    i = j;
  }
  return out;
}

}  // namespace ebb::types
