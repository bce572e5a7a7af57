// ActiveActive's origin side (active_active.h): a client's write planned from its row's write
// form (PlanLocalWrite, server/core/write_form.h), and the delta logged with the data it changes
// (FinishLocalWrite). The whole-key writes (DEL ... FLUSHALL, the EXPIRE family) take their T and
// run in whole_key_ops.cc.
#include <spdlog/spdlog.h>

#include <limits>

#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/active_active/active_active.h"
#include "server/active_active/merge_gate.h"
#include "server/active_active/peer_delta.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/errors.h"
#include "server/services/keyspace_events.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"
#include "types/tlog.h"

namespace ebb::server {
namespace {

// Requests that may write without the kCmdWrite flag, and WATCH, whose promise (EXEC fails if
// the key changed) no node can keep for writes made on another.
bool RefusedWithoutWriteFlag(std::string_view name) {
  for (std::string_view refused : {"multi", "exec", "watch", "eval", "evalsha", "fcall"}) {
    if (name == refused) return true;
  }
  return false;
}

// *plan replies `error` (kRefuse).
void Refuse(ActiveActive::LocalWrite* plan, std::string error) {
  plan->kind = ActiveActive::LocalWrite::Kind::kRefuse;
  plan->error = std::move(error);
}

}  // namespace

Result<ActiveActiveCode> ActiveActive::CheckClockSkew(int64_t ts, int64_t now_ms) {
  const Config& config = context_->config();
  if (config.max_clock_skew_ms <= 0) return {};
  if (ts <= now_ms || ts - now_ms <= config.max_clock_skew_ms) return {};
  if (config.max_clock_skew_action == "refuse") {
    return {ActiveActiveCode::kClockSkew, std::to_string(ts)};
  }
  skewed_writes_++;
  return {};
}

ActiveActive::LocalWrite ActiveActive::PlanLocalWrite(const CommandSpec& spec, size_t first_arg,
                                                      std::span<const std::string_view> args,
                                                      const Client& client) {
  LocalWrite plan;
  if (!enabled_) return plan;
  plan.views = std::move(spare_views_);  // the room of the last logged write's
  plan.db = client.db_index();
  if (spec.write_form == nullptr) {
    if ((spec.flags & kCmdWrite) || RefusedWithoutWriteFlag(spec.full_name)) {
      Refuse(&plan, ActiveActiveRefusedError(spec.full_name));
    }
    return plan;
  }
  types::Keyspace& ks = context_->keyspace();
  plan.now_ms = ks.NowMs();
  PlanForm(spec.write_form(args, first_arg, {plan.now_ms, ks, &spare_args_}), plan.now_ms, &plan);
  return plan;
}

void ActiveActive::PlanForm(WriteForm form, int64_t now_ms, LocalWrite* plan) {
  using Kind = LocalWrite::Kind;
  if (form.kind == WriteForm::Kind::kInvalid) {
    plan->kind = Kind::kValidate;  // the handler replies the request's error
    return;
  }
  if (form.client_ts) {
    if (Result<ActiveActiveCode> skew = CheckClockSkew(*form.client_ts, now_ms); !skew.ok()) {
      return Refuse(plan, ErrorText(skew));
    }
  }
  if (form.kind == WriteForm::Kind::kRefused) return Refuse(plan, std::move(form.error));
  const bool string_write = IsStringDelta(form.args[0]);
  const bool or_rule = ObservedRemoveRule();  // the setting read once: a string compare
  if (string_write && or_rule) {
    // Room for the `CTX <context>` pair RunOrString appends, made before anything views the
    // arguments: the strings never move after, so the views into them (`op`, the parsed delta's)
    // hold as the vector moves into the plan and grows.
    form.args.reserve(form.args.size() + 2);
  }
  // Names compared as views: a std::string against a literal is an out-of-line compare.
  if (std::string_view(form.args[0]) == "tlog" && !ClearAsItTravels(&form.args, plan)) return;
  const std::string_view op = form.args[0];
  bool loses = false;
  if (op == kDelAt || op == kFlushDbAt || op == kFlushAllAt) {
    return PlanWholeKeyDelete(std::move(form.args), plan);
  }
  if (op.starts_with("ts-")) {
    plan->kind = Kind::kRunHere;  // RunSeries settles it from the series' state
    plan->series = true;
    plan->args = std::move(form.args);
    plan->views.assign(plan->args.begin(), plan->args.end());
    return;
  }
  const bool incr = op == kCounterIncrForm || op == kCounterIncrFloatForm;
  if (incr && or_rule) return Refuse(plan, std::string(kIncrUnderOrRule));
  if (incr || IsCounterWrite(plan->db, form.args)) {
    plan->kind = Kind::kRunHere;  // RunCounter settles it from the key's state
    plan->counter = true;
    plan->args = std::move(form.args);
    plan->views.assign(plan->args.begin(), plan->args.end());
    return;
  }
  if (string_write) {
    if (form.string_put) {  // a row's string version: its numbers came with it
      plan->string_delta =
          StringPutDelta(form.args, form.string_put->ts, form.string_put->expire_at);
    } else if (!ParseStringDelta(form.args, &plan->string_delta.emplace())) {
      plan->kind = Kind::kValidate;  // never: the row's form made it; its handler replies
      return;
    }
    if (or_rule) return PlanOrWrite(std::move(form.args), plan);
  }
  if (op == kExpiryAt) {  // RunExpiry judges it against the key and takes its T
    plan->kind = Kind::kRunHere;
    plan->expire_flags = form.expire_flags;
  } else if (op == "tlog" &&
             (form.args[1] == "trim" || form.args[1] == "clr" || IsTrimAtZero(form.args))) {
    // TRIM and CLR are logged as the TRIMAT of the cutoff they leave, a TRIMAT to 0 not at all:
    // it is no write ("Merge rules").
    plan->kind = Kind::kRun;
    plan->trim_after = true;
  } else if (JudgeLocal(form.args, plan, &loses)) {
    plan->kind = Kind::kRun;
  }
  if (plan->kind != Kind::kRun && plan->kind != Kind::kRunHere) return;
  plan->args = std::move(form.args);
  plan->views.assign(plan->args.begin(), plan->args.end());
  if (!plan->trim_after) AdmitLocal(plan);
  // A losing version writes nothing; the key's type floor still answers first (AdmitLocal): the
  // held version may be the tombstone compaction made of an expired TREG or log, which the
  // floor, a row no compaction changes, outlives.
  if (loses && (plan->kind == Kind::kRun || plan->kind == Kind::kRunHere)) {
    plan->kind = Kind::kReplyOk;
  }
  // A string version is written as the plan parsed it (RunStringVersion), not by running PUT's
  // or DELETE's handler on the words again.
  if (plan->kind == Kind::kRun && plan->string_delta) {
    plan->kind = Kind::kRunHere;
    plan->string_version = true;
  }
}

bool ActiveActive::ObservedRemoveRule() const {
  return context_->config().observed_remove_strings();
}

bool ActiveActive::JudgeLocal(const std::vector<std::string>& delta, LocalWrite* plan,
                              bool* loses) {
  // A log's entries merge by the log's own rule.
  if (std::string_view(delta[0]) == "tlog") return true;
  MergeVerdict verdict = MergeVerdict::kWrite;
  types::Keyspace& ks = context_->keyspace();
  StringDelta* string = plan->string_delta ? &*plan->string_delta : nullptr;
  if (storage::Status s = string != nullptr ? JudgeStringVersion(ks, plan->db, string->key,
                                                                 &string->version, &verdict)
                                            : JudgeDelta(ks, plan->db, delta, &verdict);
      !s.ok()) {
    Refuse(plan, EngineError(s.ToString()));
    return false;
  }
  if (verdict == MergeVerdict::kOtherTypeWins) {
    Refuse(plan, std::string(kWrongType));
    return false;
  }
  *loses = verdict == MergeVerdict::kLoses;  // a string version not greater than the one held
  return true;
}

bool ActiveActive::ClearAsItTravels(std::vector<std::string>* form, LocalWrite* plan) {
  std::vector<std::string>& args = *form;
  const bool clear = args[1] == "clr" || (args[1] == "trim" && args[3] == "0");
  if (!clear) return true;
  constexpr uint64_t kLastTs = std::numeric_limits<uint64_t>::max();
  types::OpResult<std::vector<types::TlogEntry>> last =
      types::Tlog(context_->keyspace(), plan->db).Range(args[2], kLastTs, kLastTs, 1, false);
  if (!last.ok()) {
    if (last.status() != types::OpStatus::kEngineError) return true;  // the handler replies it
    Refuse(plan, EngineError(last.engine_status().ToString()));
    return false;
  }
  if (!last->empty()) args = {"tlog", "trimat", std::move(args[2]), std::to_string(kLastTs)};
  return true;
}

bool ActiveActive::RunStringVersion(LocalWrite* plan, protocol::ReplyWriter& reply) {
  const StringDelta& version = *plan->string_delta;
  const types::OpResult<void> written = WriteVersion(plan->db, version);
  if (!written.ok()) {
    reply.Error(EngineError(written.engine_status().ToString()));
    return false;
  }
  AnswerStringVersion(plan->db, version, plan->now_ms, reply);
  return true;
}

void ActiveActive::AnswerStringVersion(int db, const StringDelta& version, int64_t now_ms,
                                       protocol::ReplyWriter& reply) {
  if (ArrivesDead(version, now_ms)) {
    ++context_->stats().dead_on_arrival_own_expiry;
  }
  const bool put = version.kind == StringDelta::Kind::kPut;
  SignalKeyChange(*context_, db, version.key, kNotifyString, put ? "put" : "delete");
  reply.Ok();
}

storage::Status ActiveActive::FinishLocalWrite(LocalWrite&& plan, bool succeeded, bool* dropped) {
  types::Keyspace& ks = context_->keyspace();
  spare_views_ = std::move(plan.views);  // the next plan's room, holding no view of this one
  spare_views_.clear();
  if (!succeeded) {
    whole_key_->DiscardBatch();
    return storage::Status::OK();
  }
  PeerDelta delta;
  delta.origin_ms = plan.now_ms;
  delta.db = plan.db;
  delta.args = std::move(plan.args);
  if (plan.trim_after && IsTrimAtZero(delta.args)) return ks.CommitBatch();  // changed nothing
  if (plan.trim_after) {
    // TRIM and CLR are the TRIMAT of the cutoff they left: the same on every node.
    const std::string key = delta.args[2];
    auto cutoff = types::Tlog(ks, plan.db).Cutoff(key);
    if (!cutoff.ok()) {
      whole_key_->DiscardBatch();
      return cutoff.status() == types::OpStatus::kEngineError
                 ? cutoff.engine_status()
                 : storage::Status::InvalidArgument("TLOG cutoff unreadable");
    }
    if (cutoff.value() == 0) return ks.CommitBatch();  // nothing changed
    // A TRIMAT every peer drops is not made here either (JudgeOwnCut).
    std::optional<uint64_t> cut = cutoff.value();
    const storage::Status s = JudgeOwnCut(plan.db, key, &cut);
    if (!s.ok() || !cut) {
      whole_key_->DiscardBatch();
      *dropped = s.ok();
      return s;
    }
    delta.args = {"tlog", "trimat", key, std::to_string(*cut)};
  }
  return LogOwnDelta(std::move(delta), plan.string_delta ? &*plan.string_delta : nullptr);
}

storage::Status ActiveActive::LogOwnDelta(PeerDelta delta, const StringDelta* string_delta) {
  types::Keyspace& ks = context_->keyspace();
  delta.offset = end_offset_ + 1;
  EncodePeerDelta(delta, &row_scratch_);
  storage::Status s = ks.db().Put(ks.WriteOptions(), LogRowKey(delta.offset).view(), row_scratch_);
  if (!s.ok()) {
    whole_key_->DiscardBatch();
    return s;
  }
  s = ks.CommitBatch();
  if (!s.ok()) return s;
  end_offset_ = delta.offset;
  wire_scratch_.clear();
  AppendDeltaFrame(&wire_scratch_, row_scratch_);  // the row's bytes are the frame's
  end_bytes_ += wire_scratch_.size();
  streams_.Queue(wire_scratch_);
  log_.Append(delta.offset, wire_scratch_);
  // The deltas leaving the log (several once peer-backlog-size shrank) keep their rows on disk
  // until TrimLogRows deletes them in bulk.
  const uint64_t capacity = LogCapacity();
  if (log_.size() > capacity) DropLogFront(log_.size() - capacity);
  NoteExpiringDelta(delta, /*loading=*/false, string_delta);
  spare_args_ = std::move(delta.args);  // the next form's room
  return storage::Status::OK();
}

}  // namespace ebb::server
