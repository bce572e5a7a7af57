// ActiveActive's origin side (active_active.h): a client's write planned into its canonical delta
// (PlanLocalWrite), and the delta logged with the data it changes (FinishLocalWrite). The
// whole-key writes (DEL ... FLUSHALL, the EXPIRE family) are planned in whole_key_ops.cc.
#include <spdlog/spdlog.h>

#include "common/strings.h"
#include "server/active_active/active_active.h"
#include "server/active_active/merge_gate.h"
#include "server/active_active/string_write_options.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/errors.h"
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

// *plan runs `canonical` (kRun).
void Run(ActiveActive::LocalWrite* plan, std::vector<std::string> canonical) {
  plan->kind = ActiveActive::LocalWrite::Kind::kRun;
  plan->args = std::move(canonical);
  plan->views = std::vector<std::string_view>(plan->args.begin(), plan->args.end());
}

// *plan replies `error` (kRefuse).
void Refuse(ActiveActive::LocalWrite* plan, std::string error) {
  plan->kind = ActiveActive::LocalWrite::Kind::kRefuse;
  plan->error = std::move(error);
}

}  // namespace

Result<ActiveActiveCode> ActiveActive::CheckClockSkew(std::string_view ts_text, int64_t now_ms) {
  const Config& config = context_->config();
  int64_t ts = 0;
  if (config.max_clock_skew_ms <= 0 || !ParseInt64(ts_text, &ts)) return {};
  if (ts <= now_ms || ts - now_ms <= config.max_clock_skew_ms) return {};
  if (config.max_clock_skew_action == "refuse") return {ActiveActiveCode::kClockSkew, ts_text};
  skewed_writes_++;
  return {};
}

ActiveActive::LocalWrite ActiveActive::PlanLocalWrite(const CommandSpec& spec,
                                                      std::span<const std::string_view> args,
                                                      const Client& client) {
  LocalWrite plan;
  if (!enabled_) return plan;
  const std::string_view name = spec.full_name;
  const int64_t now = context_->keyspace().NowMs();
  plan.db = client.db_index();
  if (name == "tlog|ins" || name == "tlog|trimat" || name == "treg|set") {
    PlanTimestampedWrite(name, args, now, &plan);
  } else if (name == "tlog|trim" || name == "tlog|clr") {
    Run(&plan, std::vector<std::string>(args.begin(), args.end()));
    plan.trim_after = true;
  } else if (name == "put" || name == "set" || name == "delete") {
    PlanStringWrite(name, args, now, &plan);
  } else if (name == "del" || name == "unlink" || name == "flushdb" || name == "flushall") {
    PlanWholeKeyDelete(name, args, &plan);
  } else if (name == "expire" || name == "pexpire" || name == "expireat" || name == "pexpireat" ||
             name == "persist") {
    PlanExpiry(name, args, &plan);
  } else if ((spec.flags & kCmdWrite) || RefusedWithoutWriteFlag(name)) {
    Refuse(&plan, ActiveActiveRefusedError(name));
  }
  return plan;
}

void ActiveActive::PlanTimestampedWrite(std::string_view name,
                                        std::span<const std::string_view> args, int64_t now_ms,
                                        LocalWrite* plan) {
  if (Result<ActiveActiveCode> skew = CheckClockSkew(args.back(), now_ms); !skew.ok()) {
    return Refuse(plan, ErrorText(skew));
  }
  if (name == "treg|set" && context_->keyspace().PolicyExpireAt(args[2], now_ms).has_value()) {
    // Each accepted SET would renew the key's TTL from the clock of the node applying it.
    return Refuse(plan, std::string(kTregSetWithTtl));
  }
  std::vector<std::string> canonical(args.begin(), args.end());
  canonical[0] = AsciiLower(canonical[0]);
  canonical[1] = AsciiLower(canonical[1]);
  // A log its expiry register expired still holds the key against a TREG SET (merge_gate.h).
  if (name == "treg|set" && !JudgeLocalWrite(canonical, plan)) return;
  Run(plan, std::move(canonical));
  AdmitLocal(plan);
}

void ActiveActive::PlanStringWrite(std::string_view name, std::span<const std::string_view> args,
                                   int64_t now_ms, LocalWrite* plan) {
  const StringWriteOptions options = ParseStringWriteOptions(name, args);
  if (options.outcome == StringWriteOptions::Outcome::kConditional) {
    return Refuse(plan, ConditionalSetError(options.conditional));
  }
  if (options.outcome == StringWriteOptions::Outcome::kValidate) {
    plan->kind = LocalWrite::Kind::kValidate;
    return;
  }
  const int64_t ts = options.ts.value_or(now_ms);
  if (options.ts) {
    if (Result<ActiveActiveCode> skew = CheckClockSkew(std::to_string(ts), now_ms); !skew.ok()) {
      return Refuse(plan, ErrorText(skew));
    }
  }
  std::optional<std::vector<std::string>> canonical = CanonicalStringWrite(name, args, options, ts);
  if (!canonical) {
    plan->kind = LocalWrite::Kind::kValidate;
    return;
  }
  const std::optional<MergeVerdict> verdict = JudgeLocalWrite(*canonical, plan);
  if (!verdict) return;
  if (*verdict == MergeVerdict::kLoses) {
    plan->kind = LocalWrite::Kind::kReplyOk;
    return;
  }
  Run(plan, std::move(*canonical));
  AdmitLocal(plan);
}

std::optional<std::vector<std::string>> ActiveActive::CanonicalStringWrite(
    std::string_view name, std::span<const std::string_view> args,
    const StringWriteOptions& options, int64_t ts) const {
  using Expiry = StringWriteOptions::Expiry;
  const std::string key(args[1]);
  if (name == "delete") return std::vector<std::string>{"delete", key, "TS", std::to_string(ts)};
  Expiry expiry = options.expiry;
  int64_t expire_at = options.expire_at;
  if (expiry == Expiry::kAt && options.ttl_relative &&
      __builtin_add_overflow(ts, options.ttl, &expire_at)) {
    return std::nullopt;
  }
  if (expiry == Expiry::kDefault) {
    std::optional<int64_t> policy = context_->keyspace().PolicyExpireAt(key, ts);
    expiry = policy ? Expiry::kAt : Expiry::kNone;
    expire_at = policy.value_or(0);
  }
  if (expiry == Expiry::kAt && expire_at <= 0) return std::nullopt;
  std::vector<std::string> canonical = {"put", key, std::string(args[2]), "TS", std::to_string(ts)};
  if (expiry == Expiry::kAt) {
    canonical.push_back("PXAT");
    canonical.push_back(std::to_string(expire_at));
  } else {
    canonical.push_back("NOTTL");
  }
  return canonical;
}

std::optional<MergeVerdict> ActiveActive::JudgeLocalWrite(const std::vector<std::string>& canonical,
                                                          LocalWrite* plan) {
  MergeVerdict verdict = MergeVerdict::kWrite;
  storage::Status s = JudgeDelta(context_->keyspace(), plan->db, canonical, &verdict);
  if (!s.ok()) {
    Refuse(plan, EngineError(s.ToString()));
    return std::nullopt;
  }
  if (verdict == MergeVerdict::kOtherTypeWins) {
    Refuse(plan, std::string(kWrongType));
    return std::nullopt;
  }
  return verdict;
}

storage::Status ActiveActive::FinishLocalWrite(LocalWrite&& plan, bool succeeded) {
  types::Keyspace& ks = context_->keyspace();
  if (!succeeded) {
    ks.DiscardBatch();
    whole_key_->ForgetCachedHorizons();
    return storage::Status::OK();
  }
  PeerDelta delta;
  delta.offset = end_offset_ + 1;
  delta.origin_ms = ks.NowMs();
  delta.db = plan.db;
  delta.args = std::move(plan.args);
  if (plan.trim_after) {
    // TRIM and CLR are the TRIMAT of the cutoff they left: the same on every node.
    const std::string key = delta.args[2];
    auto cutoff = types::Tlog(ks, plan.db).Cutoff(key);
    if (!cutoff.ok()) {
      ks.DiscardBatch();
      whole_key_->ForgetCachedHorizons();
      return cutoff.status() == types::OpStatus::kEngineError
                 ? cutoff.engine_status()
                 : storage::Status::InvalidArgument("TLOG cutoff unreadable");
    }
    if (cutoff.value() == 0) return ks.CommitBatch();  // nothing changed
    delta.args = {"tlog", "trimat", key, std::to_string(cutoff.value())};
  }
  const storage::WriteOptions options = ks.WriteOptions();
  storage::Status s = ks.db().Put(options, types::Keyspace::SystemRowKey(LogRowName(delta.offset)),
                                  EncodePeerDelta(delta));
  // The rows leaving the log (several once peer-backlog-size shrank) leave the engine in the same
  // batch, oldest first, so the rows on disk stay one gap-free run.
  const uint64_t capacity = LogCapacity();
  const size_t leaving = log_.size() >= capacity ? log_.size() + 1 - capacity : 0;
  for (size_t i = 0; s.ok() && i < leaving; i++) {
    s = ks.db().Delete(options, types::Keyspace::SystemRowKey(LogRowName(log_[i].first)));
  }
  if (!s.ok()) {
    ks.DiscardBatch();
    whole_key_->ForgetCachedHorizons();
    return s;
  }
  s = ks.CommitBatch();
  if (!s.ok()) return s;
  end_offset_ = delta.offset;
  std::string wire;
  AppendDeltaResp(&wire, delta);
  end_bytes_ += wire.size();
  Push(wire);
  log_bytes_ += wire.size();
  log_.emplace_back(delta.offset, std::move(wire));
  DropLogFront(leaving);
  NoteExpiringDelta(delta);
  return storage::Status::OK();
}

}  // namespace ebb::server
