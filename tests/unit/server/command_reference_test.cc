// docs/commands.md against the rows: its generated tables are current, and every command and
// subcommand has a section of its own.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "common/strings.h"
#include "server/commands/register.h"
#include "server/config/config.h"
#include "server/core/command.h"
#include "server/services/command_docs.h"

namespace ebb::server {
namespace {

std::string ReadDoc() {
  std::ifstream in(std::string(EBB_SOURCE_DIR) + "/docs/commands.md", std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class CommandReferenceTest : public ::testing::Test {
 protected:
  CommandReferenceTest() { RegisterAllCommands(table_); }
  CommandTable table_;
  ConfigRegistry registry_;
};

TEST_F(CommandReferenceTest, GeneratedTablesAreCurrent) {
  const std::string doc = ReadDoc();
  ASSERT_FALSE(doc.empty());
  EXPECT_EQ(UpdateGeneratedReference(doc, table_, registry_), doc)
      << "docs/commands.md is stale: run `make command-docs`";
  EXPECT_NE(doc.find(CommandReference(table_)), std::string::npos);
  EXPECT_NE(doc.find(OptionReference(registry_)), std::string::npos);
}

// Each command ("SET") and subcommand ("TLOG INS") is named in a heading of the reference, where
// its reply, errors and semantics are written.
TEST_F(CommandReferenceTest, EveryCommandHasASection) {
  std::string headings;
  std::istringstream lines(ReadDoc());
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("#")) headings += line + " \n";
  }
  auto named = [&headings](const std::string& name) {
    for (size_t at = headings.find(name); at != std::string::npos;
         at = headings.find(name, at + 1)) {
      const char before = at == 0 ? ' ' : headings[at - 1];
      const char after = headings[at + name.size()];
      if ((before == ' ' || before == ',' || before == '`') &&
          (after == ' ' || after == ',' || after == '`')) {
        return true;
      }
    }
    return false;
  };
  for (const auto& [name, spec] : table_.rows()) {
    const std::string upper = AsciiUpper(name);
    if (spec.subcommands.empty() || spec.handler != nullptr) {
      EXPECT_TRUE(named(upper)) << upper << " has no section in docs/commands.md";
    }
    for (const CommandSpec& sub : spec.subcommands) {
      const std::string full = upper + " " + AsciiUpper(sub.name);
      EXPECT_TRUE(named(full)) << full << " has no section in docs/commands.md";
    }
  }
}

TEST_F(CommandReferenceTest, UpdateReplacesOnlyTheBlocks) {
  const std::string doc =
      "intro\n<!-- begin: generated from the command rows -->\nold\nrows\n"
      "<!-- end of generated block -->\nmiddle\n";
  const std::string updated = UpdateGeneratedReference(doc, table_, registry_);
  EXPECT_TRUE(updated.starts_with("intro\n<!-- begin: generated from the command rows -->\n\n"));
  EXPECT_TRUE(updated.ends_with("\n<!-- end of generated block -->\nmiddle\n"));
  EXPECT_EQ(updated.find("old\nrows"), std::string::npos);
  EXPECT_NE(updated.find("| `TLOG INS key value timestamp` | tlog | write denyoom |"),
            std::string::npos)
      << updated;
  EXPECT_EQ(UpdateGeneratedReference(updated, table_, registry_), updated);
}

}  // namespace
}  // namespace ebb::server
