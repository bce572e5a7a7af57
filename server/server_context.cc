#include "server/server_context.h"

#include <chrono>

#include "types/keyspace.h"

namespace ebb::server {

ServerContext::ServerContext(ConfigRegistry* registry, const CommandTable* commands,
                             storage::PinnableClock* clock)
    : registry_(registry),
      commands_(commands),
      clock_(clock),
      start_time_ms_(std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count()) {}

void ServerContext::RequestShutdown() {
  if (shutdown_requested_) return;
  shutdown_requested_ = true;
  if (shutdown_hook_) shutdown_hook_();
}

types::Keyspace& ServerContext::command_keyspace() {
  keyspace_->set_defer_sync(defer_sync_);
  return *keyspace_;
}

}  // namespace ebb::server
