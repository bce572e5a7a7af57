// TS.QUERYINDEX, TS.MGET, TS.MRANGE and TS.MREVRANGE: the time-series commands over every series
// whose labels pass a filter (docs/time-series.md, "Multi-series queries"), with RedisTimeSeries'
// syntax, replies (RESP2 and RESP3, as RedisTimeSeries 1.10 shapes them) and error texts.
//
// The series are found through the label index (types/series_query.h, series_index.h): the
// index rows of the filter's most selective `l=v` / `l=(...)` matcher and a metadata read per
// candidate, not the database. They name no key: on a cluster node they answer for the node's own
// keys, as RedisTimeSeries does without its coordinator. Series are listed in key byte order,
// GROUPBY's groups in label-value byte order. Each series' range is TS.RANGE's (RunRangeQuery).
// TS.MGET and TS.MRANGE refuse a query that finds a series the user's key patterns do not let it
// read.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/acl/acl.h"
#include "server/acl/acl_selector.h"
#include "server/acl/acl_user.h"
#include "server/commands/cmd_series_options.h"
#include "server/commands/register.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/services/reply.h"
#include "server/services/server_context.h"
#include "types/series.h"
#include "types/series_purge.h"
#include "types/series_query.h"

namespace ebb::server {
namespace {

using types::FoundSeries;
using types::LabelMatcher;
using types::OpResult;
using types::Sample;
using types::SeriesLabels;

// RedisTimeSeries' SELECTED_LABELS ends at one of these words (or at the end).
constexpr std::string_view kQueryTokens[] = {"WITHLABELS",      "AGGREGATION",  "LIMIT",
                                             "GROUPBY",         "REDUCE",       "FILTER",
                                             "FILTER_BY_VALUE", "FILTER_BY_TS", "COUNT"};
constexpr size_t kMaxSelectedLabels = 50;

// What TS.MGET and TS.MRANGE share: which labels to show, and the filter.
struct LabelQuery {
  bool latest = false;  // TS.MGET's LATEST (TS.MRANGE's is its RangeQuery's)
  bool with_labels = false;
  std::vector<std::string_view> selected;  // SELECTED_LABELS
  bool has_filter = false;
  std::vector<LabelMatcher> filter;
};

bool IsQueryToken(std::string_view text) {
  return std::any_of(std::begin(kQueryTokens), std::end(kQueryTokens),
                     [&](std::string_view token) { return EqualsIgnoreCase(token, text); });
}

// FILTER's matchers, up to GROUPBY when `until_groupby`, else up to the end. `empty_error`:
// what no matcher at all gives.
void ParseFilter(ArgParser& args, LabelQuery* q, bool until_groupby, std::string_view empty_error) {
  q->has_filter = true;
  while (args.HasMore() && !(until_groupby && EqualsIgnoreCase(args.Peek(), "GROUPBY"))) {
    std::optional<LabelMatcher> matcher = types::ParseLabelMatcher(args.Next());
    if (!matcher) return args.Fail(kTsBadFilter);
    q->filter.push_back(std::move(*matcher));
  }
  if (q->filter.empty()) return args.Fail(empty_error);
  if (std::none_of(q->filter.begin(), q->filter.end(), types::RequiresValue)) {
    args.Fail(kTsNoMatcher);
  }
}

// WITHLABELS or SELECTED_LABELS l...; false (nothing read) when the next argument is neither.
bool ParseLabelsOption(ArgParser& args, LabelQuery* q) {
  if (args.Token("WITHLABELS")) {
    q->with_labels = true;
  } else if (args.Token("SELECTED_LABELS")) {
    while (args.HasMore() && !IsQueryToken(args.Peek())) {
      if (q->selected.size() == kMaxSelectedLabels) {
        args.Fail(kTsSelectedLabelsTooMany);
        return true;
      }
      q->selected.push_back(args.Next());
    }
    if (q->selected.empty()) args.Fail(kTsSelectedLabelsEmpty);
  } else {
    return false;
  }
  if (q->with_labels && !q->selected.empty()) args.Fail(kTsLabelsConflict);
  return true;
}

// ---- replies

void LabelsHeader(CommandContext& ctx, size_t n) {
  if (ctx.reply.protocol() >= 3) return ctx.reply.MapHeader(n);
  ctx.reply.ArrayHeader(n);
}

void LabelPair(CommandContext& ctx, std::string_view name, std::optional<std::string_view> value) {
  if (ctx.reply.protocol() < 3) ctx.reply.ArrayHeader(2);
  ctx.reply.Bulk(name);
  if (value) {
    ctx.reply.Bulk(*value);
  } else {
    ctx.reply.Null();
  }
}

void ReplyAllLabels(CommandContext& ctx, const SeriesLabels& labels) {
  LabelsHeader(ctx, labels.size());
  for (const auto& [name, value] : labels) LabelPair(ctx, name, value);
}

// The labels a query shows: all (WITHLABELS), the selected ones (a name matched without regard
// to case; nil for a label the series lacks) or none.
void ReplyLabels(CommandContext& ctx, const SeriesLabels& labels, const LabelQuery& q) {
  if (q.with_labels) return ReplyAllLabels(ctx, labels);
  LabelsHeader(ctx, q.selected.size());
  for (std::string_view selected : q.selected) {
    auto it = std::find_if(labels.begin(), labels.end(), [&](const auto& label) {
      return EqualsIgnoreCase(label.first, selected);
    });
    if (it == labels.end()) {
      LabelPair(ctx, selected, std::nullopt);
    } else {
      LabelPair(ctx, it->first, it->second);
    }
  }
}

void ReplySamples(CommandContext& ctx, const std::vector<Sample>& samples) {
  ctx.reply.ArrayHeader(samples.size());
  for (const Sample& sample : samples) ReplySample(ctx, sample);
}

// RESP3's {name: [values...]} beside a range.
void ReplyNamedList(CommandContext& ctx, std::string_view name,
                    const std::vector<std::string_view>& values) {
  ctx.reply.MapHeader(1);
  ctx.reply.Bulk(name);
  ctx.reply.ArrayHeader(values.size());
  for (std::string_view value : values) ctx.reply.Bulk(value);
}

OpResult<std::vector<FoundSeries>> Find(CommandContext& ctx, const LabelQuery& q) {
  return types::FindSeries(ctx.server.keyspace(), ctx.client.db_index(), q.filter);
}

// Whether the connection's user may read every series found (one of its selectors admits each
// for reading): TS.MGET and TS.MRANGE refuse the whole query otherwise, as RedisTimeSeries does,
// so that no key pattern is bypassed by naming series through their labels.
bool MayReadAll(CommandContext& ctx, const std::vector<FoundSeries>& found) {
  const AclUser* user = ctx.server.acl().UserOf(ctx.client);
  if (user == nullptr || user->unrestricted()) return user != nullptr;
  return std::all_of(found.begin(), found.end(), [&](const FoundSeries& f) {
    return std::any_of(
        user->selectors().begin(), user->selectors().end(),
        [&](const AclSelector& selector) { return selector.CanAccessKey(f.key, kAclRead); });
  });
}

// ---- TS.QUERYINDEX filter...

LabelQuery ParseQueryIndex(ArgParser& args) {
  LabelQuery q;
  ParseFilter(args, &q, /*until_groupby=*/false, kTsNoMatcher);
  return q;
}

void ExecuteQueryIndex(CommandContext& ctx, const LabelQuery& q) {
  OpResult<std::vector<FoundSeries>> found = Find(ctx, q);
  if (!found.ok()) return ReplyError(ctx, found);
  ctx.reply.SetHeader(found->size());
  for (const FoundSeries& series : *found) ctx.reply.Bulk(series.key);
}

// ---- TS.MGET [LATEST] [WITHLABELS | SELECTED_LABELS l...] FILTER filter...

LabelQuery ParseMget(ArgParser& args) {
  LabelQuery q;
  bool has_filter = false;  // RedisTimeSeries checks this first
  const size_t end = args.position() + args.remaining();
  for (size_t i = args.position(); i < end && !has_filter; ++i) {
    has_filter = EqualsIgnoreCase(args.at(i), "FILTER");
  }
  if (!has_filter) {
    args.Fail(WrongArgsError("ts.mget"));
    return q;
  }
  while (args.HasMore()) {
    if (args.Token("LATEST")) {
      q.latest = true;
      continue;
    }
    if (ParseLabelsOption(args, &q)) continue;
    if (args.Token("FILTER")) {
      ParseFilter(args, &q, /*until_groupby=*/false, kTsNoMatcher);
    } else {
      args.SyntaxError();
    }
  }
  return q;
}

void ExecuteMget(CommandContext& ctx, const LabelQuery& q) {
  OpResult<std::vector<FoundSeries>> found = Find(ctx, q);
  if (!found.ok()) return ReplyError(ctx, found);
  if (!MayReadAll(ctx, *found)) return ctx.reply.Error(kTsNoReadPermission);
  std::vector<std::optional<Sample>> newest;
  const int64_t now = ctx.server.keyspace().db().ExpiryNowMs();
  for (const FoundSeries& series : *found) {
    newest.push_back(series.meta.newest);
    // Active-active mode: an expiry register may hide every sample of a series a later settings
    // register keeps (docs/active-active.md, "Expiry changes").
    if (newest.back() && newest.back()->ts < types::SeriesRegisterFloor(series.meta, now)) {
      newest.back().reset();
    }
    if (!q.latest) continue;
    OpResult<std::optional<Sample>> open = OpenBucketAfter(ctx, series.key, series.meta.newest);
    if (!open.ok()) return ReplyError(ctx, open);
    if (*open) newest.back() = *open;
  }
  const bool resp3 = ctx.reply.protocol() >= 3;
  LabelsHeader(ctx, found->size());
  for (size_t i = 0; i < found->size(); ++i) {
    const FoundSeries& series = (*found)[i];
    if (!resp3) ctx.reply.ArrayHeader(3);
    ctx.reply.Bulk(series.key);
    if (resp3) ctx.reply.ArrayHeader(2);
    ReplyLabels(ctx, series.meta.settings.labels, q);
    if (newest[i]) {
      ReplySample(ctx, *newest[i]);
    } else {
      ctx.reply.ArrayHeader(0);
    }
  }
}

// ---- TS.MRANGE / TS.MREVRANGE from to [range options] [WITHLABELS | SELECTED_LABELS l...]
//      FILTER filter... [GROUPBY label REDUCE reducer]

struct MrangeOptions {
  RangeQuery range;
  LabelQuery labels;
  std::optional<std::string_view> group_by;
  types::Aggregator reducer = types::Aggregator::kSum;
};

// GROUPBY label REDUCE reducer, the last four arguments. REQUIRES: GROUPBY was read.
void ParseGroupBy(ArgParser& args, MrangeOptions* o, std::string_view command) {
  if (!o->labels.has_filter) return args.Fail(kTsGroupByBeforeFilter);
  if (args.remaining() != 3) return args.Fail(WrongArgsError(command));
  o->group_by = args.Next();
  if (!args.Token("REDUCE")) return args.Fail(WrongArgsError(command));
  std::optional<types::Aggregator> reducer = types::AggregatorFromName(args.Next());
  if (!reducer || !types::IsReducer(*reducer)) return args.Fail(kTsInvalidReducer);
  o->reducer = *reducer;
}

MrangeOptions ParseMrange(ArgParser& args, std::string_view command) {
  MrangeOptions o;
  RangeQueryParse state;
  ParseRangeBounds(args, &o.range, &state);
  while (args.HasMore()) {
    if (ParseRangeOption(args, &o.range, &state) || ParseLabelsOption(args, &o.labels)) continue;
    if (args.Token("FILTER")) {
      ParseFilter(args, &o.labels, /*until_groupby=*/true, kTsFilterEmpty);
    } else if (args.Token("GROUPBY")) {
      ParseGroupBy(args, &o, command);
    } else {
      args.SyntaxError();
    }
  }
  FinishRangeQuery(args, &o.range, state);
  if (!args.failed() && !o.labels.has_filter) args.Fail(kTsFilterMissing);
  return o;
}

MrangeOptions ParseForward(ArgParser& args) { return ParseMrange(args, "ts.mrange"); }
MrangeOptions ParseReverse(ArgParser& args) { return ParseMrange(args, "ts.mrevrange"); }

// Each series' range, in `found`'s order; false (the error replied) when a range failed or
// the ranges together exceed kMaxRangeReply.
bool RunRanges(CommandContext& ctx, const std::vector<const FoundSeries*>& found,
               const RangeQuery& query, bool reverse, std::vector<std::vector<Sample>>* out) {
  types::Series series(ctx.server.keyspace(), ctx.client.db_index());
  size_t total = 0;
  for (const FoundSeries* f : found) {
    RangeQuery q = query;
    q.key = f->key;
    std::optional<Sample> latest;
    if (q.latest) {
      OpResult<std::optional<Sample>> open = OpenBucketAfterNewest(ctx, q.key);
      if (!open.ok()) {
        ReplyError(ctx, open);
        return false;
      }
      latest = *open;
    }
    std::vector<Sample>& samples = out->emplace_back();
    OpResult<void> read = RunRangeQuery(series, q, reverse, &samples, latest);
    if (!read.ok()) {
      ReplyError(ctx, read);
      return false;
    }
    total += samples.size();
    if (total > kMaxRangeReply) {
      ctx.reply.Error(kTsTooManyBuckets);
      return false;
    }
  }
  return true;
}

void ReplyUngrouped(CommandContext& ctx, const MrangeOptions& o,
                    const std::vector<FoundSeries>& found, bool reverse) {
  std::vector<const FoundSeries*> all;
  for (const FoundSeries& f : found) all.push_back(&f);
  std::vector<std::vector<Sample>> ranges;
  if (!RunRanges(ctx, all, o.range, reverse, &ranges)) return;
  const bool resp3 = ctx.reply.protocol() >= 3;
  LabelsHeader(ctx, found.size());
  for (size_t i = 0; i < found.size(); ++i) {
    if (!resp3) ctx.reply.ArrayHeader(3);
    ctx.reply.Bulk(found[i].key);
    if (resp3) ctx.reply.ArrayHeader(3);
    ReplyLabels(ctx, found[i].meta.settings.labels, o.labels);
    if (resp3) {
      std::vector<std::string_view> aggregators;
      if (o.range.aggregation) {
        aggregators.push_back(types::AggregatorName(o.range.aggregation->aggregator));
      }
      ReplyNamedList(ctx, "aggregators", aggregators);
    }
    ReplySamples(ctx, ranges[i]);
  }
}

// One GROUPBY group: the series sharing a value of the label, and their reduction.
struct Group {
  std::vector<const FoundSeries*> members;
  std::vector<Sample> reduced;
};

void ReplyGroup(CommandContext& ctx, const MrangeOptions& o, std::string_view value,
                const Group& group) {
  const std::string_view reducer = types::AggregatorName(o.reducer);
  std::vector<std::string_view> sources;
  std::string joined;
  for (const FoundSeries* member : group.members) {
    sources.push_back(member->key);
    joined.append(joined.empty() ? "" : ",").append(member->key);
  }
  const SeriesLabels labels = {{std::string(*o.group_by), std::string(value)},
                               {"__reducer__", std::string(reducer)},
                               {"__source__", joined}};
  const bool resp3 = ctx.reply.protocol() >= 3;
  if (!resp3) ctx.reply.ArrayHeader(3);
  ctx.reply.Bulk(std::string(*o.group_by) + "=" + std::string(value));
  if (!resp3) {
    ReplyLabels(ctx, labels, o.labels);
  } else {
    ctx.reply.ArrayHeader(4);
    // RESP3 shows the reducer and the sources apart: WITHLABELS gives the group's label only.
    ReplyLabels(ctx, o.labels.with_labels ? SeriesLabels{labels.front()} : labels, o.labels);
    ReplyNamedList(ctx, "reducers", {reducer});
    ReplyNamedList(ctx, "sources", sources);
  }
  ReplySamples(ctx, group.reduced);
}

void ReplyGrouped(CommandContext& ctx, const MrangeOptions& o,
                  const std::vector<FoundSeries>& found, bool reverse) {
  std::map<std::string, Group> groups;  // by the label's value
  for (const FoundSeries& f : found) {
    std::optional<std::string_view> value = types::LabelValue(f.meta.settings.labels, *o.group_by);
    if (value) groups[std::string(*value)].members.push_back(&f);
  }
  // Each series' whole range, oldest first; COUNT and the order apply to the reduction.
  RangeQuery per_series = o.range;
  per_series.count = UINT64_MAX;
  size_t total = 0;
  for (auto& [value, group] : groups) {
    std::vector<std::vector<Sample>> ranges;
    if (!RunRanges(ctx, group.members, per_series, /*reverse=*/false, &ranges)) return;
    group.reduced = types::ReduceSeries(ranges, o.reducer);
    if (reverse) std::reverse(group.reduced.begin(), group.reduced.end());
    if (group.reduced.size() > o.range.count) group.reduced.resize(o.range.count);
    total += group.reduced.size();
    if (total > kMaxRangeReply) return ctx.reply.Error(kTsTooManyBuckets);
  }
  LabelsHeader(ctx, groups.size());
  for (const auto& [value, group] : groups) ReplyGroup(ctx, o, value, group);
}

void ExecuteMrange(CommandContext& ctx, const MrangeOptions& o, bool reverse) {
  OpResult<std::vector<FoundSeries>> found = Find(ctx, o.labels);
  if (!found.ok()) return ReplyError(ctx, found);
  if (!MayReadAll(ctx, *found)) return ctx.reply.Error(kTsNoReadPermission);
  if (o.group_by) return ReplyGrouped(ctx, o, *found, reverse);
  ReplyUngrouped(ctx, o, *found, reverse);
}

void ExecuteForward(CommandContext& ctx, const MrangeOptions& o) { ExecuteMrange(ctx, o, false); }
void ExecuteReverse(CommandContext& ctx, const MrangeOptions& o) { ExecuteMrange(ctx, o, true); }

const ArgSpec kLatest = {
    .name = "latest", .type = ArgType::kPureToken, .token = "LATEST", .optional = true};
const ArgSpec kFilter = {.name = "filterExpr", .token = "FILTER", .multiple = true};
const ArgSpec kLabelsShown = {
    .name = "labels",
    .type = ArgType::kOneOf,
    .optional = true,
    .children = {{.name = "withlabels", .type = ArgType::kPureToken, .token = "WITHLABELS"},
                 {.name = "label", .token = "SELECTED_LABELS", .multiple = true}}};

std::vector<ArgSpec> MrangeArguments() {
  std::vector<ArgSpec> args = {{.name = "fromTimestamp"}, {.name = "toTimestamp"}};
  const std::vector<ArgSpec> filters = RangeFilterArguments();
  const std::vector<ArgSpec> aggregation = RangeAggregationArguments();
  args.insert(args.end(), filters.begin(), filters.end());
  args.push_back(kLabelsShown);
  args.insert(args.end(), aggregation.begin(), aggregation.end());
  args.push_back(kFilter);
  args.push_back({.name = "groupby",
                  .type = ArgType::kBlock,
                  .token = "GROUPBY",
                  .optional = true,
                  .children = {{.name = "label"}, {.name = "reducer", .token = "REDUCE"}}});
  return args;
}

}  // namespace

std::vector<CommandSpec> SeriesQueryCommands() {
  return {
      {.name = "ts.queryindex",
       .arity = -2,
       .flags = kCmdReadOnly,
       .keys = kNoKeys,
       .group = "timeseries",
       .summary = "Returns the keys of the series whose labels pass a filter.",
       .complexity = "O(K) where K is the number of keys in the database",
       .arguments = {{.name = "filterExpr", .multiple = true}},
       .handler = Handler<ParseQueryIndex, ExecuteQueryIndex>},
      {.name = "ts.mget",
       .arity = -3,
       .flags = kCmdReadOnly,
       .keys = kNoKeys,
       .group = "timeseries",
       .summary = "Returns the newest sample of every series whose labels pass a filter.",
       .complexity = "O(K) where K is the number of keys in the database",
       .arguments = {kLatest, kLabelsShown, kFilter},
       .handler = Handler<ParseMget, ExecuteMget>},
      {.name = "ts.mrange",
       .arity = -4,
       .flags = kCmdReadOnly,
       .keys = kNoKeys,
       .group = "timeseries",
       .summary = "Returns a range of every series whose labels pass a filter, oldest first.",
       .complexity = "O(K+M) where K is the number of keys in the database and M the number of "
                     "samples read",
       .arguments = MrangeArguments(),
       .handler = Handler<ParseForward, ExecuteForward>},
      {.name = "ts.mrevrange",
       .arity = -4,
       .flags = kCmdReadOnly,
       .keys = kNoKeys,
       .group = "timeseries",
       .summary = "Returns a range of every series whose labels pass a filter, newest first.",
       .complexity = "O(K+M) where K is the number of keys in the database and M the number of "
                     "samples read",
       .arguments = MrangeArguments(),
       .handler = Handler<ParseReverse, ExecuteReverse>},
  };
}

}  // namespace ebb::server
