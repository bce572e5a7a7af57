// INFO replication: this server is a master with no replicas.
#include <string>

#include "server/commands/info_sections.h"

namespace ebb::server {

void InfoReplication(ServerContext&, std::string* out) {
  *out +=
      "# Replication\r\nrole:master\r\nconnected_slaves:0\r\nmaster_failover_state:no-failover\r\n"
      "master_repl_offset:0\r\nsecond_repl_offset:-1\r\nrepl_backlog_active:0\r\n";
}

}  // namespace ebb::server
