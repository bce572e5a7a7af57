// ActiveActive's origin side of the observed-remove string keys (docs/active-active.md, "Status",
// "observed-remove deletes of string keys"): a client's string write (`put`, `delete`) planned
// against the key's state and stored as this node's slot, its delta carrying `CTX <context>`;
// no command handler runs for it. The peer side is or_string_ops.cc.
//
// The plan reads the key once (LoadOrString: the data row and, only when its ext says so, the
// sibling rows), and that read both judges the write (another type held, a version not above the
// winner held here) and gives the context; the run writes the rows once.
#include "common/strings.h"
#include "protocol/reply_writer.h"
#include "server/active_active/active_active.h"
#include "server/active_active/peer_delta.h"
#include "server/core/errors.h"
#include "server/services/keyspace_events.h"
#include "server/services/server_context.h"
#include "types/keyspace.h"
#include "types/or_string.h"
#include "types/or_string_rows.h"

namespace ebb::server {

void ActiveActive::PlanOrWrite(std::vector<std::string> form, LocalWrite* plan) {
  using Kind = LocalWrite::Kind;
  types::Keyspace& ks = context_->keyspace();
  storage::Status s = types::LoadOrString(ks, plan->db, form[1], &or_rows_);
  if (!s.ok()) {
    plan->kind = Kind::kRefuse;
    plan->error = EngineError(s.ToString());
    return;
  }
  if (or_rows_.other_type) {
    plan->kind = Kind::kRefuse;  // another type has precedence (merge_rule.h)
    plan->error = std::string(kWrongType);
    return;
  }
  plan->kind = Kind::kRun;
  plan->args = std::move(form);
  AdmitLocal(plan);  // the key's markers: covered, below the type floor, an expiry register
  if (plan->kind != Kind::kRun && plan->kind != Kind::kRunHere) return;
  std::optional<types::OrContext> context =
      types::OrLocalWriteContext(or_rows_.state, plan->string_delta->version);
  if (!context) {
    plan->kind = Kind::kReplyOk;  // not above the winner held here: nothing written or logged
    return;
  }
  plan->kind = Kind::kRunHere;
  plan->or_string = true;
  plan->or_context = std::move(*context);
}

bool ActiveActive::RunOrString(LocalWrite* plan, protocol::ReplyWriter& reply) {
  types::Keyspace& ks = context_->keyspace();
  const StringDelta& parsed = *plan->string_delta;  // parsed by PlanForm
  const std::string key(parsed.key);
  // The dot FinishLocalWrite's offset gives the delta.
  types::Dot dot{own_origin_, end_offset_ + 1};
  const types::OrApplied applied =
      types::ApplyOrWrite(&or_rows_, plan->or_context, std::move(dot), SlotRowOf(parsed));
  storage::Status s = types::StoreOrString(ks, plan->db, key, or_rows_, applied);
  if (!s.ok()) {
    reply.Error(EngineError(s.ToString()));
    return false;
  }
  AnswerStringVersion(plan->db, parsed, plan->now_ms, reply);
  plan->args.emplace_back(kContextTag);
  plan->args.push_back(types::EncodeOrContext(plan->or_context, own_origin_));
  return true;
}

}  // namespace ebb::server
