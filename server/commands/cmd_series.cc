// TS.CREATE, TS.ALTER, TS.ADD, TS.MADD, TS.INCRBY, TS.DECRBY and TS.DEL: the writes of one series
// (docs/commands.md, "TS"; docs/time-series.md), over types::Series, with RedisTimeSeries'
// syntax, replies and error texts; the reads are in cmd_series_read.cc.
//
// Options may come in any order; LABELS takes every argument after it, so it comes last.
// Timestamps are ms in [0, 2^63-1] ("*": the server clock); a sample's value goes out as a RESP3
// double, or as a RESP2 simple string (the shortest text that reads back as the same double), as
// RedisTimeSeries replies. TS.CREATE, TS.ALTER, TS.ADD, TS.MADD, TS.INCRBY and TS.DECRBY have an
// active-active write form (server/core/write_form.h: the timestamps and the settings resolved on
// the origin), and so has TS.DEL (a range marker: docs/active-active.md, "Range deletes of a
// series"); the rules have none, so the mode refuses them.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/commands/cmd_series_options.h"
#include "server/commands/register.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/services/keyspace_events.h"
#include "server/services/reply.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"
#include "types/series.h"
#include "types/series_merge.h"
#include "types/series_rules.h"

namespace ebb::server {
namespace {

using types::OpResult;
using types::OpStatus;
using types::Sample;
using types::Series;

void Signal(CommandContext& ctx, std::string_view key, std::string_view event) {
  SignalKeyChange(ctx, key, kNotifyTimestamped, event);
}

types::SeriesRules RulesOf(CommandContext& ctx) {
  return types::SeriesRules(ctx.server.keyspace(), ctx.client.db_index());
}

// TS.CREATE key [options]
struct CreateOptions {
  std::string_view key;
  types::SeriesSettings settings;
};

CreateOptions ParseCreate(ArgParser& args) {
  CreateOptions o;
  o.key = args.Next();
  ParseSeriesOptions(args, SeriesOptionSet::kCreate, &o.settings, nullptr);
  return o;
}

void ExecuteCreate(CommandContext& ctx, const CreateOptions& o) {
  OpResult<bool> created = SeriesOf(ctx).Create(o.key, o.settings);
  if (!created.ok()) return ReplyError(ctx, created);
  if (!*created) return ctx.reply.Error(kTsKeyExists);
  Signal(ctx, o.key, "ts.create");
  ctx.reply.Ok();
}

// TS.ALTER key [RETENTION ms] [CHUNK_SIZE n] [DUPLICATE_POLICY p] [LABELS l v ...]
struct AlterOptions {
  std::string_view key;
  types::SeriesAlter alter;
};

AlterOptions ParseAlter(ArgParser& args) {
  AlterOptions o;
  o.key = args.Next();
  types::SeriesSettings settings;
  SeriesOptionsGiven given;
  ParseSeriesOptions(args, SeriesOptionSet::kAlter, &settings, &given);
  if (given.retention) o.alter.retention_ms = settings.retention_ms;
  if (given.chunk_size) o.alter.chunk_size = settings.chunk_size;
  if (given.duplicate_policy) o.alter.duplicate_policy = settings.duplicate_policy;
  if (given.labels) o.alter.labels = std::move(settings.labels);
  return o;
}

void ExecuteAlter(CommandContext& ctx, const AlterOptions& o) {
  OpResult<void> altered = SeriesOf(ctx).Alter(o.key, o.alter);
  if (!altered.ok()) return ReplySeriesError(ctx, types::FailureOf(altered));
  Signal(ctx, o.key, "ts.alter");
  ctx.reply.Ok();
}

// TS.ADD key timestamp|* value [options] [ON_DUPLICATE policy]
struct AddOptions {
  std::string_view key;
  std::string_view ts;  // checked by Execute, after the value, as RedisTimeSeries does
  std::string_view value;
  types::SeriesSettings settings;
  types::DuplicatePolicy on_duplicate = types::DuplicatePolicy::kUnset;
};

AddOptions ParseAdd(ArgParser& args) {
  AddOptions o;
  o.key = args.Next();
  o.ts = args.Next();
  o.value = args.Next();
  SeriesOptionsGiven given;
  ParseSeriesOptions(args, SeriesOptionSet::kAdd, &o.settings, &given);
  o.on_duplicate = given.on_duplicate;
  return o;
}

// The outcome of one TS.ADD (or one MADD triple) as its reply: the timestamp, or the error.
void ReplyAdd(CommandContext& ctx, std::string_view key, std::string_view ts_text,
              std::string_view value_text, const types::SeriesSettings* create,
              types::DuplicatePolicy on_duplicate) {
  double value = 0;
  if (!ParseSampleValue(value_text, &value)) return ctx.reply.Error(kTsInvalidValue);
  int64_t ts = 0;
  if (std::string_view error = ParseSampleTimestamp(ctx, ts_text, &ts); !error.empty()) {
    return ctx.reply.Error(error);
  }
  OpResult<Series::AddOutcome> added = SeriesOf(ctx).Add(key, ts, value, on_duplicate, create);
  if (added.status() == OpStatus::kWrongType && create != nullptr) {
    return ctx.reply.Error(kTsNotTsdbKey);
  }
  if (!added.ok()) return ReplySeriesError(ctx, types::FailureOf(added));
  if (*added == Series::AddOutcome::kTooOld) return ctx.reply.Error(kTsTooOld);
  if (*added == Series::AddOutcome::kBlocked) return ctx.reply.Error(kTsDuplicateBlocked);
  Signal(ctx, key, "ts.add");
  if (OpResult<void> ruled = RulesOf(ctx).AfterAdd(key, ts); !ruled.ok()) {
    return ReplyError(ctx, ruled);
  }
  ctx.reply.Integer(ts);
}

void ExecuteAdd(CommandContext& ctx, const AddOptions& o) {
  ReplyAdd(ctx, o.key, o.ts, o.value, &o.settings, o.on_duplicate);
}

// TS.MADD key timestamp value [key timestamp value ...]: one reply per triple.
struct MaddOptions {
  std::vector<std::string_view> triples;
};

MaddOptions ParseMadd(ArgParser& args) {
  MaddOptions o;
  if (args.remaining() % 3 != 0) args.Fail(WrongArgsError("ts.madd"));
  while (args.HasMore()) o.triples.push_back(args.Next());
  return o;
}

void ExecuteMadd(CommandContext& ctx, const MaddOptions& o) {
  ctx.reply.ArrayHeader(o.triples.size() / 3);
  for (size_t i = 0; i + 2 < o.triples.size(); i += 3) {
    ReplyAdd(ctx, o.triples[i], o.triples[i + 1], o.triples[i + 2], nullptr,
             types::DuplicatePolicy::kUnset);
  }
}

// TS.INCRBY / TS.DECRBY key value [TIMESTAMP ts] [options]
struct IncrOptions {
  std::string_view key;
  std::string_view delta;
  std::string_view ts = "*";
  types::SeriesSettings settings;
};

IncrOptions ParseIncr(ArgParser& args) {
  IncrOptions o;
  o.key = args.Next();
  o.delta = args.Next();
  SeriesOptionsGiven given;
  ParseSeriesOptions(args, SeriesOptionSet::kIncr, &o.settings, &given);
  if (given.timestamp) o.ts = *given.timestamp;
  return o;
}

void ExecuteIncr(CommandContext& ctx, const IncrOptions& o, bool decrement) {
  double delta = 0;
  if (!ParseSampleValue(o.delta, &delta)) return ctx.reply.Error(kTsInvalidIncrement);
  int64_t ts = 0;
  if (std::string_view error = ParseSampleTimestamp(ctx, o.ts, &ts); !error.empty()) {
    return ctx.reply.Error(error);
  }
  OpResult<Series::IncrResult> r =
      SeriesOf(ctx).IncrBy(o.key, ts, decrement ? -delta : delta, o.settings);
  if (!r.ok()) return ReplyError(ctx, r);
  if (r->below_newest) return ctx.reply.Error(kTsIncrBelowNewest);
  if (r->newest_is_nan) return ctx.reply.Error(kTsIncrNaN);
  if (r->outcome == Series::AddOutcome::kTooOld) return ctx.reply.Error(kTsTooOld);
  Signal(ctx, o.key, decrement ? "ts.decrby" : "ts.incrby");
  if (OpResult<void> ruled = RulesOf(ctx).AfterAdd(o.key, ts); !ruled.ok()) {
    return ReplyError(ctx, ruled);
  }
  ctx.reply.Integer(ts);
}

void ExecuteIncrBy(CommandContext& ctx, const IncrOptions& o) { ExecuteIncr(ctx, o, false); }
void ExecuteDecrBy(CommandContext& ctx, const IncrOptions& o) { ExecuteIncr(ctx, o, true); }

// ---- active-active write forms (server/core/write_form.h)

std::string ValueBits(double value) { return std::to_string(std::bit_cast<uint64_t>(value)); }

// A new series' settings as the form carries them, the policy's window resolved on the origin.
std::string SettingsArg(std::string_view key, types::SeriesSettings settings,
                        const WriteFormInput& in) {
  if (settings.retention_from_policy) {
    settings.retention_ms = in.keyspace.PolicyWindow(key).value_or(0);
    settings.retention_from_policy = false;
  }
  return types::EncodeSeriesRegister(types::SeriesRegister{.settings = std::move(settings)});
}

WriteForm FormCreate(const CreateOptions& o, const WriteFormInput& in) {
  return WriteForm::Delta(
      {std::string(kSeriesCreateForm), std::string(o.key), SettingsArg(o.key, o.settings, in)},
      std::nullopt);
}

WriteForm FormAlter(const AlterOptions& o, const WriteFormInput& in) {
  types::SeriesSettings settings;
  const int mask = (o.alter.retention_ms ? 1 : 0) | (o.alter.chunk_size ? 2 : 0) |
                   (o.alter.duplicate_policy ? 4 : 0) | (o.alter.labels ? 8 : 0);
  settings.retention_ms = o.alter.retention_ms.value_or(0);
  settings.chunk_size = o.alter.chunk_size.value_or(types::kDefaultChunkSize);
  settings.duplicate_policy = o.alter.duplicate_policy.value_or(types::DuplicatePolicy::kUnset);
  if (o.alter.labels) settings.labels = *o.alter.labels;
  return WriteForm::Delta({std::string(kSeriesAlterForm), std::string(o.key), std::to_string(mask),
                           SettingsArg(o.key, settings, in)},
                          std::nullopt);
}

WriteForm FormAdd(const AddOptions& o, const WriteFormInput& in) {
  double value = 0;
  int64_t ts = 0;
  if (!ParseSampleValue(o.value, &value) || !ParseSampleTimestampAt(in.now_ms, o.ts, &ts).empty()) {
    return WriteForm::Invalid();  // the handler replies the error
  }
  return WriteForm::Delta(
      {std::string(kSeriesAddForm), std::string(o.key), std::to_string(ts), ValueBits(value),
       std::to_string(static_cast<int>(o.on_duplicate)), SettingsArg(o.key, o.settings, in)},
      o.ts == "*" ? std::nullopt : std::optional<int64_t>(ts));
}

WriteForm FormMadd(const MaddOptions& o, const WriteFormInput& in) {
  std::vector<std::string> args{std::string(kSeriesMaddForm)};
  std::optional<int64_t> greatest;
  for (size_t i = 0; i + 2 < o.triples.size(); i += 3) {
    args.emplace_back(o.triples[i]);
    double value = 0;
    int64_t ts = 0;
    std::string_view error = ParseSampleValue(o.triples[i + 2], &value) ? "" : kTsInvalidValue;
    if (error.empty()) error = ParseSampleTimestampAt(in.now_ms, o.triples[i + 1], &ts);
    if (!error.empty()) {
      args.emplace_back("!");
      args.emplace_back(error);
      continue;
    }
    if (o.triples[i + 1] != "*") greatest = std::max(greatest.value_or(ts), ts);
    args.push_back(std::to_string(ts));
    args.push_back(ValueBits(value));
  }
  return WriteForm::Delta(std::move(args), greatest);
}

WriteForm FormIncr(const IncrOptions& o, const WriteFormInput& in, bool decrement) {
  double delta = 0;
  int64_t ts = 0;
  if (!ParseSampleValue(o.delta, &delta) || !ParseSampleTimestampAt(in.now_ms, o.ts, &ts).empty()) {
    return WriteForm::Invalid();
  }
  return WriteForm::Delta(
      {std::string(kSeriesIncrForm), std::string(o.key), std::to_string(ts),
       ValueBits(decrement ? -delta : delta), SettingsArg(o.key, o.settings, in),
       decrement ? "ts.decrby" : "ts.incrby"},
      o.ts == "*" ? std::nullopt : std::optional<int64_t>(ts));
}

WriteForm FormIncrBy(const IncrOptions& o, const WriteFormInput& in) {
  return FormIncr(o, in, false);
}
WriteForm FormDecrBy(const IncrOptions& o, const WriteFormInput& in) {
  return FormIncr(o, in, true);
}

// TS.DEL key from to
struct DelOptions {
  std::string_view key;
  int64_t from = 0;
  int64_t to = 0;
};

DelOptions ParseDel(ArgParser& args) {
  DelOptions o;
  o.key = args.Next();
  o.from = ParseRangeBound(args, /*from=*/true);
  o.to = ParseRangeBound(args, /*from=*/false);
  return o;
}

void ExecuteDel(CommandContext& ctx, const DelOptions& o) {
  Series series = SeriesOf(ctx);
  OpResult<types::SeriesMeta> before = series.Meta(o.key);
  if (!before.ok()) return ReplySeriesError(ctx, types::FailureOf(before));
  OpResult<uint64_t> deleted = series.DeleteRange(o.key, o.from, o.to);
  if (!deleted.ok()) return ReplySeriesError(ctx, types::FailureOf(deleted));
  if (*deleted > 0) {
    Signal(ctx, o.key, "ts.del");
    std::optional<int64_t> newest;
    if (before->newest) newest = before->newest->ts;
    if (OpResult<void> ruled = RulesOf(ctx).AfterDelete(o.key, o.from, o.to, newest); !ruled.ok()) {
      return ReplyError(ctx, ruled);
    }
  }
  ctx.reply.Integer(static_cast<int64_t>(*deleted));
}

WriteForm FormDel(const DelOptions& o, const WriteFormInput&) {
  return WriteForm::Delta({std::string(kSeriesDelForm), std::string(o.key), std::to_string(o.from),
                           std::to_string(o.to)},
                          std::nullopt);
}

const ArgSpec kKey = {.name = "key", .type = ArgType::kKey};
const ArgSpec kRetention = {
    .name = "retentionPeriod", .type = ArgType::kInteger, .token = "RETENTION", .optional = true};
const ArgSpec kEncoding = {
    .name = "enc",
    .type = ArgType::kOneOf,
    .token = "ENCODING",
    .optional = true,
    .children = {{.name = "compressed", .type = ArgType::kPureToken, .token = "COMPRESSED"},
                 {.name = "uncompressed", .type = ArgType::kPureToken, .token = "UNCOMPRESSED"}}};
const ArgSpec kChunkSize = {
    .name = "size", .type = ArgType::kInteger, .token = "CHUNK_SIZE", .optional = true};
const ArgSpec kDuplicatePolicy = {.name = "policy", .token = "DUPLICATE_POLICY", .optional = true};
const ArgSpec kLabels = {.name = "labels",
                         .type = ArgType::kBlock,
                         .token = "LABELS",
                         .optional = true,
                         .multiple = true,
                         .children = {{.name = "label"}, {.name = "value"}}};
const ArgSpec kFrom = {.name = "fromTimestamp"};
const ArgSpec kTo = {.name = "toTimestamp"};

// TS.INCRBY and TS.DECRBY: the amount, the timestamp, and TS.CREATE's options for a new key.
std::vector<ArgSpec> IncrArguments() {
  return {kKey,
          {.name = "value", .type = ArgType::kDouble},
          {.name = "timestamp", .token = "TIMESTAMP", .optional = true},
          kRetention,
          kEncoding,
          kChunkSize,
          kDuplicatePolicy,
          kLabels};
}

}  // namespace

std::vector<CommandSpec> SeriesCommands() {
  return {
      {.name = "ts.create",
       .arity = -2,
       .flags = kCmdWrite | kCmdDenyOom,
       .keys = kFirstKey,
       .group = "timeseries",
       .summary = "Creates a new time series.",
       .arguments = {kKey, kRetention, kEncoding, kChunkSize, kDuplicatePolicy, kLabels},
       .handler = Handler<ParseCreate, ExecuteCreate>,
       .write_form = FormOf<ParseCreate, FormCreate>},
      {.name = "ts.alter",
       .arity = -2,
       .flags = kCmdWrite | kCmdDenyOom,
       .keys = kFirstKey,
       .group = "timeseries",
       .summary = "Updates the retention, chunk size, duplicate policy and labels of a series.",
       .arguments = {kKey, kRetention, kChunkSize, kDuplicatePolicy, kLabels},
       .handler = Handler<ParseAlter, ExecuteAlter>,
       .write_form = FormOf<ParseAlter, FormAlter>},
      {.name = "ts.add",
       .arity = -4,
       .flags = kCmdWrite | kCmdDenyOom,
       .keys = kFirstKey,
       .group = "timeseries",
       .summary = "Appends a sample to a time series, creating it if needed.",
       .complexity = "O(log(N))",
       .arguments = {kKey,
                     {.name = "timestamp"},
                     {.name = "value", .type = ArgType::kDouble},
                     kRetention,
                     kEncoding,
                     kChunkSize,
                     kDuplicatePolicy,
                     {.name = "policy_ovr", .token = "ON_DUPLICATE", .optional = true},
                     kLabels},
       .handler = Handler<ParseAdd, ExecuteAdd>,
       .write_form = FormOf<ParseAdd, FormAdd>},
      {.name = "ts.madd",
       .arity = -4,
       .flags = kCmdWrite | kCmdDenyOom,
       .keys = {1, -1, 3},
       .group = "timeseries",
       .summary = "Appends samples to existing time series.",
       .complexity = "O(N*log(M)) where N is the number of samples",
       .arguments = {{.name = "ktv",
                      .type = ArgType::kBlock,
                      .multiple = true,
                      .children = {kKey,
                                   {.name = "timestamp"},
                                   {.name = "value", .type = ArgType::kDouble}}}},
       .handler = Handler<ParseMadd, ExecuteMadd>,
       .write_form = FormOf<ParseMadd, FormMadd>},
      {.name = "ts.incrby",
       .arity = -3,
       .flags = kCmdWrite | kCmdDenyOom,
       .keys = kFirstKey,
       .group = "timeseries",
       .summary = "Adds to the newest value and appends the sum as a sample.",
       .arguments = IncrArguments(),
       .handler = Handler<ParseIncr, ExecuteIncrBy>,
       .write_form = FormOf<ParseIncr, FormIncrBy>},
      {.name = "ts.decrby",
       .arity = -3,
       .flags = kCmdWrite | kCmdDenyOom,
       .keys = kFirstKey,
       .group = "timeseries",
       .summary = "Subtracts from the newest value and appends the result as a sample.",
       .arguments = IncrArguments(),
       .handler = Handler<ParseIncr, ExecuteDecrBy>,
       .write_form = FormOf<ParseIncr, FormDecrBy>},
      {.name = "ts.del",
       .arity = 4,
       .flags = kCmdWrite,
       .keys = kFirstKey,
       .group = "timeseries",
       .summary = "Deletes the samples between two timestamps.",
       .complexity = "O(N) where N is the number of samples deleted",
       .arguments = {kKey, kFrom, kTo},
       .handler = Handler<ParseDel, ExecuteDel>,
       .write_form = FormOf<ParseDel, FormDel>},
  };
}

}  // namespace ebb::server
