// ActiveActive's counter writes (counters.h): INCR, INCRBY, DECR, DECRBY and the string writes
// on a counter key, settled and run on the origin (RunCounter), and a peer's `counter` delta or
// string delta on a counter key merged into the key's state (ApplyCounter).
#include <spdlog/spdlog.h>

#include <cmath>
#include <limits>

#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/active_active/active_active.h"
#include "server/active_active/counters.h"
#include "server/core/errors.h"
#include "server/services/keyspace_events.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"
#include "types/kv.h"

namespace ebb::server {
namespace {

// a + 1 without overflow.
int64_t After(int64_t a) { return a == std::numeric_limits<int64_t>::max() ? a : a + 1; }

// The timestamp of the base "0" a client's INCR writes on a key absent or expired here: the
// least that follows what the key held, its deletes and its expiry register (one covering it
// would expire it at once), not the clock — so a SET, which takes the clock, replaces it even in
// the same millisecond.
int64_t NewBaseTs(const types::CounterState& state, const KeyMarker& marker) {
  int64_t ts = 0;
  if (state.base) ts = std::max(ts, After(state.base->ts));
  if (marker.deleted_up_to != KeyMarker::kNothingDeleted) {
    ts = std::max(ts, After(marker.deleted_up_to));
  }
  if (marker.expiry) ts = std::max(ts, After(marker.expiry->ts));
  return ts;
}

}  // namespace

bool ActiveActive::IsCounterWrite(int db, const std::vector<std::string>& form) {
  if (!counters_->any() || form.size() < 2 || !IsStringDelta(form[0])) return false;
  std::optional<types::CounterState> state;
  const storage::Status s = counters_->Read(db, form[1], &state);
  return !s.ok() || state.has_value();  // an unreadable row: RunCounter reports it
}

bool ActiveActive::RunCounter(LocalWrite* plan, protocol::ReplyWriter& reply) {
  types::Keyspace& ks = context_->keyspace();
  const std::string key = plan->args[1];
  std::optional<types::KeyType> held;
  storage::Status s = HeldType(ks, plan->db, key, &held);
  KeyMarker marker;
  bool has_row = false;
  if (s.ok()) s = whole_key_->Marker(plan->db, key, &marker, &has_row);
  types::CounterState state;
  if (s.ok()) s = counters_->ReadOrAdopt(plan->db, key, &state);
  if (!s.ok()) {
    reply.Error(EngineError(s.ToString()));
    return false;
  }
  if ((held && *held != types::KeyType::kString) || marker.floor > 0) {
    reply.Error(kWrongType);
    return false;
  }
  if (plan->args[0] == kCounterIncrForm || plan->args[0] == kCounterIncrFloatForm) {
    return RunCounterIncr(plan, std::move(state), marker, reply);
  }
  return RunCounterBase(plan, std::move(state), marker, reply);
}

storage::Status ActiveActive::NewPartsCovered(int db, int64_t record_ts, const KeyMarker& marker,
                                              bool* covered) {
  // The new base and record lie above every delete held here (NewBaseTs, RecordTsFor) but one at
  // INT64_MAX, where their timestamps saturate.
  *covered = false;
  if (record_ts != std::numeric_limits<int64_t>::max()) return storage::Status::OK();
  KeyMarker viewed = marker;
  storage::Status s = whole_key_->NarrowToView(db, own_collect_, &viewed);
  *covered = s.ok() && viewed.deleted_up_to == std::numeric_limits<int64_t>::max();
  return s;
}

bool ActiveActive::RunCounterIncr(LocalWrite* plan, types::CounterState state,
                                  const KeyMarker& marker, protocol::ReplyWriter& reply) {
  types::Keyspace& ks = context_->keyspace();
  const std::string key = plan->args[1];
  const bool floating = plan->args[0] == kCounterIncrFloatForm;
  // What the client reads now: the counter's row (or the plain string it starts from). Redis's
  // checks, in Redis's order.
  auto current = types::Kv(ks, plan->db, 0).Get(key);
  const bool absent = current.status() == types::OpStatus::kNotFound;
  if (!current.ok() && !absent) {
    reply.Error(current.status() == types::OpStatus::kWrongType
                    ? std::string(kWrongType)
                    : EngineError(current.engine_status().ToString()));
    return false;
  }
  int64_t value = 0;
  int64_t delta = 0;
  long double fvalue = 0;
  long double increment = 0;
  if (floating) {
    if ((current.ok() && !ParseLongDouble(current->value, &fvalue)) ||
        !ParseLongDouble(plan->args[2], &increment)) {
      reply.Error(kNotFloat);
      return false;
    }
    if (!std::isfinite(fvalue + increment)) {
      reply.Error(kNanOrInfinity);
      return false;
    }
  } else {
    ParseInt64(plan->args[2], &delta);  // written by the row's form
    int64_t next = 0;
    if (current.ok() && !ParseInt64(current->value, &value)) {
      reply.Error(kNotInteger);
      return false;
    }
    if (__builtin_add_overflow(value, delta, &next)) {
      reply.Error(kOverflow);
      return false;
    }
  }
  CounterDelta out{.key = key};
  if (absent) {
    // A new counter: a base "0" observing every record held here (an expired counter's too).
    types::CounterBase base;
    base.value = "0";
    base.ts = NewBaseTs(state, marker);
    base.expire_at = ks.PolicyExpireAt(key, ks.NowMs()).value_or(types::CounterBase::kNever);
    base.observed = types::ObservedOf(state);
    types::MergeBase(&state, base);
    out.base = std::move(base);
  }
  const int64_t record_ts = types::RecordTsFor(marker.deleted_up_to);
  const std::optional<types::CounterRecord> record =
      floating ? types::NextFloatRecord(state, node_id_, record_ts, increment)
               : types::NextRecord(state, node_id_, record_ts, delta);
  if (!record) {
    reply.Error(floating ? kNanOrInfinity : kOverflow);
    return false;
  }
  types::MergeRecord(&state, *record);
  out.records.push_back(*record);
  // The reply is what the key now reads as.
  const std::string reads_as = types::ViewOf(state).value;
  bool covered = false;
  storage::Status s = NewPartsCovered(plan->db, record_ts, marker, &covered);
  if (s.ok() && !covered) s = counters_->Write(plan->db, key, std::move(state), marker);
  if (!s.ok()) {
    reply.Error(EngineError(s.ToString()));
    return false;
  }
  if (floating) {
    reply.Bulk(reads_as);
  } else {
    reply.Integer(value + delta);
  }
  if (covered) return false;  // every peer drops it too: nothing to log
  SignalKeyChange(*context_, plan->db, key, kNotifyString, floating ? "incrbyfloat" : "incrby");
  plan->args = CounterDeltaArgs(out);
  plan->views.assign(plan->args.begin(), plan->args.end());
  return true;
}

bool ActiveActive::RunCounterBase(LocalWrite* plan, types::CounterState state,
                                  const KeyMarker& marker, protocol::ReplyWriter& reply) {
  const std::string key = plan->args[1];
  const std::string op = plan->args[0];
  WholeKeyMarkers::Admission admission;  // as every peer judges it: by this node's last collect
  storage::Status s = whole_key_->Judge(plan->db, &plan->args, &admission, &own_collect_);
  types::CounterBase base;
  if (s.ok() && !BaseOfStringDelta(plan->args, &base)) s = storage::Status::InvalidArgument("form");
  if (!s.ok()) {
    reply.Error(EngineError(s.ToString()));
    return false;
  }
  if (admission.below_floor) {
    reply.Error(kWrongType);
    return false;
  }
  CoverByRegister(&base, marker);
  // A version a delete covers, or one not greater than the base held, loses: +OK, nothing
  // written, as a string version that loses.
  if (admission.covered || (state.base && !types::CounterBaseRanksBelow(*state.base, base))) {
    reply.Ok();
    return false;
  }
  base.observed = types::ObservedOf(state);
  types::MergeBase(&state, base);
  if (s = counters_->Write(plan->db, key, std::move(state), marker); !s.ok()) {
    reply.Error(EngineError(s.ToString()));
    return false;
  }
  reply.Ok();
  SignalKeyChange(*context_, plan->db, key, kNotifyString, op);
  plan->args = CounterDeltaArgs(CounterDelta{.key = key, .base = std::move(base)});
  plan->views.assign(plan->args.begin(), plan->args.end());
  return true;
}

ActiveActive::ApplyOutcome ActiveActive::ApplyCounter(const std::string& origin_id,
                                                      const PeerDelta& delta,
                                                      std::vector<std::string> args,
                                                      Arrival arrival) {
  // Its parts are judged by the deletes its view does not cover.
  DeltaView view;
  if (storage::Status s = JudgingView(origin_id, arrival, &view); !s.ok()) {
    return NotApplied(origin_id, delta, s);
  }
  CounterDelta counter;
  bool parsed = false;
  bool covered = false;
  if (args[0] == kCounterDelta) {
    parsed = ParseCounterDelta(args, &counter);
  } else {
    // A string version written where the key was no counter: a base that observed nothing.
    WholeKeyMarkers::Admission admission;
    const storage::Status s = whole_key_->Judge(delta.db, &args, &admission, view.collects);
    if (!s.ok() && !s.IsInvalidArgument()) {
      return NotApplied(origin_id, delta, s);
    }
    types::CounterBase base;
    parsed = s.ok() && BaseOfStringDelta(args, &base);
    covered = admission.covered || admission.below_floor;
    counter.key = args[1];
    counter.base = std::move(base);
  }
  if (!parsed) {
    return Malformed(origin_id, delta);
  }
  if (covered) return ApplyOutcome::kApplied;
  types::Keyspace& ks = context_->keyspace();
  std::optional<types::KeyType> held;
  storage::Status s = HeldType(ks, delta.db, counter.key, &held);
  KeyMarker marker;
  bool has_row = false;
  if (s.ok()) s = whole_key_->Marker(delta.db, counter.key, &marker, &has_row, view.collects);
  if (s.ok() && ((held && *held != types::KeyType::kString) || marker.floor > 0)) {
    return ApplyOutcome::kApplied;  // a TREG or a log holds the key: a string loses to it
  }
  // What arrives is pruned at the deletes its view does not cover; what is held stays.
  types::CounterState arrived{.base = std::move(counter.base),
                              .records = std::move(counter.records)};
  types::Prune(&arrived, marker.deleted_up_to);
  types::CounterState state;
  if (s.ok()) s = counters_->ReadOrAdopt(delta.db, counter.key, &state);
  if (s.ok()) {
    if (arrived.base) {
      CoverByRegister(&*arrived.base, marker);
      types::MergeBase(&state, *arrived.base);
    }
    for (const types::CounterRecord& record : arrived.records) types::MergeRecord(&state, record);
    s = counters_->Write(delta.db, counter.key, std::move(state), marker);
  }
  if (!s.ok()) {
    return NotApplied(origin_id, delta, s);
  }
  NoteKeyChange(*context_, delta.db, counter.key);
  return ApplyOutcome::kApplied;
}

}  // namespace ebb::server
