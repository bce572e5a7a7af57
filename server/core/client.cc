#include "server/core/client.h"

#include <fmt/format.h>

namespace ebb::server {

bool IsValidClientName(std::string_view name) {
  for (char c : name) {
    if (c < '!' || c > '~') return false;
  }
  return true;
}

void Client::RequestClose() {
  if (close_requested_) return;
  close_requested_ = true;
  if (close_hook_) close_hook_();
}

std::string Client::InfoLine(int64_t now_ms, std::string_view user) const {
  // Redis's flags: O a monitor, S a replica, M the master's link, P in subscriber mode, x inside
  // MULTI, r READONLY (cluster), N for none.
  std::string flags;
  if (is_monitor_) flags += 'O';
  if (is_replica_) flags += 'S';
  if (is_master_link_) flags += 'M';
  if (in_subscriber_mode()) flags += 'P';
  if (multi_.active) flags += 'x';
  if (cluster_readonly_) flags += 'r';
  if (flags.empty()) flags = "N";
  const int64_t multi = multi_.active ? static_cast<int64_t>(multi_.queued.size()) : -1;
  return fmt::format(
      "id={} addr={} laddr={} fd={} name={} age={} idle={} flags={} db={} sub={} psub={} ssub={} "
      "multi={} qbuf={} qbuf-free={} argv-mem={} multi-mem=0 rbs={} rbp=0 obl=0 oll=0 omem={} "
      "tot-mem={} events=r cmd={} user={} redir=-1 resp={} lib-name={} lib-ver={}",
      id_, addr_, laddr_, fd_, name_, age_s(now_ms), idle_s(now_ms), flags, db_index_,
      pubsub_.channels.size(), pubsub_.patterns.size(), pubsub_.shard_channels.size(), multi,
      memory_.query, memory_.query_free, memory_.argv, memory_.read, memory_.output, memory_.total,
      last_command_, user, resp_, lib_name_, lib_ver_);
}

Client* ClientRegistry::Find(uint64_t id) const {
  auto it = clients_.find(id);
  return it == clients_.end() ? nullptr : it->second;
}

}  // namespace ebb::server
