// The command areas. Each file server/commands/cmd_<area>.cc ends with the function that returns
// its rows; RegisterAllCommands (register.cc) adds them all to the table.
#pragma once

#include <vector>

#include "server/core/command.h"

namespace ebb::server {

std::vector<CommandSpec> ConnectionCommands();   // PING ECHO HELLO AUTH SELECT QUIT RESET
std::vector<CommandSpec> ServerCommands();       // TIME SHUTDOWN
std::vector<CommandSpec> ClientCommands();       // CLIENT ...
std::vector<CommandSpec> ConfigCommands();       // CONFIG ...
std::vector<CommandSpec> AclCommands();          // ACL ...
std::vector<CommandSpec> InfoCommands();         // INFO
std::vector<CommandSpec> SlowlogCommands();      // SLOWLOG ...
std::vector<CommandSpec> LatencyCommands();      // LATENCY ...
std::vector<CommandSpec> MemoryCommands();       // MEMORY ...
std::vector<CommandSpec> CommandCommands();      // COMMAND ...
std::vector<CommandSpec> DebugCommands();        // DEBUG ...
std::vector<CommandSpec> StringCommands();       // SET GETEX MSET INCR ... (cmd_string.cc)
std::vector<CommandSpec> BitCommands();          // SETBIT GETBIT BITCOUNT BITPOS BITOP
std::vector<CommandSpec> BitFieldCommands();     // BITFIELD BITFIELD_RO
std::vector<CommandSpec> LcsCommands();          // LCS
std::vector<CommandSpec> ObjectCommands();       // OBJECT ... TOUCH (cmd_object.cc)
std::vector<CommandSpec> KvCommands();           // PUT GET GETMETA DELETE (cmd_kv.cc)
std::vector<CommandSpec> KeyCommands();          // DEL EXISTS TYPE KEYS SCAN ... (cmd_keys.cc)
std::vector<CommandSpec> RenameCommands();       // RENAME RENAMENX COPY MOVE (cmd_rename.cc)
std::vector<CommandSpec> DumpCommands();         // DUMP RESTORE (cmd_dump.cc)
std::vector<CommandSpec> MigrateCommands();      // MIGRATE (cmd_migrate.cc)
std::vector<CommandSpec> ExpireCommands();       // EXPIRE TTL PERSIST ... (cmd_expire.cc)
std::vector<CommandSpec> TlogCommands();         // TLOG ...
std::vector<CommandSpec> TregCommands();         // TREG ...
std::vector<CommandSpec> SeriesCommands();       // TS.CREATE, TS.ADD, TS.RANGE, ...
std::vector<CommandSpec> SeriesReadCommands();   // TS.GET TS.RANGE TS.REVRANGE TS.INFO
std::vector<CommandSpec> SeriesRuleCommands();   // TS.CREATERULE TS.DELETERULE
std::vector<CommandSpec> SeriesQueryCommands();  // TS.QUERYINDEX TS.MGET TS.MRANGE TS.MREVRANGE
std::vector<CommandSpec> TransactionCommands();  // MULTI EXEC DISCARD WATCH UNWATCH
std::vector<CommandSpec> PubSubCommands();       // (P|S)(UN)SUBSCRIBE (S)PUBLISH PUBSUB
std::vector<CommandSpec> ScriptingCommands();    // EVAL EVALSHA EVAL_RO EVALSHA_RO SCRIPT
std::vector<CommandSpec> ReplicationCommands();  // REPLCONF PSYNC ROLE WAIT
std::vector<CommandSpec> ClusterCommands();      // CLUSTER ... (cmd_cluster.cc)
std::vector<CommandSpec>
ClusterClientCommands();                  // ASKING READONLY READWRITE (cmd_cluster_keys.cc)
std::vector<CommandSpec> PeerCommands();  // PEER ... (cmd_peer.cc)

// Every command ebb serves.
void RegisterAllCommands(CommandTable& table);

}  // namespace ebb::server
