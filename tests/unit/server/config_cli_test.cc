#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "server/config/config.h"
#include "tests/support/temp_path.h"
#include "tests/unit/server/config_test_util.h"

namespace ebb::server {
namespace {

// argv for ParseCommandLine; owns the strings.
class Argv {
 public:
  explicit Argv(std::vector<std::string> args) : args_(std::move(args)) {
    args_.insert(args_.begin(), "ebb-server");
    for (std::string& a : args_) ptrs_.push_back(a.data());
    ptrs_.push_back(nullptr);
  }
  int argc() const { return static_cast<int>(args_.size()); }
  char** argv() { return ptrs_.data(); }

 private:
  std::vector<std::string> args_;
  std::vector<char*> ptrs_;
};

TEST(ConfigCliTest, FlagsApplyAfterTheFile) {
  config_test::ScratchDir dir;
  const std::string path = dir.File("ebb.conf");
  config_test::WriteFile(path, "port 7000\ndatabases 4\nttl-rule f:* 1h\n");
  Argv args({path, "--port", "7001", "--dir", "/var/ebb", "--ttl-rule", "a:*", "1h", "--ttl-rule",
             "b:*", "2d", "--bind", "127.0.0.1", "::1", "--expiration", "off"});
  ConfigRegistry r;
  std::string error;
  bool exit_now = true;
  ASSERT_TRUE(
      config_test::Succeeded(r.ParseCommandLine(args.argc(), args.argv(), &exit_now), &error))
      << error;
  EXPECT_FALSE(exit_now);
  EXPECT_EQ(r.config().port, 7001);
  EXPECT_EQ(r.config().databases, 4);
  EXPECT_EQ(r.config().dir, "/var/ebb");
  // Command-line rules replace the file's.
  EXPECT_EQ(r.config().ttl_rules,
            (std::vector<TtlRule>{{"a:*", 3600000}, {"b:*", 2 * 86400000LL}}));
  EXPECT_EQ(r.config().bind, (std::vector<std::string>{"127.0.0.1", "::1"}));
  EXPECT_FALSE(r.config().expiration);
  EXPECT_EQ(r.config_file(), path);
}

TEST(ConfigCliTest, NoArguments) {
  Argv args({});
  ConfigRegistry r;
  std::string error;
  bool exit_now = true;
  ASSERT_TRUE(
      config_test::Succeeded(r.ParseCommandLine(args.argc(), args.argv(), &exit_now), &error))
      << error;
  EXPECT_FALSE(exit_now);
  EXPECT_EQ(r.Get("*"), ConfigRegistry().Get("*"));
  EXPECT_EQ(r.config_file(), "");
}

TEST(ConfigCliTest, BadValuesAndUnknownFlags) {
  struct Case {
    std::vector<std::string> args;
    std::string error_contains;
  };
  const std::vector<Case> cases = {
      {{"--port", "x"}, "invalid value 'x' for '--port': argument couldn't be parsed"},
      {{"--default-ttl", "5x"}, "invalid duration '5x'"},
      {{"--no-such-option", "1"}, "no-such-option"},
      {{"--ttl-rule", "a:*"}, "ttl-rule"},
      {{"/nonexistent/ebb.conf"}, "can't open config file '/nonexistent/ebb.conf'"},
  };
  for (const Case& c : cases) {
    Argv args(c.args);
    ConfigRegistry r;
    std::string error;
    bool exit_now = false;
    EXPECT_FALSE(
        config_test::Succeeded(r.ParseCommandLine(args.argc(), args.argv(), &exit_now), &error))
        << c.args[0];
    EXPECT_NE(error.find(c.error_contains), std::string::npos) << error;
    EXPECT_FALSE(exit_now);
  }
}

TEST(ConfigCliTest, ErrorsSayWhetherTheFileOrTheCommandLineWasAtFault) {
  struct Case {
    std::vector<std::string> args;
    bool in_file;
  };
  const std::string conf = test::ProcessTempPath("ebb-cli-bad", "conf");
  {
    std::ofstream out(conf);
    out << "port nope\n";
  }
  for (const Case& c : std::vector<Case>{{{"--port", "x"}, false},
                                         {{"--no-such-option", "1"}, false},
                                         {{"-x"}, false},
                                         {{"/nonexistent/ebb.conf"}, true},
                                         {{conf}, true},
                                         {{conf, "--port", "x"}, true}}) {
    Argv args(c.args);
    ConfigRegistry r;
    bool exit_now = false;
    const Result<ConfigCode> parsed = r.ParseCommandLine(args.argc(), args.argv(), &exit_now);
    ASSERT_FALSE(parsed.ok()) << c.args[0];
    const bool in_file = parsed.code() != ConfigCode::kBadCommandLine;
    EXPECT_EQ(in_file, c.in_file) << c.args[0] << ": " << ConfigErrorText(parsed);
  }
  std::remove(conf.c_str());
}

// The string rule is read at start: either value, and a clear error for any other.
TEST(ConfigCliTest, TheStringRuleTakesTimestampOrObservedRemove) {
  for (const std::string value : {"timestamp", "observed-remove"}) {
    Argv args({"--active-active-string-rule", value});
    ConfigRegistry r;
    std::string error;
    bool exit_now = false;
    EXPECT_TRUE(
        config_test::Succeeded(r.ParseCommandLine(args.argc(), args.argv(), &exit_now), &error))
        << error;
    EXPECT_EQ(r.config().active_active_string_rule, value);
  }
  Argv args({"--active-active-string-rule", "vector-clock"});
  ConfigRegistry r;
  bool exit_now = false;
  const Result<ConfigCode> parsed = r.ParseCommandLine(args.argc(), args.argv(), &exit_now);
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(ConfigErrorText(parsed).find("timestamp, observed-remove"), std::string::npos)
      << ConfigErrorText(parsed);
  EXPECT_EQ(r.config().active_active_string_rule, "timestamp");
}

TEST(ConfigCliTest, VersionFirstPrintsTheVersionLineAndAsksToExit) {
  EXPECT_EQ(VersionLine(),
            "ebb server v=" EBB_VERSION " bits=" + std::to_string(8 * sizeof(void*)));
  for (const char* flag : {"-v", "--version"}) {
    Argv args({flag, "--port", "x"});  // nothing after it is read, as redis-server
    ConfigRegistry r;
    std::string error;
    bool exit_now = false;
    testing::internal::CaptureStdout();
    EXPECT_TRUE(
        config_test::Succeeded(r.ParseCommandLine(args.argc(), args.argv(), &exit_now), &error))
        << error;
    EXPECT_EQ(testing::internal::GetCapturedStdout(), VersionLine() + "\n");
    EXPECT_TRUE(exit_now);
  }
}

TEST(ConfigCliTest, HelpListsEveryOptionAndAsksToExit) {
  Argv args({"--help"});
  ConfigRegistry r;
  std::string error;
  bool exit_now = false;
  testing::internal::CaptureStdout();
  EXPECT_TRUE(
      config_test::Succeeded(r.ParseCommandLine(args.argc(), args.argv(), &exit_now), &error));
  const std::string help = testing::internal::GetCapturedStdout();
  EXPECT_TRUE(exit_now);
  for (const auto& o : r.Options()) EXPECT_NE(help.find("--" + o.name), std::string::npos);
}

// Parses `args` into a fresh registry; the test fails on an error.
void ParseOk(ConfigRegistry* r, std::vector<std::string> args) {
  Argv argv(std::move(args));
  std::string error;
  bool exit_now = true;
  ASSERT_TRUE(
      config_test::Succeeded(r->ParseCommandLine(argv.argc(), argv.argv(), &exit_now), &error))
      << error;
  EXPECT_FALSE(exit_now);
}

TEST(ConfigCliTest, ValuesAsRedisServerReadsThem) {
  ConfigRegistry r;
  // A multi-valued option in one argument; a value with spaces; name and value in one argument;
  // a value that starts with "--" after a lone name; --name=value.
  ParseOk(&r, {"--client-output-buffer-limit", "normal 8mb 4mb 5", "--requirepass", "two words",
               "--port 7002", "--logfile", "--odd--name", "--databases=3"});
  EXPECT_EQ(r.config().client_output_buffer_limit_normal.hard_bytes, 8u << 20);
  EXPECT_EQ(r.config().client_output_buffer_limit_normal.soft_bytes, 4u << 20);
  EXPECT_EQ(r.config().client_output_buffer_limit_normal.soft_seconds, 5);
  EXPECT_EQ(r.config().requirepass, "two words");
  EXPECT_EQ(r.config().port, 7002);
  EXPECT_EQ(r.config().logfile, "--odd--name");
  EXPECT_EQ(r.config().databases, 3);

  // Several words after one option; several limits in one argument; a whole quoted line.
  ConfigRegistry classes;
  ParseOk(&classes, {"--client-output-buffer-limit", "pubsub", "64mb", "16mb", "90",
                     "--client-output-buffer-limit", "normal 1mb 1mb 1 pubsub 2mb 2mb 2",
                     "--bind \"127.0.0.1\" '::1'"});
  EXPECT_EQ(classes.config().client_output_buffer_limit_pubsub.hard_bytes, 2u << 20);
  EXPECT_EQ(classes.config().client_output_buffer_limit_normal.hard_bytes, 1u << 20);
  EXPECT_EQ(classes.config().bind, (std::vector<std::string>{"127.0.0.1", "::1"}));
}

TEST(ConfigCliTest, RedisOnlyOptionsAreAcceptedAndNoted) {
  ConfigRegistry r;
  ParseOk(&r, {"--save", "", "--appendonly", "yes", "--appendfsync", "always", "--dbfilename",
               "dump.rdb", "--port", "7003", "--save"});
  EXPECT_EQ(r.config().wal_fsync, "always");
  EXPECT_EQ(r.config().port, 7003);
  ASSERT_EQ(r.notices().size(), 4u);
  EXPECT_EQ(r.notices()[0],
            "Ignoring Redis option 'save \"\"': ebb persists every write through its WAL and "
            "tables (wal-fsync), not RDB or AOF files");
  EXPECT_TRUE(r.notices()[1].starts_with("Ignoring Redis option 'appendonly yes': "))
      << r.notices()[1];
  EXPECT_TRUE(r.notices()[2].starts_with("Ignoring Redis option 'dbfilename dump.rdb': "));
  EXPECT_TRUE(r.notices()[3].starts_with("Ignoring Redis option 'save \"\"': "));

  // `--save` followed by another option is save "", and the option still applies.
  ConfigRegistry lone;
  ParseOk(&lone, {"--save", "--port", "7004", "--appendfsync", "no"});
  EXPECT_EQ(lone.config().port, 7004);
  EXPECT_EQ(lone.config().wal_fsync, "no");
  EXPECT_EQ(lone.notices().size(), 1u);

  // appendfsync takes wal-fsync's values only.
  Argv bad({"--appendfsync", "sometimes"});
  ConfigRegistry refused;
  std::string error;
  bool exit_now = false;
  EXPECT_FALSE(
      config_test::Succeeded(refused.ParseCommandLine(bad.argc(), bad.argv(), &exit_now), &error));
  EXPECT_NE(error.find("for '--wal-fsync'"), std::string::npos) << error;
}

TEST(ConfigCliTest, FileWrittenForRedisLoads) {
  config_test::ScratchDir dir;
  const std::string path = dir.File("redis.conf");
  config_test::WriteFile(path,
                         "# written for Redis\n"
                         "save 900 1\nsave 300 10\n"
                         "appendonly no\nappendfilename \"appendonly.aof\"\n"
                         "appendfsync everysec\nrdbcompression yes\ndbfilename dump.rdb\n"
                         "client-output-buffer-limit \"pubsub 16mb 4mb 30\"\n"
                         "requirepass \"with space\"\n"
                         "port 7005\n");
  ConfigRegistry r;
  ParseOk(&r, {path, "--client-output-buffer-limit", "normal 8mb 4mb 5"});
  EXPECT_EQ(r.config().port, 7005);
  EXPECT_EQ(r.config().requirepass, "with space");
  EXPECT_EQ(r.config().wal_fsync, "everysec");
  EXPECT_EQ(r.config().client_output_buffer_limit_pubsub.hard_bytes, 16u << 20);
  EXPECT_EQ(r.config().client_output_buffer_limit_normal.hard_bytes, 8u << 20);
  EXPECT_EQ(r.notices().size(), 6u);
}

}  // namespace
}  // namespace ebb::server
