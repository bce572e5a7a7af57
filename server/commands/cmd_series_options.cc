#include "server/commands/cmd_series_options.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/core/errors.h"
#include "server/services/reply.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"
#include "types/series_rules.h"

namespace ebb::server {
namespace {

constexpr int64_t kMinChunkSize = 48;
constexpr int64_t kMaxChunkSize = 1048576;
constexpr size_t kMaxFilterTimestamps = 128;

// The argument after an option's keyword; latches `error` when there is none.
std::string_view OptionValue(ArgParser& args, std::string_view error) {
  if (!args.HasMore()) {
    args.Fail(error);
    return {};
  }
  return args.Next();
}

types::DuplicatePolicy ParsePolicy(ArgParser& args) {
  const std::string_view text = OptionValue(args, kTsBadDuplicatePolicy);
  if (args.failed()) return types::DuplicatePolicy::kUnset;
  std::optional<types::DuplicatePolicy> policy = types::DuplicatePolicyFromName(text);
  if (!policy) args.Fail(kTsUnknownDuplicatePolicy);
  return policy.value_or(types::DuplicatePolicy::kUnset);
}

bool ValidLabelText(std::string_view text, bool value) {
  return !text.empty() && (!value || text.find_first_of("(),") == std::string_view::npos);
}

void ParseLabels(ArgParser& args, types::SeriesSettings* settings) {
  settings->labels.clear();
  if (args.remaining() % 2 != 0) return args.Fail(kTsBadLabels);
  while (args.HasMore()) {
    const std::string_view name = args.Next();
    const std::string_view value = args.Next();
    if (!ValidLabelText(name, false) || !ValidLabelText(value, true)) {
      return args.Fail(kTsBadLabels);
    }
    settings->labels.emplace_back(std::string(name), std::string(value));
  }
}

// Options every set shares; false when the next argument is none of them.
bool ParseCommonOption(ArgParser& args, types::SeriesSettings* settings,
                       SeriesOptionsGiven* given) {
  if (args.Token("RETENTION")) {
    int64_t ms = 0;
    if (!ParseInt64(OptionValue(args, kTsBadRetention), &ms) || ms < 0) {
      args.Fail(kTsBadRetention);
    }
    settings->retention_ms = static_cast<uint64_t>(std::max<int64_t>(ms, 0));
    settings->retention_from_policy = false;
    given->retention = true;
  } else if (args.Token("CHUNK_SIZE")) {
    int64_t size = 0;
    if (!ParseInt64(OptionValue(args, kTsBadChunkSize), &size)) {
      args.Fail(kTsBadChunkSize);
    } else if (size < kMinChunkSize || size > kMaxChunkSize || size % 8 != 0) {
      args.Fail(kTsChunkSizeRange);
    }
    settings->chunk_size = static_cast<uint64_t>(std::max<int64_t>(size, 0));
    given->chunk_size = true;
  } else if (args.Token("DUPLICATE_POLICY")) {
    settings->duplicate_policy = ParsePolicy(args);
    given->duplicate_policy = true;
  } else if (args.Token("LABELS")) {
    ParseLabels(args, settings);
    given->labels = true;
  } else {
    return false;
  }
  return true;
}

bool ParseEncodingOption(ArgParser& args, types::SeriesSettings* settings) {
  if (args.Token("ENCODING")) {
    const std::string_view text = OptionValue(args, kTsBadEncoding);
    if (EqualsIgnoreCase(text, "COMPRESSED")) {
      settings->encoding = types::SeriesEncoding::kCompressed;
    } else if (EqualsIgnoreCase(text, "UNCOMPRESSED")) {
      settings->encoding = types::SeriesEncoding::kUncompressed;
    } else {
      args.Fail(kTsBadEncoding);
    }
  } else if (args.Token("UNCOMPRESSED")) {  // the form before ENCODING
    settings->encoding = types::SeriesEncoding::kUncompressed;
  } else if (args.Token("COMPRESSED")) {
    settings->encoding = types::SeriesEncoding::kCompressed;
  } else {
    return false;
  }
  return true;
}

}  // namespace

void ParseSeriesOptions(ArgParser& args, SeriesOptionSet set, types::SeriesSettings* settings,
                        SeriesOptionsGiven* given) {
  SeriesOptionsGiven ignored;
  if (given == nullptr) given = &ignored;
  settings->retention_from_policy = set != SeriesOptionSet::kAlter;
  while (args.HasMore()) {
    if (ParseCommonOption(args, settings, given)) continue;
    if (set != SeriesOptionSet::kAlter && ParseEncodingOption(args, settings)) continue;
    if (set == SeriesOptionSet::kAdd && args.Token("ON_DUPLICATE")) {
      given->on_duplicate = ParsePolicy(args);
    } else if (set == SeriesOptionSet::kIncr && args.Token("TIMESTAMP")) {
      given->timestamp = OptionValue(args, kTsInvalidTimestamp);
    } else {
      args.SyntaxError();
    }
  }
}

bool ParseSampleValue(std::string_view text, double* value) {
  return ParseDouble(text, value) && !std::isnan(*value);
}

std::string_view ParseSampleTimestamp(CommandContext& ctx, std::string_view text, int64_t* ts) {
  return ParseSampleTimestampAt(ctx.server.keyspace().NowMs(), text, ts);
}

std::string_view ParseSampleTimestampAt(int64_t now_ms, std::string_view text, int64_t* ts) {
  if (text == "*") {
    *ts = std::max<int64_t>(now_ms, 0);
    return {};
  }
  if (!ParseInt64(text, ts)) return kTsInvalidTimestamp;
  if (*ts < 0) return kTsNegativeTimestamp;
  return {};
}

int64_t ParseRangeBound(ArgParser& args, bool from) {
  const std::string_view text = args.Next();
  if (args.failed()) return 0;
  if (from && text == "-") return 0;
  if (!from && text == "+") return types::kMaxSeriesTimestamp;
  int64_t ts = 0;
  if (!ParseInt64(text, &ts) || ts < 0) args.Fail(from ? kTsWrongFrom : kTsWrongTo);
  return ts;
}

namespace {

using Align = RangeQueryParse::Align;

void ParseFilterByTs(ArgParser& args, RangeQuery* q) {
  q->filter_ts.clear();
  while (args.HasMore() && q->filter_ts.size() < kMaxFilterTimestamps) {
    int64_t ts = 0;
    if (!ParseInt64(args.Peek(), &ts) || ts < 0) break;
    args.Next();
    q->filter_ts.push_back(ts);
  }
  if (q->filter_ts.empty()) return args.Fail(kTsFilterByTsMissing);
  std::sort(q->filter_ts.begin(), q->filter_ts.end());
  q->filter_ts.erase(std::unique(q->filter_ts.begin(), q->filter_ts.end()), q->filter_ts.end());
}

void ParseAggregation(ArgParser& args, types::AggregationSpec* spec) {
  if (args.remaining() < 2) return args.Fail(kTsBadAggregation);
  const std::optional<types::Aggregator> aggregator = types::AggregatorFromName(args.Next());
  if (!aggregator) return args.Fail(kTsUnknownAggregation);
  spec->aggregator = *aggregator;
  int64_t bucket = 0;
  if (!ParseInt64(args.Next(), &bucket)) return args.Fail(kTsBadAggregation);
  if (bucket <= 0) return args.Fail(kTsBucketDuration);
  spec->bucket_ms = bucket;
  for (bool more = true; more && args.HasMore();) {
    if (args.Token("BUCKETTIMESTAMP")) {
      const std::string_view bt = OptionValue(args, kTsBadBucketTimestamp);
      if (bt == "-" || EqualsIgnoreCase(bt, "start")) {
        spec->bucket_timestamp = types::BucketTimestamp::kStart;
      } else if (bt == "+" || EqualsIgnoreCase(bt, "end")) {
        spec->bucket_timestamp = types::BucketTimestamp::kEnd;
      } else if (bt == "~" || EqualsIgnoreCase(bt, "mid")) {
        spec->bucket_timestamp = types::BucketTimestamp::kMid;
      } else {
        args.Fail(kTsBadBucketTimestamp);
      }
    } else if (args.Token("EMPTY")) {
      spec->empty = true;
    } else {
      more = false;
    }
  }
}

// ALIGN's value: start / -, end / +, or a timestamp.
Align ParseAlign(ArgParser& args, int64_t* at) {
  const std::string_view text = OptionValue(args, kTsBadAlign);
  if (text == "-" || EqualsIgnoreCase(text, "start")) return Align::kStart;
  if (text == "+" || EqualsIgnoreCase(text, "end")) return Align::kEnd;
  if (!ParseInt64(text, at) || *at < 0) args.Fail(kTsBadAlign);
  return Align::kTimestamp;
}

}  // namespace

void ParseRangeBounds(ArgParser& args, RangeQuery* q, RangeQueryParse* state) {
  state->from_text = args.HasMore() ? args.Peek() : "";
  q->from = ParseRangeBound(args, true);
  state->to_text = args.HasMore() ? args.Peek() : "";
  q->to = ParseRangeBound(args, false);
}

bool ParseRangeOption(ArgParser& args, RangeQuery* q, RangeQueryParse* state) {
  if (args.Token("LATEST")) {
    q->latest = true;  // a rule destination's open bucket (cmd_series_rules.cc)
  } else if (args.Token("FILTER_BY_TS")) {
    ParseFilterByTs(args, q);
  } else if (args.Token("FILTER_BY_VALUE")) {
    if (args.remaining() < 2) {
      args.Fail(kTsFilterByValueMissing);
      return true;
    }
    double min = 0;
    double max = 0;
    if (!ParseDouble(args.Next(), &min)) args.Fail(kTsBadMin);
    if (!ParseDouble(args.Next(), &max)) args.Fail(kTsBadMax);
    q->filter_value = std::make_pair(min, max);
  } else if (args.Token("COUNT")) {
    int64_t count = 0;
    if (!args.HasMore()) {
      args.Fail(kTsCountMissing);
    } else if (!ParseInt64(args.Next(), &count)) {
      args.Fail(kTsBadCount);
    } else if (count < 1) {
      args.Fail(kTsInvalidCount);
    }
    q->count = static_cast<uint64_t>(std::max<int64_t>(count, 1));
  } else if (args.Token("ALIGN")) {
    state->align = ParseAlign(args, &state->align_at);
  } else if (args.Token("AGGREGATION")) {
    ParseAggregation(args, &state->spec);
    state->aggregated = true;
  } else {
    return false;
  }
  return true;
}

void FinishRangeQuery(ArgParser& args, RangeQuery* q, const RangeQueryParse& state) {
  if (args.failed()) return;
  types::AggregationSpec spec = state.spec;
  if (state.align != Align::kNone) {
    if (!state.aggregated) {
      args.Fail(kTsAlignWithoutAggregation);
    } else if (state.align == Align::kStart && state.from_text == "-") {
      args.Fail(kTsAlignStartUnbounded);
    } else if (state.align == Align::kEnd && state.to_text == "+") {
      args.Fail(kTsAlignEndUnbounded);
    }
    spec.align = state.align == Align::kStart ? q->from
                 : state.align == Align::kEnd ? q->to
                                              : state.align_at;
  }
  if (state.aggregated) q->aggregation = spec;
}

std::vector<ArgSpec> RangeFilterArguments() {
  return {{.name = "latest", .type = ArgType::kPureToken, .token = "LATEST", .optional = true},
          {.name = "Timestamp",
           .type = ArgType::kInteger,
           .token = "FILTER_BY_TS",
           .optional = true,
           .multiple = true},
          {.name = "filterByValue",
           .type = ArgType::kBlock,
           .token = "FILTER_BY_VALUE",
           .optional = true,
           .children = {{.name = "min", .type = ArgType::kDouble},
                        {.name = "max", .type = ArgType::kDouble}}}};
}

std::vector<ArgSpec> RangeAggregationArguments() {
  return {
      {.name = "count", .type = ArgType::kInteger, .token = "COUNT", .optional = true},
      {.name = "value", .token = "ALIGN", .optional = true},
      {.name = "aggregation",
       .type = ArgType::kBlock,
       .token = "AGGREGATION",
       .optional = true,
       .children = {
           {.name = "aggregator"},
           {.name = "bucketDuration", .type = ArgType::kInteger},
           {.name = "bt", .token = "BUCKETTIMESTAMP", .optional = true},
           {.name = "empty", .type = ArgType::kPureToken, .token = "EMPTY", .optional = true}}}};
}

RangeQuery ParseRangeQuery(ArgParser& args) {
  RangeQuery q;
  RangeQueryParse state;
  q.key = args.Next();
  ParseRangeBounds(args, &q, &state);
  while (args.HasMore()) {
    if (!ParseRangeOption(args, &q, &state)) args.SyntaxError();
  }
  FinishRangeQuery(args, &q, state);
  return q;
}

void ReplySampleValue(CommandContext& ctx, double value) {
  if (ctx.reply.protocol() >= 3) return ctx.reply.Double(value);
  if (std::isnan(value)) return ctx.reply.SimpleString("nan");
  if (std::isinf(value)) return ctx.reply.SimpleString(value > 0 ? "inf" : "-inf");
  char text[32];
  const auto [end, ec] = std::to_chars(text, text + sizeof(text), value);
  ctx.reply.SimpleString(std::string_view(text, static_cast<size_t>(end - text)));
}

void ReplySample(CommandContext& ctx, const types::Sample& sample) {
  ctx.reply.ArrayHeader(2);
  ctx.reply.Integer(sample.ts);
  ReplySampleValue(ctx, sample.value);
}

namespace {

bool Passes(const RangeQuery& q, const types::Sample& sample) {
  if (!q.filter_ts.empty() &&
      !std::binary_search(q.filter_ts.begin(), q.filter_ts.end(), sample.ts)) {
    return false;
  }
  return !q.filter_value ||
         (sample.value >= q.filter_value->first && sample.value <= q.filter_value->second);
}

}  // namespace

types::OpResult<void> RunRangeQuery(types::Series& series, const RangeQuery& q, bool reverse,
                                    std::vector<types::Sample>* out,
                                    std::optional<types::Sample> latest) {
  if (latest && (latest->ts < q.from || latest->ts > q.to || !Passes(q, *latest))) {
    latest.reset();
  }
  if (!q.aggregation) {
    if (latest && reverse) out->push_back(*latest);
    if (out->size() >= q.count) return {};
    types::OpResult<void> scanned =
        series.Scan(q.key, q.from, q.to, reverse, [&](const types::Sample& sample) {
          if (Passes(q, sample)) out->push_back(sample);
          return out->size() < q.count && out->size() <= kMaxRangeReply;
        });
    if (scanned.ok() && latest && !reverse && out->size() < q.count) out->push_back(*latest);
    return scanned;
  }
  // Buckets are made oldest first; REVRANGE reverses them and keeps the newest q.count.
  std::optional<types::Sample> before;
  std::optional<types::Sample> after;
  const bool unfiltered = q.filter_ts.empty() && !q.filter_value;
  if (q.aggregation->aggregator == types::Aggregator::kTwa && unfiltered) {
    types::OpResult<std::optional<types::Sample>> b = series.Neighbor(q.key, q.from, false);
    if (!b.ok()) return types::FailureOf(b);
    types::OpResult<std::optional<types::Sample>> a = series.Neighbor(q.key, q.to, true);
    if (!a.ok()) return types::FailureOf(a);
    before = *b;
    after = *a;
  }
  types::BucketAggregator buckets(*q.aggregation, before, [&](const types::Sample& bucket) {
    out->push_back(bucket);
    return (reverse || out->size() < q.count) && out->size() <= kMaxRangeReply;
  });
  buckets.ClipToRange(q.from, q.to);
  types::OpResult<void> scanned = series.Scan(
      q.key, q.from, q.to, false,
      [&](const types::Sample& sample) { return !Passes(q, sample) || buckets.Add(sample); });
  if (!scanned.ok()) return scanned;
  if (latest) buckets.Add(*latest);
  buckets.Finish(after);
  if (out->size() > kMaxRangeReply) return {};  // refused whole by the caller
  if (reverse) {
    std::reverse(out->begin(), out->end());
    if (out->size() > q.count) out->resize(q.count);
  }
  return {};
}

types::OpResult<std::optional<types::Sample>> OpenBucketAfter(
    CommandContext& ctx, std::string_view key, const std::optional<types::Sample>& newest) {
  types::OpResult<std::optional<types::Sample>> open =
      types::SeriesRules(ctx.server.keyspace(), ctx.client.db_index()).OpenBucket(key);
  if (!open.ok() || !*open || !newest || (*open)->ts > newest->ts) return open;
  return std::optional<types::Sample>();
}

types::OpResult<std::optional<types::Sample>> OpenBucketAfterNewest(CommandContext& ctx,
                                                                    std::string_view key) {
  types::OpResult<std::optional<types::Sample>> newest =
      types::Series(ctx.server.keyspace(), ctx.client.db_index()).Latest(key);
  if (!newest.ok()) return types::FailureOf(newest);
  return OpenBucketAfter(ctx, key, *newest);
}

types::Series SeriesOf(CommandContext& ctx) {
  return types::Series(ctx.server.keyspace(), ctx.client.db_index());
}

void ReplySeriesError(CommandContext& ctx, const types::OpFailure& failure) {
  if (failure.status == types::OpStatus::kNotFound) return ctx.reply.Error(kTsKeyMissing);
  ReplyError(ctx, failure);
}

}  // namespace ebb::server
