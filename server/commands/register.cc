#include "server/commands/register.h"

namespace ebb::server {

void RegisterAllCommands(CommandTable& table) {
  for (auto area : {ConnectionCommands, ServerCommands,    ClientCommands,      ConfigCommands,
                    InfoCommands,       CommandCommands,   DebugCommands,       StringCommands,
                    BitCommands,        BitFieldCommands,  LcsCommands,         ObjectCommands,
                    KvCommands,         KeyCommands,       RenameCommands,      DumpCommands,
                    ExpireCommands,     TlogCommands,      TregCommands,        TransactionCommands,
                    PubSubCommands,     ScriptingCommands, ReplicationCommands, AclCommands,
                    MigrateCommands,    ClusterCommands,   PeerCommands,        SlowlogCommands,
                    MemoryCommands,     LatencyCommands,   SeriesCommands}) {
    table.Add(area());
  }
  table.Add(ClusterClientCommands());
  table.Add(SeriesReadCommands());
  table.Add(SeriesRuleCommands());
  table.Add(SeriesQueryCommands());
}

}  // namespace ebb::server
