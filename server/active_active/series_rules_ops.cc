// ActiveActive's compaction rules (series_rules_state.h): TS.CREATERULE and TS.DELETERULE judged
// and run on the origin (RunSeriesRule) as RedisTimeSeries would answer them there, and a peer's
// `ts-rule` delta merged (ApplySeriesRule).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <limits>

#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/active_active/active_active.h"
#include "server/active_active/series_rules_state.h"
#include "server/core/errors.h"
#include "server/services/keyspace_events.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"
#include "types/series_rules.h"

namespace ebb::server {
namespace {

using CreateOutcome = types::SeriesRules::CreateOutcome;

// The error text of a judgement SeriesRules::Check made ("" for kCreated).
std::string CheckError(const types::OpResult<CreateOutcome>& judged) {
  if (!judged.ok()) {
    switch (judged.status()) {
      case types::OpStatus::kNotFound:
        return std::string(kTsKeyMissing);
      case types::OpStatus::kWrongType:
        return std::string(kWrongType);
      default:
        return EngineError(judged.engine_status().ToString());
    }
  }
  switch (*judged) {
    case CreateOutcome::kSameKey:
      return std::string(kTsRuleSameKey);
    case CreateOutcome::kDestHasSource:
      return std::string(kTsRuleDestHasSource);
    case CreateOutcome::kCycle:
      return std::string(kTsRuleCycle);
    case CreateOutcome::kTooLong:
      return std::string(kTsRuleChainTooLong);
    case CreateOutcome::kCreated:
      break;
  }
  return "";
}

// The register a rule change on the origin writes: stamped after the one held (as the settings
// register's), so that it wins here and everywhere it arrives after it.
types::SeriesRuleRegister NextRuleRegister(const std::optional<types::SeriesRuleRegister>& held,
                                           int64_t now_ms, const std::string& node_id) {
  types::SeriesRuleRegister reg;
  reg.ms = now_ms;
  if (held) {
    reg.ms =
        held->ms == std::numeric_limits<int64_t>::max() ? held->ms : std::max(now_ms, held->ms + 1);
  }
  reg.origin = node_id;
  return reg;
}

// The floor a new rule reads its source from (types::SeriesRuleRegister::floor): the source's
// retention window floor here and now (newest - retention), 0 when nothing is hidden. Samples
// below it some nodes may have purged; every node holds those above it.
int64_t SourceFloor(types::Keyspace& ks, int db, const std::string& source) {
  auto meta = types::Series(ks, db).Meta(source);
  if (!meta.ok() || !meta->newest || meta->settings.retention_ms == 0) return 0;
  const uint64_t newest = static_cast<uint64_t>(std::max<int64_t>(meta->newest->ts, 0));
  const uint64_t retention = meta->settings.retention_ms;
  return retention >= newest ? 0 : static_cast<int64_t>(newest - retention);
}

}  // namespace

bool ActiveActive::RunSeriesRule(LocalWrite* plan, protocol::ReplyWriter& reply) {
  types::Keyspace& ks = context_->keyspace();
  const std::vector<std::string> form = plan->args;
  const int db = plan->db;
  const bool create = form[0] == kSeriesCreateRuleForm;
  types::SeriesRule rule;
  uint64_t aggregator = 0;
  if (form.size() != (create ? 6u : 3u) ||
      (create && (!ParseUint64(form[3], &aggregator) ||
                  aggregator > static_cast<uint64_t>(types::Aggregator::kTwa) ||
                  !ParseInt64(form[4], &rule.bucket_ms) || rule.bucket_ms <= 0 ||
                  !ParseInt64(form[5], &rule.align) || rule.align < 0))) {
    reply.Error(EngineError("malformed TS rule form"));
    return false;
  }
  const std::string& source = form[1];
  rule.dest = form[2];
  rule.aggregator = static_cast<types::Aggregator>(aggregator);
  std::optional<types::SeriesRuleRegister> held;
  storage::Status s = ReadSeriesRule(ks, db, rule.dest, &held);
  if (!s.ok()) {
    reply.Error(EngineError(s.ToString()));
    return false;
  }
  std::string error;
  types::SeriesRuleRegister reg = NextRuleRegister(held, ks.NowMs(), node_id_);
  if (create) {
    // A live link to the destination refuses it; a register whose link is not live (its source
    // deleted, a cycle) is replaced, as a stale sourceKey is outside the mode.
    error = CheckError(types::SeriesRules(ks, db).Check(source, rule));
    reg.present = true;
    reg.source = source;
    reg.rule = rule;
    reg.floor = error.empty() ? SourceFloor(ks, db, source) : 0;
  } else {
    auto meta = types::Series(ks, db).Meta(source);
    if (!meta.ok()) {
      error = CheckError(types::FailureOf(meta));
    } else if (!held || !held->present || held->source != source) {
      error = kTsRuleMissing;
    }
    reg.rule.dest = rule.dest;
  }
  if (error.empty()) {
    s = MergeSeriesRule(ks, db, reg);
    if (!s.ok()) error = EngineError(s.ToString());
  }
  if (!error.empty()) {
    reply.Error(error);
    return false;
  }
  const std::string event = create ? "ts.createrule" : "ts.deleterule";
  SignalKeyChange(*context_, db, source, kNotifyTimestamped, event + ":src");
  SignalKeyChange(*context_, db, rule.dest, kNotifyTimestamped, event + ":dest");
  reply.Ok();
  plan->args = SeriesRuleDeltaArgs(rule.dest, reg);
  plan->views.assign(plan->args.begin(), plan->args.end());
  return true;
}

ActiveActive::ApplyOutcome ActiveActive::ApplySeriesRule(const std::string& origin_id,
                                                         const PeerDelta& delta,
                                                         const std::vector<std::string>& args) {
  types::SeriesRuleRegister reg;
  if (!ParseSeriesRuleDelta(args, &reg)) {
    return Malformed(origin_id, delta);
  }
  if (storage::Status s = MergeSeriesRule(context_->keyspace(), delta.db, reg); !s.ok()) {
    return NotApplied(origin_id, delta, s);
  }
  NoteKeyChange(*context_, delta.db, reg.rule.dest);
  return ApplyOutcome::kApplied;
}

}  // namespace ebb::server
