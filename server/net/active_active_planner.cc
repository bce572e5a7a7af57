#include "server/net/active_active_planner.h"

#include <utility>

namespace ebb::server {

WritePlanner::Plan ActiveActivePlanner::PlanWrite(const CommandSpec& spec,
                                                  std::span<const std::string_view> args,
                                                  const Client& client) {
  plan_ = aa_->PlanLocalWrite(spec, args, client);
  using LocalKind = ActiveActive::LocalWrite::Kind;
  Plan plan{.error = plan_.error, .args = plan_.views};
  switch (plan_.kind) {
    case LocalKind::kPass:
      plan.kind = Kind::kPass;
      break;
    case LocalKind::kRefuse:
      plan.kind = Kind::kRefuse;
      break;
    case LocalKind::kReplyOk:
      plan.kind = Kind::kReplyOk;
      break;
    case LocalKind::kRun:
      plan.kind = Kind::kRun;
      break;
    case LocalKind::kValidate:
      plan.kind = Kind::kValidate;
      break;
    case LocalKind::kRunHere:
      plan.kind = Kind::kRunHere;
      break;
  }
  return plan;
}

bool ActiveActivePlanner::RunHere(Client& client, protocol::ReplyWriter& reply) {
  return aa_->RunHere(&plan_, client, reply);
}

storage::Status ActiveActivePlanner::Finish(bool succeeded) {
  return aa_->FinishLocalWrite(std::move(plan_), succeeded);
}

}  // namespace ebb::server
