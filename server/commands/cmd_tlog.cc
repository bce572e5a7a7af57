// TLOG: the timestamped log commands (docs/commands.md, "TLOG").
//
// A container command over types::Tlog. Timestamps and counts are unsigned 64-bit (digits only,
// leading zeros allowed) and replied with ReplyWriter::Unsigned, so values above 2^63-1 go out
// as a RESP3 big number / RESP2 bulk string.
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/commands/register.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/services/command_docs.h"
#include "server/services/keyspace_events.h"
#include "server/services/reply.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"
#include "types/tlog.h"
#include "types/tlog_buckets.h"

namespace ebb::server {
namespace {

using types::OpResult;

types::Tlog LogOf(CommandContext& ctx) {
  return types::Tlog(ctx.server.keyspace(), ctx.client.db_index());
}

struct TlogOptions {
  std::string_view key;
  std::string_view value;  // INS
  uint64_t number = 0;     // INS, TRIMAT: a timestamp; GET, TRIM: a count
};

// TLOG INS key value timestamp
TlogOptions ParseIns(ArgParser& args) {
  TlogOptions o;
  o.key = args.Next();
  o.value = args.Next();
  o.number = args.Digits();
  return o;
}

void ExecuteIns(CommandContext& ctx, const TlogOptions& o) {
  const OpResult<types::Tlog::InsertOutcome> inserted = LogOf(ctx).Insert(o.key, o.value, o.number);
  if (!inserted.ok()) return ReplyOkOrError(ctx, FailureOf(inserted));
  ServerStats& stats = ctx.server.stats();
  if (*inserted == types::Tlog::InsertOutcome::kBelowCutoff) ++stats.dead_on_arrival_tlog_cutoff;
  if (*inserted == types::Tlog::InsertOutcome::kBelowRetention) {
    ++stats.dead_on_arrival_tlog_retention;
  }
  ReplyOkOrError(ctx, OpResult<void>(), o.key, kNotifyTimestamped, "tlog_ins");
}

// TLOG INS in active-active mode: the entry as it is (logs merge by union).
WriteForm FormIns(const TlogOptions& o, const WriteFormInput&) {
  return WriteForm::Delta(
      {"tlog", "ins", std::string(o.key), std::string(o.value), std::to_string(o.number)},
      ClientTsOf(o.number));
}

void ReplyEntries(CommandContext& ctx, const std::vector<types::TlogEntry>& entries) {
  ctx.reply.ArrayHeader(entries.size());
  for (const types::TlogEntry& entry : entries) {
    ctx.reply.ArrayHeader(2);
    ctx.reply.Bulk(entry.value);
    ctx.reply.Unsigned(entry.ts);
  }
}

// TLOG GET key [count]
TlogOptions ParseGet(ArgParser& args) {
  TlogOptions o;
  o.key = args.Next();
  o.number = std::numeric_limits<uint64_t>::max();
  if (args.remaining() > 1) {
    args.Fail(WrongArgsError("tlog|get"));
  } else if (args.HasMore()) {
    o.number = args.Digits();
  }
  return o;
}

void ExecuteGet(CommandContext& ctx, const TlogOptions& o) {
  OpResult<std::vector<types::TlogEntry>> entries = LogOf(ctx).Get(o.key, o.number);
  if (!entries.ok()) return ReplyError(ctx, entries);
  ReplyEntries(ctx, *entries);
}

struct RangeOptions {
  std::string_view key;
  uint64_t from = 0;
  uint64_t to = 0;
  uint64_t count = std::numeric_limits<uint64_t>::max();
  bool oldest_first = false;
  std::optional<types::TlogBucketSpec> buckets;  // AGGREGATION
};

// A range bound: digits, or "-" (the smallest timestamp) and "+" (the largest), as TS.RANGE.
uint64_t RangeBound(ArgParser& args) {
  const std::string_view text = args.Next();
  if (text == "-") return 0;
  if (text == "+") return std::numeric_limits<uint64_t>::max();
  uint64_t ts = 0;
  if (!ParseDigits(text, &ts)) args.Fail(kNotInteger);
  return ts;
}

// ALIGN's value: digits, or "-" / "start" (the range's start) and "+" / "end" (its end).
uint64_t AlignOf(ArgParser& args, const RangeOptions& o) {
  const std::string_view text = args.Next();
  if (text == "-" || EqualsIgnoreCase(text, "start")) return o.from;
  if (text == "+" || EqualsIgnoreCase(text, "end")) return o.to;
  uint64_t align = 0;
  if (!ParseDigits(text, &align)) args.Fail(kNotInteger);
  return align;
}

// AGGREGATION's aggregator and bucket duration.
types::TlogBucketSpec BucketSpecOf(ArgParser& args) {
  types::TlogBucketSpec spec;
  const std::optional<types::TlogAggregator> aggregator =
      types::TlogAggregatorFromName(args.Next());
  if (!aggregator) args.Fail(kTlogUnknownAggregator);
  if (aggregator) spec.aggregator = *aggregator;
  spec.bucket = args.Digits();  // 0 is refused once the options are read
  return spec;
}

// TLOG RANGE key from to [COUNT count] [REV]
//   [[ALIGN align] AGGREGATION count|first|last bucket [BUCKETTIMESTAMP -|~|+]]
RangeOptions ParseRange(ArgParser& args) {
  RangeOptions o;
  o.key = args.Next();
  o.from = RangeBound(args);
  o.to = RangeBound(args);
  std::optional<uint64_t> align;
  std::optional<types::BucketTimestamp> reported;
  while (args.HasMore()) {
    if (args.Token("COUNT")) {
      o.count = args.Digits();
    } else if (args.Token("REV")) {
      o.oldest_first = true;
    } else if (args.Token("ALIGN")) {
      align = AlignOf(args, o);
    } else if (args.Token("AGGREGATION")) {
      o.buckets = BucketSpecOf(args);
    } else if (args.Token("BUCKETTIMESTAMP")) {
      const int at = args.Choice({"-", "~", "+", "start", "mid", "end"});
      if (at < 0) args.SyntaxError();
      reported = static_cast<types::BucketTimestamp>(at % 3);
    } else {
      args.SyntaxError();
    }
  }
  if (o.buckets && o.buckets->bucket == 0) args.Fail(kTlogBucketZero);
  if (!o.buckets && (align || reported)) args.SyntaxError();  // only with AGGREGATION
  if (o.buckets) {
    o.buckets->align = align.value_or(0);
    o.buckets->reported = reported.value_or(types::BucketTimestamp::kStart);
  }
  return o;
}

// The buckets of the range as [value, timestamp] pairs, in the range's order, at most `count`.
void ExecuteBuckets(CommandContext& ctx, const RangeOptions& o) {
  std::vector<types::TlogBucket> buckets;
  types::TlogBuckets grouper(*o.buckets, o.oldest_first, [&](const types::TlogBucket& bucket) {
    buckets.push_back(bucket);
    return buckets.size() < o.count;
  });
  OpResult<void> scanned = LogOf(ctx).ScanRange(
      o.key, o.from, o.to, o.oldest_first,
      [&](const types::TlogEntry& entry) { return o.count > 0 && grouper.Add(entry); });
  if (!scanned.ok()) return ReplyError(ctx, scanned);
  if (o.count > 0) grouper.Finish();
  ctx.reply.ArrayHeader(buckets.size());
  for (const types::TlogBucket& bucket : buckets) {
    ctx.reply.ArrayHeader(2);
    switch (o.buckets->aggregator) {
      case types::TlogAggregator::kCount:
        ctx.reply.Unsigned(bucket.count);
        break;
      case types::TlogAggregator::kFirst:
        ctx.reply.Bulk(bucket.first);
        break;
      case types::TlogAggregator::kLast:
        ctx.reply.Bulk(bucket.last);
        break;
    }
    ctx.reply.Unsigned(bucket.ts);
  }
}

void ExecuteRange(CommandContext& ctx, const RangeOptions& o) {
  if (o.buckets) return ExecuteBuckets(ctx, o);
  OpResult<std::vector<types::TlogEntry>> entries =
      LogOf(ctx).Range(o.key, o.from, o.to, o.count, o.oldest_first);
  if (!entries.ok()) return ReplyError(ctx, entries);
  ReplyEntries(ctx, *entries);
}

// TLOG SIZE key, TLOG CUTOFF key, TLOG CLR key
void ExecuteSize(CommandContext& ctx, const KeyOptions& o) {
  OpResult<uint64_t> size = LogOf(ctx).Size(o.key);
  if (!size.ok()) return ReplyError(ctx, size);
  ctx.reply.Unsigned(*size);
}

void ExecuteCutoff(CommandContext& ctx, const KeyOptions& o) {
  OpResult<uint64_t> cutoff = LogOf(ctx).Cutoff(o.key);
  if (!cutoff.ok()) return ReplyError(ctx, cutoff);
  ctx.reply.Unsigned(*cutoff);
}

void ExecuteClr(CommandContext& ctx, const KeyOptions& o) {
  ReplyOkOrError(ctx, LogOf(ctx).Clear(o.key), o.key, kNotifyTimestamped, "tlog_clr");
}

// TLOG TRIMAT key timestamp, TLOG TRIM key count
TlogOptions ParseKeyNumber(ArgParser& args) {
  TlogOptions o;
  o.key = args.Next();
  o.number = args.Digits();
  return o;
}

void ExecuteTrimAt(CommandContext& ctx, const TlogOptions& o) {
  ReplyOkOrError(ctx, LogOf(ctx).TrimAt(o.key, o.number), o.key, kNotifyTimestamped, "tlog_trim");
}

// TLOG TRIMAT in active-active mode: the cutoff as it is (cutoffs merge by max).
WriteForm FormTrimAt(const TlogOptions& o, const WriteFormInput&) {
  return WriteForm::Delta({"tlog", "trimat", std::string(o.key), std::to_string(o.number)},
                          ClientTsOf(o.number));
}

// TLOG TRIM and CLR in active-active mode: as they are; the mode logs the TRIMAT of the cutoff
// they leave.
WriteForm FormTrim(const TlogOptions& o, const WriteFormInput&) {
  return WriteForm::Delta({"tlog", "trim", std::string(o.key), std::to_string(o.number)},
                          std::nullopt);
}

WriteForm FormClr(const KeyOptions& o, const WriteFormInput&) {
  return WriteForm::Delta({"tlog", "clr", std::string(o.key)}, std::nullopt);
}

void ExecuteTrim(CommandContext& ctx, const TlogOptions& o) {
  ReplyOkOrError(ctx, LogOf(ctx).Trim(o.key, o.number), o.key, kNotifyTimestamped, "tlog_trim");
}

const ArgSpec kKey = {.name = "key", .type = ArgType::kKey};
const ArgSpec kTimestamp = {.name = "timestamp", .type = ArgType::kInteger};

}  // namespace

std::vector<CommandSpec> TlogCommands() {
  return {{
      .name = "tlog",
      .arity = -2,
      .group = "tlog",
      .summary = "A container for timestamped log (TLOG) commands.",
      .complexity = "Depends on subcommand.",
      .subcommands =
          {{.name = "ins",
            .arity = 5,
            .flags = kCmdWrite | kCmdDenyOom,
            .keys = kSubcommandKey,
            .group = "tlog",
            .summary = "Inserts a value/timestamp entry into a log.",
            .complexity = "O(log(N))",
            .arguments = {kKey, {.name = "value"}, kTimestamp},
            .help = {{.text = "Insert a value/timestamp entry; ignored if a duplicate or below "
                              "the cutoff."}},
            .handler = Handler<ParseIns, ExecuteIns>,
            .write_form = FormOf<ParseIns, FormIns>},
           {.name = "get",
            .arity = -3,
            .flags = kCmdReadOnly,
            .keys = kSubcommandKey,
            .group = "tlog",
            .summary = "Returns the newest entries of a log, newest first.",
            .complexity = "O(count)",
            .arguments = {kKey, {.name = "count", .type = ArgType::kInteger, .optional = true}},
            .help = {{.text = "Return the [value, timestamp] entries, newest first, at most "
                              "<count> of them."}},
            .handler = Handler<ParseGet, ExecuteGet>},
           {.name = "range",
            .arity = -5,
            .flags = kCmdReadOnly,
            .keys = kSubcommandKey,
            .group = "tlog",
            .summary = "Returns the entries of a log whose timestamps fall in a range.",
            .complexity = "O(log(N)+M) where M is the number of entries returned",
            .arguments =
                {kKey,
                 {.name = "from", .type = ArgType::kInteger},
                 {.name = "to", .type = ArgType::kInteger},
                 {.name = "count", .type = ArgType::kInteger, .token = "COUNT", .optional = true},
                 {.name = "rev", .type = ArgType::kPureToken, .token = "REV", .optional = true},
                 {.name = "align", .token = "ALIGN", .optional = true},
                 {.name = "aggregation",
                  .type = ArgType::kBlock,
                  .token = "AGGREGATION",
                  .optional = true,
                  .children = {{.name = "aggregator"},
                               {.name = "bucket", .type = ArgType::kInteger},
                               {.name = "bt", .token = "BUCKETTIMESTAMP", .optional = true}}}},
            .help = {{.usage = "RANGE <key> <from> <to> [COUNT <count>] [REV]",
                      .text = "Return the [value, timestamp] entries whose timestamps are in "
                              "[<from>, <to>]\n('-', '+': either end), newest first (REV: "
                              "oldest first), at most <count> of them."},
                     {.usage = "RANGE <key> <from> <to> [COUNT <count>] [REV] [ALIGN <align>] "
                               "AGGREGATION count|first|last <bucket> [BUCKETTIMESTAMP -|~|+]",
                      .text = "Return one [value, timestamp] pair per bucket of <bucket> "
                              "timestamps holding\nentries: how many, the first or the last "
                              "value (ALIGN, BUCKETTIMESTAMP: as TS.RANGE)."}},
            .handler = Handler<ParseRange, ExecuteRange>},
           {.name = "size",
            .arity = 3,
            .flags = kCmdReadOnly | kCmdFast,
            .keys = kSubcommandKey,
            .group = "tlog",
            .summary = "Returns the number of entries in a log.",
            .arguments = {kKey},
            .help = {{.text = "Return the number of entries in the log."}},
            .handler = Handler<ParseKey, ExecuteSize>},
           {.name = "cutoff",
            .arity = 3,
            .flags = kCmdReadOnly | kCmdFast,
            .keys = kSubcommandKey,
            .group = "tlog",
            .summary = "Returns the cutoff timestamp of a log.",
            .arguments = {kKey},
            .help = {{.text = "Return the cutoff timestamp of the log."}},
            .handler = Handler<ParseKey, ExecuteCutoff>},
           {.name = "trimat",
            .arity = 4,
            .flags = kCmdWrite,
            .keys = kSubcommandKey,
            .group = "tlog",
            .summary = "Raises the cutoff timestamp of a log.",
            .complexity = "O(M) where M is the number of entries discarded",
            .arguments = {kKey, kTimestamp},
            .help = {{.text = "Raise the cutoff to <timestamp>, discarding older entries."}},
            .handler = Handler<ParseKeyNumber, ExecuteTrimAt>,
            .write_form = FormOf<ParseKeyNumber, FormTrimAt>},
           {.name = "trim",
            .arity = 4,
            .flags = kCmdWrite,
            .keys = kSubcommandKey,
            .group = "tlog",
            .summary = "Raises the cutoff to retain at least count entries.",
            .complexity = "O(count + M) where M is the number of entries discarded",
            .arguments = {kKey, {.name = "count", .type = ArgType::kInteger}},
            .help = {{.text = "Raise the cutoff to the timestamp of entry <count>-1 (0: same as "
                              "CLR)."}},
            .handler = Handler<ParseKeyNumber, ExecuteTrim>,
            .write_form = FormOf<ParseKeyNumber, FormTrim>},
           {.name = "clr",
            .arity = 3,
            .flags = kCmdWrite,
            .keys = kSubcommandKey,
            .group = "tlog",
            .summary = "Raises the cutoff past the newest entry, emptying a log.",
            .arguments = {kKey},
            .help = {{.text = "Raise the cutoff past the newest entry, emptying the log."}},
            .handler = Handler<ParseKey, ExecuteClr>,
            .write_form = FormOf<ParseKey, FormClr>},
           HelpSubcommand("tlog", "Returns helpful text about TLOG.", kCmdReadOnly | kCmdFast)},
  }};
}

}  // namespace ebb::server
