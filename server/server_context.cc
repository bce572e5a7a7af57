#include "server/server_context.h"

#include "common/wall_clock.h"
#include "types/keyspace.h"

namespace ebb::server {

ServerContext::ServerContext(ConfigRegistry* registry, const CommandTable* commands,
                             storage::PinnableClock* clock)
    : registry_(registry), commands_(commands), clock_(clock), start_time_ms_(WallMs()) {}

void ServerContext::RequestShutdown() {
  if (shutdown_requested_) return;
  shutdown_requested_ = true;
  if (shutdown_hook_) shutdown_hook_();
}

bool ServerContext::defer_sync() const { return keyspace_ != nullptr && keyspace_->defer_sync(); }

}  // namespace ebb::server
