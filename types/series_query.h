// Finding series by their labels and reducing several series into one: the pure part of
// TS.QUERYINDEX, TS.MGET, TS.MRANGE and TS.MREVRANGE (server/commands/cmd_series_query.cc), with
// RedisTimeSeries' filter language and GROUPBY reducers.
//
// A filter is a conjunction of matchers, each one argument:
//   l=v      the series has label l with value v
//   l!=v     it has no label l with value v (no label l at all passes)
//   l=       it has no label l
//   l!=      it has a label l
//   l=(a,b)  its label l is one of a, b  ("l=()": none, so it matches nothing)
//   l!=(a,b) its label l is none of a, b (no label l at all passes)
// Label names and values compare byte for byte. A filter needs at least one `l=v` or `l=(...)`
// (RequiresValue), as RedisTimeSeries does, so that a query never asks for "every series".
//
// FindSeries takes its candidates from the label index (types/series_index.h): the keys of the
// most selective `l=v` / `l=(...)` matcher (among the first 16 different ones), then reads each
// one's metadata row and checks it against the whole filter, so a stale index row never changes
// an answer. It costs the index rows of that matcher (times the number of such matchers) and one
// metadata read per candidate, not the database. On an engine not indexed yet (SeriesIndexReady)
// it walks the database's series keys as before the index (Keyspace::ForEachKeyOfType: O(keys of
// every type)); docs/time-series.md, "Multi-series queries".
// Thread-safety: pure functions; FindSeries as Keyspace (the command thread).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "types/keyspace.h"
#include "types/op_result.h"
#include "types/sample_block.h"
#include "types/series_aggregate.h"
#include "types/series_codec.h"

namespace ebb::types {

struct LabelMatcher {
  enum class Kind {
    kEqual,     // l=v
    kNotEqual,  // l!=v
    kLacks,     // l=
    kHas,       // l!=
    kIn,        // l=(a,b)
    kNotIn,     // l!=(a,b)
  };
  Kind kind = Kind::kEqual;
  std::string label;
  std::vector<std::string> values;  // one for kEqual / kNotEqual, none for kLacks / kHas
};

using SeriesLabels = std::vector<std::pair<std::string, std::string>>;

// One filter argument; nullopt when it is none of the forms above (no '=', an empty label, a
// list without its closing ')' or with an empty element).
std::optional<LabelMatcher> ParseLabelMatcher(std::string_view text);
// Whether the matcher asks for a value (l=v or l=(...)): a filter needs one.
bool RequiresValue(const LabelMatcher& matcher);
// Whether `labels` pass every matcher.
bool MatchesLabels(const std::vector<LabelMatcher>& filter, const SeriesLabels& labels);
// The value of `label` in `labels`, if any (exact name).
std::optional<std::string_view> LabelValue(const SeriesLabels& labels, std::string_view label);

struct FoundSeries {
  std::string key;
  SeriesMeta meta;
};
// What one FindSeries read (a test's proof that the index serves it).
struct SeriesQueryCost {
  bool indexed = false;     // the candidates came from the label index (else: the walk)
  uint64_t index_rows = 0;  // index rows read
  uint64_t candidates = 0;  // metadata rows read for the candidates
};
// The live series of `db` whose labels pass `filter`, in key byte order; *cost (when given)
// adds what it read. kEngineError.
OpResult<std::vector<FoundSeries>> FindSeries(Keyspace& keyspace, int db,
                                              const std::vector<LabelMatcher>& filter,
                                              SeriesQueryCost* cost = nullptr);

// The aggregators a GROUPBY may reduce with: every one but first, last and twa.
bool IsReducer(Aggregator aggregator);
// GROUPBY's reduction: one sample per timestamp present in any input (each input oldest
// first), the `reducer` over the non-NaN values at it, NaN when all of them are NaN; oldest
// first. REQUIRES: IsReducer(reducer).
std::vector<Sample> ReduceSeries(const std::vector<std::vector<Sample>>& inputs,
                                 Aggregator reducer);

}  // namespace ebb::types
