// ebb-command-reference <docs/commands.md>: rewrites the generated blocks of the command
// reference (the command table and the option table) from the command rows and the option table
// (server/services/command_docs.h). `make command-docs` runs it; a unit test fails when the file is
// stale.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "server/commands/register.h"
#include "server/config/config.h"
#include "server/core/command.h"
#include "server/services/command_docs.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: ebb-command-reference <docs/commands.md>\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << "cannot read " << argv[1] << "\n";
    return 1;
  }
  std::stringstream text;
  text << in.rdbuf();
  ebb::server::CommandTable table;
  ebb::server::RegisterAllCommands(table);
  ebb::server::ConfigRegistry registry;
  const std::string updated = ebb::server::UpdateGeneratedReference(text.str(), table, registry);
  std::ofstream out(argv[1], std::ios::binary | std::ios::trunc);
  out << updated;
  return out ? 0 : 1;
}
