// Connection's upkeep: the output buffer limits (client-output-buffer-limit), the idle timeout,
// and the buffers' shrinking and memory figures that Cron keeps (CLIENT LIST, INFO clients).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
#include <string>

#include "common/wall_clock.h"
#include "server/net/connection.h"
#include "server/net/server.h"
#include "server/services/server_context.h"

namespace ebb::server {

void Connection::LogOutputLimitClose() {
  spdlog::warn("Client id={} addr={} closed for overcoming of output buffer limits.", client_.id(),
               client_.addr());
  server_->context().stats().client_output_buffer_limit_disconnections++;
}

bool Connection::OverOutputLimit(std::optional<int64_t> now) {
  const Config& config = server_->context().config();
  const ClientOutputBufferLimit& limit =
      client_.is_replica()           ? config.client_output_buffer_limit_replica
      : client_.in_subscriber_mode() ? config.client_output_buffer_limit_pubsub
                                     : config.client_output_buffer_limit_normal;
  // No limit for the class (`normal 0 0 0`, the default): nothing to add up. The loop asks
  // after every request.
  if (limit.hard_bytes == 0 && limit.soft_bytes == 0) {
    soft_limit_since_ms_ = 0;
    return false;
  }
  const size_t pending = PendingOutput() + (batch_ != nullptr ? batch_->size() : 0);
  bool over_hard = limit.hard_bytes > 0 && pending > limit.hard_bytes;
  bool over_soft = false;
  if (limit.soft_bytes > 0 && pending > limit.soft_bytes) {
    const int64_t now_ms = now ? *now : WallMs();  // the clock only when above the soft limit
    if (soft_limit_since_ms_ == 0) soft_limit_since_ms_ = now_ms;
    over_soft = now_ms - soft_limit_since_ms_ >= limit.soft_seconds * 1000;
  } else {
    soft_limit_since_ms_ = 0;
  }
  return over_hard || over_soft;
}

bool Connection::CheckOutputLimits(std::optional<int64_t> now_ms) {
  if (!OverOutputLimit(now_ms)) return true;
  LogOutputLimitClose();
  Close();
  return false;
}

void Connection::Cron(int64_t now_ms) {
  if (closed_) return;
  int64_t timeout_s = server_->context().config().timeout_s;
  if (timeout_s > 0 && !writing_ && !Waiting() &&
      now_ms - client_.last_interaction_ms() >= timeout_s * 1000) {
    spdlog::debug("Closing idle client id={}", client_.id());
    Close();
    return;
  }
  if (writing_ && !CheckOutputLimits(now_ms)) return;
  ShrinkIdleBuffers(now_ms);
  UpdateClientSizes();
}

void Connection::UpdateClientSizes() {
  Client::Memory memory;
  memory.query = input_.size();
  memory.query_free = input_.capacity() - input_.size();
  memory.argv = parser_.MemoryUsage();
  memory.read = read_buf_.size();
  memory.output = PendingOutput();
  memory.total = sizeof(Connection) + input_.capacity() + memory.argv +
                 parsed_ahead_.MemoryUsage() + out_.capacity() + in_flight_.capacity() +
                 batch_replies_.capacity() + held_.size();
  client_.set_memory(memory);
}

void Connection::ShrinkIdleBuffers(int64_t now_ms) {
  const bool idle = now_ms - client_.last_interaction_ms() >= kIdleShrinkMs;
  // The query buffer: as Redis's clientsCron, when it is idle or much larger than what the
  // last period needed. Requests waiting in it are kept (the parser holds offsets, not
  // pointers, between runs).
  const size_t needed = std::max(input_.size(), input_peak_);
  const size_t spare = input_.capacity() - input_.size();
  if (input_.capacity() > kShrinkThresholdBytes && spare > kShrinkThresholdBytes &&
      (idle || needed < input_.capacity() / 2)) {
    if (input_.empty()) {
      std::string().swap(input_);
    } else {
      std::string smaller;
      smaller.reserve(needed);
      smaller.append(input_);
      input_.swap(smaller);
    }
  }
  input_peak_ = input_.size();
  if (!idle) return;
  if (parser_.MemoryUsage() > kShrinkThresholdBytes) parser_.ReleaseMemory();
  parsed_ahead_.ReleaseMemory();  // at most a hint's window of arguments
  if (out_.empty() && out_.capacity() > kShrinkThresholdBytes) std::string().swap(out_);
  if (!writing_ && in_flight_.capacity() > kShrinkThresholdBytes) std::string().swap(in_flight_);
  if (!sync_pending_ && held_.capacity() > kShrinkThresholdBytes) std::string().swap(held_);
}

}  // namespace ebb::server
