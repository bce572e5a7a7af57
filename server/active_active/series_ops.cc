// ActiveActive's time-series writes (series_state.h): TS.CREATE, TS.ALTER, TS.ADD, TS.MADD,
// TS.INCRBY and TS.DECRBY judged and run on the origin (RunSeries) as RedisTimeSeries would
// answer them there, and a peer's `ts-merge` delta merged (ApplySeries).
#include <spdlog/spdlog.h>

#include <bit>
#include <cmath>
#include <limits>

#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/active_active/active_active.h"
#include "server/active_active/series_range.h"
#include "server/active_active/series_rules_state.h"
#include "server/active_active/series_state.h"
#include "server/core/errors.h"
#include "server/services/keyspace_events.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"
#include "types/series.h"

namespace ebb::server {
namespace {

bool ParseValueBits(std::string_view text, double* value) {
  uint64_t bits = 0;
  if (!ParseUint64(text, &bits)) return false;
  *value = std::bit_cast<double>(bits);
  return true;
}

// The stamp of a write after `greatest` (the origin's clock, raised past what it follows).
int64_t StampAfter(int64_t now_ms, int64_t greatest) {
  return greatest == std::numeric_limits<int64_t>::max() ? greatest
                                                         : std::max(now_ms, greatest + 1);
}

// What the origin judges a series write by: the type the key holds, its whole-key marker and the
// series' settings register.
struct SeriesKeyState {
  std::optional<types::KeyType> held;
  KeyMarker marker;
  std::optional<types::SeriesRegister> reg;
};

storage::Status ReadSeriesKeyState(types::Keyspace& ks, WholeKeyMarkers& whole_key, int db,
                                   const std::string& key, SeriesKeyState* state) {
  storage::Status s = HeldType(ks, db, key, &state->held);
  bool has_row = false;
  if (s.ok()) s = whole_key.Marker(db, key, &state->marker, &has_row);
  if (s.ok()) s = ReadSeriesRegister(ks, db, key, &state->reg);
  return s;
}

}  // namespace

bool ActiveActive::RunSeries(LocalWrite* plan, protocol::ReplyWriter& reply) {
  const std::vector<std::string> form = plan->args;
  const std::string& op = form[0];
  const int db = plan->db;
  if (op == kSeriesCreateRuleForm || op == kSeriesDeleteRuleForm) return RunSeriesRule(plan, reply);
  std::vector<SeriesGroup> groups;
  if (op == kSeriesDelForm) return RunSeriesRangeDelete(plan, reply);  // series_range_ops.cc
  if (op == kSeriesMaddForm) {
    reply.ArrayHeader((form.size() - 1) / 3);
    for (size_t i = 1; i + 2 < form.size(); i += 3) {
      SeriesSampleWrite write{.key = form[i]};
      if (form[i + 1] == "!" || !ParseInt64(form[i + 1], &write.ts) ||
          !ParseValueBits(form[i + 2], &write.value)) {
        reply.Error(form[i + 1] == "!" ? form[i + 2] : EngineError("malformed TS.MADD form"));
        continue;
      }
      SeriesGroup group;
      if (std::string error = RunSeriesSample(db, write, &group); !error.empty()) {
        reply.Error(error);
        continue;
      }
      reply.Integer(write.ts);
      SignalKeyChange(*context_, db, write.key, kNotifyTimestamped, "ts.add");
      if (!group.key.empty()) groups.push_back(std::move(group));
    }
  } else if (op == kSeriesCreateForm || op == kSeriesAlterForm) {
    SeriesGroup group;
    if (std::string error = RunSeriesSettings(db, form, &group); !error.empty()) {
      reply.Error(error);
      return false;
    }
    reply.Ok();
    SignalKeyChange(*context_, db, form[1], kNotifyTimestamped,
                    op == kSeriesCreateForm ? "ts.create" : "ts.alter");
    groups.push_back(std::move(group));
  } else {
    // ts-add key ts <value> <policy> <settings> | ts-incrby key ts <delta> <settings> <event>
    const bool incr = op == kSeriesIncrForm;
    types::SeriesRegister create;
    uint64_t policy = 0;
    SeriesSampleWrite write{.key = form[1], .incr = incr, .create = &create.settings};
    if (form.size() != 6 || !ParseInt64(form[2], &write.ts) ||
        !ParseValueBits(form[3], &write.value) ||
        !types::DecodeSeriesRegister(form[incr ? 4 : 5], &create) ||
        (!incr && (!ParseUint64(form[4], &policy) || policy > 6))) {
      reply.Error(EngineError("malformed TS form"));
      return false;
    }
    write.on_duplicate = static_cast<types::DuplicatePolicy>(policy);
    SeriesGroup group;
    if (std::string error = RunSeriesSample(db, write, &group); !error.empty()) {
      reply.Error(error);
      return false;
    }
    reply.Integer(write.ts);
    SignalKeyChange(*context_, db, write.key, kNotifyTimestamped, incr ? form[5] : "ts.add");
    if (!group.key.empty()) groups.push_back(std::move(group));
  }
  if (groups.empty()) return false;
  plan->args = SeriesDeltaArgs(groups);
  plan->views.assign(plan->args.begin(), plan->args.end());
  return true;
}

std::string ActiveActive::RunSeriesSettings(int db, const std::vector<std::string>& form,
                                            SeriesGroup* group) {
  types::Keyspace& ks = context_->keyspace();
  const std::string& key = form[1];
  const bool create = form[0] == kSeriesCreateForm;
  types::SeriesRegister given;
  uint64_t mask = 0;
  if (form.size() != (create ? 3u : 4u) || !types::DecodeSeriesRegister(form.back(), &given) ||
      (!create && !ParseUint64(form[2], &mask))) {
    return EngineError("malformed TS form");
  }
  SeriesKeyState state;  // stamped after every delete of the key, so that no view covers it
  storage::Status s = ReadSeriesKeyState(ks, *whole_key_, db, key, &state);
  if (!s.ok()) return EngineError(s.ToString());
  const auto& [held, marker, reg] = state;
  auto meta = types::Series(ks, db).Meta(key);
  if (held && *held != types::KeyType::kSeries)
    return std::string(kWrongType);  // as Series::Create and Alter answer
  if (meta.status() == types::OpStatus::kEngineError) {
    return EngineError(meta.engine_status().ToString());
  }
  if (create && meta.ok()) return std::string(kTsKeyExists);
  if (!create && !meta.ok()) return std::string(kTsKeyMissing);
  types::SeriesSettings settings = given.settings;
  if (!create) {
    settings = meta->settings;
    if (mask & 1) settings.retention_ms = given.settings.retention_ms;
    if (mask & 2) settings.chunk_size = given.settings.chunk_size;
    if (mask & 4) settings.duplicate_policy = given.settings.duplicate_policy;
    if (mask & 8) settings.labels = given.settings.labels;
  }
  // After the register held and the key's delete, so that it wins and its series is not covered.
  int64_t stamp = StampAfter(ks.NowMs(), reg ? reg->ms : std::numeric_limits<int64_t>::min() + 1);
  if (marker.deleted_up_to != KeyMarker::kNothingDeleted) {
    stamp = StampAfter(stamp, marker.deleted_up_to);
  }
  *group = SeriesGroup{.key = key, .reg = {stamp, node_id_, std::move(settings)}, .samples = {}};
  if (s = MergeSeries(db, *group, &own_collect_); !s.ok()) return EngineError(s.ToString());
  return "";
}

std::string ActiveActive::RunSeriesSample(int db, const SeriesSampleWrite& write,
                                          SeriesGroup* group) {
  types::Keyspace& ks = context_->keyspace();
  const std::string key(write.key);
  SeriesKeyState key_state;
  storage::Status s = ReadSeriesKeyState(ks, *whole_key_, db, key, &key_state);
  // A new series' register is stamped after every delete; its sample is judged as every peer
  // judges its delta, by the deletes this node's last collect does not cover.
  const int64_t every_delete_up_to = key_state.marker.deleted_up_to;
  if (s.ok()) s = whole_key_->NarrowToView(db, own_collect_, &key_state.marker);
  types::SampleState state;
  if (s.ok()) s = ReadSampleState(ks, db, key, write.ts, &state);
  if (!s.ok()) return EngineError(s.ToString());
  const auto& [held, marker, reg] = key_state;
  if (held && *held != types::KeyType::kSeries) {
    return std::string(write.create != nullptr && !write.incr ? kTsNotTsdbKey : kWrongType);
  }
  auto meta = types::Series(ks, db).Meta(key);
  if (meta.status() == types::OpStatus::kEngineError) {
    return EngineError(meta.engine_status().ToString());
  }
  if (!meta.ok() && write.create == nullptr) return std::string(kTsKeyMissing);
  std::string refused;  // a rule's destination, or a series linked before the mode
  if (s = SeriesRuleWriteError(ks, db, key, &refused); !s.ok()) return EngineError(s.ToString());
  if (!refused.empty()) return refused;
  // A sample a delete of the key covers would be dropped on every node: refused.
  if (write.ts <= marker.deleted_up_to) return std::string(kSeriesSampleDeleted);
  const int64_t now = ks.NowMs();
  types::SeriesRegister carried;
  if (meta.ok() && reg) {
    carried = *reg;
  } else if (meta.ok()) {
    carried = types::SeriesRegister{.ms = 0, .origin = "", .settings = meta->settings};
  } else {
    // A new series: its settings win over a register a deleted one left, and its register is
    // stamped after every delete of the key, as TS.CREATE's is (MergeSeriesGroup).
    int64_t stamp = reg ? StampAfter(now, reg->ms) : now;
    if (every_delete_up_to != KeyMarker::kNothingDeleted) {
      stamp = StampAfter(stamp, every_delete_up_to);
    }
    carried = types::SeriesRegister{.ms = stamp, .origin = node_id_, .settings = *write.create};
  }
  const types::SeriesSettings& settings = carried.settings;
  const std::optional<types::Sample> newest =
      meta.ok() ? meta->newest : std::optional<types::Sample>();
  double value = write.value;
  types::DuplicatePolicy policy = types::DuplicatePolicy::kLast;
  if (write.incr) {
    if (newest && write.ts < newest->ts) return std::string(kTsIncrBelowNewest);
    if (newest && std::isnan(newest->value)) return std::string(kTsIncrNaN);
    value += newest ? newest->value : 0.0;
  } else {
    const uint64_t retention = settings.retention_ms;
    if (retention > 0 && newest &&
        write.ts<newest->ts&& static_cast<uint64_t>(newest->ts - write.ts)> retention) {
      return std::string(kTsTooOld);
    }
    policy = write.on_duplicate != types::DuplicatePolicy::kUnset ? write.on_duplicate
                                                                  : settings.duplicate_policy;
    const bool blocks =
        policy == types::DuplicatePolicy::kBlock || policy == types::DuplicatePolicy::kUnset;
    if (blocks && !state.records.empty()) return std::string(kTsDuplicateBlocked);
  }
  int64_t stamp = state.records.empty() ? now : StampAfter(now, GreatestStampMs(state));
  // After every range delete of the sample too (series_range.h), which would drop it otherwise.
  std::vector<types::SeriesRangeMarker> markers;
  if (s = ReadRangeMarkers(ks, db, key, &markers); !s.ok()) return EngineError(s.ToString());
  if (const int64_t covering = types::GreatestCoveringMs(markers, write.ts);
      covering != std::numeric_limits<int64_t>::min()) {
    stamp = StampAfter(stamp, covering);
  }
  const types::SampleRecord record = types::NextRecord(state, node_id_, stamp, policy, value);
  *group = SeriesGroup{.key = key, .reg = std::move(carried), .samples = {}};
  group->samples.emplace_back(write.ts, types::SampleState{{record}});
  if (s = MergeSeries(db, *group, &own_collect_); !s.ok()) return EngineError(s.ToString());
  return "";
}

storage::Status ActiveActive::MergeSeries(int db, const SeriesGroup& group,
                                          const types::OrContext* view) {
  types::Keyspace& ks = context_->keyspace();
  std::optional<types::KeyType> held;
  storage::Status s = HeldType(ks, db, group.key, &held);
  if (s.ok() && held && *held != types::KeyType::kSeries) {
    // A series is the type of highest precedence: what a lower type held goes first.
    auto deleted = ks.Delete(db, group.key);
    s = deleted.ok() ? counters_->Forget(db, group.key) : deleted.engine_status();
  }
  KeyMarker marker;
  bool has_row = false;
  if (s.ok()) s = whole_key_->Marker(db, group.key, &marker, &has_row);
  const int64_t every_delete_up_to = marker.deleted_up_to;
  if (s.ok() && view != nullptr) s = whole_key_->NarrowToView(db, *view, &marker);
  // For the rules it feeds, a series its expiry register expired whole is held as a live one:
  // a destination is computed from every sample its source stores, whatever the clock. (A
  // delete removed what it covers of such a series when it came, as of a live one.)
  std::optional<types::SeriesMeta> before;
  if (s.ok()) s = HeldSeriesMeta(ks, db, group.key, &before);
  bool covered = false;
  if (s.ok()) {
    s = MergeSeriesGroup(ks, db, group, marker.deleted_up_to, every_delete_up_to, &covered);
  }
  std::vector<int64_t> touched;  // only a series that held rules feeds a destination
  if (before && !before->rules.empty()) {
    for (const auto& [ts, state] : group.samples) touched.push_back(ts);
  }
  std::optional<int64_t> newest_before;
  if (before && before->newest) newest_before = before->newest->ts;
  // The key's expiry register, given to a series made after it and settled against the settings.
  if (s.ok() && marker.expiry) s = whole_key_->SettleExpiry(db, group.key);
  if (s.ok()) s = AfterSeriesMerge(ks, db, group.key, touched, before.has_value(), newest_before);
  // A covered write still raises the key's floor, as every other type's does.
  if (s.ok() && covered && marker.floor < types::TypePrecedence(types::KeyType::kSeries)) {
    s = whole_key_->RaiseFloor(db, group.key, types::TypePrecedence(types::KeyType::kSeries));
  }
  return s;
}

ActiveActive::ApplyOutcome ActiveActive::ApplySeries(const std::string& origin_id,
                                                     const PeerDelta& delta,
                                                     const std::vector<std::string>& args,
                                                     Arrival arrival) {
  std::vector<SeriesGroup> groups;
  if (!ParseSeriesDelta(args, &groups)) {
    return Malformed(origin_id, delta);
  }
  // Its samples are judged by the deletes its view does not cover.
  DeltaView view;
  if (storage::Status s = JudgingView(origin_id, arrival, &view); !s.ok()) {
    return NotApplied(origin_id, delta, s);
  }
  for (const SeriesGroup& group : groups) {
    if (storage::Status s = MergeSeries(delta.db, group, view.collects); !s.ok()) {
      return NotApplied(origin_id, delta, s);
    }
    NoteKeyChange(*context_, delta.db, group.key);
  }
  return ApplyOutcome::kApplied;
}

}  // namespace ebb::server
