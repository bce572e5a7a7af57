#include "server/command.h"
#include "server/commands/register.h"

namespace ebb::server {

void RegisterAllCommands(CommandTable& table) {
  RegisterConnectionCommands(table);
  RegisterServerCommands(table);
  RegisterClientCommands(table);
  RegisterConfigCommands(table);
  RegisterInfoCommands(table);
  RegisterCommandDocsCommands(table);
  RegisterDebugCommands(table);
  RegisterStringCommands(table);
  RegisterKvCommands(table);
  RegisterKeyCommands(table);
  RegisterExpireCommands(table);
  RegisterTlogCommands(table);
  RegisterTregCommands(table);
}

}  // namespace ebb::server
