// TS.CREATERULE / TS.DELETERULE: compaction rules between two series (docs/commands.md, "TS";
// docs/time-series.md, "Rules"), over types::SeriesRules, with RedisTimeSeries' syntax, replies
// and error texts. ebb lets rules chain (a destination may be a source) and backfills a new
// rule's destination from the samples its source already holds.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/strings.h"
#include "server/commands/register.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/core/write_form.h"
#include "server/services/keyspace_events.h"
#include "server/services/reply.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"
#include "types/series_rules.h"

namespace ebb::server {
namespace {

using types::OpResult;
using types::OpStatus;
using types::SeriesRules;

SeriesRules RulesOf(CommandContext& ctx) {
  return SeriesRules(ctx.server.keyspace(), ctx.client.db_index());
}

void ReplyRuleError(CommandContext& ctx, const types::OpFailure& failure) {
  if (failure.status == OpStatus::kNotFound) return ctx.reply.Error(kTsKeyMissing);
  ReplyError(ctx, failure);
}

// TS.CREATERULE sourceKey destKey AGGREGATION aggregator bucketDuration [alignTimestamp]
struct CreateRuleOptions {
  std::string_view source;
  types::SeriesRule rule;
};

CreateRuleOptions ParseCreateRule(ArgParser& args) {
  CreateRuleOptions o;
  if (args.remaining() > 6) {
    args.Fail(WrongArgsError("ts.createrule"));
    return o;
  }
  o.source = args.Next();
  o.rule.dest = std::string(args.Next());
  if (!args.Token("AGGREGATION")) {
    args.Fail(WrongArgsError("ts.createrule"));
    return o;
  }
  const std::optional<types::Aggregator> aggregator = types::AggregatorFromName(args.Next());
  int64_t bucket = 0;
  std::string_view error;
  if (!ParseInt64(args.Next(), &bucket)) {
    error = kTsBadAggregation;
  } else if (!aggregator) {
    error = kTsUnknownAggregation;
  } else if (bucket <= 0) {
    error = kTsBucketDuration;
  } else if (args.HasMore() && !ParseInt64(args.Next(), &o.rule.align)) {
    error = kTsBadAlignTimestamp;
  } else if (o.rule.align < 0) {
    error = kTsNegativeAlignTimestamp;
  }
  if (!error.empty()) {
    args.Fail(error);
    return o;
  }
  o.rule.aggregator = *aggregator;
  o.rule.bucket_ms = bucket;
  return o;
}

void ExecuteCreateRule(CommandContext& ctx, const CreateRuleOptions& o) {
  OpResult<SeriesRules::CreateOutcome> created = RulesOf(ctx).Create(o.source, o.rule);
  if (!created.ok()) return ReplyRuleError(ctx, types::FailureOf(created));
  switch (*created) {
    case SeriesRules::CreateOutcome::kSameKey:
      return ctx.reply.Error(kTsRuleSameKey);
    case SeriesRules::CreateOutcome::kDestHasSource:
      return ctx.reply.Error(kTsRuleDestHasSource);
    case SeriesRules::CreateOutcome::kCycle:
      return ctx.reply.Error(kTsRuleCycle);
    case SeriesRules::CreateOutcome::kTooLong:
      return ctx.reply.Error(kTsRuleChainTooLong);
    case SeriesRules::CreateOutcome::kCreated:
      break;
  }
  SignalKeyChange(ctx, o.source, kNotifyTimestamped, "ts.createrule:src");
  SignalKeyChange(ctx, o.rule.dest, kNotifyTimestamped, "ts.createrule:dest");
  ctx.reply.Ok();
}

// TS.DELETERULE sourceKey destKey
struct DeleteRuleOptions {
  std::string_view source;
  std::string_view dest;
};

DeleteRuleOptions ParseDeleteRule(ArgParser& args) {
  DeleteRuleOptions o;
  o.source = args.Next();
  o.dest = args.Next();
  return o;
}

void ExecuteDeleteRule(CommandContext& ctx, const DeleteRuleOptions& o) {
  OpResult<bool> deleted = RulesOf(ctx).Delete(o.source, o.dest);
  if (!deleted.ok()) return ReplyRuleError(ctx, types::FailureOf(deleted));
  if (!*deleted) return ctx.reply.Error(kTsRuleMissing);
  SignalKeyChange(ctx, o.source, kNotifyTimestamped, "ts.deleterule:src");
  SignalKeyChange(ctx, o.dest, kNotifyTimestamped, "ts.deleterule:dest");
  ctx.reply.Ok();
}

// ---- active-active write forms (server/core/write_form.h): the mode settles them into a
// `ts-rule` delta (server/active_active/series_rules_state.h).

WriteForm FormCreateRule(const CreateRuleOptions& o, const WriteFormInput&) {
  return WriteForm::Delta({std::string(kSeriesCreateRuleForm), std::string(o.source), o.rule.dest,
                           std::to_string(static_cast<int>(o.rule.aggregator)),
                           std::to_string(o.rule.bucket_ms), std::to_string(o.rule.align)},
                          std::nullopt);
}

WriteForm FormDeleteRule(const DeleteRuleOptions& o, const WriteFormInput&) {
  return WriteForm::Delta(
      {std::string(kSeriesDeleteRuleForm), std::string(o.source), std::string(o.dest)},
      std::nullopt);
}

}  // namespace

std::vector<CommandSpec> SeriesRuleCommands() {
  return {
      {.name = "ts.createrule",
       .arity = -6,
       .flags = kCmdWrite | kCmdDenyOom,
       .keys = {1, 2, 1},
       .group = "timeseries",
       .summary = "Creates a compaction rule: the source's finished buckets go to the "
                  "destination as their aggregate (backfilled from the samples already held).",
       .complexity = "O(N) where N is the number of samples the source holds",
       .arguments = {{.name = "sourceKey", .type = ArgType::kKey},
                     {.name = "destKey", .type = ArgType::kKey},
                     {.name = "aggregation",
                      .type = ArgType::kBlock,
                      .token = "AGGREGATION",
                      .children = {{.name = "aggregator"},
                                   {.name = "bucketDuration", .type = ArgType::kInteger}}},
                     {.name = "alignTimestamp", .type = ArgType::kInteger, .optional = true}},
       .handler = Handler<ParseCreateRule, ExecuteCreateRule>,
       .write_form = FormOf<ParseCreateRule, FormCreateRule>},
      {.name = "ts.deleterule",
       .arity = 3,
       .flags = kCmdWrite,
       .keys = {1, 2, 1},
       .group = "timeseries",
       .summary = "Deletes a compaction rule.",
       .arguments = {{.name = "sourceKey", .type = ArgType::kKey},
                     {.name = "destKey", .type = ArgType::kKey}},
       .handler = Handler<ParseDeleteRule, ExecuteDeleteRule>,
       .write_form = FormOf<ParseDeleteRule, FormDeleteRule>},
  };
}

}  // namespace ebb::server
