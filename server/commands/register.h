// The registration functions of every command area. Each area's file
// (server/commands/<area>.cc) defines one and adds its rows to the table at the bottom of the
// file; RegisterAllCommands (register_all.cc) calls them all.
#pragma once

namespace ebb::server {

class CommandTable;

// server/ core (H4).
void RegisterConnectionCommands(CommandTable& table);   // PING ECHO HELLO AUTH SELECT QUIT RESET
void RegisterServerCommands(CommandTable& table);       // TIME SHUTDOWN
void RegisterClientCommands(CommandTable& table);       // CLIENT ...
void RegisterConfigCommands(CommandTable& table);       // CONFIG ...
void RegisterInfoCommands(CommandTable& table);         // INFO
void RegisterCommandDocsCommands(CommandTable& table);  // COMMAND ...
void RegisterDebugCommands(CommandTable& table);        // DEBUG ...

// Types (H5, H6, H7).
void RegisterStringCommands(CommandTable& table);  // strings.cc
void RegisterKvCommands(CommandTable& table);      // kv.cc: PUT GETMETA DELETE
void RegisterKeyCommands(CommandTable& table);     // keys.cc: DEL EXISTS TYPE KEYS SCAN ...
void RegisterExpireCommands(CommandTable& table);  // expire.cc: EXPIRE TTL PERSIST ...
void RegisterTlogCommands(CommandTable& table);    // tlog.cc
void RegisterTregCommands(CommandTable& table);    // treg.cc

// Every command ebb serves.
void RegisterAllCommands(CommandTable& table);

}  // namespace ebb::server
