// The arguments the TS.* commands share (server/commands/cmd_series.cc): a series' settings,
// sample timestamps and values, and TS.RANGE's query — parsed with RedisTimeSeries' error texts
// (server/core/errors.h, "Time series") — and the range query's execution.
// Thread-safety: the command thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "server/core/arg_parser.h"
#include "server/core/command.h"
#include "types/op_result.h"
#include "types/series.h"
#include "types/series_aggregate.h"

namespace ebb::server {

// The series of the client's database.
types::Series SeriesOf(CommandContext& ctx);
// A failure of a command that needs the key: the missing key in RedisTimeSeries' words, else as
// ReplyError.
void ReplySeriesError(CommandContext& ctx, const types::OpFailure& failure);

// Which options a command takes.
enum class SeriesOptionSet {
  kCreate,  // RETENTION ENCODING CHUNK_SIZE DUPLICATE_POLICY LABELS
  kAlter,   // RETENTION CHUNK_SIZE DUPLICATE_POLICY LABELS
  kAdd,     // kCreate's and ON_DUPLICATE
  kIncr,    // kCreate's and TIMESTAMP
};

// Which options were given (TS.ALTER changes only those).
struct SeriesOptionsGiven {
  bool retention = false;
  bool chunk_size = false;
  bool duplicate_policy = false;
  bool labels = false;
  types::DuplicatePolicy on_duplicate = types::DuplicatePolicy::kUnset;  // ON_DUPLICATE
  std::optional<std::string_view> timestamp;                             // TIMESTAMP's text
};

// Reads the options up to the end of the arguments into *settings (and *given, when not null).
// LABELS takes the rest: pairs of a non-empty name and a non-empty value without '(', ')', ','.
void ParseSeriesOptions(ArgParser& args, SeriesOptionSet set, types::SeriesSettings* settings,
                        SeriesOptionsGiven* given);

// A sample's value: a finite or infinite double (not NaN). False otherwise.
bool ParseSampleValue(std::string_view text, double* value);
// A sample's timestamp: "*" (the server clock) or an integer >= 0. Returns "" or the error.
std::string_view ParseSampleTimestamp(CommandContext& ctx, std::string_view text, int64_t* ts);
// The same with the clock read as `now_ms` (a write form, server/core/write_form.h).
std::string_view ParseSampleTimestampAt(int64_t now_ms, std::string_view text, int64_t* ts);
// TS.RANGE's and TS.DEL's bounds: "-" (0), "+" (2^63-1) or an integer >= 0; else latches
// "wrong fromTimestamp" / "wrong toTimestamp".
int64_t ParseRangeBound(ArgParser& args, bool from);

// TS.RANGE / TS.REVRANGE key from to [LATEST] [FILTER_BY_TS ts...] [FILTER_BY_VALUE min max]
// [COUNT n] [ALIGN a] [AGGREGATION agg bucket [BUCKETTIMESTAMP bt] [EMPTY]].
struct RangeQuery {
  std::string_view key;
  int64_t from = 0;
  int64_t to = 0;
  std::vector<int64_t> filter_ts;  // sorted, each once; empty: no filter
  std::optional<std::pair<double, double>> filter_value;
  uint64_t count = UINT64_MAX;
  std::optional<types::AggregationSpec> aggregation;  // its align resolved
  bool latest = false;  // LATEST: a rule destination's open bucket counts as its newest sample
};
RangeQuery ParseRangeQuery(ArgParser& args);

// The range options' argument specs (COMMAND DOCS, HELP, docs/commands.md), which TS.RANGE and
// TS.MRANGE share: [LATEST] [FILTER_BY_TS ts...] [FILTER_BY_VALUE min max], then
// [COUNT count] [ALIGN value] [AGGREGATION aggregator bucketDuration [BUCKETTIMESTAMP bt] [EMPTY]].
std::vector<ArgSpec> RangeFilterArguments();
std::vector<ArgSpec> RangeAggregationArguments();

// The pieces of ParseRangeQuery, for the commands that mix the range options with their own
// (TS.MRANGE): ParseRangeBounds reads from and to, ParseRangeOption one option, and
// FinishRangeQuery checks ALIGN against the rest and sets q->aggregation.
struct RangeQueryParse {
  enum class Align { kNone, kStart, kEnd, kTimestamp };
  std::string_view from_text;
  std::string_view to_text;
  Align align = Align::kNone;
  int64_t align_at = 0;
  types::AggregationSpec spec;
  bool aggregated = false;
};
void ParseRangeBounds(ArgParser& args, RangeQuery* q, RangeQueryParse* state);
// False (nothing read) when the next argument names no range option.
bool ParseRangeOption(ArgParser& args, RangeQuery* q, RangeQueryParse* state);
void FinishRangeQuery(ArgParser& args, RangeQuery* q, const RangeQueryParse& state);

// A sample's value in a reply: a RESP3 double, or a RESP2 simple string (the shortest text that
// reads back as the same double), as RedisTimeSeries replies.
void ReplySampleValue(CommandContext& ctx, double value);
// A sample as [timestamp, value].
void ReplySample(CommandContext& ctx, const types::Sample& sample);

// The most samples or buckets one range reply holds (EMPTY over a wide gap could ask for more).
inline constexpr size_t kMaxRangeReply = 10'000'000;
// Runs `q` on `series`: *out receives the samples (or buckets), oldest first (newest first when
// `reverse`), at most q.count — or kMaxRangeReply + 1 of them when the reply would be larger.
// `latest` (LATEST on a rule's destination: the open bucket), newer than every sample of the
// series, is read as one more sample when it falls in the range and passes the filters.
types::OpResult<void> RunRangeQuery(types::Series& series, const RangeQuery& q, bool reverse,
                                    std::vector<types::Sample>* out,
                                    std::optional<types::Sample> latest = std::nullopt);

// LATEST: the partial aggregate of the open bucket of the rule feeding `key` when it is newer
// than `newest`, key's newest sample (nullopt otherwise, or when no rule feeds key).
// kNotFound, kWrongType.
types::OpResult<std::optional<types::Sample>> OpenBucketAfter(
    CommandContext& ctx, std::string_view key, const std::optional<types::Sample>& newest);
// The same, reading key's newest sample first (for a caller that has not read it).
types::OpResult<std::optional<types::Sample>> OpenBucketAfterNewest(CommandContext& ctx,
                                                                    std::string_view key);

}  // namespace ebb::server
