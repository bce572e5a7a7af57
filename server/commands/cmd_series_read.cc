// TS.GET, TS.RANGE, TS.REVRANGE and TS.INFO: the reads of one series (docs/commands.md, "TS";
// docs/time-series.md), over types::Series, with RedisTimeSeries' syntax, replies and error
// texts; the writes are in cmd_series.cc, the shared options in cmd_series_options.h.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/commands/cmd_series_options.h"
#include "server/commands/register.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/services/reply.h"
#include "server/services/server_context.h"
#include "types/series.h"
#include "types/series_rules.h"

namespace ebb::server {
namespace {

using types::OpResult;
using types::Sample;
using types::Series;

// TS.GET key [LATEST]: LATEST on a rule's destination reports the open bucket's partial
// aggregate when there is one.
struct GetOptions {
  std::string_view key;
  bool latest = false;
};

GetOptions ParseGet(ArgParser& args) {
  GetOptions o{args.Next()};
  if (args.HasMore()) {
    o.latest = args.Token("LATEST");
    if (!o.latest) args.SyntaxError();
  }
  return o;
}

void ExecuteGet(CommandContext& ctx, const GetOptions& o) {
  OpResult<std::optional<Sample>> latest = SeriesOf(ctx).Latest(o.key);
  if (!latest.ok()) return ReplySeriesError(ctx, types::FailureOf(latest));
  if (o.latest) {
    OpResult<std::optional<Sample>> open = OpenBucketAfter(ctx, o.key, *latest);
    if (!open.ok()) return ReplySeriesError(ctx, types::FailureOf(open));
    if (*open) *latest = *open;
  }
  if (!*latest) return ctx.reply.ArrayHeader(0);
  ReplySample(ctx, **latest);
}

// TS.RANGE / TS.REVRANGE key from to [options]
void ExecuteRange(CommandContext& ctx, const RangeQuery& q, bool reverse) {
  Series series = SeriesOf(ctx);
  std::optional<Sample> latest;
  if (q.latest) {
    OpResult<std::optional<Sample>> open = OpenBucketAfterNewest(ctx, q.key);
    if (!open.ok()) return ReplySeriesError(ctx, types::FailureOf(open));
    latest = *open;
  }
  std::vector<Sample> out;
  OpResult<void> read = RunRangeQuery(series, q, reverse, &out, latest);
  if (!read.ok()) return ReplySeriesError(ctx, types::FailureOf(read));
  if (out.size() > kMaxRangeReply) return ctx.reply.Error(kTsTooManyBuckets);
  ctx.reply.ArrayHeader(out.size());
  for (const Sample& sample : out) ReplySample(ctx, sample);
}

void ExecuteForward(CommandContext& ctx, const RangeQuery& q) { ExecuteRange(ctx, q, false); }
void ExecuteReverse(CommandContext& ctx, const RangeQuery& q) { ExecuteRange(ctx, q, true); }

// TS.INFO's sourceKey and rules, as RedisTimeSeries shows them: RESP2 [dest, bucket, AGG,
// align] per rule; RESP3 a map dest -> [bucket, AGG, align].
void ReplyRules(CommandContext& ctx, const types::SeriesMeta& meta) {
  ctx.reply.SimpleString("sourceKey");
  if (meta.source) {
    ctx.reply.Bulk(*meta.source);
  } else {
    ctx.reply.Null();
  }
  ctx.reply.SimpleString("rules");
  const bool map = ctx.reply.protocol() >= 3;
  if (map) {
    ctx.reply.MapHeader(meta.rules.size());
  } else {
    ctx.reply.ArrayHeader(meta.rules.size());
  }
  for (const types::SeriesRule& rule : meta.rules) {
    if (!map) ctx.reply.ArrayHeader(4);
    ctx.reply.Bulk(rule.dest);
    if (map) ctx.reply.ArrayHeader(3);
    ctx.reply.Integer(rule.bucket_ms);
    ctx.reply.SimpleString(types::RuleAggregatorName(rule.aggregator));
    ctx.reply.Integer(rule.align);
  }
}

struct InfoOptions {
  std::string_view key;
  bool debug = false;
};

// TS.INFO key [DEBUG]. As RedisTimeSeries: a third argument other than DEBUG is ignored, a
// fourth is an arity error.
InfoOptions ParseInfo(ArgParser& args) {
  InfoOptions o{.key = args.Next()};
  if (args.remaining() > 1) {
    args.Fail(WrongArgsError("ts.info"));
  } else if (args.HasMore()) {
    o.debug = EqualsIgnoreCase(args.Next(), "DEBUG");
  }
  return o;
}

// TS.INFO DEBUG's tail, as RedisTimeSeries 1.10's: the key's name and each block (its chunk)
// as startTimestamp, endTimestamp, samples, size and bytesPerSample (a float, as there).
void ReplyBlocks(CommandContext& ctx, const InfoOptions& o, const types::SeriesInfo& info) {
  ctx.reply.SimpleString("keySelfName");
  ctx.reply.Bulk(o.key);
  ctx.reply.SimpleString("Chunks");
  ctx.reply.ArrayHeader(info.blocks.size());
  for (const types::SeriesInfo::Block& block : info.blocks) {
    ctx.reply.MapHeader(5);
    ctx.reply.SimpleString("startTimestamp");
    ctx.reply.Integer(block.first_ts);
    ctx.reply.SimpleString("endTimestamp");
    ctx.reply.Integer(block.last_ts);
    ctx.reply.SimpleString("samples");
    ctx.reply.Integer(static_cast<int64_t>(block.samples));
    ctx.reply.SimpleString("size");
    ctx.reply.Integer(static_cast<int64_t>(block.bytes));
    ctx.reply.SimpleString("bytesPerSample");
    ctx.reply.Double(static_cast<float>(block.bytes) / static_cast<float>(block.samples));
  }
}

// TS.INFO key [DEBUG]
void ExecuteInfo(CommandContext& ctx, const InfoOptions& o) {
  OpResult<types::SeriesInfo> info = SeriesOf(ctx).Info(o.key, o.debug);
  if (!info.ok()) return ReplySeriesError(ctx, types::FailureOf(info));
  const types::SeriesSettings& s = info->meta.settings;
  ctx.reply.MapHeader(o.debug ? 14 : 12);
  ctx.reply.SimpleString("totalSamples");
  ctx.reply.Integer(static_cast<int64_t>(info->total_samples));
  ctx.reply.SimpleString("memoryUsage");
  ctx.reply.Integer(static_cast<int64_t>(info->stored_bytes));
  ctx.reply.SimpleString("firstTimestamp");
  ctx.reply.Integer(info->first_timestamp);
  ctx.reply.SimpleString("lastTimestamp");
  ctx.reply.Integer(info->meta.newest ? info->meta.newest->ts : 0);
  ctx.reply.SimpleString("retentionTime");
  ctx.reply.Integer(static_cast<int64_t>(s.retention_ms));
  ctx.reply.SimpleString("chunkCount");
  ctx.reply.Integer(static_cast<int64_t>(info->block_count));
  ctx.reply.SimpleString("chunkSize");
  ctx.reply.Integer(static_cast<int64_t>(s.chunk_size));
  ctx.reply.SimpleString("chunkType");
  ctx.reply.SimpleString(s.encoding == types::SeriesEncoding::kCompressed ? "compressed"
                                                                          : "uncompressed");
  ctx.reply.SimpleString("duplicatePolicy");
  if (std::optional<std::string_view> name = types::DuplicatePolicyName(s.duplicate_policy)) {
    ctx.reply.SimpleString(*name);
  } else {
    ctx.reply.Null();
  }
  ctx.reply.SimpleString("labels");
  ctx.reply.ArrayHeader(s.labels.size());
  for (const auto& [name, value] : s.labels) {
    ctx.reply.ArrayHeader(2);
    ctx.reply.Bulk(name);
    ctx.reply.Bulk(value);
  }
  ReplyRules(ctx, info->meta);
  if (o.debug) ReplyBlocks(ctx, o, *info);
}

const ArgSpec kKey = {.name = "key", .type = ArgType::kKey};

std::vector<ArgSpec> RangeArguments() {
  std::vector<ArgSpec> args = {kKey, {.name = "fromTimestamp"}, {.name = "toTimestamp"}};
  for (std::vector<ArgSpec> part : {RangeFilterArguments(), RangeAggregationArguments()}) {
    args.insert(args.end(), part.begin(), part.end());
  }
  return args;
}

}  // namespace

std::vector<CommandSpec> SeriesReadCommands() {
  return {
      {.name = "ts.get",
       .arity = -2,
       .flags = kCmdReadOnly | kCmdFast,
       .keys = kFirstKey,
       .group = "timeseries",
       .summary = "Returns the newest sample of a time series.",
       .arguments =
           {kKey,
            {.name = "latest", .type = ArgType::kPureToken, .token = "LATEST", .optional = true}},
       .handler = Handler<ParseGet, ExecuteGet>},
      {.name = "ts.range",
       .arity = -4,
       .flags = kCmdReadOnly,
       .keys = kFirstKey,
       .group = "timeseries",
       .summary = "Returns the samples in a time range, oldest first, or their aggregation.",
       .complexity = "O(log(N)+M) where M is the number of samples read",
       .arguments = RangeArguments(),
       .handler = Handler<ParseRangeQuery, ExecuteForward>},
      {.name = "ts.revrange",
       .arity = -4,
       .flags = kCmdReadOnly,
       .keys = kFirstKey,
       .group = "timeseries",
       .summary = "Returns the samples in a time range, newest first, or their aggregation.",
       .complexity = "O(log(N)+M) where M is the number of samples read",
       .arguments = RangeArguments(),
       .handler = Handler<ParseRangeQuery, ExecuteReverse>},
      {.name = "ts.info",
       .arity = -2,
       .flags = kCmdReadOnly,
       .keys = kFirstKey,
       .group = "timeseries",
       .summary = "Returns the settings and figures of a time series.",
       .complexity = "O(N) where N is the number of samples",
       .arguments =
           {kKey,
            {.name = "debug", .type = ArgType::kPureToken, .token = "DEBUG", .optional = true}},
       .handler = Handler<ParseInfo, ExecuteInfo>},
  };
}

}  // namespace ebb::server
