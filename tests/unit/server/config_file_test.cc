#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "protocol/split_args.h"
#include "server/config/config.h"
#include "tests/unit/server/config_test_util.h"

namespace ebb::server {
namespace {

using config_test::ReadFile;
using config_test::ScratchDir;
using config_test::WriteFile;

TEST(ConfigFileTest, LoadsValuesQuotesCommentsAndBlankLines) {
  ScratchDir dir;
  const std::string path = dir.File("ebb.conf");
  WriteFile(path,
            "# a comment\n"
            "\n"
            "   # an indented comment\n"
            "PORT 7000\r\n"
            "bind 127.0.0.1 ::1\n"
            "requirepass \"s3cret with space\"\n"
            "logfile '/tmp/it\\'s'\n"
            "dir \"/x\\ty\"\n"
            "  memtable-size 1mb  \n"
            "expiration off\n"
            "default-ttl 2d7h32m\n"
            "ttl-rule session:* 30m\n"
            "ttl-rule 'cache:*' unlimited\n"
            "enable-debug-command local\n"
            "client-output-buffer-limit normal 1mb 512kb 10\n");
  ConfigRegistry r2;
  std::string error;
  ASSERT_TRUE(config_test::Succeeded(r2.LoadFile(path), &error)) << error;
  const Config& c = r2.config();
  EXPECT_EQ(c.port, 7000);
  EXPECT_EQ(c.bind, (std::vector<std::string>{"127.0.0.1", "::1"}));
  EXPECT_EQ(c.requirepass, "s3cret with space");
  EXPECT_EQ(c.logfile, "/tmp/it's");
  EXPECT_EQ(c.dir, "/x\ty");
  EXPECT_EQ(c.memtable_size, 1u << 20);
  EXPECT_FALSE(c.expiration);
  EXPECT_EQ(c.default_ttl_ms, 2 * 86400000LL + 7 * 3600000LL + 32 * 60000LL);
  EXPECT_EQ(c.ttl_rules, (std::vector<TtlRule>{{"session:*", 1800000}, {"cache:*", -1}}));
  EXPECT_EQ(c.enable_debug_command, DebugCommandPolicy::kLocal);
  EXPECT_EQ(c.client_output_buffer_limit_normal.hard_bytes, 1u << 20);
  EXPECT_EQ(c.client_output_buffer_limit_normal.soft_bytes, 512u << 10);
  EXPECT_EQ(c.client_output_buffer_limit_normal.soft_seconds, 10);
  EXPECT_EQ(r2.config_file(), path);
  // Untouched options keep their defaults.
  EXPECT_EQ(c.databases, 16);
  EXPECT_EQ(c.wal_fsync, "everysec");
}

TEST(ConfigFileTest, ErrorsNameFileLineAndOption) {
  ScratchDir dir;
  const std::string path = dir.File("bad.conf");
  struct Case {
    std::string text;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"port 1\nprot 6379\n", ":2: unknown option 'prot'"},
      {"port x\n", ":1: invalid value 'x' for 'port': argument couldn't be parsed into an integer"},
      {"\n\nport 70000\n",
       ":3: invalid value '70000' for 'port': argument must be between 0 and 65535 inclusive"},
      {"port 1 2\n", ":1: wrong number of arguments for 'port'"},
      {"port\n", ":1: wrong number of arguments for 'port'"},
      {"ttl-rule a:*\n", ":1: wrong number of arguments for 'ttl-rule'"},
      {"ttl-rule a:* 5x\n", ":1: invalid value 'a:* 5x' for 'ttl-rule': invalid duration '5x'"},
      {"default-ttl -5s\n", ":1: invalid value '-5s' for 'default-ttl': invalid duration '-5s'"},
      {"protected-mode maybe\n",
       ":1: invalid value 'maybe' for 'protected-mode': argument must be 'yes' or 'no'"},
      {"wal-fsync sometimes\n",
       ":1: invalid value 'sometimes' for 'wal-fsync': argument(s) must be one of the following: "
       "always, everysec, no"},
      {"block-cache-size lots\n",
       ":1: invalid value 'lots' for 'block-cache-size': argument must be a memory value"},
      {"requirepass \"abc\n", ":1: unbalanced quotes in configuration line"},
  };
  for (const Case& c : cases) {
    WriteFile(path, c.text);
    ConfigRegistry r;
    std::string error;
    EXPECT_FALSE(config_test::Succeeded(r.LoadFile(path), &error)) << c.text;
    EXPECT_EQ(error, path + c.error) << c.text;
  }
  ConfigRegistry r;
  std::string error;
  EXPECT_FALSE(config_test::Succeeded(r.LoadFile(dir.File("missing.conf")), &error));
  EXPECT_EQ(error, "can't open config file '" + dir.File("missing.conf") + "'");
}

TEST(ConfigFileTest, RepeatedLines) {
  ScratchDir dir;
  const std::string path = dir.File("ebb.conf");
  WriteFile(path, "port 1\nport 2\nbind 10.0.0.1\nbind 10.0.0.2 10.0.0.3\n");
  ConfigRegistry r;
  std::string error;
  ASSERT_TRUE(config_test::Succeeded(r.LoadFile(path), &error)) << error;
  EXPECT_EQ(r.config().port, 2);  // the last line wins
  EXPECT_EQ(r.config().bind, (std::vector<std::string>{"10.0.0.2", "10.0.0.3"}));
}

// conf/ebb.conf must list every option with its default, so it cannot drift from the table.
TEST(ConfigFileTest, ShippedConfListsEveryOptionWithItsDefault) {
  const std::string path = std::string(EBB_SOURCE_DIR) + "/conf/ebb.conf";
  const std::string text = ReadFile(path);
  ASSERT_FALSE(text.empty()) << path;

  ConfigRegistry loaded;
  std::string error;
  ASSERT_TRUE(config_test::Succeeded(loaded.LoadFile(path), &error)) << error;
  EXPECT_EQ(loaded.Get("*"), ConfigRegistry().Get("*"));  // every value is the default

  std::vector<std::string> active, commented;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::vector<std::string> args;
    std::string line = text.substr(start, end - start);
    if (line.rfind("# ", 0) == 0) {
      if (protocol::SplitArgs(line.substr(2), &args) && !args.empty()) {
        commented.push_back(args[0]);
      }
    } else if (protocol::SplitArgs(line, &args) && !args.empty()) {
      active.push_back(args[0]);
    }
    start = end + 1;
  }
  for (const auto& info : ConfigRegistry().Options()) {
    bool listed = std::count(active.begin(), active.end(), info.name) == 1;
    // An option whose default is an empty list (ttl-rule) is shown as a commented example.
    if (info.default_text.empty() && !listed) {
      listed = std::count(commented.begin(), commented.end(), info.name) > 0;
    }
    EXPECT_TRUE(listed) << info.name;
    EXPECT_NE(text.find("# " + info.doc), std::string::npos) << info.name;
  }
  // The server starts from the repo root with this file.
  EXPECT_EQ(loaded.config().dir, "./data");
  EXPECT_EQ(loaded.config().port, 6379);
  EXPECT_EQ(loaded.config().bind, (std::vector<std::string>{"127.0.0.1", "-::1"}));
}

TEST(ConfigFileTest, RewriteKeepsCommentsAndOrderAndUpdatesInPlace) {
  ScratchDir dir;
  const std::string path = dir.File("ebb.conf");
  WriteFile(path,
            "# top comment\n"
            "port 7000\n"
            "\n"
            "# rules\n"
            "ttl-rule a:* 1h\n"
            "maxclients 50\n"
            "ttl-rule b:* 2h\n"
            "loglevel notice\n");
  ConfigRegistry r;
  std::string error;
  ASSERT_TRUE(config_test::Succeeded(r.LoadFile(path), &error)) << error;
  ASSERT_EQ(ConfigErrorText(r.Set("maxclients", "77"), "maxclients"), "");
  ASSERT_EQ(ConfigErrorText(r.Set("ttl-rule", "x:* 30m y:* unlimited"), "ttl-rule"), "");
  ASSERT_EQ(ConfigErrorText(r.Set("requirepass", "p w\"d"), "requirepass"), "");
  ASSERT_EQ(ConfigErrorText(r.Set("wal-fsync", "everysec"), "wal-fsync"),
            "");  // the default: not appended
  ASSERT_EQ(ConfigErrorText(r.Rewrite()), "");
  EXPECT_EQ(ReadFile(path),
            "# top comment\n"
            "port 7000\n"
            "\n"
            "# rules\n"
            "ttl-rule x:* 30m\n"
            "ttl-rule y:* unlimited\n"
            "maxclients 77\n"
            "loglevel notice\n"
            "# Generated by CONFIG REWRITE\n"
            "requirepass \"p w\\\"d\"\n");

  // Round trip: loading the rewritten file gives the same values.
  ConfigRegistry again;
  ASSERT_TRUE(config_test::Succeeded(again.LoadFile(path), &error)) << error;
  EXPECT_EQ(again.Get("*"), r.Get("*"));

  // Rewriting again changes nothing.
  const std::string once = ReadFile(path);
  ASSERT_EQ(ConfigErrorText(again.Rewrite()), "");
  EXPECT_EQ(ReadFile(path), once);
}

// A file kept under version control gets a diff only where a value changed: lines whose option
// still has the file's value stay as written (units, case, one client class of several).
TEST(ConfigFileTest, RewriteKeepsUnchangedLinesAsWritten) {
  ScratchDir dir;
  const std::string path = dir.File("ebb.conf");
  WriteFile(path,
            "memtable-size 64mb\n"
            "client-output-buffer-limit normal 0 0 0\n"
            "MaxClients 50\n"
            "lua-memory-limit 256MB\n");
  ConfigRegistry r;
  std::string error;
  ASSERT_TRUE(config_test::Succeeded(r.LoadFile(path), &error)) << error;
  ASSERT_EQ(ConfigErrorText(r.Rewrite()), "");
  EXPECT_EQ(ReadFile(path),
            "memtable-size 64mb\n"
            "client-output-buffer-limit normal 0 0 0\n"
            "MaxClients 50\n"
            "lua-memory-limit 256MB\n");
  ASSERT_EQ(ConfigErrorText(r.Set("maxclients", "60"), "maxclients"), "");
  ASSERT_EQ(ConfigErrorText(r.Set("lua-memory-limit", "128mb"), "lua-memory-limit"), "");
  ASSERT_EQ(ConfigErrorText(r.Rewrite()), "");
  EXPECT_EQ(ReadFile(path),
            "memtable-size 64mb\n"
            "client-output-buffer-limit normal 0 0 0\n"
            "maxclients 60\n"
            "lua-memory-limit 134217728\n");
  ASSERT_EQ(ConfigErrorText(r.Set("maxclients", "50"), "maxclients"),
            "");  // the first file's value again
  ASSERT_EQ(ConfigErrorText(r.Rewrite()), "");
  EXPECT_NE(ReadFile(path).find("maxclients 50\n"), std::string::npos) << ReadFile(path);
}

TEST(ConfigFileTest, RewriteDropsListLinesWhenListEmptied) {
  ScratchDir dir;
  const std::string path = dir.File("ebb.conf");
  WriteFile(path, "ttl-rule a:* 1h\nttl-rule b:* 2h\nport 1\n");
  ConfigRegistry r;
  std::string error;
  ASSERT_TRUE(config_test::Succeeded(r.LoadFile(path), &error)) << error;
  ASSERT_EQ(ConfigErrorText(r.Set("ttl-rule", ""), "ttl-rule"), "");
  EXPECT_TRUE(r.config().ttl_rules.empty());
  ASSERT_EQ(ConfigErrorText(r.Rewrite()), "");
  EXPECT_EQ(ReadFile(path), "port 1\n");
}

TEST(ConfigFileTest, RewriteWithoutFileFails) {
  ConfigRegistry r;
  const Result<ConfigCode> rewritten = r.Rewrite();
  EXPECT_EQ(rewritten.code(), ConfigCode::kNoConfigFile);
  EXPECT_EQ(ConfigErrorText(rewritten), "ERR The server is running without a config file");
}

}  // namespace
}  // namespace ebb::server
