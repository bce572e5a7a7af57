#include "server/services/server_context.h"

#include <chrono>

#include "common/wall_clock.h"
#include "server/acl/acl.h"
#include "server/core/random_id.h"
#include "server/io/block_reader.h"
#include "types/keyspace.h"

namespace ebb::server {

ServerContext::ServerContext(ConfigRegistry* registry, const CommandTable* commands,
                             storage::PinnableClock* clock)
    : registry_(registry),
      commands_(commands),
      clock_(clock),
      start_time_ms_(WallMs()),
      run_id_(RandomHexId()) {
  // REQUIRES (ServerContext's contract): the registry outlives the context.
  registry_->OnChange([this](std::string_view name, const Config& config) {
    if (acl_ == nullptr) return;
    if (name == "requirepass") acl_->SetRequirePass(config.requirepass);
    if (name == "acl-pubsub-default") {
      acl_->set_pubsub_default_all(config.acl_pubsub_default == "allchannels");
    }
    if (name == "acllog-max-len") acl_->set_log_max_len(static_cast<size_t>(config.acllog_max_len));
  });
}

ServerContext::~ServerContext() = default;

scripting::ScriptEngine& ServerContext::scripts() {
  if (scripts_ == nullptr) scripts_ = script_engine_factory_(this);
  return *scripts_;
}

Acl& ServerContext::MakeAcl() {
  acl_ = std::make_unique<Acl>(commands_);
  acl_->SetRequirePass(config().requirepass);
  acl_->set_pubsub_default_all(config().acl_pubsub_default == "allchannels");
  acl_->set_log_max_len(static_cast<size_t>(config().acllog_max_len));
  return *acl_;
}

bool ServerContext::TooFewGoodReplicas() const {
  const Config& c = config();
  const auto& good_replicas = replication_probes_.good_replicas;
  if (c.min_replicas_max_lag_s == 0 || !good_replicas || is_replica_) return false;
  return good_replicas(WallMs(), c.min_replicas_max_lag_s) < c.min_replicas_to_write;
}

bool ServerContext::MasterLinkDown() const {
  return replication_probes_.master_link_up && !replication_probes_.master_link_up();
}

void ServerContext::RequestShutdown() {
  if (shutdown_requested_) return;
  shutdown_requested_ = true;
  if (shutdown_hook_) shutdown_hook_();
}

uint64_t ServerContext::KeyCount() {
  if (!has_keyspace()) return 0;
  const int databases = config().cluster_enabled ? 1 : config().databases;
  uint64_t keys = 0;
  for (int db = 0; db < databases; ++db) {
    const types::OpResult<uint64_t> count = keyspace().DbSize(db);
    if (count.ok()) keys += *count;
  }
  return keys;
}

ServerContext::Memory ServerContext::MemoryNow() {
  Memory memory;
  if (keyspace_ != nullptr) {
    const storage::Stats stats = keyspace_->db().GetStats();
    memory.memtables = stats.memtable_bytes;
    memory.table_metadata = stats.table_index_bytes + stats.table_filter_bytes;
    memory.tlog_cache = keyspace_->tlog_heads().bytes();
  }
  for (const auto& [id, client] : clients_.all()) memory.clients += client->memory().total;
  return memory;
}

void ServerContext::CollectLatencySamples() {
  const uint64_t disk_wait_us = block_reader_ != nullptr ? block_reader_->TakeLongestWaitUs() : 0;
  latency_.Collect(disk_wait_us, clock_->NowMs() / 1000, config().latency_monitor_threshold_ms);
}

bool ServerContext::OverMaxmemory() {
  const uint64_t limit = config().maxmemory;
  if (limit == 0) return false;
  const uint64_t now_ns = static_cast<uint64_t>(
      std::chrono::steady_clock::now().time_since_epoch() / std::chrono::nanoseconds(1));
  constexpr uint64_t kRefreshNs = 100'000'000;
  if (memory_checked_ns_ == 0 || now_ns - memory_checked_ns_ >= kRefreshNs) {
    memory_total_ = MemoryNow().total();
    memory_checked_ns_ = now_ns;
  }
  return memory_total_ > limit;
}

bool ServerContext::defer_sync() const { return keyspace_ != nullptr && keyspace_->defer_sync(); }

}  // namespace ebb::server
