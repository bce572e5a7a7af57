#include "server/net/active_active_planner.h"

#include <utility>

namespace ebb::server {

WritePlanner::Plan ActiveActivePlanner::PlanWrite(const CommandSpec& spec, size_t first_arg,
                                                  std::span<const std::string_view> args,
                                                  const Client& client) {
  plan_ = aa_->PlanLocalWrite(spec, first_arg, args, client);
  return {.kind = plan_.kind, .error = plan_.error, .args = plan_.views};
}

bool ActiveActivePlanner::RunHere(Client& client, protocol::ReplyWriter& reply) {
  return aa_->RunHere(&plan_, client, reply);
}

storage::Status ActiveActivePlanner::Finish(bool succeeded, bool* dropped) {
  return aa_->FinishLocalWrite(std::move(plan_), succeeded, dropped);
}

}  // namespace ebb::server
