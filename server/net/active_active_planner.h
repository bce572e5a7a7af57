// ActiveActivePlanner: active-active's answer to the dispatcher's WritePlanner
// (server/dispatch/write_planner.h), over ActiveActive's PlanLocalWrite, RunHere and
// FinishLocalWrite (server/active_active/active_active.h). It holds the plan in flight between
// PlanWrite and Finish. The server makes it beside the ActiveActive it wraps and installs it on
// the ServerContext (set_write_planner).
// Thread-safety: none; the command (io) thread only.
#pragma once

#include "server/active_active/active_active.h"
#include "server/dispatch/write_planner.h"

namespace ebb::server {

class ActiveActivePlanner final : public WritePlanner {
 public:
  // REQUIRES: `aa` outlives the planner.
  explicit ActiveActivePlanner(ActiveActive* aa) : aa_(aa) {}

  bool enabled() const override { return aa_->enabled(); }
  Plan PlanWrite(const CommandSpec& spec, size_t first_arg, std::span<const std::string_view> args,
                 const Client& client) override;
  bool RunHere(Client& client, protocol::ReplyWriter& reply) override;
  storage::Status Finish(bool succeeded, bool* dropped) override;

 private:
  ActiveActive* aa_;
  ActiveActive::LocalWrite plan_;
};

}  // namespace ebb::server
